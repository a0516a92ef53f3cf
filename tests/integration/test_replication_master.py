"""The master side of replication (issue 13) against a raw-socket replica that speaks the protocol
a Redis replica speaks: the handshake (PING, REPLCONF listening-port / capa), PSYNC ? -1 and its
+FULLRESYNC, the snapshot in $EOF: framing (capa eof) or $<len> framing (without it), then the
command stream byte for byte with its offsets as INFO and ROLE count them, +CONTINUE after a
reconnect with exactly the missed bytes, a pipeline's writes in order (ROLE inside it counting
those before it), WAIT with REPLCONF GETACK / ACK, min-replicas-to-write,
and the replica link as CLIENT LIST shows it (flags=S).

Skips (exit 0, SKIPPED line) only when the streamd binary does not exist.
"""

import os
import socket
import subprocess
import threading
import time
import unittest

from aof_helpers import encode as enc
from streamd_testlib import runner, servers
from streamd_testlib.fake_replica import FakeReplica
from streamd_testlib.replica import wait_for

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")


def info(server) -> dict:
    with server.client() as c:
        raw = c.call_raw("INFO", "replication")
    text = raw.split(b"\r\n", 1)[1].decode()
    out = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            out[k] = v
    return out


def sync_stats(server) -> dict:
    with server.client() as c:
        text = c.call_raw("INFO", "stats").decode()
    return {k: v for k, v in (line.split(":", 1) for line in text.split("\r\n") if ":" in line)
            if k.startswith("sync_")}


