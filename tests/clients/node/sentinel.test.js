// ioredis's `sentinels` option against streamd (issue 13): the client asks the sentinels for the
// master (SENTINEL get-master-addr-by-name), connects to it, accepts it only if INFO reports
// role:master (ioredis's ready check for a sentinel-found master), and runs a consumer-group
// round trip there.
// Usage: node sentinel.test.js <master-port> <sentinel-port>...
//   (tests/integration/test_sentinel.py starts streamd and the sentinels and runs it)
// Prints one "ok <name>" line per check and exits non-zero on the first failure.
"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");
const { checks, start } = require("./checks");

const masterPort = Number(process.argv[2]);
const sentinelPorts = process.argv.slice(3).map(Number);

async function main() {
  const r = new Redis({
    sentinels: sentinelPorts.map((port) => ({ host: "127.0.0.1", port })),
    name: "mymaster",
    maxRetriesPerRequest: 1,
  });
  const { check, run } = checks();

  check("connects to the master the sentinels name", async () => {
    assert.equal(await r.ping(), "PONG");
    const info = await r.info("server");
    assert.match(info, new RegExp(`\\r\\ntcp_port:${masterPort}\\r\\n`));
  });

  check("xadd, xreadgroup and xack through the sentinel-found master", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await r.xadd("orders", "*", "n", String(i)));
    assert.equal(await r.xgroup("CREATE", "orders", "billing", "0"), "OK");
    const got = await r.xreadgroup("GROUP", "billing", "w1", "COUNT", 2, "STREAMS", "orders", ">");
    assert.deepEqual(got[0][1].map((e) => e[0]), ids.slice(0, 2));
    assert.equal(await r.xack("orders", "billing", ids[0]), 1);
    const pending = await r.xpending("orders", "billing");
    assert.equal(pending[0], 1);
  });

  await run(r);
}

start(main);
