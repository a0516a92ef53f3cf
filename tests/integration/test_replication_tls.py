"""Replication over TLS (issue 13): real processes, certificates made at test time with openssl
(test_tls.make_certificates: a throwaway CA, a server and a client certificate).

- streamd master and streamd replica with `tls-replication yes`: the full sync (a stream of
  ~300 KB, so the relay of the snapshot pipe into the TLS stream takes many chunks, with a group,
  pending entries and an acknowledged one) over the master's tls-port, diskless ($EOF:) and
  disk-based ($<len>); then the command stream (XADD, XREADGROUP, XACK, XDEL); then the link is
  killed and the replica continues with a partial resync (+CONTINUE) and the writes made while
  it was away. The replica announces its TLS port, and the master's CLIENT LIST shows the link on
  its tls-port.
- interop with Debian's redis-server 7.0.15 (built with TLS): redis-server as a TLS replica of
  streamd (rdb-version 10), and streamd as a TLS replica of redis-server.
- a TLS replica that asks for a full sync of ~8 MB and reads nothing is dropped by the relay's
  repl-timeout (the child, waiting on its pipe, then goes on), and the plain replica sharing the
  same snapshot gets all of it.
- a streamd replica without tls-replication cannot use a master's TLS port (the link stays
  down), so the tests above cannot pass over plain TCP by accident.

Data is compared with aof_helpers.snapshot (XINFO STREAM FULL less timing fields, XINFO GROUPS,
XPENDING, XLEN, strings), PEL delivery times left out (a propagated claim sets the replica's).
Skips only when streamd, redis-server or openssl is missing.
"""

import random
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import test_tls
from aof_helpers import snapshot, diff
from streamd_testlib import runner, servers
from streamd_testlib.replica import link_up, same_offset, wait_for

needs = unittest.skipUnless(
    servers.streamd_available() and servers.redis_available() and test_tls.OPENSSL,
    "streamd, redis-server or openssl missing")


def normalised(snap: dict, group_counters: bool = True) -> dict:
    """aof_helpers.snapshot less the PEL delivery times of XINFO STREAM FULL (and, when not
    `group_counters`, the groups' entries-read and lag)."""
    out = {}
    for k, (t, exp, v) in snap.items():
        if isinstance(v, dict) and b"groups" in v:
            v = dict(v)
            groups = []
            for g in v[b"groups"]:
                g = dict(g)
                # [id, consumer, delivery-time, count] and per consumer [id, delivery-time, count]
                g[b"pending"] = [(p[0], p[1], p[3]) for p in g.get(b"pending", [])]
                cons = []
                for c in g.get(b"consumers", []):
                    c = dict(c)
                    c[b"pending"] = [(p[0], p[2]) for p in c.get(b"pending", [])]
                    cons.append(c)
                g[b"consumers"] = cons
                groups.append(g)
            v[b"groups"] = groups
            if not group_counters:
                for g in v[b"groups"] + v[b"xinfo-groups"]:
                    g.pop(b"entries-read", None)
                    g.pop(b"lag", None)
        out[k] = (t, exp, v)
    return out


def state(server, group_counters: bool = True) -> dict:
    return normalised(snapshot(server, layout=False, databases=3), group_counters)


def populate(m, n=1500):
    # Random values: the snapshot stays ~300 KB under LZF, several chunks of the relay.
    rng = random.Random(13)
    pipe = m.pipeline(transaction=False)
    for i in range(n):
        pipe.xadd("s", {"n": str(i), "p": "%0200x" % rng.getrandbits(800)})
    pipe.execute()
    m.xgroup_create("s", "g", id="0")
    got = m.xreadgroup("g", "alice", {"s": ">"}, count=20)
    m.xreadgroup("g", "bob", {"s": ">"}, count=5)
    m.xack("s", "g", got[0][1][0][0])
    m.set("plain", "v")


def stream_writes(m, tag):
    for i in range(5):
        m.xadd("s", {"live": f"{tag}-{i}"})
    m.xreadgroup("g", "carol", {"s": ">"}, count=3)
    m.xack("s", "g", m.xrange("s", count=1)[0][0])
    m.set(f"after-{tag}", "1")


