// Startup loading: the command line, config files (comments, quoting, include), flags overriding
// the file, and the error texts. Line numbers and texts were observed with redis-server 7.0.15
// (`redis-server a.conf --port abc` and friends).
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "streamd/config/config.h"

namespace streamd::config {
namespace {

using test::ScratchDir;

CommandLine cmdline(std::initializer_list<std::string_view> args) {
  std::vector<std::string_view> v(args);
  return parse_command_line(v);
}

// The fatal text streamd prints, with Redis's product name so the comparison is literal.
std::string fatal(const std::optional<LoadError>& err) {
  return err ? err->fatal_text("Redis 7.0.15") : "no error";
}

std::string block(int line, std::string_view text, std::string_view reason) {
  return "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at "
         "line " +
         std::to_string(line) + "\n>>> '" + std::string(text) + "'\n" + std::string(reason);
}

TEST(ConfigLoad, CommandLineShapes) {
  auto cl = cmdline({"/etc/streamd.conf", "--port", "7000", "--bind", "a", "b"});
  EXPECT_EQ(cl.config_file, "/etc/streamd.conf");
  EXPECT_FALSE(cl.config_from_stdin);
  EXPECT_EQ(cl.options, "port \"7000\"\nbind \"a\" \"b\"");

  cl = cmdline({"--port", "7000"});
  EXPECT_EQ(cl.config_file, "");
  EXPECT_EQ(cl.options, "port \"7000\"");

  // The word right after a flag name is its value even if it starts with "--".
  EXPECT_EQ(cmdline({"--requirepass", "--x", "--y", "z"}).options, "requirepass \"--x\"\ny \"z\"");
  // A bare --save means save "".
  EXPECT_EQ(cmdline({"--save", "--port", "1"}).options, "save \"\"\nport \"1\"");
  EXPECT_EQ(cmdline({"--port", "1", "--save"}).options, "port \"1\"\nsave \"\"");
  EXPECT_EQ(cmdline({"--foo", "--save"}).options, "foo \"--save\"");
  EXPECT_EQ(cmdline({"--save", "900", "1", "300", "10"}).options,
            "save \"900\" \"1\" \"300\" \"10\"");
  // Values are quoted so that they read back exactly.
  EXPECT_EQ(cmdline({"--requirepass", "a b\"c"}).options, "requirepass \"a b\\\"c\"");
  // Only the first argument can be the config file.
  EXPECT_EQ(cmdline({"--port", "7391", "b.conf"}).config_file, "");
  // "-" first or last reads stdin.
  EXPECT_TRUE(cmdline({"-"}).config_from_stdin);
  EXPECT_TRUE(cmdline({"--port", "1", "-"}).config_from_stdin);
  EXPECT_TRUE(cmdline({"a.conf", "-"}).config_from_stdin);
}

TEST(ConfigLoad, EarlyActions) {
  const char* version[] = {"streamd", "--version"};
  const char* v[] = {"streamd", "-v"};
  const char* help[] = {"streamd", "--help"};
  const char* h[] = {"streamd", "-h"};
  const char* none[] = {"streamd", "--port", "1"};
  const char* bare[] = {"streamd"};
  EXPECT_EQ(early_action(2, version), EarlyAction::kVersion);
  EXPECT_EQ(early_action(2, v), EarlyAction::kVersion);
  EXPECT_EQ(early_action(2, help), EarlyAction::kHelp);
  EXPECT_EQ(early_action(2, h), EarlyAction::kHelp);
  EXPECT_EQ(early_action(3, none), EarlyAction::kNone);
  EXPECT_EQ(early_action(1, bare), EarlyAction::kNone);
}

TEST(ConfigLoad, FileWithCommentsAndQuoting) {
  ScratchDir dir;
  const std::string path = dir.write("streamd.conf",
                                     "# a comment\n"
                                     "\n"
                                     "   # indented comment\n"
                                     "port 7001\r\n"
                                     "\tMAXCLIENTS   50  \n"
                                     "requirepass \"p a\\x41ss\\n\"\n"
                                     "logfile 'it\\'s.log'\n"
                                     "save 900 1 300 10\n"
                                     "bind 10.0.0.1 \"-::1\"\n"
                                     "client-output-buffer-limit pubsub 1mb 2mb 10\n"
                                     "notify-keyspace-events \"\"\n"
                                     "maxmemory 1gb");  // no final newline
  Config cfg;
  ASSERT_EQ(fatal(cfg.load(cmdline({path}))), "no error");
  EXPECT_EQ(cfg.port(), 7001);
  EXPECT_EQ(cfg.maxclients(), 50);
  EXPECT_EQ(cfg.requirepass(), "p aAss\n");
  EXPECT_EQ(cfg.logfile(), "it's.log");
  EXPECT_EQ(cfg.get("save"), "900 1 300 10");
  EXPECT_EQ(cfg.bind(), (std::vector<std::string>{"10.0.0.1", "-::1"}));
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kPubSub],
            (OutputBufferLimit{1 << 20, 2 << 20, 10}));
  EXPECT_EQ(cfg.maxmemory(), 1ull << 30);
  EXPECT_EQ(cfg.config_file(), path);
}

