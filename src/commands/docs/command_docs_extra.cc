// Hand-written COMMAND DOCS / COMMAND INFO data for commands and subcommands that redis-server
// 7.0.15 does not have (so tools/gen_command_docs.py cannot fetch them), written from the Redis
// documentation of the version that introduced them. Each entry gives the same two RESP3 parts
// as a generated one: the COMMAND INFO tail (tips, key specs) and the COMMAND DOCS pairs.
//
// Add an entry here when you add such a command to the table; the table test fails for a row
// without documentation. Keep the matching line in tests/data/command_list_extra.txt.
#include <initializer_list>
#include <string>
#include <utility>

#include "command_docs_internal.h"

namespace streamd::cmd::docs {

namespace {

// RESP3 builders. Every function returns the encoding of one value.
std::string bulk(std::string_view s) {
  return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n";
}
[[maybe_unused]] std::string integer(long long v) {
  return ":" + std::to_string(v) + "\r\n";
}
std::string aggregate(char type, std::initializer_list<std::string> items) {
  std::string out = type + std::to_string(items.size()) + "\r\n";
  for (const auto& i : items) out += i;
  return out;
}
std::string array(std::initializer_list<std::string> items) {
  return aggregate('*', items);
}
// A set of simple strings (argument flags, key spec flags).
[[maybe_unused]] std::string flags(std::initializer_list<std::string_view> names) {
  std::string out = "~" + std::to_string(names.size()) + "\r\n";
  for (auto n : names) out += "+" + std::string(n) + "\r\n";
  return out;
}
// A set of bulk strings (command tips).
std::string tips(std::initializer_list<std::string_view> names) {
  std::string out = "~" + std::to_string(names.size()) + "\r\n";
  for (auto n : names) out += bulk(n);
  return out;
}
using Pairs = std::initializer_list<std::pair<std::string_view, std::string>>;
std::string pairs_body(Pairs pairs) {
  std::string out;
  for (const auto& [k, v] : pairs) out += bulk(k) + v;
  return out;
}
std::string map(Pairs pairs) {
  return "%" + std::to_string(pairs.size()) + "\r\n" + pairs_body(pairs);
}

// Argument descriptions as COMMAND DOCS shows them.
std::string token_arg(std::string_view name, std::string_view token) {
  return map({{"name", bulk(name)}, {"type", bulk("pure-token")}, {"token", bulk(token)}});
}

// A key spec (a member of the key specs set): e.g.
//   key_spec(flags({"RW", "update"}), begin_index(1), find_range(0, 1, 0))
[[maybe_unused]] std::string begin_index(int index) {
  return map({{"type", bulk("index")}, {"spec", map({{"index", integer(index)}})}});
}
[[maybe_unused]] std::string begin_keyword(std::string_view keyword, int startfrom) {
  return map({{"type", bulk("keyword")},
              {"spec", map({{"keyword", bulk(keyword)}, {"startfrom", integer(startfrom)}})}});
}
[[maybe_unused]] std::string find_range(int lastkey, int keystep, int limit) {
  return map({{"type", bulk("range")},
              {"spec", map({{"lastkey", integer(lastkey)},
                            {"keystep", integer(keystep)},
                            {"limit", integer(limit)}})}});
}
[[maybe_unused]] std::string key_spec(std::string key_flags, std::string begin, std::string find) {
  return map({{"flags", std::move(key_flags)},
              {"begin_search", std::move(begin)},
              {"find_keys", std::move(find)}});
}
// The key specs set of COMMAND INFO.
[[maybe_unused]] std::string key_specs(std::initializer_list<std::string> specs) {
  return aggregate('~', specs);
}

// One argument's description: {name, type} and, when present, in Redis's order,
// key_spec_index, token, since, flags and the nested arguments (an encoded array).
struct ArgDoc {
  std::string_view name;
  std::string_view type;
  int key_spec_index = -1;
  std::string_view token = {};
  std::string_view since = {};
  std::initializer_list<std::string_view> flags = {};
  std::string arguments = {};
};
std::string describe(const ArgDoc& a) {
  std::string out = bulk("name") + bulk(a.name) + bulk("type") + bulk(a.type);
  std::size_t n = 2;
  auto add = [&](std::string_view key, std::string value) {
    out += bulk(key) + value;
    ++n;
  };
  if (a.key_spec_index >= 0) add("key_spec_index", integer(a.key_spec_index));
  if (!a.token.empty()) add("token", bulk(a.token));
  if (!a.since.empty()) add("since", bulk(a.since));
  if (a.flags.size() != 0) add("flags", flags(a.flags));
  if (!a.arguments.empty()) add("arguments", a.arguments);
  return "%" + std::to_string(n) + "\r\n" + out;
}
// Plain arguments: map({name, type}) plus the optional token and flags.
std::string arg(std::string_view name, std::string_view type,
                std::initializer_list<std::string_view> arg_flags = {}, std::string_view token = {},
                int key_spec_index = -1) {
  return describe({.name = name,
                   .type = type,
                   .key_spec_index = key_spec_index,
                   .token = token,
                   .flags = arg_flags});
}
// KEEPREF | DELREF | ACKED, optional (Redis 8.2).
std::string ref_policy_arg() {
  return map({{"name", bulk("condition")},
              {"type", bulk("oneof")},
              {"flags", flags({"optional"})},
              {"arguments", array({token_arg("keepref", "KEEPREF"), token_arg("delref", "DELREF"),
                                   token_arg("acked", "ACKED")})}});
}
// IDS numids id [id ...] (Redis 8.2).
std::string ids_block_arg() {
  return map({{"name", bulk("ids")},
              {"type", bulk("block")},
              {"token", bulk("IDS")},
              {"arguments", array({arg("numids", "integer"), arg("id", "string", {"multiple"})})}});
}
// The one key spec of a single-key command at index 1.
std::string key_at_1(std::initializer_list<std::string_view> key_flags) {
  return key_specs({key_spec(flags(key_flags), begin_index(1), find_range(0, 1, 0))});
}

// An argument block or choice: map({name, type, [token], [since], [flags], arguments}).
std::string group_arg(std::string_view name, std::string_view type, std::string_view token,
                      std::string_view since, std::initializer_list<std::string_view> arg_flags,
                      std::string args) {
  return describe({.name = name,
                   .type = type,
                   .token = token,
                   .since = since,
                   .flags = arg_flags,
                   .arguments = std::move(args)});
}
// A pure token or typed argument with a "since".
std::string since_arg(std::string_view name, std::string_view type, std::string_view token,
                      std::string_view since, std::initializer_list<std::string_view> arg_flags) {
  return describe({.name = name, .type = type, .token = token, .since = since, .flags = arg_flags});
}
// [KEEPREF | DELREF | ACKED] with its since (XADD, XTRIM).
std::string ref_policy_arg_since() {
  return group_arg("condition", "oneof", {}, "8.2.0", {"optional"},
                   array({token_arg("keepref", "KEEPREF"), token_arg("delref", "DELREF"),
                          token_arg("acked", "ACKED")}));
}
// MAXLEN | MINID [= | ~] threshold [LIMIT count], as 7.0.15 documents it.
std::string trim_args() {
  return array({group_arg("strategy", "oneof", {}, {}, {},
                          array({token_arg("maxlen", "MAXLEN"),
                                 since_arg("minid", "pure-token", "MINID", "6.2.0", {})})),
                group_arg("operator", "oneof", {}, {}, {"optional"},
                          array({token_arg("equal", "="), token_arg("approximately", "~")})),
                arg("threshold", "string"),
                since_arg("count", "integer", "LIMIT", "6.2.0", {"optional"})});
}
// COUNT, MAXCOUNT, MAXSIZE, BLOCK of XREAD / XREADGROUP.
std::string read_limit_args_count() {
  return arg("count", "integer", {"optional"}, "COUNT");
}
std::string read_limit_args_max(std::string_view which) {
  return which == "count" ? since_arg("maxcount", "integer", "MAXCOUNT", "8.10.0", {"optional"})
                          : since_arg("maxsize", "integer", "MAXSIZE", "8.10.0", {"optional"});
}
std::string streams_block(std::string_view ids_name) {
  return group_arg(
      "streams", "block", "STREAMS", {}, {},
      array({arg("key", "key", {"multiple"}, {}, 0), arg(ids_name, "string", {"multiple"})}));
}

OwnedDoc entry(std::string_view name, std::string info_tail, Pairs doc) {
  return OwnedDoc{std::string(name), std::move(info_tail), doc.size(), pairs_body(doc)};
}

// streamd's own commands, documented the way Redis documents a module's: group "module" and a
// "module" field naming streamd, so tools that list COMMAND DOCS show them as an extension.
void append_streamd_extension_docs(std::vector<OwnedDoc>& out) {
  auto key_at_2 = [](std::initializer_list<std::string_view> key_flags) {
    return key_specs({key_spec(flags(key_flags), begin_index(2), find_range(0, 1, 0))});
  };
  auto sub = [&](std::string_view name, std::string info_tail, std::string_view summary,
                 std::string_view complexity, std::string args) {
    out.push_back(entry(name, std::move(info_tail),
                        {{"summary", bulk(summary)},
                         {"since", bulk("8.10.0")},
                         {"group", bulk("module")},
                         {"complexity", bulk(complexity)},
                         {"module", bulk("streamd")},
                         {"arguments", std::move(args)}}));
  };
  out.push_back(entry("streamd.deadletter", tips({}) + key_specs({}),
                      {{"summary", bulk("A container for consumer group dead-letter commands "
                                        "(a streamd extension).")},
                       {"since", bulk("8.10.0")},
                       {"group", bulk("module")},
                       {"complexity", bulk("Depends on subcommand.")},
                       {"module", bulk("streamd")}}));
  sub("streamd.deadletter|get", tips({}) + key_at_2({"RO", "access"}),
      "Returns the dead-letter settings of a consumer group.", "O(1)",
      array({arg("key", "key", {}, {}, 0), arg("group", "string")}));
  out.push_back(entry("streamd.deadletter|help", tips({}) + key_specs({}),
                      {{"summary", bulk("Returns helpful text about the different subcommands.")},
                       {"since", bulk("8.10.0")},
                       {"group", bulk("module")},
                       {"complexity", bulk("O(1)")},
                       {"module", bulk("streamd")}}));
  sub("streamd.deadletter|remove", tips({}) + key_at_2({"RW", "update"}),
      "Removes the dead-letter settings of a consumer group.", "O(1)",
      array({arg("key", "key", {}, {}, 0), arg("group", "string")}));
  sub("streamd.deadletter|set", tips({}) + key_at_2({"RW", "update"}),
      "Sets the maximum number of deliveries of a consumer group's entries and the stream that "
      "receives the entries that exceed it.",
      "O(1)",
      array({arg("key", "key", {}, {}, 0), arg("group", "string"),
             arg("count", "integer", {}, "MAXDELIVERIES"),
             arg("deadletterkey", "string", {}, "STREAM")}));
}

}  // namespace

std::vector<OwnedDoc> hand_written_docs() {
  std::vector<OwnedDoc> out;

  // CLIENT SETINFO (Redis 7.2): client libraries (go-redis, node-redis, redis-py) send it on
  // connect and expect OK.
  out.push_back(entry(
      "client|setinfo",
      tips({"request_policy:all_nodes", "response_policy:all_succeeded"}) + key_specs({}),
      {{"summary", bulk("Sets information specific to the client or connection.")},
       {"since", bulk("7.2.0")},
       {"group", bulk("connection")},
       {"complexity", bulk("O(1)")},
       {"arguments", array({map({{"name", bulk("attr")},
                                 {"type", bulk("oneof")},
                                 {"arguments", array({map({{"name", bulk("libname")},
                                                           {"type", bulk("string")},
                                                           {"token", bulk("LIB-NAME")}}),
                                                      map({{"name", bulk("libver")},
                                                           {"type", bulk("string")},
                                                           {"token", bulk("LIB-VER")}})})}})})}}));

  // CLIENT NO-TOUCH (Redis 7.2).
  out.push_back(entry(
      "client|no-touch", tips({}) + key_specs({}),
      {{"summary",
        bulk("Controls whether commands sent by the client affect the LRU/LFU of accessed keys.")},
       {"since", bulk("7.2.0")},
       {"group", bulk("connection")},
       {"complexity", bulk("O(1)")},
       {"arguments",
        array({map({{"name", bulk("enabled")},
                    {"type", bulk("oneof")},
                    {"arguments", array({token_arg("on", "ON"), token_arg("off", "OFF")})}})})}}));

  // WAITAOF (Redis 7.2).
  out.push_back(entry(
      "waitaof", tips({"request_policy:all_shards", "response_policy:agg_min"}) + key_specs({}),
      {{"summary",
        bulk("Blocks until all of the preceding write commands sent by the connection are "
             "written to the append-only file of the master and/or replicas.")},
       {"since", bulk("7.2.0")},
       {"group", bulk("generic")},
       {"complexity", bulk("O(1)")},
       {"arguments", array({map({{"name", bulk("numlocal")}, {"type", bulk("integer")}}),
                            map({{"name", bulk("numreplicas")}, {"type", bulk("integer")}}),
                            map({{"name", bulk("timeout")}, {"type", bulk("integer")}})})}}));

  // XDELEX and XACKDEL (Redis 8.2).
  out.push_back(entry(
      "xdelex", tips({}) + key_at_1({"RW", "delete"}),
      {{"summary",
        bulk("Deletes one or multiple entries from the stream, with control over consumer group "
             "references.")},
       {"since", bulk("8.2.0")},
       {"group", bulk("stream")},
       {"complexity",
        bulk("O(1) for each single item to delete in the stream, regardless of the stream size.")},
       {"arguments", array({arg("key", "key", {}, {}, 0), ref_policy_arg(), ids_block_arg()})}}));
  out.push_back(
      entry("xackdel", tips({}) + key_at_1({"RW", "update", "delete"}),
            {{"summary",
              bulk("Acknowledges and conditionally deletes one or multiple entries for a stream "
                   "consumer group.")},
             {"since", bulk("8.2.0")},
             {"group", bulk("stream")},
             {"complexity", bulk("O(1) for each entry ID processed.")},
             {"arguments", array({arg("key", "key", {}, {}, 0), arg("group", "string"),
                                  ref_policy_arg(), ids_block_arg()})}}));

  // XCFGSET (Redis 8.6) and XIDMPRECORD (Redis 8.8, internal: AOF replay of IDMP records).
  out.push_back(entry(
      "xcfgset", tips({}) + key_at_1({"RW", "update"}),
      {{"summary", bulk("Sets the IDMP configuration parameters for a stream.")},
       {"since", bulk("8.6.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("O(1)")},
       {"arguments", array({arg("key", "key", {}, {}, 0),
                            arg("idmp-duration", "integer", {"optional"}, "IDMP-DURATION"),
                            arg("idmp-maxsize", "integer", {"optional"}, "IDMP-MAXSIZE")})}}));
  out.push_back(
      entry("xidmprecord", tips({}) + key_at_1({"RW", "update"}),
            {{"summary",
              bulk("Records an idempotent ID of a stream entry (internal: replays IDMP state from "
                   "the AOF).")},
             {"since", bulk("8.8.0")},
             {"group", bulk("stream")},
             {"complexity", bulk("O(1)")},
             {"arguments", array({arg("key", "key", {}, {}, 0), arg("pid", "string"),
                                  arg("iid", "string"), arg("stream-id", "string")})}}));

  // Commands 7.0.15 has, documented with the arguments Redis 8.2-8.10 added (the generated key
  // specs stay: empty info tail).
  out.push_back(entry(
      "xadd", "",
      {{"summary", bulk("Appends a new message to a stream. Creates the key if it doesn't exist.")},
       {"since", bulk("5.0.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("O(1) when adding a new entry, O(N) when trimming where N being the "
                           "number of entries evicted.")},
       {"history",
        aggregate(
            '~',
            {array({bulk("6.2.0"), bulk("Added the `NOMKSTREAM` option, `MINID` "
                                        "trimming strategy and the `LIMIT` option.")}),
             array({bulk("7.0.0"), bulk("Added support for the `<ms>-*` explicit ID form.")}),
             array({bulk("8.2.0"), bulk("Added the `KEEPREF`, `DELREF` and `ACKED` options.")}),
             array({bulk("8.6.0"), bulk("Added the `IDMPAUTO` and `IDMP` arguments.")})})},
       {"arguments",
        array({arg("key", "key", {}, {}, 0),
               since_arg("nomkstream", "pure-token", "NOMKSTREAM", "6.2.0", {"optional"}),
               ref_policy_arg_since(),
               group_arg("idmp", "oneof", {}, "8.6.0", {"optional"},
                         array({group_arg("idmpauto-with-pid", "block", "IDMPAUTO", {}, {},
                                          array({arg("pid", "string")})),
                                group_arg("idmp-with-pid-iid", "block", "IDMP", {}, {},
                                          array({arg("pid", "string"), arg("iid", "string")}))})),
               group_arg("trim", "block", {}, {}, {"optional"}, trim_args()),
               group_arg("id-selector", "oneof", {}, {}, {},
                         array({token_arg("auto-id", "*"), arg("id", "string")})),
               group_arg("data", "block", {}, {}, {"multiple"},
                         array({arg("field", "string"), arg("value", "string")}))})}}));
  out.push_back(entry(
      "xtrim", "",
      {{"summary", bulk("Deletes messages from the beginning of a stream.")},
       {"since", bulk("5.0.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("O(N), with N being the number of evicted entries. Constant times are "
                           "very small however, since entries are organized in macro nodes "
                           "containing multiple entries that can be released with a single "
                           "deallocation.")},
       {"history",
        aggregate(
            '~',
            {array({bulk("6.2.0"),
                    bulk("Added the `MINID` trimming strategy and the `LIMIT` option.")}),
             array({bulk("8.2.0"), bulk("Added the `KEEPREF`, `DELREF` and `ACKED` options.")})})},
       {"arguments",
        array({arg("key", "key", {}, {}, 0), group_arg("trim", "block", {}, {}, {}, trim_args()),
               ref_policy_arg_since()})}}));
  out.push_back(entry(
      "xread", "",
      {{"summary", bulk("Returns messages from multiple streams with IDs greater than the ones "
                        "requested. Blocks until a message is available otherwise.")},
       {"since", bulk("5.0.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("For each stream mentioned: O(M) with M being the number of elements "
                           "returned.")},
       {"history", aggregate('~', {array({bulk("8.10.0"),
                                          bulk("Added the `MAXCOUNT` and `MAXSIZE` options.")})})},
       {"arguments",
        array({read_limit_args_count(), read_limit_args_max("count"), read_limit_args_max("size"),
               arg("milliseconds", "integer", {"optional"}, "BLOCK"), streams_block("id")})}}));
  out.push_back(entry(
      "xreadgroup", "",
      {{"summary", bulk("Returns new or historical messages from a stream for a consumer in a "
                        "group. Blocks until a message is available otherwise.")},
       {"since", bulk("5.0.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("For each stream mentioned: O(M) with M being the number of elements "
                           "returned.")},
       {"history", aggregate('~', {array({bulk("8.4.0"), bulk("Added the `CLAIM` option.")}),
                                   array({bulk("8.10.0"),
                                          bulk("Added the `MAXCOUNT` and `MAXSIZE` options.")})})},
       {"arguments",
        array({group_arg("group-block", "block", "GROUP", {}, {},
                         array({arg("group", "string"), arg("consumer", "string")})),
               read_limit_args_count(), read_limit_args_max("count"), read_limit_args_max("size"),
               arg("milliseconds", "integer", {"optional"}, "BLOCK"),
               since_arg("min-idle-time", "integer", "CLAIM", "8.4.0", {"optional"}),
               arg("noack", "pure-token", {"optional"}, "NOACK"), streams_block("id")})}}));

  // XNACK (Redis 8.8).
  out.push_back(entry(
      "xnack", tips({}) + key_at_1({"RW", "update"}),
      {{"summary", bulk("Releases pending messages back to the group's PEL without acknowledging "
                        "them, making them available for re-delivery.")},
       {"since", bulk("8.8.0")},
       {"group", bulk("stream")},
       {"complexity", bulk("O(1) for each message ID processed.")},
       {"arguments",
        array({arg("key", "key", {}, {}, 0), arg("group", "string"),
               group_arg("mode", "oneof", {}, {}, {},
                         array({token_arg("silent", "SILENT"), token_arg("fail", "FAIL"),
                                token_arg("fatal", "FATAL")})),
               group_arg("ids", "block", "IDS", {}, {},
                         array({arg("numids", "integer"), arg("id", "string", {"multiple"})})),
               arg("count", "integer", {"optional"}, "RETRYCOUNT"),
               arg("force", "pure-token", {"optional"}, "FORCE")})}}));

  append_streamd_extension_docs(out);
  return out;
}

}  // namespace streamd::cmd::docs
