// libFuzzer target for the command layer: argument vectors through cmd::Dispatcher in-process,
// the way the network layer runs them, with a manual clock and no sockets (build and run:
// tests/fuzz/build_and_run.sh commands).
//
// Input: text lines in the differential scripts' syntax (tests/differential/README.md), so those
// scripts seed the corpus: one command per line in redis-cli quoting; "@N " in front (N = 1..4)
// sends it as client N; "!sleep MS" moves the clock forward (then the cron and the blocked
// clients' deadlines run, as the network layer's timer would); other "!" lines and "#" comments
// are ignored. Each input runs twice on a fresh server: once with every client starting in RESP2,
// once in RESP3 (HELLO still switches).
//
// Checked after every command, for every client:
// - a command that finished wrote exactly one complete reply (a pub/sub command may write one per
//   channel, and so may an EXEC that ran one: Redis's EXEC array counts the queued commands, and a
//   (P)SUBSCRIBE in it writes one confirmation per channel inside it, in RESP2 as elements beyond
//   the count and in RESP3 as pushes, so the bytes read as more than one reply; CLIENT REPLY
//   OFF/SKIP and a repeated MONITOR may write none), a command that blocked wrote no reply (in
//   RESP3 only the pushes it caused), and a blocked client is answered exactly once when it
//   wakes (its key was written, its timeout passed, CLIENT UNBLOCK);
// - a client in RESP2 never receives a RESP3-only type; simple strings and errors hold no CR/LF;
// - MONITOR output is well-formed RESP;
// and, through ASan/UBSan and the engine's asserts (compiled in here), no memory error, no
// undefined behaviour, no broken invariant.
//
// A successful SHUTDOWN ends the input (the server would exit; it answers nothing).
// Left out: DEBUG SLEEP with a positive time (it really sleeps). Big strings are capped by
// proto-max-bulk-len 1mb so that SETRANGE/APPEND cannot spend the time budget on memset.
#include <spdlog/spdlog.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "reply_reader.h"
#include "streamd/commands/core/command_table.h"
#include "streamd/commands/core/dispatch.h"
#include "streamd/commands/core/server.h"
#include "streamd/commands/core/session.h"
#include "streamd/config/config.h"
#include "streamd/engine/clock.h"
#include "streamd/persist/rdb/dump_codec.h"
#include "streamd/text/split_args.h"

namespace {

using namespace streamd;

constexpr int kClients = 4;
constexpr int64_t kStartMs = 1700000000000;
constexpr std::size_t kMaxCommands = 256;

// The command being checked, printed when a check fails (the reproducer is then readable).
std::string g_current;
std::string g_reply;

void check(bool ok) {
  if (ok) return;
  std::fprintf(stderr, "check failed after: %s\nreply bytes: %s\n", g_current.c_str(),
               g_reply.c_str());
  std::abort();
}

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// Checks `bytes` holds `min`..`max` complete replies, none of a RESP3-only type when `proto` is
// RESP2.
// `pushes_count`: the command's answers are themselves pushes (SUBSCRIBE's confirmations in RESP3).
//
// The check is a pure function of its arguments, and the big replies (COMMAND, COMMAND DOCS,
// INFO...) come back byte for byte the same in most inputs: a big reply that passed once is
// remembered and not scanned again (scanning them was a sixth of the time per input).
void check_replies(std::string_view bytes, std::size_t min, std::size_t max, resp::Protocol proto,
                   bool pushes_count = false) {
  constexpr std::size_t kRemembered = 4096;     // replies at least this big are remembered
  constexpr std::size_t kMemoBytes = 64 << 20;  // forget them all beyond this much
  static std::unordered_set<std::string> passed;
  static std::size_t passed_bytes = 0;
  std::string key;
  if (bytes.size() >= kRemembered) {
    key = std::to_string(min) + ' ' + std::to_string(max) + ' ' +
          std::to_string(static_cast<int>(proto)) + (pushes_count ? " p " : " - ");
    key.append(bytes);
    if (passed.count(key)) return;
  }
  g_reply.assign(bytes.substr(0, 400));
  std::size_t count = 0;
  while (!bytes.empty()) {
    test::ReplyScan r = test::ScanReply(bytes);
    check(r.length > 0);
    check(!(proto == resp::Protocol::kResp2 && r.resp3_types));
    // A RESP3 push (a pub/sub message, the client's own keyspace event after its reply, as
    // Redis 7.2+ sends it) travels beside replies and is not one.
    bool push = !pushes_count && proto == resp::Protocol::kResp3 && bytes.front() == '>';
    bytes.remove_prefix(r.length);
    if (!push) ++count;
  }
  check(count >= min && count <= max);
  if (key.empty()) return;
  if (passed_bytes + key.size() > kMemoBytes) {
    passed.clear();
    passed_bytes = 0;
  }
  passed_bytes += key.size();
  passed.insert(std::move(key));
}

struct Client {
  uint64_t id = 0;
  std::string async;  // what the server writes outside execute(): wake-ups, MONITOR lines
  bool killed = false;
  bool pubsub_queued = false;  // the open MULTI queued a pub/sub command
};

class World {
 public:
  explicit World(resp::Protocol proto) : dispatcher_(server_) {
    cfg_.force_set("proto-max-bulk-len", "1mb");
    cfg_.force_set("enable-debug-command", "yes");
    server_.request_shutdown = [this] { shut_down_ = true; };
    server_.set_value_codec(&dump_codec_);  // DUMP / RESTORE as the server runs them
    for (int i = 0; i < kClients; ++i) connect(i, proto);
  }

