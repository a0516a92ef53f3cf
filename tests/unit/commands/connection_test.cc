// Connection commands through dispatch: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET and CLIENT,
// with the exact bytes redis-server 7.0.15 sends (recorded from Debian's redis-server).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "command_harness.h"
#include "streamd/commands/server/client_info.h"

namespace streamd::test {
namespace {

using resp::Protocol;

class ConnectionTest : public ::testing::Test {
 protected:
  std::string Run(const std::vector<std::string>& argv, int client = 0) {
    return h.Run(argv, h.session(client).proto, client);
  }
  void RequirePass(const std::string& pass) {
    ASSERT_FALSE(h.config().set("requirepass", pass).has_value());
  }
  std::string Hello2(uint64_t id) {
    return "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n8.10.0\r\n$5\r\nproto\r\n:"
           "2\r\n$2\r\nid\r\n:" +
           std::to_string(id) +
           "\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*"
           "0\r\n";
  }
  std::string Hello3(uint64_t id) {
    return "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n8.10.0\r\n$5\r\nproto\r\n:"
           "3\r\n$2\r\nid\r\n:" +
           std::to_string(id) +
           "\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*"
           "0\r\n";
  }

  CommandHarness h;
};

TEST_F(ConnectionTest, PingAndEcho) {
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"ping", "hello"}), "$5\r\nhello\r\n");
  EXPECT_EQ(Run({"PING", ""}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"PING", "a", "b"}), "-ERR wrong number of arguments for 'ping' command\r\n");
  EXPECT_EQ(Run({"ECHO", std::string("bin\0ary", 7)}), std::string("$7\r\nbin\0ary\r\n", 13));
  EXPECT_EQ(Run({"ECHO"}), "-ERR wrong number of arguments for 'echo' command\r\n");
}

TEST_F(ConnectionTest, HelloSwitchesProtocolAndRepliesInTheNewOne) {
  uint64_t id = h.session().id;
  EXPECT_EQ(Run({"HELLO"}), Hello2(id));
  EXPECT_EQ(Run({"HELLO", "3"}), Hello3(id));
  EXPECT_EQ(h.session().proto, Protocol::kResp3);
  EXPECT_EQ(Run({"GET", "nosuch"}), "_\r\n");
  EXPECT_EQ(Run({"HELLO"}), Hello3(id));
  EXPECT_EQ(Run({"hello", "2"}), Hello2(id));
  EXPECT_EQ(h.session().proto, Protocol::kResp2);
  EXPECT_EQ(Run({"GET", "nosuch"}), "$-1\r\n");
}

TEST_F(ConnectionTest, HelloErrors) {
  EXPECT_EQ(Run({"HELLO", "1"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "4"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "-1"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "abc"}), "-ERR Protocol version is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"HELLO", "3.0"}), "-ERR Protocol version is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "BOGUS"}), "-ERR Syntax error in HELLO option 'BOGUS'\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "SETNAME"}), "-ERR Syntax error in HELLO option 'SETNAME'\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default"}), "-ERR Syntax error in HELLO option 'AUTH'\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "nouser", "pw"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "SETNAME", "bad name"}),
            "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  // None of these changed the protocol.
  EXPECT_EQ(h.session().proto, Protocol::kResp2);
}

TEST_F(ConnectionTest, HelloOptionsApplyInOrder) {
  uint64_t id = h.session().id;
  EXPECT_EQ(Run({"HELLO", "2", "SETNAME", "conn1"}), Hello2(id));
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$5\r\nconn1\r\n");
  // The first SETNAME takes effect before the second one fails.
  EXPECT_EQ(Run({"HELLO", "3", "SETNAME", "good", "SETNAME", "bad x"}),
            "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$4\r\ngood\r\n");
  EXPECT_EQ(Run({"HELLO", "2", "AUTH", "default", "anything", "SETNAME", "n"}), Hello2(id));
}

