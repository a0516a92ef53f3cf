// A cmd::Replication without a network, for tests of what the command layer and persistence ask
// of replication: a replica's checks (read-only, stale), a full sync's child, the fields an RDB
// records and what startup hands back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "streamd/commands/core/replication.h"

namespace streamd::test {

class FakeReplication final : public cmd::Replication {
 public:
  bool replica = false;
  bool read_only = true;
  bool stale = false;
  bool sync_child = false;
  std::optional<cmd::ReplSaveInfo> save_info;
  std::optional<cmd::ReplSaveInfo> restored;
  std::string last;        // the last REPLICAOF's "host:port"
  bool in_sync = true;     // what replicas_in_sync() answers (the shutdown's wait)
  int acks_requested = 0;  // REPLCONF GETACK rounds asked for

  bool feeding() const override { return false; }
  int64_t feed(const cmd::PropagationBatch&) override { return 0; }
  int64_t offset() const override { return 0; }
  void feed_raw(std::string_view) override {}
  cmd::ReplicationInfo info() const override {
    cmd::ReplicationInfo i;
    if (!replica) return i;
    i.role = "slave";
    i.master_host = "10.0.0.1";
    i.master_port = 6380;
    i.link_state = "connected";
    i.link_offset = 1234;
    return i;
  }
  void replconf_listening_port(cmd::Session&, int64_t) override {}
  void replconf_ip_address(cmd::Session&, std::string_view) override {}
  void replconf_capa(cmd::Session&, std::string_view) override {}
  void replconf_ack(cmd::Session&, int64_t) override {}
  cmd::SyncStart sync(cmd::Session&, bool, std::string_view, int64_t) override { return {}; }
  void sync_replied(cmd::Session&) override {}
  bool enough_good_replicas() const override { return true; }
  int64_t replicas_acked(int64_t) const override { return 0; }
  void request_acks() override { ++acks_requested; }
  bool replicas_in_sync() const override { return in_sync; }
  void session_closed(cmd::Session&) override {}
  void cron(int64_t) override {}
  bool is_replica() const override { return replica; }
  bool refuses_writes() const override { return replica && read_only; }
  bool refuses_stale() const override { return replica && stale; }
  bool sync_child_active() const override { return sync_child; }
  std::optional<cmd::ReplSaveInfo> rdb_save_info() const override { return save_info; }
  void restore_rdb_info(const cmd::ReplSaveInfo& i) override { restored = i; }
  std::string replicaof(std::string_view host, int port) override {
    last = std::string(host) + ":" + std::to_string(port);
    return "OK";
  }
};

}  // namespace streamd::test
