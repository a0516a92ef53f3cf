"""ACL users over real sockets, as client libraries and operators use them:

- redis-py's ACL API (acl_setuser / acl_getuser / acl_list / acl_log / acl_deluser) and a
  restricted user's connection (username + password): allowed stream work on its keys, NOPERM
  for other keys, commands and channels; DELUSER closes its connection.
- The ACL file: ACL SAVE writes it, ACL LOAD reads it (a connection whose user is gone is
  closed), a restart with --aclfile keeps the users, a bad file stops startup.
- `user` lines in the config file, CONFIG REWRITE writing the users back, and the startup errors
  of a bad line and of user lines together with an aclfile.

STREAMD_ACL_SELFTEST=1 runs the client-facing tests against redis-server (7.0.15 passes).
"""

import os
import subprocess
import time
import unittest

import redis

from streamd_testlib import runner, servers

SELFTEST = os.environ.get("STREAMD_ACL_SELFTEST") == "1"
available = servers.redis_available() if SELFTEST else servers.streamd_available()
needs_server = unittest.skipUnless(available, "server binary not found")
needs_streamd = unittest.skipUnless(servers.streamd_available() and not SELFTEST,
                                    "streamd binary not found")


def assert_user_gone(test, admin, client, user):
    """`client`'s connection was closed by the server and none of `user` remains (redis-py
    reconnects once: its AUTH as the missing user then fails with WRONGPASS)."""
    time.sleep(0.1)
    with test.assertRaises((redis.exceptions.ConnectionError, redis.exceptions.ResponseError)):
        client.ping()
    test.assertEqual([c for c in admin.client_list() if c["user"] == user], [])


def start(*args, **kw):
    return servers.start_redis(*args, **kw) if SELFTEST else servers.start_streamd(*args, **kw)


def startup_failure(*args, config_text=None, workdir):
    """Runs streamd expected to refuse to start: its exit code and output."""
    argv = [str(servers.streamd_bin())]
    if config_text is not None:
        path = os.path.join(workdir, "streamd.conf")
        with open(path, "w") as f:
            f.write(config_text)
        argv.append(path)
    argv += ["--port", str(servers.free_port()), "--dir", workdir] + list(args)
    p = subprocess.run(argv, cwd=workdir, capture_output=True, text=True, timeout=20)
    return p.returncode, p.stdout + p.stderr