TEST_F(ConnectionTest, AuthWithoutRequirepass) {
  EXPECT_EQ(Run({"AUTH", "x"}),
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?\r\n");
  EXPECT_EQ(Run({"AUTH", "default", "x"}), "+OK\r\n");
  EXPECT_EQ(Run({"AUTH", "a", "b"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"AUTH", "a", "b", "c"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"AUTH"}), "-ERR wrong number of arguments for 'auth' command\r\n");
}

TEST_F(ConnectionTest, AuthWithRequirepass) {
  RequirePass("secret");
  h.session().authenticated = false;  // the network layer does this for a new connection
  EXPECT_EQ(Run({"PING"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"HELLO", "3"}),
            "-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            "the RESP protocol version at the same time\r\n");
  EXPECT_EQ(Run({"AUTH", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"AUTH", "bob", "secret"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"AUTH", "secret"}), "+OK\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  // A failed AUTH keeps the authentication already obtained.
  EXPECT_EQ(Run({"AUTH", "wrong"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  // RESET drops it.
  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");
  EXPECT_EQ(Run({"PING"}), "-NOAUTH Authentication required.\r\n");
  // HELLO AUTH authenticates before a later option fails.
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "secret", "BOGUS"}),
            "-ERR Syntax error in HELLO option 'BOGUS'\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"AUTH", "default", "secret"}), "+OK\r\n");
}

TEST_F(ConnectionTest, HelloAuthFailureLeavesClientUnauthenticated) {
  RequirePass("secret");
  h.session().authenticated = false;
  EXPECT_EQ(Run({"HELLO", "4", "AUTH", "default", "secret"}),
            "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"PING"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "secret"}), Hello3(h.session().id));
  EXPECT_TRUE(h.session().authenticated);
}

TEST_F(ConnectionTest, Select) {
  EXPECT_EQ(Run({"SELECT", "15"}), "+OK\r\n");
  EXPECT_EQ(h.session().db, 15);
  EXPECT_EQ(Run({"SELECT", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "-1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "abc"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "1.5"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "99999999999"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(h.session().db, 15);
}

TEST_F(ConnectionTest, QuitClosesAfterReply) {
  EXPECT_EQ(Run({"QUIT", "extra", "args"}), "+OK\r\n");
  EXPECT_TRUE(h.session().close_after_reply);
}

TEST_F(ConnectionTest, ResetRestoresANewConnectionsState) {
  Run({"HELLO", "3", "SETNAME", "n"});
  Run({"SELECT", "3"});
  Run({"CLIENT", "NO-EVICT", "on"});
  Run({"WATCH", "k"});
  Run({"MULTI"});
  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");
  cmd::Session& s = h.session();
  EXPECT_EQ(s.proto, Protocol::kResp2);
  EXPECT_EQ(s.db, 0);
  EXPECT_EQ(s.name, "");
  EXPECT_FALSE(s.in_multi);
  EXPECT_TRUE(s.watched.empty());
  EXPECT_FALSE(s.no_evict);
  EXPECT_EQ(Run({"GET", "nosuch"}), "$-1\r\n");
  EXPECT_EQ(Run({"RESET", "x"}), "-ERR wrong number of arguments for 'reset' command\r\n");
}

TEST_F(ConnectionTest, ClientIdNameAndErrors) {
  EXPECT_EQ(Run({"CLIENT", "ID"}), ":" + std::to_string(h.session().id) + "\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "myname"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$6\r\nmyname\r\n");
  EXPECT_EQ(Run({"client", "setname", ""}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
  for (std::string bad : {"with space", "new\nline", "\x01", "\x7f", "\xc3\xa9"}) {
    EXPECT_EQ(Run({"CLIENT", "SETNAME", bad}),
              "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  }
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "a-b_c:d.e/f{g}"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT"}), "-ERR wrong number of arguments for 'client' command\r\n");
  EXPECT_EQ(Run({"CLIENT", "BOGUS"}), "-ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.\r\n");
  EXPECT_EQ(Run({"CLIENT", "ID", "x"}),
            "-ERR wrong number of arguments for 'client|id' command\r\n");
  std::string help = Run({"CLIENT", "HELP"});
  EXPECT_EQ(help.substr(0, 71),
            "*58\r\n+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n");
}

TEST_F(ConnectionTest, ClientInfoNamesTheLastCommandLookedUpEvenIfRefused) {
  // Redis sets c->lastcmd when it looks the command up, before arity, AUTH, ACL and the other
  // checks: a refused command is the last command, an unknown one leaves NULL.
  auto cmd = [&] {
    std::string line = cmd::client_info_line(h.server(), h.session(), nullptr);
    std::size_t at = line.find(" cmd=") + 5;
    return line.substr(at, line.find(' ', at) - at);
  };
  Run({"PING"});
  EXPECT_EQ(cmd(), "ping");
  EXPECT_EQ(Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(cmd(), "get");
  Run({"NOSUCHCOMMAND"});
  EXPECT_EQ(cmd(), "NULL");
  Run({"CONFIG", "NOSUCH"});
  EXPECT_EQ(cmd(), "NULL");
  Run({"ACL", "SETUSER", "limited", "on", "nopass", "+auth", "+client"});
  Run({"AUTH", "limited", "x"});
  EXPECT_EQ(Run({"SET", "k", "v"}).substr(0, 7), "-NOPERM");
  EXPECT_EQ(cmd(), "set");
  // ACL LOG's client-info is taken as the refusal is logged: it names the refused command.
  Run({"AUTH", "default", "x"});
  std::string log = Run({"ACL", "LOG", "1"});
  EXPECT_NE(log.find(" cmd=set "), std::string::npos) << log;
}

TEST_F(ConnectionTest, ClientInfoLine) {
  // The session is made by its first command; five seconds later it is 5 s old and idle.
  Run({"SELECT", "2"});
  h.clock().advance(5000);
  std::string line = cmd::client_info_line(h.server(), h.session(), nullptr);
  std::string id = std::to_string(h.session().id);
  EXPECT_EQ(line.substr(0, line.find(" qbuf=")),
            "id=" + id +
                " addr=127.0.0.1:40000 laddr=127.0.0.1:6379 fd=-1 name= age=5 idle=5 flags=N "
                "db=2 sub=0 psub=0 ssub=0 multi=-1 watch=0");
  EXPECT_NE(line.find(" events=r cmd=select user=default redir=-1 resp=2 lib-name= lib-ver= "
                      "io-thread=0"),
            std::string::npos)
      << line;
  // Redis 8.0's fields: watch= counts the watched keys, lib-name/lib-ver show CLIENT SETINFO.
  Run({"WATCH", "a", "b"});
  Run({"CLIENT", "SETINFO", "LIB-NAME", "redis-py"});
  Run({"CLIENT", "SETINFO", "LIB-VER", "8.0.1"});
  line = cmd::client_info_line(h.server(), h.session(), nullptr);
  EXPECT_NE(line.find(" multi=-1 watch=2 qbuf="), std::string::npos) << line;
  EXPECT_NE(line.find(" resp=2 lib-name=redis-py lib-ver=8.0.1 io-thread=0"), std::string::npos)
      << line;
  Run({"UNWATCH"});
  // CLIENT INFO describes the running command; a verbatim string in RESP3, a bulk in RESP2.
  std::string info = h.Run({"CLIENT", "INFO"}, Protocol::kResp3);
  EXPECT_EQ(info.substr(0, info.find("\r\n") + 6).substr(0, 1), "=");
  EXPECT_NE(info.find("txt:id=" + id + " "), std::string::npos) << info;
  EXPECT_NE(info.find(" cmd=client|info user=default redir=-1 resp=3 lib-name=redis-py "
                      "lib-ver=8.0.1 io-thread=0\n\r\n"),
            std::string::npos)
      << info;
  std::string info2 = h.Run({"CLIENT", "INFO"}, Protocol::kResp2);
  EXPECT_EQ(info2[0], '$');
  EXPECT_NE(info2.find(" resp=2 lib-name=redis-py lib-ver=8.0.1 io-thread=0\n\r\n"),
            std::string::npos)
      << info2;
}

TEST_F(ConnectionTest, ClientFlags) {
  cmd::Session& s = h.session();
  EXPECT_EQ(cmd::client_flags(s), "N");
  Run({"WATCH", "k"});
  Run({"SET", "k", "1"}, 1);
  Run({"CLIENT", "NO-EVICT", "on"});  // before MULTI: inside it, the command would be queued
  Run({"MULTI"});
  EXPECT_EQ(cmd::client_flags(s), "xde");
}

TEST_F(ConnectionTest, ClientListFiltersAndErrors) {
  h.session(0);
  h.session(1);
  h.session(2);
  std::string all = Run({"CLIENT", "LIST"});
  // The bulk header's CRLF, 3 lines, the bulk's closing CRLF.
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 5) << all;
  std::string two = Run({"CLIENT", "LIST", "ID", std::to_string(h.session(2).id), "99999", "0"});
  EXPECT_NE(two.find("id=" + std::to_string(h.session(2).id) + " "), std::string::npos);
  EXPECT_EQ(std::count(two.begin(), two.end(), '\n'), 3) << two;
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "abc"}), "-ERR Invalid client ID\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "bogus"}), "-ERR Unknown client type 'bogus'\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "pubsub"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "normal", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "bogus"}), "-ERR syntax error\r\n");
}

TEST_F(ConnectionTest, ClientKill) {
  int killed = 0;
  h.session(1).kill = [&] { ++killed; };
  h.session(2).kill = [&] { ++killed; };
  EXPECT_EQ(Run({"CLIENT", "KILL", "1.2.3.4:5"}), "-ERR No such client\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "127.0.0.1:40001"}), "+OK\r\n");
  EXPECT_EQ(killed, 1);
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "abc"}), "-ERR client-id should be greater than 0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "0"}), "-ERR client-id should be greater than 0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "99999"}), ":0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "1", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "bogus", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "TYPE", "bogus"}), "-ERR Unknown client type 'bogus'\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "USER", "nouser"}), "-ERR No such user 'nouser'\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "SKIPME", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ADDR", "127.0.0.1:40002", "USER", "default"}), ":1\r\n");
  EXPECT_EQ(killed, 2);
  // SKIPME yes (the default) spares the caller; SKIPME no closes it after the reply.
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", std::to_string(h.session().id)}), ":0\r\n");
  EXPECT_FALSE(h.session().close_after_reply);
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", std::to_string(h.session().id), "SKIPME", "no"}),
            ":1\r\n");
  EXPECT_TRUE(h.session().close_after_reply);
}

