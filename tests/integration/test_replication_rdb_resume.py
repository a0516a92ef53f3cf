"""Partial resyncs after a restart from dump.rdb (issue 14): the replication fields a saved RDB
carries (repl-stream-db, repl-id, repl-offset, as Redis writes them) let
- a streamd replica restarted from its own dump.rdb continue from its saved offset (PSYNC
  <replid> <offset+1> accepted by a redis-server 7.0.15 or a streamd master), its stream resuming
  in the database the master had selected;
- a streamd master restarted from the dump.rdb its SHUTDOWN saved keep a redis-server 7.0.15
  replica with a partial resync (the saved history becomes replid2).
Debian's redis-check-rdb shows the three fields in streamd's file."""

import subprocess
import unittest

from streamd_testlib import servers
from streamd_testlib.replica import link_up, needs_servers, offset_of, same_offset, wait_for

NO_AOF = ("--appendonly", "no", "--rdb-version", "10")  # what redis-check-rdb 7.0 reads


def aux_fields(path) -> str:
    r = subprocess.run(["redis-check-rdb", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@needs_servers
class ReplicaResumesFromItsRdb(unittest.TestCase):
    def resume(self, master):
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        m.xadd("s", {"f": "1"}, id="1-1")
        rep = servers.start_streamd(*NO_AOF, "--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        m2 = master.redis_py(db=2, decode_responses=True)
        m2.set("in-db2", "a")  # the master's stream now has database 2 selected
        wait_for(lambda: same_offset(r, m), what="replica caught up")
        self.assertEqual(r.save(), True)
        saved = offset_of(r)
        text = aux_fields(rep.workdir / "dump.rdb")
        self.assertIn("AUX FIELD repl-stream-db = '2'", text)
        self.assertIn(f"AUX FIELD repl-offset = '{saved}'", text)
        self.assertIn(f"AUX FIELD repl-id = '{r.info('replication')['master_replid']}'", text)
        rep.stop()
        # Written while the replica is down: in the master's backlog, still in database 2 (no
        # new SELECT in the stream).
        m2.set("while-down", "b")
        m.xadd("s", {"f": "2"}, id="2-1")
        rep = servers.start_streamd(*NO_AOF, "--replicaof", "127.0.0.1", str(master.port),
                                    workdir=rep.workdir)
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up after the restart")
        wait_for(lambda: same_offset(r, m), what="replica caught up after the restart")
        # (The log file is shared by both runs: what the restarted one wrote.)
        log = rep.log_text().rsplit("streamd is starting", 1)[1]
        self.assertIn("Successful partial resynchronization with master.", log)
        self.assertNotIn("Full resync from master", log)
        r2 = rep.redis_py(db=2, decode_responses=True)
        self.assertEqual(r2.get("while-down"), "b")
        self.assertEqual(r2.get("in-db2"), "a")
        self.assertEqual(r.xrange("s"), [("1-1", {"f": "1"}), ("2-1", {"f": "2"})])
        self.assertIsNone(r.get("while-down"))

    def test_of_redis_server(self):
        self.resume(servers.start_redis("--repl-diskless-sync-delay", "0"))

    def test_of_streamd(self):
        self.resume(servers.start_streamd(*NO_AOF, "--repl-diskless-sync-delay", "0"))


@needs_servers
class MasterRestartKeepsItsReplicas(unittest.TestCase):
    def test_redis_replica_continues_after_the_master_restarts(self):
        master = servers.start_streamd(*NO_AOF, "--repl-diskless-sync-delay", "0")
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        m.xadd("s", {"f": "1"}, id="1-1")
        rep = servers.start_redis("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(rep.stop)
        r = rep.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="link up")
        m.set("k", "v")
        wait_for(lambda: same_offset(r, m), what="replica caught up")
        # ... and the master knows it (its ACK came): SHUTDOWN then has no replica to wait for,
        # so it sends no REPLCONF GETACK, which would move the offset the file records.
        wait_for(lambda: m.info("replication")["slave0"]["offset"] == offset_of(m),
                 what="the replica's ACK of the last write")
        replid = m.info("replication")["master_replid"]
        offset = offset_of(m)
        try:
            m.shutdown(save=True)
        except Exception:
            pass  # the connection closes
        master.wait(10)
        text = aux_fields(master.workdir / "dump.rdb")
        self.assertIn(f"AUX FIELD repl-id = '{replid}'", text)
        self.assertIn(f"AUX FIELD repl-offset = '{offset}'", text)
        master = servers.start_streamd(*NO_AOF, "--repl-diskless-sync-delay", "0",
                                       workdir=master.workdir, port=master.port)
        self.addCleanup(master.stop)
        m = master.redis_py(decode_responses=True)
        i = m.info("replication")
        self.assertEqual(i["master_replid2"], replid)
        self.assertEqual(i["second_repl_offset"], offset + 1)
        self.assertEqual(i["master_repl_offset"], offset)
        wait_for(lambda: link_up(r), timeout=30, what="replica linked to the restarted master")
        m.xadd("s", {"f": "2"}, id="2-1")
        wait_for(lambda: same_offset(r, m), what="replica caught up after the restart")
        self.assertEqual(r.xrange("s"), [("1-1", {"f": "1"}), ("2-1", {"f": "2"})])
        log = rep.log_text()
        self.assertIn("Successful partial resynchronization with master.", log)
        self.assertIn("Partial resynchronization request from", master.log_text())


if __name__ == "__main__":
    unittest.main()