@needs_server
class AclClientTest(unittest.TestCase):
    def setUp(self):
        self.server = start()
        self.addCleanup(self.server.cleanup)
        self.admin = self.client(decode_responses=True)

    def client(self, **kw):
        c = self.server.redis_py(**kw)
        self.addCleanup(c.close)
        return c

    def test_redis_py_acl_api_and_a_restricted_worker(self):
        a = self.admin
        self.assertTrue(a.acl_setuser("worker", enabled=True, passwords=["+s3cret"],
                                      keys=["jobs:*"], channels=["events"],
                                      commands=["+@stream", "+ping", "+publish", "-xtrim"],
                                      reset=True))
        info = a.acl_getuser("worker")
        self.assertIn("on", info["flags"])
        self.assertEqual(info["keys"], ["~jobs:*"] if isinstance(info["keys"], list)
                         else "~jobs:*")
        self.assertEqual(sorted(a.acl_users()), ["default", "worker"])
        self.assertTrue(any(line.startswith("user worker on") for line in a.acl_list()))

        w = self.client(username="worker", password="s3cret", decode_responses=True)
        self.assertTrue(w.ping())
        self.assertTrue(w.xadd("jobs:1", {"f": "v"}))
        self.assertEqual(w.xlen("jobs:1"), 1)
        w.xgroup_create("jobs:1", "g", id="0")
        self.assertEqual(len(w.xreadgroup("g", "c", {"jobs:1": ">"})[0][1]), 1)
        with self.assertRaises(redis.exceptions.NoPermissionError):
            w.xadd("other", {"f": "v"})
        with self.assertRaises(redis.exceptions.NoPermissionError):
            w.xtrim("jobs:1", maxlen=0)
        with self.assertRaises(redis.exceptions.NoPermissionError):
            w.set("jobs:2", "x")
        with self.assertRaises(redis.exceptions.NoPermissionError):
            w.publish("other", "m")
        self.assertEqual(w.publish("events", "m"), 0)
        with self.assertRaisesRegex((redis.exceptions.AuthenticationError,
                                     redis.exceptions.ResponseError), "WRONGPASS"):
            self.client(username="worker", password="wrong").ping()

        log = a.acl_log()
        self.assertGreaterEqual(len(log), 4)
        reasons = {e["reason"] for e in log}
        self.assertTrue({"key", "command", "channel", "auth"} <= reasons, reasons)
        self.assertTrue(all(e["username"] == "worker" for e in log))
        self.assertTrue(a.acl_log_reset())
        self.assertEqual(a.acl_log(), [])
        # INFO's counters (fields of Redis 7.2: 7.0.15 has none).
        if not SELFTEST:
            info = a.info("stats")
            self.assertEqual(info["acl_access_denied_key"], 1)
            self.assertEqual(info["acl_access_denied_cmd"], 2)
            self.assertEqual(info["acl_access_denied_channel"], 1)
            self.assertEqual(info["acl_access_denied_auth"], 1)

        # Deleting the user closes its connections.
        self.assertEqual(a.acl_deluser("worker"), 1)
        assert_user_gone(self, a, w, "worker")

    @unittest.skipIf(SELFTEST and "redis-main" not in servers.REDIS_SERVER,
                     "redis-server 7.0.15 serves a woken reader without checking again")
    def test_a_woken_reader_is_checked_again(self):
        # Redis 7.2+ processes a woken blocked command again, ACL check included: a reader whose
        # rules lost the command while it waited gets NOPERM instead of the entry.
        a = self.admin
        a.acl_setuser("reader", enabled=True, passwords=["+r"], keys=["s"],
                      commands=["+xread", "+xadd"], reset=True)
        c = self.server.client()
        self.addCleanup(c.close)
        self.assertEqual(c.call_raw("AUTH", "reader", "r"), b"+OK\r\n")
        c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
        self.assertFalse(c.has_data(0.1))
        a.acl_setuser("reader", commands=["-xread"])
        a.xadd("s", {"f": "v"}, id="1-1")
        self.assertEqual(c.read_raw(),
                         b"-NOPERM User reader has no permissions to run the 'xread' command\r\n")
        self.assertEqual(c.call_raw("XADD", "s", "2-1", "f", "v"), b"$3\r\n2-1\r\n")

    def test_requirepass_and_the_default_user(self):
        a = self.admin
        a.config_set("requirepass", "pw")
        # Connections made before keep working; a new one must AUTH.
        self.assertTrue(a.ping())
        with self.assertRaisesRegex((redis.exceptions.AuthenticationError,
                                     redis.exceptions.ResponseError), "NOAUTH|Authentication"):
            self.client().ping()
        self.assertTrue(self.client(password="pw").ping())
        # ACL SETUSER default changes the default user, not the directive.
        a.acl_setuser("default", enabled=True, passwords=["+pw2"])
        self.assertTrue(self.client(password="pw2").ping())
        self.assertEqual(a.config_get("requirepass")["requirepass"], "pw")
        a.config_set("requirepass", "")
        self.assertTrue(self.client().ping())