TEST_F(ConnectionTest, ClientReplyModes) {
  EXPECT_EQ(h.RunRaw({"CLIENT", "REPLY", "OFF"}, Protocol::kResp2), "");
  EXPECT_EQ(h.RunRaw({"PING"}, Protocol::kResp2), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  EXPECT_EQ(h.RunRaw({"CLIENT", "REPLY", "SKIP"}, Protocol::kResp2), "");
  EXPECT_EQ(h.RunRaw({"PING"}, Protocol::kResp2), "");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "bogus"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "REPLY"}),
            "-ERR wrong number of arguments for 'client|reply' command\r\n");
}

TEST_F(ConnectionTest, NoTouchModeLeavesTheAccessTimeButTouchStillTouches) {
  Run({"SET", "foo", "bar"});
  Run({"CLIENT", "NO-TOUCH", "on"});
  h.Advance(5000);
  Run({"GET", "foo"});
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "foo"}), ":5\r\n");
  EXPECT_EQ(Run({"TOUCH", "foo"}), ":1\r\n");
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "foo"}), ":0\r\n");
  EXPECT_TRUE(h.session().no_touch);
}

TEST_F(ConnectionTest, ClientNoEvictNoTouchSetinfo) {
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "on"}), "+OK\r\n");
  EXPECT_TRUE(h.session().no_evict);
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "OFF"}), "+OK\r\n");
  EXPECT_FALSE(h.session().no_evict);
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "on"}), "+OK\r\n");
  EXPECT_TRUE(h.session().no_touch);
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "LIB-NAME", "go-redis(,go1.21.0)"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "lib-ver", "9.5.1"}), "+OK\r\n");
  EXPECT_EQ(h.session().lib_name, "go-redis(,go1.21.0)");
  EXPECT_EQ(h.session().lib_ver, "9.5.1");
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "bogus", "x"}), "-ERR Unrecognized option 'bogus'\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "lib-name", "a b"}),
            "-ERR lib-name cannot contain spaces, newlines or special characters.\r\n");
}