  void run(std::span<const std::string_view> argv, int client) {
    if (argv.empty()) return;
    if (argv.size() >= 3 && iequal(argv[0], "debug") && iequal(argv[1], "sleep")) return;
    Client& c = clients_[client];
    cmd::Session* s = server_.session(c.id);
    // A blocked client's connection reads nothing more until it is answered.
    if (s->blocked) return;
    g_current = "@" + std::to_string(client + 1) +
                (s->proto == resp::Protocol::kResp2 ? " RESP2" : " RESP3");
    for (auto a : argv) g_current += " " + std::string(a.substr(0, 80));
    std::string out;
    // CLIENT REPLY OFF / SKIP silence replies: before the command (it is skipped) or by it. A
    // second MONITOR is ignored without a reply, as in Redis.
    bool quiet = s->reply_mode != cmd::ReplyMode::kOn || s->monitor;
    const cmd::CommandSpec* spec = cmd::CommandTable::instance().find(argv[0]);
    bool pubsub = spec && (spec->flags & cmd::kPubsub);
    if (s->in_multi && pubsub) c.pubsub_queued = true;
    cmd::DispatchResult r = dispatcher_.execute(*s, argv, out);
    // EXEC (or DISCARD, RESET) ended the transaction: EXEC's reply holds its commands' replies.
    if (!s->in_multi) {
      pubsub = pubsub || c.pubsub_queued;
      c.pubsub_queued = false;
    }
    quiet = quiet || s->reply_mode != cmd::ReplyMode::kOn;
    if (r == cmd::DispatchResult::kBlocked) {
      // No reply yet. In RESP3 the pushes the command itself caused may go out (a subscriber's
      // own keyspace event, such as the consumer its XREADGROUP created before blocking): Redis
      // flushes pending pushes after every command, blocked or not (server.c afterCommand).
      check_replies(out, 0, 0, s->proto);
      check(s->blocked != nullptr);
    } else if (shut_down_) {
      check(out.empty());  // SHUTDOWN answers nothing: the server exits
      return;
    } else {
      check_replies(out, quiet ? 0 : 1, pubsub ? SIZE_MAX : 1, s->proto, pubsub);
    }
    settle();
  }

  bool shut_down() const { return shut_down_; }

  void advance(int64_t ms) {
    clock_.advance(ms);
    server_.cron();
    settle();
  }

 private:
  void connect(int i, resp::Protocol proto) {
    auto s = std::make_unique<cmd::Session>();
    s->id = server_.next_client_id();
    s->addr = "127.0.0.1:" + std::to_string(40000 + i);
    s->laddr = "127.0.0.1:6379";
    s->created_ms = clock_.now_ms();
    s->last_interaction_ms = clock_.now_ms();
    s->proto = proto;
    Client& c = clients_[i];
    c = Client{};
    c.id = s->id;
    s->out = &c.async;
    cmd::Session* raw = s.get();
    // A woken client gets exactly one reply, in the protocol it speaks.
    s->resume = [&c, raw] {
      std::size_t min = raw->reply_mode == cmd::ReplyMode::kOn ? 1 : 0;
      check_replies(c.async, min, 1, raw->proto);
      c.async.clear();
    };
    s->flush = [&c, raw] {
      check_replies(c.async, 0, SIZE_MAX, raw->proto);
      c.async.clear();
    };
    s->kill = [&c] { c.killed = true; };
    server_.add_session(std::move(s));
  }

  // What the network layer does after a batch: wake clients whose keys became ready, expire
  // deadlines, close killed connections (a new one takes the slot, like a client reconnecting).
  void settle() {
    dispatcher_.after_batch();
    for (int i = 0; i < kClients; ++i) {
      Client& c = clients_[i];
      check(c.async.empty());
      if (!c.killed) continue;
      resp::Protocol proto = server_.session(c.id)->proto;
      server_.remove_session(c.id);
      connect(i, proto);
    }
  }

  engine::ManualClock clock_{kStartMs};
  persist::rdb::DumpCodec dump_codec_;
  config::Config cfg_;
  cmd::Server server_{cfg_, clock_};
  cmd::Dispatcher dispatcher_;
  Client clients_[kClients];
  bool shut_down_ = false;
};

void run_script(std::string_view input, resp::Protocol proto) {
  World w(proto);
  std::string storage;
  std::vector<std::string_view> views;
  std::size_t commands = 0;
  while (!input.empty() && commands < kMaxCommands && !w.shut_down()) {
    std::size_t eol = input.find('\n');
    std::string_view line = input.substr(0, eol);
    input.remove_prefix(eol == std::string_view::npos ? input.size() : eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    int client = 0;
    if (line.size() >= 3 && line[0] == '@' && line[1] >= '1' && line[1] <= '0' + kClients &&
        line[2] == ' ') {
      client = line[1] - '1';
      line.remove_prefix(3);
    }
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '!') {
      if (line.substr(0, 7) == "!sleep ") {
        int64_t ms = std::strtoll(std::string(line.substr(7, 12)).c_str(), nullptr, 10);
        if (ms > 0) w.advance(ms);
      }
      continue;
    }
    views.clear();
    if (!text::split_args(line, storage, views) || views.empty()) continue;
    w.run(views, client);
    ++commands;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  cmd::CommandTable::instance();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  run_script(input, resp::Protocol::kResp2);
  run_script(input, resp::Protocol::kResp3);
  return 0;
}
