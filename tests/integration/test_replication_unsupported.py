"""A redis-server 7.0.15 master holding types streamd does not hold (issue 13): with
rdb-skip-unsupported-types yes the streamd replica loads the strings and streams, logs each
skipped key and follows the stream; with no (the default) it logs an error naming the key and its
type, keeps its old data, and retries backing off (1 s, 2 s, 4 s ...), not in a hot loop.

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import time
import unittest

from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, needs_servers, same_offset, wait_for


def populate(m, hash=True):
    m.xadd("s", {"f": "1"}, id="1-1")
    m.set("k", "v")
    m.rpush("mylist", "a", "b")
    if hash:
        m.hset("myhash", "f", "v")


@needs_servers
class UnsupportedTypes(unittest.TestCase):
    def test_skipped_with_yes(self):
        master = servers.start_redis("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        populate(m)
        rep = servers.start_streamd("--replicaof", "127.0.0.1", str(master.port),
                                    "--rdb-skip-unsupported-types", "yes")
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        self.assertEqual(r.xrange("s"), [("1-1", {"f": "1"})])
        self.assertEqual(r.get("k"), "v")
        self.assertEqual(r.exists("mylist", "myhash"), 0)
        log = rep.log_text()
        self.assertIn("Skipped key \"mylist\" in database 0 of unsupported type list", log)
        self.assertIn("Skipped key \"myhash\" in database 0 of unsupported type hash", log)
        m.xadd("s", {"f": "2"}, id="2-1")
        wait_for(lambda: same_offset(r, m), what="the stream applied")
        self.assertEqual(r.xlen("s"), 2)
        self.assertEqual(m.info("stats")["sync_full"], 1)

    def test_refused_with_no_keeps_old_data_and_backs_off(self):
        master = servers.start_redis("--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        populate(m, hash=False)  # the error names the first unsupported key: the list
        rep = servers.start_streamd()
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        r.set("old", "data")
        r.execute_command("REPLICAOF", "127.0.0.1", str(master.port))
        wait_for(lambda: m.info("stats")["sync_full"] >= 1, what="a first full sync")
        wait_for(lambda: "Unsupported type list" in rep.log_text(), what="the load error")
        start = time.monotonic()
        first = m.info("stats")["sync_full"]
        time.sleep(4.5)
        attempts = m.info("stats")["sync_full"] - first
        # 1 s, 2 s, then 4 s: at most three more attempts in 4.5 s (a hot loop would be dozens;
        # the link's plain reconnect back-off, 125 ms doubling to 2 s, would be five or six).
        self.assertLessEqual(attempts, 3, f"{attempts} full syncs in {time.monotonic() - start} s")
        self.assertGreaterEqual(attempts, 1)
        self.assertEqual(r.get("old"), "data")
        self.assertEqual(r.exists("s", "k"), 0)
        self.assertEqual(r.info("replication")["master_link_status"], "down")
        log = rep.log_text()
        self.assertIn("Failed trying to load the MASTER synchronization DB from socket: "
                      "Unsupported type list (RDB type 18) of key \"mylist\" in database 0", log)
        self.assertIn("Next attempt to sync with the MASTER in 2 s", log)
        # Without the list and the hash the next attempt succeeds.
        m.delete("mylist")
        wait_for(lambda: link_up(r), timeout=40, what="link up once the master's data loads")
        self.assertEqual(r.get("k"), "v")
        self.assertIsNone(r.get("old"))


if __name__ == "__main__":
    runner.main()
