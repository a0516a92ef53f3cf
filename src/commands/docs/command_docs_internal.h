// Storage behind streamd/commands/introspection.h: the generated table (command_docs_data_1.cc
// to _3.cc, by tools/gen_command_docs.py) and the hand-written entries (command_docs_extra.cc) for
// commands redis-server 7.0.15 does not know.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamd::cmd::docs {

struct RawDoc {
  std::string_view name;
  std::string_view info_tail;  // RESP3: tips set, key specs set
  std::size_t doc_pairs;
  std::string_view doc_body;  // RESP3: doc map pairs without "subcommands"
};

// The generated table, sorted by name, in four parts (one per file, each under 800 lines).
extern const std::span<const RawDoc> kGeneratedDocs1;
extern const std::span<const RawDoc> kGeneratedDocs2;
extern const std::span<const RawDoc> kGeneratedDocs3;
extern const std::span<const RawDoc> kGeneratedDocs4;

struct OwnedDoc {
  std::string name;
  std::string info_tail;
  std::size_t doc_pairs = 0;
  std::string doc_body;
};

// Built once, at first use.
std::vector<OwnedDoc> hand_written_docs();

}  // namespace streamd::cmd::docs
