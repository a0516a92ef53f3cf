"""GET /metrics over real HTTP: the metrics port (open, and with metrics-token), the REST port's
/metrics with its tokens, and a real Prometheus (Debian's `prometheus` package, started with its
own config and data dir on a free port) scraping streamd while consumers work: a PromQL query
through Prometheus's HTTP API returns the lag and pending count of a group equal to what XINFO
GROUPS says. Skips the Prometheus part when /usr/bin/prometheus is missing
(scripts/install_deps.sh installs it).
"""

import http.client
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse

from streamd_testlib import runner, servers

needs_streamd = unittest.skipUnless(servers.streamd_available(),
                                    f"streamd binary not found at {servers.streamd_bin()}")
PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
TOKEN = "scrape-secret"
REST_TOKEN = "rest-token-1"


def get(port, path, token=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type"), body.decode("utf-8", "replace")


def group_info(client, stream, group):
    for g in client.xinfo_groups(stream):
        if g["name"].decode() == group:
            return g
    raise AssertionError(f"no group {group}")


@needs_streamd
class MetricsPortTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.metrics_port = servers.free_port()
        cls.rest_port = servers.free_port()
        cls.server = servers.start_streamd(
            "--metrics-port", cls.metrics_port, "--metrics-bind", "127.0.0.1",
            "--rest-port", cls.rest_port, "--rest-bind", "127.0.0.1", "--rest-token", REST_TOKEN,
            "--appendonly", "no")

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def test_open_metrics_port(self):
        r = self.server.redis_py()
        r.xadd("orders", {"f": "v"})
        status, ctype, body = get(self.metrics_port, "/metrics")
        self.assertEqual(status, 200)
        self.assertEqual(ctype, "text/plain; version=0.0.4; charset=utf-8")
        self.assertIn("# TYPE redis_up gauge\nredis_up 1\n", body)
        self.assertIn('redis_stream_length{db="db0",stream="orders"} 1\n', body)
        self.assertEqual(get(self.metrics_port, "/other")[0], 404)
        self.assertEqual(get(self.metrics_port, "/metrics?x=1")[0], 200)

    def test_token(self):
        r = self.server.redis_py()
        r.config_set("metrics-token", TOKEN)
        try:
            self.assertEqual(get(self.metrics_port, "/metrics")[0], 401)
            self.assertEqual(get(self.metrics_port, "/metrics", "wrong")[0], 401)
            self.assertEqual(get(self.metrics_port, "/metrics", TOKEN)[0], 200)
            # The REST port: metrics-token when set...
            self.assertEqual(get(self.rest_port, "/metrics", REST_TOKEN)[0], 401)
            self.assertEqual(get(self.rest_port, "/metrics", TOKEN)[0], 200)
        finally:
            r.config_set("metrics-token", "")
        # ... else the REST tokens.
        self.assertEqual(get(self.rest_port, "/metrics")[0], 401)
        status, _, body = get(self.rest_port, "/metrics", REST_TOKEN)
        self.assertEqual(status, 200)
        self.assertIn("redis_up 1", body)
        # The REST API itself is unchanged.
        self.assertEqual(get(self.rest_port, "/ping", REST_TOKEN)[0], 200)

    def test_scrape_time_under_10000_streams(self):
        r = self.server.redis_py()
        p = r.pipeline(transaction=False)
        for i in range(10000):
            p.xadd(f"load:{i}", {"f": "v"})
            if i % 2 == 0:
                p.xgroup_create(f"load:{i}", "g", id="0")
        p.execute()
        times = []
        for _ in range(5):
            t0 = time.monotonic()
            status, _, body = get(self.metrics_port, "/metrics")
            times.append((time.monotonic() - t0) * 1000)
            self.assertEqual(status, 200)
        self.assertEqual(body.count("\nredis_stream_length{"), 1000)
        times.sort()
        print(f"\n[ metrics ] 10000 streams (1000 exported): scrape over HTTP median "
              f"{times[2]:.1f} ms, min {times[0]:.1f} ms, {len(body)} bytes")
        p = r.pipeline(transaction=False)
        for i in range(10000):
            p.delete(f"load:{i}")
        p.execute()


def sample(body, line_prefix):
    """The value of the first sample line starting with `line_prefix`, or None."""
    for line in body.splitlines():
        if line.startswith(line_prefix):
            return float(line.rsplit(" ", 1)[1])
    return None


@needs_streamd
class LargeKeyspaceSelectionTest(unittest.TestCase):
    """Above 20,000 keys a scrape never walks the keyspace: the background pass (a timer while
    scrapes come) chooses, and the next scrapes export its choice."""

    def test_background_pass_over_http(self):
        port = servers.free_port()
        server = servers.start_streamd("--metrics-port", port, "--metrics-bind", "127.0.0.1",
                                       "--appendonly", "no", "--metrics-max-streams", "2")
        self.addCleanup(server.cleanup)
        r = server.redis_py()
        self.addCleanup(r.close)
        p = r.pipeline(transaction=False)
        for i in range(20001):
            p.set(f"k:{i}", "x")
        p.execute()
        for n, key in ((3, "big"), (2, "mid"), (1, "small")):
            for _ in range(n):
                r.xadd(key, {"f": "v"})
        _, _, first = get(port, "/metrics")
        deadline = time.monotonic() + 30
        while True:
            _, _, body = get(port, "/metrics")
            if sample(body, "streamd_streams_matching ") == 3:
                break
            self.assertLess(time.monotonic(), deadline, "the background pass never finished")
            time.sleep(0.2)
        self.assertIn('redis_stream_length{db="db0",stream="big"} 3\n', body)
        self.assertIn('redis_stream_length{db="db0",stream="mid"} 2\n', body)
        self.assertNotIn('stream="small"', body)
        self.assertEqual(sample(body, "streamd_streams_exported "), 2)
        self.assertGreater(sample(body, "streamd_stream_selection_age_seconds "), 0)
        # Between passes the chosen streams are read fresh.
        r.xadd("mid", {"f": "v"})
        r.xadd("mid", {"f": "v"})
        _, _, body = get(port, "/metrics")
        self.assertIn('redis_stream_length{db="db0",stream="mid"} 4\n', body)
        self.assertLess(body.index('stream="mid"'), body.index('stream="big"'))


@needs_streamd
@unittest.skipUnless(servers.redis_available(), "redis-server not installed")
class ReplicationMetricsTest(unittest.TestCase):
    """redis_exporter's replication metrics, with Debian's redis-server attached as a replica."""

    def test_master_with_a_replica(self):
        port = servers.free_port()
        master = servers.start_streamd("--metrics-port", port, "--metrics-bind", "127.0.0.1",
                                       "--appendonly", "no", "--repl-diskless-sync-delay", "0",
                                       "--rdb-version", "10")
        self.addCleanup(master.cleanup)
        m = master.redis_py()
        self.addCleanup(m.close)
        _, _, body = get(port, "/metrics")
        self.assertIn('redis_instance_info{role="master",redis_version="8.10.0",', body)
        self.assertEqual(sample(body, "redis_connected_slaves "), 0)
        self.assertEqual(sample(body, "redis_repl_backlog_is_active "), 0)
        replica = servers.start_redis("--replicaof", "127.0.0.1", str(master.port))
        self.addCleanup(replica.cleanup)
        rr = replica.redis_py()
        self.addCleanup(rr.close)
        m.set("a", "1")
        deadline = time.monotonic() + 60
        while rr.info("replication").get("master_link_status") != "up":
            self.assertLess(time.monotonic(), deadline, "replica link never came up")
            time.sleep(0.1)
        m.set("b", "2")
        info = m.info("replication")
        while True:
            _, _, body = get(port, "/metrics")
            if sample(body, "redis_connected_slave_offset_bytes{") == info["master_repl_offset"]:
                break
            self.assertLess(time.monotonic(), deadline, "replica offset never reached the master's")
            time.sleep(0.2)
        rport = replica.port
        self.assertEqual(sample(body, "redis_connected_slaves "), 1)
        self.assertEqual(sample(body, "redis_master_repl_offset "), info["master_repl_offset"])
        self.assertEqual(sample(body, "redis_repl_backlog_is_active "), 1)
        self.assertEqual(sample(body, "redis_replication_backlog_bytes "), 1048576)
        self.assertIn('redis_connected_slave_offset_bytes{slave_ip="127.0.0.1",'
                      f'slave_port="{rport}",slave_state="online"}}', body)
        self.assertIsNotNone(sample(body, 'redis_connected_slave_lag_seconds{slave_ip="127.0.0.1"'))


@needs_streamd
@unittest.skipUnless(os.path.exists(PROMETHEUS), "prometheus is not installed")
class PrometheusTest(unittest.TestCase):
    def setUp(self):
        self.metrics_port = servers.free_port()
        self.server = servers.start_streamd("--metrics-port", self.metrics_port, "--metrics-bind",
                                            "127.0.0.1", "--metrics-token", TOKEN,
                                            "--appendonly", "no")
        self.addCleanup(self.server.cleanup)
        self.prom_port = servers.free_port()
        self.dir = tempfile.mkdtemp(prefix="streamd-prom-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: streamd
    authorization:
      credentials: {TOKEN}
    static_configs:
      - targets: ["127.0.0.1:{self.metrics_port}"]
""")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.prom = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.dir}/data",
             f"--web.listen-address=127.0.0.1:{self.prom_port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop_prometheus)

    def stop_prometheus(self):
        self.prom.terminate()
        try:
            self.prom.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.prom.kill()
            self.prom.wait()
        self.log.close()

    def query(self, promql):
        status, _, body = get(self.prom_port,
                              "/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        if status != 200:
            return None
        data = json.loads(body)
        result = data["data"]["result"]
        return float(result[0]["value"][1]) if result else None

    def wait_for(self, promql, want, timeout=30):
        deadline = time.monotonic() + timeout
        got = None
        while time.monotonic() < deadline:
            try:
                got = self.query(promql)
            except (ConnectionError, OSError):
                got = None
            if got == want:
                return got
            time.sleep(0.5)
        with open(os.path.join(self.dir, "prometheus.log")) as f:
            log = f.read()[-3000:]
        self.fail(f"{promql}: {got}, want {want}\n{log}")

    def test_group_lag_and_pending_through_promql(self):
        r = self.server.redis_py()
        # A producer, a group with two consumers that read and acknowledge part of it.
        for i in range(500):
            r.xadd("jobs", {"n": str(i)})
        r.xgroup_create("jobs", "workers", id="0")
        got = r.xreadgroup("workers", "alice", {"jobs": ">"}, count=120)
        ids = [eid for eid, _ in got[0][1]]
        r.xack("jobs", "workers", *ids[:100])
        r.xreadgroup("workers", "bob", {"jobs": ">"}, count=30)
        for i in range(40):
            r.xadd("jobs", {"n": f"late{i}"})
        info = group_info(r, "jobs", "workers")
        self.assertEqual((info["lag"], info["pending"]), (540 - 150, 20 + 30))
        labels = '{db="db0",stream="jobs",group="workers"}'
        self.wait_for(f"redis_stream_group_lag{labels}", float(info["lag"]))
        self.wait_for(f"redis_stream_group_messages_pending{labels}", float(info["pending"]))
        self.wait_for('redis_stream_group_consumer_messages_pending{stream="jobs",'
                      'consumer="bob"}', 30.0)
        self.wait_for('redis_up', 1.0)
        # Under load: more entries and reads while Prometheus keeps scraping; once it settles,
        # PromQL agrees with XINFO GROUPS again.
        for round_ in range(5):
            for i in range(50):
                r.xadd("jobs", {"n": f"r{round_}-{i}"})
            r.xreadgroup("workers", "alice", {"jobs": ">"}, count=25)
            time.sleep(0.3)
        info = group_info(r, "jobs", "workers")
        self.wait_for(f"redis_stream_group_lag{labels}", float(info["lag"]))
        self.wait_for(f"redis_stream_group_messages_pending{labels}", float(info["pending"]))
        print(f"\n[ prometheus ] lag {info['lag']}, pending {info['pending']} via PromQL = "
              f"XINFO GROUPS")


if __name__ == "__main__":
    runner.main()
