"""Redis Sentinel (Debian's redis-sentinel 7.0.15) monitoring a streamd master (issue 13).

Three sentinels, each started by the test in a directory of its own (streamd_testlib.sentinel),
watch one streamd. What they need of it: PING, INFO (run_id, role and the replication section),
CLIENT SETNAME, AUTH, SUBSCRIBE __sentinel__:hello and the PUBLISHes through which they find each
other. Checked: discovery through streamd's pub/sub, SENTINEL CKQUORUM, GET-MASTER-ADDR-BY-NAME,
the run ID Sentinel reports (and a new one seen after a restart), the hello message format,
Sentinel's `rename-command` against streamd's, and
redis-py's Sentinel client and ioredis' `sentinels` option (tests/clients/node/sentinel.test.js)
doing XADD / XREADGROUP / XACK on the master they find.

Skips when redis-sentinel or the streamd binary is missing (scripts/install_deps.sh installs
redis-sentinel).
"""

import re
import shutil
import subprocess
import unittest
from pathlib import Path

from streamd_testlib import runner, servers
from streamd_testlib.sentinel import SentinelGroup, SentinelSettings, missing_reason, wait_until

SKIP = missing_reason()
NODE_DIR = Path(__file__).resolve().parents[1] / "clients" / "node"
NODE = shutil.which("node")
NODE_SKIP = ("node or tests/clients/node/node_modules is missing (scripts/install_deps.sh runs "
             "npm ci there)"
             if NODE is None or not (NODE_DIR / "node_modules" / "ioredis").is_dir() else None)


def run_id(server: servers.Server, **kw) -> str:
    return server.redis_py(decode_responses=True, **kw).info("server")["run_id"]