TEST(ConfigLoad, FlagsOverrideTheFile) {
  ScratchDir dir;
  const std::string path = dir.write("s.conf", "port 7001\ndatabases 4\nmaxclients 50\n");
  Config cfg;
  ASSERT_EQ(fatal(cfg.load(cmdline({path, "--port", "7002", "--databases", "8"}))), "no error");
  EXPECT_EQ(cfg.port(), 7002);
  EXPECT_EQ(cfg.databases(), 8);
  EXPECT_EQ(cfg.maxclients(), 50);
}

// The RDB directives (issue 14): from a file and from flags, and CONFIG SET for the mutable ones.
TEST(ConfigLoad, RdbDirectives) {
  ScratchDir dir;
  const std::string path =
      dir.write("r.conf", "rdbcompression no\nrdbchecksum no\nrdb-skip-unsupported-types yes\n");
  Config cfg;
  ASSERT_EQ(fatal(cfg.load(cmdline({path, "--rdbcompression", "yes"}))), "no error");
  EXPECT_EQ(cfg.get("rdbcompression"), "yes");
  EXPECT_EQ(cfg.get("rdbchecksum"), "no");
  EXPECT_EQ(cfg.get("rdb-skip-unsupported-types"), "yes");
  EXPECT_FALSE(cfg.set("rdbcompression", "no"));
  EXPECT_EQ(cfg.get("rdbcompression"), "no");
  EXPECT_FALSE(cfg.set("rdb-skip-unsupported-types", "no"));
  EXPECT_EQ(cfg.get("rdb-skip-unsupported-types"), "no");
  EXPECT_EQ(fatal(Config().load(cmdline({"--rdbchecksum", "maybe"}))),
            block(2, "rdbchecksum \"maybe\"", "argument must be 'yes' or 'no'"));
}

TEST(ConfigLoad, FlagsWithSeveralWords) {
  Config cfg;
  ASSERT_EQ(fatal(cfg.load(cmdline({"--save", "900", "1", "300", "10", "--bind", "a", "b", "c",
                                    "--client-output-buffer-limit", "normal", "0", "0", "0"}))),
            "no error");
  EXPECT_EQ(cfg.get("save"), "900 1 300 10");
  EXPECT_EQ(cfg.get("bind"), "a b c");
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kNormal], OutputBufferLimit{});
  EXPECT_EQ(cfg.config_file(), "");
}