TEST_F(ConnectionTest, ClientUnblock) {
  cmd::Session& waiter = h.session(1);
  std::string out;
  waiter.out = &out;
  bool resumed = false;
  waiter.resume = [&] { resumed = true; };
  h.server().blocking().block(waiter, {{0, "s"}}, 0, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  std::string id = std::to_string(waiter.id);
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", id, "bogus"}),
            "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", id, "timeout", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT "
            "HELP.\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", "abc"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", id}), ":1\r\n");
  EXPECT_EQ(out, "*-1\r\n");
  EXPECT_TRUE(resumed);
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", id}), ":0\r\n");

  out.clear();
  h.server().blocking().block(waiter, {{0, "s"}}, 0, {"XREAD", "BLOCK", "0", "STREAMS", "s", "$"});
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", id, "ERROR"}), ":1\r\n");
  EXPECT_EQ(out, "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", "99999"}), ":0\r\n");
}

TEST_F(ConnectionTest, ClientTrackingQueries) {
  EXPECT_EQ(Run({"CLIENT", "GETREDIR"}), ":-1\r\n");
  EXPECT_EQ(Run({"CLIENT", "TRACKINGINFO"}),
            "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*"
            "0\r\n");
  EXPECT_EQ(h.Run({"CLIENT", "TRACKINGINFO"}, Protocol::kResp3),
            "%3\r\n$5\r\nflags\r\n~1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*"
            "0\r\n");
}

}  // namespace
}  // namespace streamd::test