@unittest.skipIf(SKIP is not None, SKIP or "")
class SentinelMonitorsStreamdTest(unittest.TestCase):
    def start(self, *streamd_args, settings=None, port=None):
        master = servers.start_streamd(*streamd_args, port=port)
        self.addCleanup(master.cleanup)
        group = SentinelGroup(master.host, master.port, 3, settings)
        self.addCleanup(group.cleanup)
        return master, group

    def test_sentinels_discover_each_other_through_streamd(self):
        master, group = self.start()
        group.wait_discovered()
        for i in range(3):
            self.assertEqual(group.master_addr(i), ("127.0.0.1", master.port))
            self.assertEqual(
                group.command(i, "SENTINEL", "CKQUORUM", "mymaster"),
                "OK 3 usable Sentinels. Quorum and failover authorization can be reached")
            info = group.master_info(i)
            self.assertEqual(info["flags"], "master")
            self.assertEqual(info["role-reported"], "master")
            self.assertEqual(info["num-other-sentinels"], "2")
            # Sentinel takes the run ID from INFO once it has refreshed it (at connect).
            wait_until(lambda: group.master_info(i)["runid"] == run_id(master), 30,
                       f"sentinel {i} to report streamd's run_id")

        r = master.redis_py(decode_responses=True)
        # Every sentinel keeps a command link and a pub/sub link, named as Sentinel names them.
        names = sorted(c["name"] for c in r.client_list())
        self.assertEqual(len([n for n in names if re.fullmatch(r"sentinel-[0-9a-f]{8}-cmd", n)]),
                         3, names)
        pubsub = [c for c in r.client_list() if c["name"].endswith("-pubsub")]
        self.assertEqual(len(pubsub), 3, names)
        for c in pubsub:
            self.assertIn("P", c["flags"])
        self.assertEqual(r.pubsub_numsub("__sentinel__:hello"), [("__sentinel__:hello", 3)])

    def test_hello_messages_name_the_master(self):
        master, group = self.start()
        p = master.redis_py(decode_responses=True).pubsub()
        p.subscribe("__sentinel__:hello")
        ports = {s.port for s in group.sentinels}
        seen = set()
        def next_hello():
            m = p.get_message(timeout=1.0)
            if m and m["type"] == "message":
                # ip,port,runid,current_epoch,master_name,master_ip,master_port,master_epoch
                f = m["data"].split(",")
                self.assertEqual(len(f), 8, m)
                self.assertEqual(f[4:7], ["mymaster", "127.0.0.1", str(master.port)])
                self.assertRegex(f[2], r"^[0-9a-f]{40}$")
                seen.add(int(f[1]))
            return seen == ports
        wait_until(next_hello, 60, "a hello message from every sentinel")
        p.close()

    def test_restarted_master_gets_a_new_run_id_that_sentinel_sees(self):
        master, group = self.start()
        group.wait_discovered()
        first = run_id(master)
        wait_until(lambda: group.master_info(0)["runid"] == first, 30, "the first run_id")
        port = master.port
        master.stop()
        wait_until(lambda: "s_down" in group.master_info(0)["flags"], 30,
                   "sentinel 0 to see the master down")
        again = servers.start_streamd(port=port)
        self.addCleanup(again.cleanup)
        second = run_id(again)
        self.assertRegex(second, r"^[0-9a-f]{40}$")
        self.assertNotEqual(first, second)
        # Sentinel re-reads INFO on its period (10 s) and notices the reboot by the new run ID.
        for i in range(3):
            wait_until(lambda: group.master_info(i)["runid"] == second, 60,
                       f"sentinel {i} to see the new run_id")
            wait_until(lambda: group.master_info(i)["flags"] == "master", 60,
                       f"sentinel {i} to see the master up again")
        self.assertIn("+reboot master mymaster", group.sentinels[0].log_text())

    def test_redis_py_sentinel_client_streams(self):
        master, group = self.start()
        group.wait_discovered()
        sentinel = group.redis_py_sentinel()
        self.assertEqual(sentinel.discover_master("mymaster"), ("127.0.0.1", master.port))
        self.assertEqual(sentinel.discover_slaves("mymaster"), [])
        r = sentinel.master_for("mymaster", decode_responses=True, socket_timeout=10)
        ids = [r.xadd("jobs", {"n": str(i)}) for i in range(5)]
        r.xgroup_create("jobs", "workers", id="0")
        got = r.xreadgroup("workers", "w1", {"jobs": ">"}, count=3)
        self.assertEqual([e[0] for e in got[0][1]], ids[:3])
        self.assertEqual(r.xack("jobs", "workers", *ids[:2]), 2)
        self.assertEqual(r.xpending("jobs", "workers")["pending"], 1)
        # What the client wrote through Sentinel is on the streamd it monitors.
        self.assertEqual(master.redis_py().xlen("jobs"), 5)

    def test_sentinels_authenticate_to_a_password_protected_master(self):
        settings = SentinelSettings(auth_pass="s3cret")
        master, group = self.start("--requirepass", "s3cret", settings=settings)
        with master.client() as c:  # so the sentinels below did have to authenticate
            self.assertEqual(c.call_raw("PING"), b"-NOAUTH Authentication required.\r\n")
        group.wait_discovered()
        self.assertEqual(group.master_info(0)["flags"], "master")
        self.assertEqual(group.command(0, "SENTINEL", "CKQUORUM", "mymaster")[:2], "OK")
        sentinel = group.redis_py_sentinel()
        r = sentinel.master_for("mymaster", password="s3cret", decode_responses=True)
        self.assertTrue(r.xadd("s", {"f": "v"}))
        self.assertEqual(master.redis_py(password="s3cret").xlen("s"), 1)

    def test_sentinels_use_the_renamed_commands(self):
        # PING and INFO keep their names (the test servers' readiness check sends them), and so
        # does SUBSCRIBE: Sentinel 7.0.15 aborts on a renamed one (hiredis asserts that the
        # reply to its subscription is a subscription), against redis-server too.
        renames = {"CLIENT": "xclient", "CONFIG": "xconfig", "PUBLISH": "xpublish"}
        flags = [a for old, new in renames.items() for a in ("--rename-command", old, new)]
        master, group = self.start(*flags, settings=SentinelSettings(rename_commands=renames))
        r = master.redis_py(decode_responses=True)
        with master.client() as c:
            self.assertEqual(c.call_raw("CLIENT", "ID")[:22], b"-ERR unknown command '")
        # Discovery needs the renamed PUBLISH, the connection names the renamed CLIENT.
        group.wait_discovered()
        self.assertEqual(group.master_info(0)["flags"], "master")
        listing = r.execute_command("XCLIENT", "LIST")
        self.assertEqual(len(re.findall(r"name=sentinel-[0-9a-f]{8}-cmd ", listing)), 3, listing)
        self.assertEqual(len(re.findall(r"name=sentinel-[0-9a-f]{8}-pubsub ", listing)), 3)

    @unittest.skipIf(NODE_SKIP is not None, NODE_SKIP or "")
    def test_ioredis_sentinels_option(self):
        master, group = self.start()
        group.wait_discovered()
        proc = subprocess.run(
            [NODE, str(NODE_DIR / "sentinel.test.js"), str(master.port)] +
            [str(s.port) for s in group.sentinels],
            cwd=NODE_DIR, capture_output=True, text=True, timeout=120)
        print(proc.stdout, end="")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("ok xadd, xreadgroup and xack through the sentinel-found master",
                      proc.stdout)
        self.assertEqual(master.redis_py().xlen("orders"), 3)


if __name__ == "__main__":
    runner.main()