@needs
class ReplicationTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="streamd-repl-tls-"))
        test_tls.make_certificates(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tls(self, port):
        return ["--tls-port", port, "--tls-cert-file", self.tmp / "server.crt",
                "--tls-key-file", self.tmp / "server.key", "--tls-ca-cert-file",
                self.tmp / "ca.crt"]

    def start(self, kind, *args, tls_port=None):
        tls_port = tls_port or servers.free_port()
        start = servers.start_streamd if kind == "streamd" else servers.start_redis
        extra = ["--appendonly", "no"] if kind == "streamd" else []
        s = start(*self.tls(tls_port), *extra, *args)
        s.tls_port = tls_port
        self.addCleanup(s.cleanup)
        return s

    def replica_of(self, kind, master, *args):
        return self.start(kind, "--tls-replication", "yes", "--replicaof", "127.0.0.1",
                          master.tls_port, "--repl-timeout", "10", *args)

    def assert_same(self, master, replica, group_counters=True):
        wait_for(lambda: same_offset(replica.redis_py(), master.redis_py()), timeout=30,
                 what="replica offset = master offset")
        a, b = state(master, group_counters), state(replica, group_counters)
        if a != b:
            self.fail(diff(a, b)[:3000])

    def assert_link_on_tls_port(self, master, replica):
        m = master.redis_py(decode_responses=True)
        links = [c for c in m.client_list() if "S" in c["flags"]]
        self.assertEqual(len(links), 1, links)
        self.assertTrue(links[0]["laddr"].endswith(f":{master.tls_port}"), links[0])
        info = m.info("replication")
        self.assertEqual(info["slave0"]["port"], replica.tls_port, info)

    def streamd_pair(self, *master_args):
        master = self.start("streamd", "--repl-diskless-sync-delay", "0", *master_args)
        m = master.redis_py(decode_responses=True)
        populate(m)
        replica = self.replica_of("streamd", master)
        r = replica.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="TLS link up")
        return master, m, replica, r

    def test_streamd_to_streamd_full_sync_stream_and_partial_resync(self):
        master, m, replica, r = self.streamd_pair()
        self.assertIn("target: replicas sockets", master.log_text())
        loaded = re.search(r"Loading DB in memory \((\d+) bytes\)", replica.log_text())
        self.assertGreater(int(loaded.group(1)), 250_000)  # about 4 relay chunks
        self.assert_same(master, replica)
        self.assertEqual(r.xlen("s"), 1500)
        self.assertEqual(r.xpending("s", "g")["pending"], 24)
        self.assert_link_on_tls_port(master, replica)

        # The command stream through the TLS connection.
        stream_writes(m, "a")
        self.assert_same(master, replica)

        # The link drops (killed on the replica's side); writes go on meanwhile; the replica
        # continues with a partial resync.
        r.client_kill_filter(_type="master")
        stream_writes(m, "b")
        wait_for(lambda: "Successful partial resynchronization with master." in
                 replica.log_text(), timeout=30, what="partial resync")
        self.assertIn("Partial resynchronization request from", master.log_text())
        self.assertEqual(master.log_text().count("Starting BGSAVE for SYNC"), 1)
        wait_for(lambda: link_up(r), timeout=30, what="TLS link up again")
        stream_writes(m, "c")
        self.assert_same(master, replica)
        self.assertEqual(r.get("after-b"), "1")

    def test_streamd_to_streamd_disk_based_sync(self):
        master, m, replica, r = self.streamd_pair("--repl-diskless-sync", "no")
        self.assertIn("target: disk", master.log_text())
        self.assert_same(master, replica)
        stream_writes(m, "a")
        self.assert_same(master, replica)

    def interop(self, master_kind, replica_kind, master_args, live_group_counters=True):
        """A TLS replica of another kind: the full sync, then the command stream."""
        master = self.start(master_kind, "--repl-diskless-sync-delay", "0", *master_args)
        m = master.redis_py(decode_responses=True)
        populate(m)
        replica = self.replica_of(replica_kind, master)
        r = replica.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="TLS link up")
        self.assert_same(master, replica)
        self.assert_link_on_tls_port(master, replica)
        stream_writes(m, "a")
        self.assert_same(master, replica, group_counters=live_group_counters)

    def test_redis_server_replica_of_streamd(self):
        self.interop("streamd", "redis", ["--rdb-version", "10"])

    def test_streamd_replica_of_redis_server(self):
        # redis-server 7.0.15 propagates XREADGROUP as XCLAIM ... LASTID without the group's
        # entries-read, so its own replicas keep the full sync's entries-read and lag too (seen
        # with a redis-server replica of the same master): those two are not compared after
        # the command stream.
        self.interop("redis", "streamd", [], live_group_counters=False)

    def test_stuck_tls_replica_is_dropped_and_the_others_sync(self):
        # A TLS replica that asks for a full sync and then reads nothing: its relay stops
        # reading the pipe, the child waits on it, and after repl-timeout the master closes that
        # connection; the plain replica sharing the snapshot then gets all of it.
        master = self.start("streamd", "--repl-diskless-sync-delay", "3", "--repl-timeout", "2")
        m = master.redis_py(decode_responses=True)
        rng = random.Random(7)
        for _ in range(8):
            pipe = m.pipeline(transaction=False)
            for _ in range(5000):
                pipe.xadd("big", {"p": "%0200x" % rng.getrandbits(800)})
            pipe.execute()
        ctx = ssl.create_default_context(cafile=str(self.tmp / "ca.crt"))
        ctx.load_cert_chain(self.tmp / "client.crt", self.tmp / "client.key")
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.connect(("127.0.0.1", master.tls_port))
        stuck = ctx.wrap_socket(raw, server_hostname="127.0.0.1")
        self.addCleanup(stuck.close)
        for cmd in (b"*1\r\n$4\r\nPING\r\n",
                    b"*5\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\neof\r\n"
                    b"$4\r\ncapa\r\n$6\r\npsync2\r\n"):
            stuck.sendall(cmd)
            self.assertTrue(stuck.recv(64).startswith(b"+"))
        stuck.sendall(b"*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n")
        plain = self.start("streamd", "--replicaof", "127.0.0.1", master.port,
                           "--repl-timeout", "30")
        p = plain.redis_py(decode_responses=True)
        wait_for(lambda: "Disconnecting timedout replica (full sync)" in master.log_text(),
                 timeout=30, what="the stuck TLS replica dropped")
        wait_for(lambda: link_up(p), timeout=30, what="plain replica link up")
        self.assert_same(master, plain)
        self.assertEqual(p.xlen("big"), 40000)
        self.assertEqual(m.info("replication")["connected_slaves"], 1)
        # Both were served by one child (the plain one waited for the stuck pipe to close).
        self.assertEqual(master.log_text().count("Starting BGSAVE for SYNC"), 1)

    def test_tls_client_cert_file_is_what_the_replica_presents(self):
        # The replica's own server certificate comes from a CA the master does not trust; only
        # its tls-client-cert-file (signed by the master's CA) gets it past tls-auth-clients yes.
        d = self.tmp
        run = lambda *a: subprocess.run([test_tls.OPENSSL, *a], cwd=d, check=True,
                                        capture_output=True)
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out",
            "other-ca.crt", "-days", "2", "-subj", "/CN=untrusted-ca")
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.csr",
            "-subj", "/CN=other")
        run("x509", "-req", "-in", "other.csr", "-CA", "other-ca.crt", "-CAkey", "other-ca.key",
            "-CAcreateserial", "-out", "other.crt", "-days", "2", "-extfile", "server.ext")
        master = self.start("streamd", "--repl-diskless-sync-delay", "0")
        master.redis_py().set("k", "v")
        own = ["--tls-cert-file", d / "other.crt", "--tls-key-file", d / "other.key"]
        refused = self.replica_of("streamd", master, *own)
        time.sleep(3)
        self.assertFalse(link_up(refused.redis_py()))
        replica = self.replica_of("streamd", master, *own,
                                  "--tls-client-cert-file", d / "client.crt",
                                  "--tls-client-key-file", d / "client.key")
        r = replica.redis_py(decode_responses=True)
        wait_for(lambda: link_up(r), timeout=30, what="TLS link up with the client certificate")
        self.assertEqual(r.get("k"), "v")

    def test_plain_replica_cannot_use_the_tls_port(self):
        master = self.start("streamd", "--repl-diskless-sync-delay", "0")
        master.redis_py().set("k", "v")
        replica = self.start("streamd", "--replicaof", "127.0.0.1", master.tls_port,
                             "--repl-timeout", "2")
        r = replica.redis_py(decode_responses=True)
        time.sleep(3)
        self.assertFalse(link_up(r))
        self.assertIsNone(r.get("k"))
        # The same replica with tls-replication yes (CONFIG SET, read at the next attempt).
        r.config_set("tls-replication", "yes")
        self.assertEqual(r.config_get("tls-replication"), {"tls-replication": "yes"})
        wait_for(lambda: link_up(r), timeout=30, what="TLS link up after CONFIG SET")
        self.assertEqual(r.get("k"), "v")


if __name__ == "__main__":
    runner.main()