TEST(ConfigLoad, MultiWordDirectiveAsOneArgument) {
  // redis-server splits a lone argument of bind, save and client-output-buffer-limit again,
  // collapsing runs of spaces (unlike CONFIG SET, which splits on each single space).
  Config cfg;
  ASSERT_EQ(fatal(cfg.load_text("bind \"127.0.0.1  ::1\"\n"
                                "save \"900  1 300 10\"\n"
                                "client-output-buffer-limit \"normal 1 2 3 \"\n")),
            "no error");
  EXPECT_EQ(cfg.bind(), (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(cfg.get("save"), "900 1 300 10");
  EXPECT_EQ(cfg.client_output_buffer_limit()[ClientClass::kNormal], (OutputBufferLimit{1, 2, 3}));
  Config empty;
  ASSERT_EQ(fatal(empty.load_text("bind \"\"\nsave 1 1\nsave \"\"\n")), "no error");
  EXPECT_TRUE(empty.bind().empty());
  EXPECT_TRUE(empty.save().empty());
  // Several arguments are not split again.
  Config bad;
  EXPECT_EQ(fatal(bad.load_text("save \"900 1\" \"300 10\"")),
            block(1, "save \"900 1\" \"300 10\"", "Invalid save parameters"));
  // The same from the command line, as the test harness and the usage text write it.
  Config flags;
  ASSERT_EQ(fatal(flags.load(cmdline({"--bind", "127.0.0.1 -::1", "--save", "900 1"}))),
            "no error");
  EXPECT_EQ(flags.bind(), (std::vector<std::string>{"127.0.0.1", "-::1"}));
  EXPECT_EQ(flags.get("save"), "900 1");
}

TEST(ConfigLoad, SaveLinesAccumulateAcrossFileAndFlags) {
  ScratchDir dir;
  Config a;
  ASSERT_EQ(fatal(a.load_text("save 900 1\nsave 300 10\n")), "no error");
  EXPECT_EQ(a.get("save"), "900 1 300 10");
  Config b;
  ASSERT_EQ(fatal(b.load_text("save 900 1\nsave \"\"\nsave 300 10\n")), "no error");
  EXPECT_EQ(b.get("save"), "300 10");
  Config c;
  const std::string path = dir.write("s.conf", "save 900 1\n");
  ASSERT_EQ(fatal(c.load(cmdline({path, "--save", "60", "5", "--save", "1", "1"}))), "no error");
  EXPECT_EQ(c.get("save"), "900 1 60 5 1 1");
  // Other directives: the last line wins; output buffer limits merge per class.
  Config d;
  ASSERT_EQ(fatal(d.load_text("bind 127.0.0.1\nbind 127.0.0.1 -::1\n"
                              "client-output-buffer-limit normal 1mb 2mb 3\n"
                              "client-output-buffer-limit pubsub 1 2 3\n")),
            "no error");
  EXPECT_EQ(d.get("bind"), "127.0.0.1 -::1");
  EXPECT_EQ(d.get("client-output-buffer-limit"),
            "normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 1 2 3");
}

TEST(ConfigLoad, UnknownDirectiveFromFlags) {
  Config cfg;
  EXPECT_EQ(fatal(cfg.load(cmdline({"--foo", "bar"}))),
            block(2, "foo \"bar\"", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--port", "7391", "--foo", "bar"}))),
            block(3, "foo \"bar\"", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(
      fatal(cfg.load(cmdline({"--port", "7391", "--bind", "1", "2", "--foo", "a b", "c\"d"}))),
      block(4, "foo \"a b\" \"c\\\"d\"", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--", "--foo"}))),
            block(2, "\"--foo\"", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(cfg.port(), 6379);  // nothing was applied
}

TEST(ConfigLoad, BadValuesFromFlags) {
  Config cfg;
  EXPECT_EQ(fatal(cfg.load(cmdline({"--port", "abc"}))),
            block(2, "port \"abc\"", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--port", "99999"}))),
            block(2, "port \"99999\"", "argument must be between 0 and 65535 inclusive"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--maxmemory", "1xb"}))),
            block(2, "maxmemory \"1xb\"", "argument must be a memory value"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--loglevel", "foo"}))),
            block(2, "loglevel \"foo\"",
                  "argument(s) must be one of the following: debug, verbose, notice, warning"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--appendonly", "maybe"}))),
            block(2, "appendonly \"maybe\"", "argument must be 'yes' or 'no'"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--daemonize"}))),
            block(2, "daemonize", "wrong number of arguments"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--port", "7393", "a", "b"}))),
            block(2, "port \"7393\" \"a\" \"b\"", "wrong number of arguments"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--save", "1", "--port", "7391", "--loglevel"}))),
            block(2, "save \"1\"", "Invalid save parameters"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--databases", "0"}))),
            block(2, "databases \"0\"", "argument must be between 1 and 2147483647 inclusive"));
  EXPECT_EQ(fatal(cfg.load(cmdline({"--appendfilename", "/a/b"}))),
            block(2, "appendfilename \"/a/b\"", "appendfilename can't be a path, just a filename"));
}

TEST(ConfigLoad, ErrorsInTheFileCountFileLines) {
  ScratchDir dir;
  const std::string a = dir.write("a.conf", "# comment\nport 7391\nfoo bar\n");
  Config cfg;
  EXPECT_EQ(fatal(cfg.load(cmdline({a}))),
            block(3, "foo bar", "Bad directive or wrong number of arguments"));
  // Flags come after the file and a newline: a two-line file puts the first flag on line 4.
  const std::string b = dir.write("b.conf", "# comment\nport 7391\n");
  EXPECT_EQ(fatal(cfg.load(cmdline({b, "--port", "abc"}))),
            block(4, "port \"abc\"", "argument couldn't be parsed into an integer"));
  EXPECT_EQ(fatal(cfg.load(cmdline({b, "--save", "--foo", "x"}))),
            block(5, "foo \"x\"", "Bad directive or wrong number of arguments"));
  EXPECT_EQ(fatal(cfg.load(cmdline({b, "extra", "--foo"}))),
            block(4, "\"extra\"", "Bad directive or wrong number of arguments"));
}

TEST(ConfigLoad, LineErrors) {
  const std::pair<const char*, std::string> cases[] = {
      {"port \"abc", block(1, "port \"abc", "Unbalanced quotes in configuration line")},
      {"requirepass \"ab\"c",
       block(1, "requirepass \"ab\"c", "Unbalanced quotes in configuration line")},
      {"port 1 2", block(1, "port 1 2", "wrong number of arguments")},
      {"PORT 1 # c", block(1, "PORT 1 # c", "wrong number of arguments")},
      {"save 900 1 300", block(1, "save 900 1 300", "Invalid save parameters")},
      {"client-output-buffer-limit normal 0 0",
       block(1, "client-output-buffer-limit normal 0 0",
             "Wrong number of arguments in buffer limit configuration.")},
      {"client-output-buffer-limit foo 0 0 0",
       block(1, "client-output-buffer-limit foo 0 0 0",
             "Invalid client class specified in buffer limit configuration.")},
      {"maxmemory -5", block(1, "maxmemory -5", "argument must be a memory value")},
      {"requirepass", block(1, "requirepass", "wrong number of arguments")},
      {"loglevel", block(1, "loglevel", "wrong number of arguments")},
      {"notify-keyspace-events", block(1, "notify-keyspace-events", "wrong number of arguments")},
      {"port \"\"", block(1, "port \"\"", "argument couldn't be parsed into an integer")},
      {"include", block(1, "include", "Bad directive or wrong number of arguments")},
      {"include a b", block(1, "include a b", "Bad directive or wrong number of arguments")},
      {"unixsocketperm 800",
       block(1, "unixsocketperm 800", "argument couldn't be parsed as an octal number")},
      {"\n\n  hz x  \n", block(3, "hz x", "argument couldn't be parsed into an integer")},
  };
  for (const auto& [text, expected] : cases) {
    Config cfg;
    EXPECT_EQ(fatal(cfg.load_text(text)), expected) << text;
  }
}

TEST(ConfigLoad, DirectivesThatTakeNoArgument) {
  // Accepted by redis-server too: save and bind alone, an empty requirepass.
  Config cfg;
  ASSERT_EQ(fatal(cfg.load_text("save 1 1\nsave\nbind\nrequirepass \"\"\n"
                                "client-output-buffer-limit\n")),
            "no error");
  EXPECT_EQ(cfg.get("save"), "");
  EXPECT_TRUE(cfg.bind().empty());
}

TEST(ConfigLoad, MissingConfigFile) {
  Config cfg;
  auto err = cfg.load(cmdline({"/nonexistent/streamd.conf"}));
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->line, 0);
  EXPECT_EQ(fatal(err),
            "Fatal error, can't open config file '/nonexistent/streamd.conf': No such file or "
            "directory");
}

TEST(ConfigLoad, Include) {
  ScratchDir dir;
  const std::string inc = dir.write("inc.conf", "maxclients 77\nport 7005\n");
  const std::string main = dir.write("main.conf", "port 7004\ninclude " + inc + "\ntimeout 9\n");
  Config cfg;
  ASSERT_EQ(fatal(cfg.load(cmdline({main}))), "no error");
  EXPECT_EQ(cfg.port(), 7005);  // the included line came later
  EXPECT_EQ(cfg.maxclients(), 77);
  EXPECT_EQ(cfg.timeout(), 9);
  EXPECT_EQ(cfg.config_file(), main);
}

TEST(ConfigLoad, IncludeGlobAndErrors) {
  ScratchDir dir;
  dir.write("part1.conf", "maxclients 10\n");
  dir.write("part2.conf", "maxclients 20\ntimeout 3\n");
  Config cfg;
  ASSERT_EQ(fatal(cfg.load_text("include " + (dir.path() / "part*.conf").string())), "no error");
  EXPECT_EQ(cfg.maxclients(), 20);  // sorted: part2 last
  EXPECT_EQ(cfg.timeout(), 3);
  // A pattern matching nothing is fine.
  EXPECT_EQ(fatal(cfg.load_text("include " + (dir.path() / "none*.conf").string())), "no error");
  // An error inside an included file reports that file's line.
  const std::string bad = dir.write("bad.conf", "\nfoo bar\n");
  EXPECT_EQ(fatal(cfg.load_text("port 1\ninclude " + bad)),
            block(2, "foo bar", "Bad directive or wrong number of arguments"));
  // A missing file.
  EXPECT_EQ(fatal(cfg.load_text("include /nonexistent.conf")),
            "Fatal error, can't open config file '/nonexistent.conf': No such file or directory");
  // Including itself does not recurse forever.
  const std::string loop = (dir.path() / "loop.conf").string();
  dir.write("loop.conf", "include " + loop + "\n");
  EXPECT_EQ(fatal(cfg.load_text("include " + loop)),
            block(1, "include " + loop, "Too many nested include directives"));
}

TEST(ConfigLoad, FailedLoadChangesNothing) {
  Config cfg;
  ASSERT_FALSE(cfg.load_text("port 7000\nmaxclients x\n") == std::nullopt);
  EXPECT_EQ(cfg.port(), 6379);
}

TEST(ConfigLoad, LoadFromCommandLineForMain) {
  ScratchDir dir;
  const std::string path = dir.write("m.conf", "port 7100\n");
  const char* argv[] = {"streamd", path.c_str(), "--maxclients", "5"};
  Config cfg;
  std::string file, error;
  ASSERT_TRUE(load_from_command_line(cfg, 4, argv, file, error)) << error;
  EXPECT_EQ(file, path);
  EXPECT_EQ(cfg.port(), 7100);
  EXPECT_EQ(cfg.maxclients(), 5);

  const char* bad[] = {"streamd", "--maxclients", "notanumber"};
  Config cfg2;
  EXPECT_FALSE(load_from_command_line(cfg2, 3, bad, file, error));
  EXPECT_NE(error.find("FATAL CONFIG FILE ERROR (streamd "), std::string::npos) << error;
  EXPECT_NE(error.find("maxclients \"notanumber\""), std::string::npos) << error;
}

TEST(ConfigLoad, RelativeConfigFileBecomesAbsolute) {
  ScratchDir dir;
  dir.write("rel.conf", "port 7200\n");
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  Config cfg;
  auto err = cfg.load(cmdline({"rel.conf"}));
  std::filesystem::current_path(cwd);
  ASSERT_EQ(fatal(err), "no error");
  EXPECT_EQ(cfg.config_file(), (dir.path() / "rel.conf").string());
}

}  // namespace
}  // namespace streamd::config
