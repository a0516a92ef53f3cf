// Drives streamd's Redis 8.x stream commands through ioredis's own command API:
// XADD IDMP / IDMPAUTO, XCFGSET, XDELEX, XACKDEL, XTRIM ... ACKED, XREAD MAXCOUNT.
// Usage: node streams8.test.js <port>   (tests/integration/test_client_node.py runs it)
// Prints one "ok <name>" line per check and exits non-zero on the first failure.
"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");
const { checks, start } = require("./checks");

const port = Number(process.argv[2] || 6379);

async function main() {
  const r = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 1 });
  const { check, run } = checks();

  check("xadd idmp returns the original id for a duplicate", async () => {
    const first = await r.xadd("orders", "IDMP", "producer-1", "order-42", "*", "total", "10");
    const again = await r.xadd("orders", "IDMP", "producer-1", "order-42", "*", "total", "10");
    assert.equal(again, first);
    assert.equal(await r.xlen("orders"), 1);
  });

  check("xadd idmpauto derives the iid from the content", async () => {
    const a = await r.xadd("orders", "IDMPAUTO", "producer-2", "*", "total", "11");
    assert.equal(await r.xadd("orders", "IDMPAUTO", "producer-2", "*", "total", "11"), a);
    assert.notEqual(await r.xadd("orders", "IDMPAUTO", "producer-2", "*", "total", "12"), a);
    assert.equal(await r.xlen("orders"), 3);
  });

  check("xcfgset and the xinfo stream idmp fields", async () => {
    assert.equal(await r.xcfgset("orders", "IDMP-DURATION", "60", "IDMP-MAXSIZE", "5"), "OK");
    const info = await r.xinfo("STREAM", "orders");
    const fields = {};
    for (let i = 0; i < info.length; i += 2) fields[info[i]] = info[i + 1];
    assert.equal(fields["idmp-duration"], 60);
    assert.equal(fields["idmp-maxsize"], 5);
    assert.equal(fields["iids-tracked"], 0); // new values cleared the map
  });

  check("xdelex acked keeps entries a group still needs", async () => {
    await r.del("jobs");
    const id = await r.xadd("jobs", "*", "task", "a");
    await r.xgroup("CREATE", "jobs", "workers", "0");
    await r.xreadgroup("GROUP", "workers", "w1", "COUNT", "10", "STREAMS", "jobs", ">");
    assert.deepEqual(await r.xdelex("jobs", "ACKED", "IDS", "1", id), [2]);
    assert.equal(await r.xack("jobs", "workers", id), 1);
    assert.deepEqual(await r.xdelex("jobs", "ACKED", "IDS", "1", id), [1]);
    assert.deepEqual(await r.xdelex("jobs", "IDS", "1", id), [-1]);
  });

  check("xackdel acknowledges and deletes", async () => {
    await r.del("jobs");
    const id1 = await r.xadd("jobs", "*", "task", "a");
    const id2 = await r.xadd("jobs", "*", "task", "b");
    await r.xgroup("CREATE", "jobs", "g1", "0");
    await r.xgroup("CREATE", "jobs", "g2", "0");
    await r.xreadgroup("GROUP", "g1", "w", "STREAMS", "jobs", ">");
    await r.xreadgroup("GROUP", "g2", "w", "STREAMS", "jobs", ">");
    assert.deepEqual(await r.xackdel("jobs", "g1", "ACKED", "IDS", "2", id1, id2), [2, 2]);
    assert.deepEqual(await r.xackdel("jobs", "g2", "DELREF", "IDS", "1", id1), [1]);
    assert.equal(await r.xlen("jobs"), 1);
    const summary = await r.xpending("jobs", "g2");
    assert.equal(summary[0], 1);
  });

  check("xtrim acked and xread maxcount", async () => {
    assert.equal(await r.xtrim("jobs", "MAXLEN", "0", "ACKED"), 0); // id2 still pending in g2
    await r.xack("jobs", "g2", (await r.xrange("jobs", "-", "+"))[0][0]);
    assert.equal(await r.xtrim("jobs", "MAXLEN", "0", "ACKED"), 1);
    await r.del("a", "b");
    for (let i = 0; i < 3; i++) {
      await r.xadd("a", "*", "n", String(i));
      await r.xadd("b", "*", "n", String(i));
    }
    const res = await r.xread("COUNT", "2", "MAXCOUNT", "3", "STREAMS", "a", "b", "0", "0");
    assert.deepEqual(res.map(([key, entries]) => [key, entries.length]), [["a", 2], ["b", 1]]);
  });

  await run(r);
}

start(main);
