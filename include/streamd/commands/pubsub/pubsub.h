// Pub/sub: the registry of channels, patterns and shard channels with their subscribers, and
// the publish path (PUBLISH, SPUBLISH, and anything else that sends messages, such as keyspace
// notifications: call Server::pubsub().publish()).
//
// Delivery: a message is encoded once per protocol (RESP2 `*3`, RESP3 `>3` push) and appended to
// every receiver's Session::out, then the receiver's Session::flush hook is called; the network
// layer batches all the flushes of one command into one turn, so every receiver's write leaves
// together. A receiver that is the client whose command is running (a RESP3 client publishing to
// itself, or keyspace events of its own writes) gets the message after that command's reply, as
// newest Redis does: the bytes wait in Session::deferred_pushes until dispatch appends them.
//
// Invariants: a session is in a channel's subscriber list exactly when the channel is in its
// Subscriptions, and a channel, pattern or shard channel is in the registry only while it has at
// least one subscriber. Sessions must be dropped (unsubscribe_all) before they are destroyed.
// Nothing here knows sockets or text beyond the RESP frames of the messages.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "streamd/commands/core/notify.h"
#include "streamd/commands/core/session.h"
#include "streamd/text/glob.h"

namespace streamd::cmd {

enum class PubSubKind { kChannel, kPattern, kShard };

// One client's names of one kind. The views point at the registry's own key strings (node-based
// containers, so they never move while the name has a subscriber): a subscription costs one
// small hash node here plus one pointer in the registry's subscriber list. Iteration order is
// the hash order, as in Redis (UNSUBSCRIBE with no argument answers in it).
class NameSet {
 public:
  // `stable` must outlive its membership (it is the registry's key).
  bool insert(std::string_view stable) { return names_.insert(stable).second; }
  bool erase(std::string_view name) { return names_.erase(name) > 0; }
  bool contains(std::string_view name) const { return names_.count(name) > 0; }
  std::size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const std::unordered_set<std::string_view>& names() const { return names_; }

 private:
  std::unordered_set<std::string_view> names_;
};

// One client's subscriptions (Session::subs; null while the client never subscribed).
struct Subscriptions {
  NameSet channels, patterns, shard_channels;

  NameSet& of(PubSubKind k) {
    return k == PubSubKind::kChannel   ? channels
           : k == PubSubKind::kPattern ? patterns
                                       : shard_channels;
  }
  // What the subscribe/unsubscribe confirmations count: channels and patterns together, shard
  // channels apart (as Redis counts them).
  std::size_t count_for(PubSubKind k) const {
    return k == PubSubKind::kShard ? shard_channels.size() : channels.size() + patterns.size();
  }
  std::size_t total() const { return channels.size() + patterns.size() + shard_channels.size(); }
};

// Whether `s` is in pub/sub mode (subscribed to anything): CLIENT LIST's `P` flag, the pubsub
// client class for output limits and CLIENT KILL TYPE.
inline bool subscribed(const Session& s) {
  return s.subs && s.subs->total() > 0;
}

// A RESP2 connection cannot tell a message from a reply, so a RESP2 client in pub/sub mode may
// only run (P|S)SUBSCRIBE, (P|S)UNSUBSCRIBE, PING, QUIT and RESET (dispatch refuses the rest),
// and PING answers ["pong", message] there. RESP3 clients keep every command (Redis's rule).
inline bool resp2_subscribed(const Session& s) {
  return s.proto == resp::Protocol::kResp2 && subscribed(s);
}

class PubSub {
 public:
  PubSub() = default;
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  // True if `s` was not subscribed to `name` of that kind before.
  bool subscribe(Session& s, PubSubKind kind, std::string_view name);
  // True if `s` was subscribed.
  bool unsubscribe(Session& s, PubSubKind kind, std::string_view name);
  // Drops every subscription of `s` (disconnect, RESET); no confirmations are sent.
  void unsubscribe_all(Session& s);

  // Sends `message` to the subscribers of `channel` and of every pattern matching it; returns
  // the number of deliveries (a client subscribed to the channel and to a matching pattern
  // counts twice, as in Redis).
  std::size_t publish(std::string_view channel, std::string_view message);
  // SPUBLISH: the subscribers of shard channel `channel` (patterns do not apply).
  std::size_t spublish(std::string_view channel, std::string_view message);

  // Introspection (PUBSUB, INFO).
  // Active channels (or shard channels) matching `pattern` (all when none is given).
  std::vector<std::string_view> active(PubSubKind kind,
                                       std::optional<std::string_view> pattern) const;
  // Subscribers of one channel (kChannel) or shard channel (kShard); patterns are not counted.
  std::size_t subscribers(PubSubKind kind, std::string_view name) const;
  std::size_t channel_count() const { return channels_.size(); }
  std::size_t pattern_count() const { return patterns_.size(); }
  std::size_t shard_channel_count() const { return shards_.size(); }

 private:
  struct Pattern {
    text::GlobMatcher matcher;
    std::vector<Session*> subscribers;  // in subscription order
  };
  using ChannelMap = std::unordered_map<std::string, std::vector<Session*>>;

  ChannelMap& channel_map(PubSubKind k) { return k == PubSubKind::kShard ? shards_ : channels_; }
  const ChannelMap& channel_map(PubSubKind k) const {
    return k == PubSubKind::kShard ? shards_ : channels_;
  }
  std::size_t deliver(const std::vector<Session*>& to, std::string_view kind,
                      std::optional<std::string_view> pattern, std::string_view channel,
                      std::string_view message);

  ChannelMap channels_;
  ChannelMap shards_;
  // Sorted by pattern: publishing to a client with several matching patterns sends their
  // pmessages in this (deterministic) order.
  std::map<std::string, Pattern, std::less<>> patterns_;
};

// Keyspace notifications (core/notify.h) go out through PubSub::publish: Server installs this as
// its Notifier's sink.
class PubSubSink final : public NotificationSink {
 public:
  explicit PubSubSink(PubSub& ps) : ps_(ps) {}
  void publish(std::string_view channel, std::string_view message) override {
    ps_.publish(channel, message);
  }

 private:
  PubSub& ps_;
};

// Writes one message frame (`kind` = "message", "pmessage", "smessage"; `pattern` only for
// pmessage) in protocol `proto` to `out`: what every receiver of that protocol gets.
void encode_message(std::string& out, resp::Protocol proto, std::string_view kind,
                    std::optional<std::string_view> pattern, std::string_view channel,
                    std::string_view message);

}  // namespace streamd::cmd