@needs_streamd
class AclFileTest(unittest.TestCase):
    def setUp(self):
        self.dir = self.enterContext(__import__("tempfile").TemporaryDirectory())
        self.aclfile = os.path.join(self.dir, "users.acl")

    def test_save_load_and_restart(self):
        with open(self.aclfile, "w") as f:
            f.write("user alice on >a ~a:* +@all\n")
        server = servers.start_streamd("--aclfile", self.aclfile)
        self.addCleanup(server.cleanup)
        admin = server.redis_py(decode_responses=True)
        self.addCleanup(admin.close)
        self.assertEqual(admin.acl_users(), ["alice", "default"])
        alice = server.redis_py(username="alice", password="a", decode_responses=True)
        self.addCleanup(alice.close)
        self.assertTrue(alice.set("a:1", "x"))

        admin.acl_setuser("bob", enabled=True, passwords=["+b"], keys=["b:*"], commands=["+get"])
        self.assertTrue(admin.acl_save())
        with open(self.aclfile) as f:
            saved = f.read()
        self.assertIn("user bob on sanitize-payload #", saved)
        self.assertIn("user alice on sanitize-payload #", saved)

        # A file without alice: LOAD closes alice's connection, bob's rules come from the file.
        with open(self.aclfile, "w") as f:
            f.write("user bob on >b2 ~* +@all\n")
        self.assertTrue(admin.acl_load())
        self.assertEqual(admin.acl_users(), ["bob", "default"])
        assert_user_gone(self, admin, alice, "alice")
        # A bad file changes nothing and says why.
        with open(self.aclfile, "w") as f:
            f.write("user carol on +nosuch\n")
        with self.assertRaisesRegex(redis.exceptions.ResponseError,
                                    "users.acl:1: Error in applying operation '\\+nosuch'"):
            admin.acl_load()
        self.assertEqual(admin.acl_users(), ["bob", "default"])

        # A restart with the file keeps its users.
        with open(self.aclfile, "w") as f:
            f.write("user bob on >b2 ~* +@all\n")
        server.stop()
        server2 = servers.start_streamd("--aclfile", self.aclfile)
        self.addCleanup(server2.cleanup)
        bob = server2.redis_py(username="bob", password="b2", decode_responses=True)
        self.addCleanup(bob.close)
        self.assertEqual(bob.acl_whoami(), "bob")

    def test_bad_aclfile_stops_startup(self):
        with open(self.aclfile, "w") as f:
            f.write("user alice on bogus\n")
        rc, out = startup_failure("--aclfile", self.aclfile, workdir=self.dir)
        self.assertNotEqual(rc, 0)
        self.assertIn("Aborting Redis startup because of ACL errors: " + self.aclfile +
                      ":1: Syntax error.", out)
        rc, out = startup_failure("--aclfile", os.path.join(self.dir, "none.acl"),
                                  workdir=self.dir)
        self.assertNotEqual(rc, 0)
        self.assertIn("Error loading ACLs, opening file", out)

    def test_user_lines_in_the_config_file(self):
        conf = os.path.join(self.dir, "streamd.conf")
        with open(conf, "w") as f:
            f.write("user default on nopass ~* &* +@all -flushall\n"
                    "user alice on >a ~* +@all\n")
        server = servers.start_streamd(config_file=conf)
        self.addCleanup(server.cleanup)
        c = server.redis_py(decode_responses=True)
        self.addCleanup(c.close)
        with self.assertRaises(redis.exceptions.NoPermissionError):
            c.flushall()
        c.acl_setuser("bob", enabled=True, nopass=True, commands=["+ping"])
        self.assertTrue(c.config_rewrite())
        with open(conf) as f:
            text = f.read()
        self.assertIn("user alice on sanitize-payload #", text)
        self.assertIn("user bob on nopass sanitize-payload resetchannels -@all +ping", text)
        self.assertIn("user default on nopass sanitize-payload ~* &* +@all -flushall", text)

        rc, out = startup_failure(config_text="user alice on bogus\n", workdir=self.dir)
        self.assertNotEqual(rc, 0)
        self.assertIn(">>> 'user alice on bogus'", out)
        self.assertIn("Error in user declaration 'bogus': Syntax error", out)
        rc, out = startup_failure("--aclfile", self.aclfile,
                                  config_text="user alice on\n", workdir=self.dir)
        self.assertNotEqual(rc, 0)
        self.assertIn("Configuring Redis with users defined in redis.conf and at the same setting "
                      "an ACL file path is invalid", out)


if __name__ == "__main__":
    runner.main()
