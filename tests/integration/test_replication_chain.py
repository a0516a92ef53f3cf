"""Replica-side resynchronisation (issue 13): after the master link drops (CLIENT KILL TYPE master)
a streamd replica continues with +CONTINUE from its own offset, from a streamd and from a
redis-server 7.0.15 master; chained replicas (A <- B <- C) receive A's stream byte for byte (equal
offsets and replid); REPLICAOF NO ONE on B keeps A's history as replid2 so C continues partially
and A, demoted to a replica of B, continues partially too; CONFIG REWRITE writes replicaof; a
replica whose own master link is down refuses SYNC/PSYNC (-NOMASTERLINK).

Skips (exit 0, SKIPPED line) only when the streamd binary or redis-server does not exist.
"""

import tempfile
import unittest
from pathlib import Path

from streamd_testlib import runner, servers
from streamd_testlib.fake_replica import FakeReplica
from streamd_testlib.replica import link_up, needs_servers, repl, same_offset, wait_for


def streamd_node(*args):
    return servers.start_streamd("--repl-diskless-sync-delay", "0", *args)


@needs_servers
class Resync(unittest.TestCase):
    def start(self, server):
        self.addCleanup(server.stop)
        return server, server.redis_py(decode_responses=True)

    def test_partial_resync_from_streamd_and_chain(self):
        a, ra = self.start(streamd_node())
        ra.xadd("s", {"n": "0"})
        b, rb = self.start(streamd_node("--replicaof", "127.0.0.1", str(a.port)))
        c, rc = self.start(streamd_node("--replicaof", "127.0.0.1", str(b.port)))
        wait_for(lambda: link_up(rb) and link_up(rc), timeout=30, what="links up")
        for n in range(1, 20):
            ra.xadd("s", {"n": str(n)})
        wait_for(lambda: same_offset(ra, rb, rc), what="A, B, C at the same offset")
        self.assertEqual(rc.xlen("s"), 20)
        self.assertEqual(repl(rc)["master_replid"], repl(ra)["master_replid"])
        self.assertEqual(repl(rb)["connected_slaves"], 1)

        # The link drops; B continues from its offset, C never notices.
        full_before = b.log_text().count("Full resync from master")
        rb.execute_command("CLIENT", "KILL", "TYPE", "master")
        ra.xadd("s", {"n": "20"})
        wait_for(lambda: link_up(rb) and same_offset(ra, rb, rc), what="B back and caught up")
        self.assertIn("Successful partial resynchronization", b.log_text())
        self.assertEqual(b.log_text().count("Full resync from master"), full_before)
        self.assertEqual(rc.xlen("s"), 21)

        # B promoted: A's history is its replid2; C continues partially with it.
        old_id = repl(ra)["master_replid"]
        c_full = c.log_text().count("Full resync from master")
        self.assertTrue(rb.execute_command("REPLICAOF", "NO", "ONE"))
        self.assertEqual(repl(rb)["master_replid2"], old_id)
        rb.xadd("s", {"n": "on-b"})
        wait_for(lambda: link_up(rc) and same_offset(rb, rc), what="C follows B")
        self.assertEqual(rc.xlen("s"), 22)
        self.assertEqual(c.log_text().count("Full resync from master"), c_full)
        self.assertEqual(repl(rc)["master_replid"], repl(rb)["master_replid"])

        # A demoted to a replica of B: it had nothing B lacks, so it continues partially too.
        a_full = a.log_text().count("Full resync from master")
        self.assertTrue(ra.execute_command("REPLICAOF", "127.0.0.1", str(b.port)))
        wait_for(lambda: link_up(ra) and same_offset(rb, ra), timeout=30, what="A follows B")
        self.assertEqual(ra.xlen("s"), 22)
        self.assertEqual(a.log_text().count("Full resync from master"), a_full)

    def test_partial_resync_from_redis(self):
        m, rm = self.start(servers.start_redis("--repl-diskless-sync-delay", "0"))
        rm.set("k", "v")
        s, rs = self.start(streamd_node("--replicaof", "127.0.0.1", str(m.port)))
        wait_for(lambda: link_up(rs) and same_offset(rm, rs), timeout=30, what="caught up")
        rs.execute_command("CLIENT", "KILL", "TYPE", "master")
        rm.set("k2", "v2")
        wait_for(lambda: link_up(rs) and same_offset(rm, rs), what="back and caught up")
        self.assertEqual(rs.get("k2"), "v2")
        self.assertEqual(rm.info("stats")["sync_partial_ok"], 1)
        self.assertEqual(rm.info("stats")["sync_full"], 1)

    def test_a_replica_without_its_master_link_refuses_to_sync(self):
        # Nothing listens on A's port: B's link never comes up. A sub-replica asking B for a
        # copy is refused (it retries) rather than handed data B cannot vouch for, as Redis does.
        free = servers.free_port()
        b, rb = self.start(streamd_node("--replicaof", "127.0.0.1", str(free)))
        sub = FakeReplica(b.port)
        self.addCleanup(sub.close)
        sub.handshake(7777)
        self.assertEqual(sub.call("PSYNC", "?", "-1"),
                         b"-NOMASTERLINK Can't SYNC while not connected with my master")
        self.assertEqual(repl(rb)["connected_slaves"], 0)

    def test_bind_source_addr_is_where_the_link_comes_from(self):
        # Loopback is 127.0.0.0/8 on Linux: the master sees the replica at the address it bound.
        m, rm = self.start(servers.start_redis())
        rm.config_set("protected-mode", "no")  # 7.0.15 takes only 127.0.0.1 as local
        s, rs = self.start(streamd_node())
        rs.config_set("bind-source-addr", "127.0.0.2")
        rs.execute_command("REPLICAOF", "127.0.0.1", str(m.port))
        wait_for(lambda: link_up(rs), timeout=30, what="link up")
        self.assertEqual(repl(rm)["slave0"]["ip"], "127.0.0.2")
        # An address this host does not have: the link cannot be made (and says why).
        rs.execute_command("REPLICAOF", "NO", "ONE")
        rs.config_set("bind-source-addr", "192.0.2.1")  # TEST-NET-1
        rs.execute_command("REPLICAOF", "127.0.0.1", str(m.port))
        wait_for(lambda: "Unable to bind to bind-source-addr 192.0.2.1" in s.log_text(),
                 what="the bind failure logged")
        self.assertFalse(link_up(rs))

    def test_config_rewrite_writes_replicaof(self):
        m, _ = self.start(streamd_node())
        conf = Path(tempfile.mkdtemp(prefix="streamd-conf-")) / "streamd.conf"
        conf.write_text("appendonly no\n")
        s = servers.start_streamd(config_file=conf)
        self.addCleanup(s.stop)
        rs = s.redis_py(decode_responses=True)
        rs.execute_command("REPLICAOF", "127.0.0.1", str(m.port))
        rs.config_rewrite()
        self.assertIn(f"replicaof 127.0.0.1 {m.port}\n", conf.read_text())
        rs.execute_command("REPLICAOF", "NO", "ONE")
        rs.config_rewrite()
        self.assertNotIn("replicaof", conf.read_text())


if __name__ == "__main__":
    runner.main()
