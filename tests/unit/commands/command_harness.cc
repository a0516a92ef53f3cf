#include "command_harness.h"

#include <gtest/gtest.h>

namespace streamd::test {

CommandHarness::CommandHarness()
    : config_(std::make_unique<config::Config>()),
      server_(std::make_unique<cmd::Server>(*config_, clock_)),
      dispatcher_(std::make_unique<cmd::Dispatcher>(*server_)) {
  server_->set_value_codec(&dump_codec_);
}

CommandHarness::~CommandHarness() = default;

cmd::Session& CommandHarness::session(int client) {
  auto it = clients_.find(client);
  if (it != clients_.end()) return *server_->session(it->second);
  auto s = std::make_unique<cmd::Session>();
  s->id = server_->next_client_id();
  s->addr = "127.0.0.1:" + std::to_string(40000 + client);
  s->laddr = "127.0.0.1:6379";
  s->created_ms = clock_.now_ms();
  s->last_interaction_ms = clock_.now_ms();
  uint64_t id = s->id;
  server_->add_session(std::move(s));
  clients_[client] = id;
  return *server_->session(id);
}

std::string CommandHarness::RunRaw(const std::vector<std::string>& argv, resp::Protocol proto,
                                   int client) {
  cmd::Session& s = session(client);
  s.proto = proto;
  std::vector<std::string_view> views(argv.begin(), argv.end());
  std::string out;
  dispatcher_->execute(s, views, out);
  return out;
}

std::string CommandHarness::Run(const std::vector<std::string>& argv, resp::Protocol proto,
                                int client) {
  std::string out = RunRaw(argv, proto, client);
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  EXPECT_FALSE(out.empty()) << "no reply to: " << line;
  EXPECT_EQ(ReplyLength(out), out.size())
      << "not exactly one complete reply to: " << line << "\n  got: " << Decode(out);
  return out;
}

}  // namespace streamd::test
