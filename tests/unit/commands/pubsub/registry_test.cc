// The pub/sub registry without sockets or dispatch: subscriptions, counts, delivery to each
// session's output with one encoding per protocol, pattern matching (Redis's rules, `*` does not
// match the empty channel), and the cleanup invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "streamd/commands/pubsub/pubsub.h"

namespace streamd::cmd {
namespace {

struct Client {
  Session s;
  std::string out;
  int flushes = 0;
  explicit Client(resp::Protocol p = resp::Protocol::kResp2) {
    s.proto = p;
    s.out = &out;
    s.flush = [this] { ++flushes; };
  }
};

std::string Frame2(std::string_view ch, std::string_view msg) {
  std::string f;
  encode_message(f, resp::Protocol::kResp2, "message", std::nullopt, ch, msg);
  return f;
}

TEST(PubSubRegistry, FramesInBothProtocols) {
  std::string f;
  encode_message(f, resp::Protocol::kResp2, "message", std::nullopt, "ch", "hi");
  EXPECT_EQ(f, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");
  f.clear();
  encode_message(f, resp::Protocol::kResp3, "pmessage", std::string_view("c*"), "ch", "hi");
  EXPECT_EQ(f, ">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\nch\r\n$2\r\nhi\r\n");
}

TEST(PubSubRegistry, SubscribeCountsAndDuplicates) {
  PubSub ps;
  Client a;
  EXPECT_TRUE(ps.subscribe(a.s, PubSubKind::kChannel, "x"));
  EXPECT_FALSE(ps.subscribe(a.s, PubSubKind::kChannel, "x"));
  EXPECT_TRUE(ps.subscribe(a.s, PubSubKind::kPattern, "x*"));
  EXPECT_TRUE(ps.subscribe(a.s, PubSubKind::kShard, "x"));
  EXPECT_EQ(a.s.subs->count_for(PubSubKind::kChannel), 2u);  // channels + patterns
  EXPECT_EQ(a.s.subs->count_for(PubSubKind::kShard), 1u);
  EXPECT_TRUE(subscribed(a.s));
  EXPECT_TRUE(resp2_subscribed(a.s));
  EXPECT_EQ(ps.channel_count(), 1u);
  EXPECT_EQ(ps.pattern_count(), 1u);
  EXPECT_EQ(ps.shard_channel_count(), 1u);
  EXPECT_EQ(ps.subscribers(PubSubKind::kChannel, "x"), 1u);
  EXPECT_EQ(ps.subscribers(PubSubKind::kShard, "x"), 1u);
  EXPECT_FALSE(ps.unsubscribe(a.s, PubSubKind::kChannel, "nope"));
  EXPECT_TRUE(ps.unsubscribe(a.s, PubSubKind::kChannel, "x"));
  EXPECT_EQ(ps.channel_count(), 0u);  // gone with its last subscriber
  ps.unsubscribe_all(a.s);
  EXPECT_FALSE(subscribed(a.s));
  EXPECT_EQ(ps.pattern_count(), 0u);
  EXPECT_EQ(ps.shard_channel_count(), 0u);
}

TEST(PubSubRegistry, PublishDeliversToChannelThenPatterns) {
  PubSub ps;
  Client a, b(resp::Protocol::kResp3), c;
  ps.subscribe(a.s, PubSubKind::kChannel, "news");
  ps.subscribe(b.s, PubSubKind::kChannel, "news");
  ps.subscribe(b.s, PubSubKind::kPattern, "n*");
  ps.subscribe(c.s, PubSubKind::kChannel, "other");
  EXPECT_EQ(ps.publish("news", "m"), 3u);  // b counts twice: channel and pattern
  EXPECT_EQ(a.out, Frame2("news", "m"));
  EXPECT_EQ(b.out,
            ">3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$1\r\nm\r\n"
            ">4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$1\r\nm\r\n");
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(a.flushes, 1);
  EXPECT_EQ(b.flushes, 2);
  EXPECT_EQ(c.flushes, 0);
  EXPECT_EQ(ps.publish("zzz", "m"), 0u);
}

TEST(PubSubRegistry, ShardChannelsAreSeparate) {
  PubSub ps;
  Client a, b;
  ps.subscribe(a.s, PubSubKind::kShard, "s");
  ps.subscribe(b.s, PubSubKind::kPattern, "*");
  EXPECT_EQ(ps.spublish("s", "m"), 1u);  // patterns do not see shard messages
  EXPECT_EQ(a.out, "*3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$1\r\nm\r\n");
  EXPECT_EQ(b.out, "");
  EXPECT_EQ(ps.publish("s", "m"), 1u);  // nor shard subscribers plain messages
  EXPECT_EQ(a.out.size(), std::string("*3\r\n$8\r\nsmessage\r\n$1\r\ns\r\n$1\r\nm\r\n").size());
}

TEST(PubSubRegistry, StarDoesNotMatchTheEmptyChannel) {
  PubSub ps;
  Client a, b;
  ps.subscribe(a.s, PubSubKind::kPattern, "*");
  ps.subscribe(b.s, PubSubKind::kChannel, "");
  EXPECT_EQ(ps.publish("", "m"), 1u);  // only b, as Redis
  EXPECT_EQ(a.out, "");
  EXPECT_TRUE(ps.active(PubSubKind::kChannel, std::string_view("*")).empty());
  EXPECT_EQ(ps.active(PubSubKind::kChannel, std::nullopt).size(), 1u);
}

TEST(PubSubRegistry, GlobRulesAndEscapes) {
  PubSub ps;
  Client a;
  ps.subscribe(a.s, PubSubKind::kPattern, "h[ae]llo\\*");
  EXPECT_EQ(ps.publish("hallo*", "1"), 1u);
  EXPECT_EQ(ps.publish("hello*", "2"), 1u);
  EXPECT_EQ(ps.publish("hallox", "3"), 0u);
  EXPECT_EQ(ps.publish("hillo*", "4"), 0u);
}

TEST(PubSubRegistry, ActiveChannelsFilter) {
  PubSub ps;
  Client a;
  for (auto n : {"a1", "a2", "b1"}) ps.subscribe(a.s, PubSubKind::kChannel, n);
  auto v = ps.active(PubSubKind::kChannel, std::string_view("a*"));
  std::sort(v.begin(), v.end());
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], "a1");
  EXPECT_EQ(v[1], "a2");
  EXPECT_TRUE(ps.active(PubSubKind::kShard, std::nullopt).empty());
}

TEST(PubSubRegistry, DeferredPushesWaitForTheRunningCommand) {
  PubSub ps;
  Client a(resp::Protocol::kResp3);
  ps.subscribe(a.s, PubSubKind::kChannel, "c");
  a.s.defer_pushes = true;
  EXPECT_EQ(ps.publish("c", "x"), 1u);
  EXPECT_EQ(a.out, "");
  EXPECT_EQ(a.s.deferred_pushes, ">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nx\r\n");
  EXPECT_EQ(a.flushes, 0);
}

TEST(PubSubRegistry, ResubscribeAfterTheChannelWentAway) {
  // The session's names view the registry's keys: erasing the last subscriber's channel and
  // subscribing again must leave nothing dangling.
  PubSub ps;
  Client a, b;
  for (auto n : {"z", "a", "m"}) ps.subscribe(a.s, PubSubKind::kChannel, n);
  EXPECT_TRUE(ps.unsubscribe(a.s, PubSubKind::kChannel, "a"));
  EXPECT_EQ(ps.channel_count(), 2u);
  EXPECT_TRUE(ps.subscribe(b.s, PubSubKind::kChannel, "a"));
  EXPECT_TRUE(ps.subscribe(a.s, PubSubKind::kChannel, "a"));
  std::vector<std::string> names(a.s.subs->channels.names().begin(),
                                 a.s.subs->channels.names().end());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "m", "z"}));
  EXPECT_EQ(ps.publish("a", "x"), 2u);
  ps.unsubscribe_all(b.s);
  EXPECT_EQ(ps.publish("a", "y"), 1u);
  EXPECT_TRUE(a.s.subs->channels.contains("a"));
}

TEST(PubSubRegistry, ManySubscribersOneEncodingEach) {
  PubSub ps;
  std::vector<std::unique_ptr<Client>> cs;
  for (int i = 0; i < 100; ++i) {
    cs.push_back(std::make_unique<Client>(i % 2 ? resp::Protocol::kResp3 : resp::Protocol::kResp2));
    ps.subscribe(cs.back()->s, PubSubKind::kChannel, "c");
  }
  EXPECT_EQ(ps.publish("c", std::string(64, 'x')), 100u);
  for (auto& c : cs) EXPECT_EQ(c->out[0], c->s.proto == resp::Protocol::kResp3 ? '>' : '*');
  for (auto& c : cs) ps.unsubscribe_all(c->s);
  EXPECT_EQ(ps.channel_count(), 0u);
}

}  // namespace
}  // namespace streamd::cmd