@needs_streamd
class ReplicationMasterTest(unittest.TestCase):
    def setUp(self):
        self.server = servers.start_streamd("--appendonly", "no", "--repl-diskless-sync-delay", "0")
        self.replicas = []

    def tearDown(self):
        for r in self.replicas:
            r.close()
        self.server.cleanup()

    def replica(self) -> FakeReplica:
        r = FakeReplica(self.server.port)
        self.replicas.append(r)
        return r

    def call(self, *args):
        r = self.server.redis_py()
        try:
            return r.execute_command(*args)
        finally:
            r.close()

    def full_sync(self, capas=("eof", "psync2"), port=7777, ack=True):
        """PSYNC ? -1 and the snapshot; then, as a replica that has loaded it, REPLCONF ACK (the
        stream after an $EOF: snapshot starts only then)."""
        r = self.replica()
        r.handshake(port, capas)
        reply = r.call("PSYNC", "?", "-1").split()
        self.assertEqual(reply[0], b"+FULLRESYNC", reply)
        replid, offset = reply[1].decode(), int(reply[2])
        payload, framing = r.snapshot()
        if ack:
            r.send("REPLCONF", "ACK", offset)
        return r, replid, offset, payload, framing

    def test_full_sync_with_eof_framing_then_the_stream(self):
        self.call("SET", "a", "1")
        self.call("XADD", "s", "1-1", "f", "v")
        before = info(self.server)
        self.assertEqual(before["repl_backlog_active"], "0")
        self.assertEqual(before["master_repl_offset"], "0")
        r, replid, offset, payload, framing = self.full_sync()
        self.assertEqual(framing, "eof")
        after = info(self.server)
        # The backlog was created for this replica, with a new history.
        self.assertEqual(after["repl_backlog_active"], "1")
        self.assertEqual(after["master_replid"], replid)
        self.assertNotEqual(before["master_replid"], replid)
        self.assertEqual(offset, 0)
        # An RDB file (rdb-version 12 by default) with the replication aux fields.
        self.assertTrue(payload.startswith(b"REDIS0012"), payload[:40])
        self.assertIn(b"repl-id", payload)
        self.assertIn(replid.encode(), payload)
        # The stream: SELECT first (the replica's database is unknown after a snapshot), the
        # generated ID instead of '*', offsets counted byte for byte.
        wait_for(lambda: info(self.server).get("slave0", "").find("state=online") >= 0,
                 what="replica online")
        entry_id = self.call("XADD", "s", "*", "g", "w").decode()
        args, raw = r.command_skipping_pings()
        self.assertEqual(args, [b"SELECT", b"0"])
        args2, raw2 = r.command()
        self.assertEqual(args2, [b"XADD", b"s", entry_id.encode(), b"g", b"w"])
        total = offset + len(raw) + len(raw2)
        self.assertEqual(int(info(self.server)["master_repl_offset"]), total)
        # Acknowledged: INFO and ROLE show the replica with its offset.
        r.send("REPLCONF", "ACK", total)
        wait_for(lambda: f"offset={total}," in info(self.server).get("slave0", ""), what="ack")
        slave0 = info(self.server)["slave0"]
        self.assertTrue(slave0.startswith("ip=127.0.0.1,port=7777,state=online,"), slave0)
        role = self.call("ROLE")
        self.assertEqual(role[0], b"master")
        self.assertEqual(role[1], total)
        self.assertEqual(role[2], [[b"127.0.0.1", b"7777", str(total).encode()]])
        # The replica link: flags=S, type replica; its ACKs were never answered.
        listing = self.call("CLIENT", "LIST", "TYPE", "replica")
        self.assertIn(b"flags=S", listing if isinstance(listing, bytes) else str(listing).encode())
        self.assertEqual(r.buf, b"")

    def test_after_an_eof_snapshot_the_stream_waits_for_the_first_ack(self):
        # Redis's replica detects the end of an $EOF: payload by the mark being the last bytes of
        # a read: a write glued behind the mark would leave it loading until repl-timeout.
        self.call("SET", "a", "1")
        r, _, offset, _, framing = self.full_sync(ack=False)
        self.assertEqual(framing, "eof")
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        entry_id = self.call("XADD", "s", "*", "f", "v").decode()
        r.sock.settimeout(0.5)
        with self.assertRaises(socket.timeout):
            r._fill()
        self.assertEqual(r.buf, b"")
        r.sock.settimeout(20)
        self.assertIn("Waiting for REPLCONF ACK from replica to enable streaming",
                      self.server.log_text())
        r.send("REPLCONF", "ACK", offset)
        args, _ = r.command_skipping_pings()
        self.assertEqual(args, [b"SELECT", b"0"])
        args, _ = r.command()
        self.assertEqual(args, [b"XADD", b"s", entry_id.encode(), b"f", b"v"])

    def test_without_capa_eof_the_snapshot_has_a_length(self):
        self.call("SET", "k", "v" * 1000)
        r, _, _, payload, framing = self.full_sync(capas=("psync2",))
        self.assertEqual(framing, "len")
        self.assertTrue(payload.startswith(b"REDIS"), payload[:40])

    def test_disk_based_sync_when_diskless_is_off(self):
        self.call("CONFIG", "SET", "repl-diskless-sync", "no")
        self.call("CONFIG", "SET", "rdb-version", "10")
        self.call("SET", "k", "v")
        self.call("XADD", "s", "1-1", "f", "v")
        self.call("XGROUP", "CREATE", "s", "g", "0")
        self.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
        _, _, _, payload, framing = self.full_sync()
        self.assertEqual(framing, "len")
        # RDB 10, what Redis 7.0 reads: Debian's redis-check-rdb accepts it.
        self.assertTrue(payload.startswith(b"REDIS0010"), payload[:40])
        path = self.server.workdir / "sync.rdb"
        path.write_bytes(payload)
        check = subprocess.run(["redis-check-rdb", str(path)], capture_output=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertIn(b"RDB looks OK", check.stdout)

    def test_continue_after_reconnect_sends_exactly_the_missed_bytes(self):
        r, replid, offset, _, _ = self.full_sync()
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        self.call("SET", "x", "1")
        _, raw = r.command_skipping_pings()  # SELECT 0
        _, raw2 = r.command()
        seen = offset + len(raw) + len(raw2)
        r.close()
        self.replicas.remove(r)
        wait_for(lambda: info(self.server)["connected_slaves"] == "0", what="replica gone")
        # Written while the replica was away.
        self.call("SET", "y", "2")
        self.call("SELECT", "0")
        self.call("DEL", "x")
        master_offset = int(info(self.server)["master_repl_offset"])
        r2 = self.replica()
        r2.handshake(7778)
        self.assertEqual(r2.call("PSYNC", replid, seen + 1), b"+CONTINUE " + replid.encode())
        missed = r2.exactly(master_offset - seen)
        self.assertIn(enc("SET", "y", "2"), missed)
        self.assertTrue(missed.endswith(enc("DEL", "x")), missed)
        # An unknown history or an offset the backlog does not hold: full resync.
        r3 = self.replica()
        r3.handshake(7779)
        self.assertTrue(r3.call("PSYNC", "f" * 40, 1).startswith(b"+FULLRESYNC "))
        r4 = self.replica()
        r4.handshake(7780)
        self.assertTrue(r4.call("PSYNC", replid, master_offset + 2).startswith(b"+FULLRESYNC "))
        # INFO stats counts them as Redis does: three full copies (PSYNC ? -1 is not a failed
        # partial resync), one continued, two that asked for a history and could not.
        self.assertEqual(sync_stats(self.server), {"sync_full": "3", "sync_partial_ok": "1",
                                                   "sync_partial_err": "2"})
        self.call("CONFIG", "RESETSTAT")
        self.assertEqual(sync_stats(self.server), {"sync_full": "0", "sync_partial_ok": "0",
                                                   "sync_partial_err": "0"})

    def test_wait_counts_acknowledging_replicas(self):
        r, _, offset, _, _ = self.full_sync()
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        client = self.server.redis_py()
        self.addCleanup(client.close)
        client.execute_command("SET", "w", "1")
        result = {}

        def waiter():
            result["n"] = client.execute_command("WAIT", "1", "20000")

        t = threading.Thread(target=waiter)
        t.start()
        # WAIT asked the replicas for their offsets; the ACK answers it and wakes WAIT.
        stream = b""
        while True:
            args, raw = r.command()
            stream += raw
            if args == [b"REPLCONF", b"GETACK", b"*"]:
                break
        r.send("REPLCONF", "ACK", offset + len(stream))
        t.join(30)
        self.assertFalse(t.is_alive())
        self.assertEqual(result["n"], 1)
        # More replicas than there are: the count when the timeout passes.
        t0 = time.monotonic()
        self.assertEqual(client.execute_command("WAIT", "2", "300"), 1)
        self.assertGreaterEqual(time.monotonic() - t0, 0.25)
        # Inside MULTI WAIT answers at once.
        pipe = client.pipeline(transaction=True)
        pipe.execute_command("WAIT", "5", "0")
        self.assertEqual(pipe.execute(), [1])

    def test_a_pipelines_writes_reach_the_replica_in_order_with_their_offsets(self):
        # The writes of one batch are fed together when it ends (Server::BatchScope); ROLE in the
        # middle of the batch counts those before it, a SELECT makes the next write follow them,
        # and the replica receives every byte in order. (The master may PING once, at its first
        # cron with a replica; the period keeps it from pinging again.)
        self.call("CONFIG", "SET", "repl-ping-replica-period", "3600")
        r, _, offset, _, _ = self.full_sync()
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        batch = [("SET", "p1", "1"), ("SET", "p2", "2"), ("ROLE",), ("SET", "p3", "3"),
                 ("SELECT", "2"), ("SET", "p4", "4"), ("XADD", "s", "7-1", "f", "v")]
        with self.server.client() as c:
            c.send_raw(b"".join(enc(*cmd) for cmd in batch))
            replies = [c.read_raw() for _ in batch]
        self.assertEqual(replies[6], b"$3\r\n7-1\r\n")
        expected = [enc("SELECT", "0"), enc("SET", "p1", "1"), enc("SET", "p2", "2"),
                    enc("SET", "p3", "3"), enc("SELECT", "2"), enc("SET", "p4", "4"),
                    enc("XADD", "s", "7-1", "f", "v")]
        records, stream, role_offset = [], b"", None
        while len(records) < len(expected):
            args, raw = r.command()
            stream += raw
            if args != [b"PING"]:
                records.append(raw)
            if len(records) == 3 and role_offset is None:
                role_offset = offset + len(stream)  # the stream up to SET p2
        self.assertEqual(records, expected)
        role = f"*3\r\n$6\r\nmaster\r\n:{role_offset}\r\n".encode()
        self.assertTrue(replies[2].startswith(role), (replies[2], role_offset))
        behind = int(info(self.server)["master_repl_offset"]) - (offset + len(stream))
        self.assertIn(behind, (0, len(enc("PING"))))

    def test_debug_loadaof_sends_nothing_of_the_replay_to_replicas(self):
        # The replayed commands are what the master already sent; a pipeline of writes before
        # it (deferred for the replicas, see above) still arrives whole and in order.
        self.server.cleanup()
        self.server = servers.start_streamd("--appendonly", "yes", "--repl-diskless-sync-delay",
                                            "0", "--enable-debug-command", "yes")
        self.call("CONFIG", "SET", "repl-ping-replica-period", "3600")
        self.call("SET", "old", "1")
        r, _, offset, _, _ = self.full_sync()
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        batch = [("SET", "a", "1"), ("XADD", "s", "7-1", "f", "v"), ("DEBUG", "LOADAOF"),
                 ("SET", "b", "2")]
        with self.server.client() as c:
            c.send_raw(b"".join(enc(*cmd) for cmd in batch))
            replies = [c.read_raw() for _ in batch]
            self.assertEqual(replies[2], b"+OK\r\n")
            self.assertEqual(c.call_raw("MGET", "old", "a", "b"),
                             b"*3\r\n$1\r\n1\r\n$1\r\n1\r\n$1\r\n2\r\n")
        expected = [enc("SELECT", "0"), enc("SET", "a", "1"), enc("XADD", "s", "7-1", "f", "v"),
                    enc("SET", "b", "2")]
        records, stream = [], b""
        while len(records) < len(expected):
            args, raw = r.command()
            stream += raw
            if args != [b"PING"]:
                records.append(raw)
        self.assertEqual(records, expected)
        behind = int(info(self.server)["master_repl_offset"]) - (offset + len(stream))
        self.assertIn(behind, (0, len(enc("PING"))))

    def test_min_replicas_to_write(self):
        self.call("CONFIG", "SET", "min-replicas-to-write", "1")
        with self.server.client() as c:
            self.assertEqual(c.call_raw("SET", "a", "1"),
                             b"-NOREPLICAS Not enough good replicas to write.\r\n")
            self.assertEqual(c.call_raw("GET", "a"), b"$-1\r\n")
        r, _, _, _, _ = self.full_sync()
        wait_for(lambda: "state=online" in info(self.server).get("slave0", ""), what="online")
        self.assertIn("min_slaves_good_slaves", info(self.server))
        with self.server.client() as c:
            self.assertEqual(c.call_raw("SET", "a", "1"), b"+OK\r\n")

    def test_stream_buffered_during_a_snapshot_counts_against_the_replica_limit(self):
        # 40 MB that LZF cannot shrink: more than loopback's socket buffers hold, so the child
        # blocks on a replica that reads nothing, and the stream piles up in the master.
        r = self.server.redis_py()
        self.addCleanup(r.close)
        pipe = r.pipeline(transaction=False)
        for i in range(4000):
            pipe.set(f"blob:{i}", os.urandom(10000))
        pipe.execute()
        r.config_set("client-output-buffer-limit", "replica 1048576 0 0")
        stuck = self.replica()
        stuck.handshake(7777)
        self.assertTrue(stuck.call("PSYNC", "?", "-1").startswith(b"+FULLRESYNC"))
        wait_for(lambda: "state=wait_bgsave" in info(self.server).get("slave0", ""),
                 what="the snapshot under way")
        pipe = r.pipeline(transaction=False)
        for i in range(3000):  # 3 MB of stream while the snapshot is produced
            pipe.xadd("s", {"f": "x" * 1000})
        pipe.execute()
        wait_for(lambda: info(self.server)["connected_slaves"] == "0",
                 what="the stuck replica dropped at its output limit")
        self.assertIn("closed for overcoming of output buffer limits", self.server.log_text())
        # Its socket was shut down, so the child stopped writing to it at once (not after
        # repl-timeout): the next replica gets a snapshot of its own.
        r.config_set("client-output-buffer-limit", "replica 0 0 0")
        fresh, _, _, payload, _ = self.full_sync()
        self.assertGreater(len(payload), 40_000_000)

    def test_replconf_from_a_normal_client_and_pipelined_psync(self):
        with self.server.client() as c:
            self.assertEqual(c.call_raw("REPLCONF", "listening-port", "x"),
                             b"-ERR value is not an integer or out of range\r\n")
            self.assertEqual(c.call_raw("REPLCONF", "nope", "1"),
                             b"-ERR Unrecognized REPLCONF option: nope\r\n")
            self.assertEqual(c.call_raw("REPLCONF", "capa"), b"-ERR syntax error\r\n")
            self.assertEqual(c.call_raw("REPLCONF", "capa", "whatever"), b"+OK\r\n")
        # PSYNC behind a reply not yet sent is refused, as in Redis.
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        self.addCleanup(s.close)
        s.sendall(enc("PING") + enc("PSYNC", "?", "-1"))
        expected = b"+PONG\r\n-ERR SYNC and PSYNC are invalid with pending output\r\n"
        got = b""
        while len(got) < len(expected):
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        self.assertEqual(got, expected)


@needs_streamd
@unittest.skipUnless(servers.redis_available(), "redis-server not installed")
class RedisReplicaOfStreamdTest(unittest.TestCase):
    """Debian's redis-server 7.0.15 started with --replicaof streamd (issue 14's interop item):
    it loads streamd's RDB 10 full sync, then follows the command stream."""

    def test_redis_7_0_replica_syncs_and_follows(self):
        master = servers.start_streamd("--appendonly", "no", "--repl-diskless-sync-delay", "0",
                                       "--rdb-version", "10")
        self.addCleanup(master.cleanup)
        m = master.redis_py()
        self.addCleanup(m.close)
        m.set("a", "1")
        m.xadd("s", {"f": "v"}, id="1-1")
        m.xadd("s", {"f": "w"}, id="2-1")
        m.xgroup_create("s", "g", id="0")
        m.xreadgroup("g", "c", {"s": ">"}, count=1)
        replica = servers.start_redis("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(replica.cleanup)
        r = replica.redis_py()
        self.addCleanup(r.close)
        wait_for(lambda: r.info("replication").get("master_link_status") == "up", timeout=60,
                 what="redis-server replica link up")
        self.assertEqual(r.get("a"), b"1")
        self.assertEqual(r.xrange("s"), m.xrange("s"))
        self.assertEqual(r.xpending("s", "g")["pending"], 1)
        # The stream: a generated ID, a group read (propagated as XCLAIM), an ack, a delete.
        new_id = m.xadd("s", {"f": "x"})
        m.xreadgroup("g", "c2", {"s": ">"})
        m.xack("s", "g", "1-1")
        m.set("b", "2")
        m.delete("a")

        def caught_up():
            info = r.info("replication")
            return info.get("slave_repl_offset") == m.info("replication")["master_repl_offset"]

        wait_for(caught_up, timeout=60, what="replica offset = master offset")
        self.assertEqual(r.xrange("s"), m.xrange("s"))
        self.assertEqual(r.xrange("s")[-1][0], new_id)
        def pel(client):  # without the idle times, which differ by when each side ran
            return [(e["message_id"], e["consumer"], e["times_delivered"])
                    for e in client.xpending_range("s", "g", "-", "+", 10)]

        self.assertEqual(pel(r), pel(m))
        self.assertEqual(len(pel(m)), 2)
        self.assertEqual(r.get("b"), b"2")
        self.assertIsNone(r.get("a"))
        self.assertIn(b"flags=S", m.execute_command("CLIENT", "LIST", "TYPE", "replica"))



@needs_streamd
@unittest.skipUnless(servers.redis_available(), "redis-server not installed")
class PublishReachesReplicasTest(unittest.TestCase):
    """PUBLISH and SPUBLISH on a master reach the subscribers of its replicas (Redis propagates
    them to replicas, never to the AOF): a streamd replica and a redis-server 7.0.15 replica,
    each with a subscriber, and the master's AOF without them."""

    def test_messages_published_on_the_master_reach_replica_subscribers(self):
        master = servers.start_streamd("--appendonly", "yes", "--repl-diskless-sync-delay", "0",
                                       "--rdb-version", "10")
        self.addCleanup(master.cleanup)
        replicas = [servers.start_streamd("--replicaof", "127.0.0.1", str(master.port)),
                    servers.start_redis("--replicaof", "127.0.0.1", str(master.port))]
        m = master.redis_py(db=3)  # in a database other than 0: the stream SELECTs it
        self.addCleanup(m.close)
        subs = []
        for rep in replicas:
            self.addCleanup(rep.cleanup)
            r = rep.redis_py()
            self.addCleanup(r.close)
            wait_for(lambda r=r: r.info("replication").get("master_link_status") == "up",
                     timeout=60, what="replica link up")
            sub = rep.client(timeout=10)
            self.addCleanup(sub.close)
            self.assertEqual(sub.call_raw("SUBSCRIBE", "news"),
                             b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n")
            self.assertEqual(sub.call_raw("SSUBSCRIBE", "shard"),
                             b"*3\r\n$10\r\nssubscribe\r\n$5\r\nshard\r\n:1\r\n")
            subs.append(sub)
        self.assertEqual(m.publish("news", "hello"), 0)  # nobody subscribed on the master itself
        with m.pipeline(transaction=True) as tx:  # in a transaction: one unit with a write
            tx.set("k", "v")
            tx.execute_command("SPUBLISH", "shard", "sharded")
            tx.execute()

        for name, sub in zip(("streamd", "redis-server"), subs):
            with self.subTest(replica=name):
                self.assertEqual(sub.read_raw(),
                                 b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n")
                self.assertEqual(sub.read_raw(),
                                 b"*3\r\n$8\r\nsmessage\r\n$5\r\nshard\r\n$7\r\nsharded\r\n")
        for rep in replicas:
            wait_for(lambda rep=rep: rep.redis_py(db=3).get("k") == b"v", timeout=10,
                     what="the SET replicated")
        # The AOF holds the SET (in its MULTI/EXEC) and no PUBLISH.
        aof = b"".join(p.read_bytes() for p in (master.workdir / "appendonlydir").glob("*.incr.aof"))
        self.assertIn(b"$1\r\nk\r\n$1\r\nv\r\n", aof)
        self.assertNotIn(b"PUBLISH", aof.upper())


if __name__ == "__main__":
    runner.main()
