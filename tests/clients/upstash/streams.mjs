// Drives streamd's REST API with the @upstash/redis SDK, as its users would: the stream examples
// of the SDK's documentation (XADD, XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM),
// pipelines and transactions, then a producer / consumer / janitor loop whose totals are checked.
//
//   UPSTASH_REDIS_REST_URL=http://127.0.0.1:PORT UPSTASH_REDIS_REST_TOKEN=... node streams.mjs
//
// Prints one "ok <name>" line per check and exits non-zero at the first failure.
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";

const redis = new Redis({
  url: process.env.UPSTASH_REDIS_REST_URL,
  token: process.env.UPSTASH_REDIS_REST_TOKEN,
  // The SDK's defaults (base64 responses, automatic JSON deserialisation) stay on: that is what
  // its users get.
  retry: { retries: 0 },
});

const checks = [];
function check(name, fn) {
  checks.push([name, fn]);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

check("ping and strings", async () => {
  assert.equal(await redis.ping(), "PONG");
  assert.equal(await redis.set("greeting", "hello world"), "OK");
  assert.equal(await redis.get("greeting"), "hello world");
  await redis.set("json", { a: 1, b: [1, 2] });
  assert.deepEqual(await redis.get("json"), { a: 1, b: [1, 2] });
  assert.equal(await redis.incr("counter"), 1);
  assert.equal(await redis.del("greeting", "json", "counter"), 3);
});

check("xadd and xrange", async () => {
  await redis.del("orders");
  const id1 = await redis.xadd("orders", "*", { item: "book", qty: 1 });
  assert.match(id1, /^\d+-\d+$/);
  const id2 = await redis.xadd("orders", "1-1", { item: "pen" }).catch((e) => e);
  assert.ok(id2 instanceof Error, "an ID below the top item is refused");
  assert.match(String(id2), /equal or smaller than the target stream top item/);
  const id3 = await redis.xadd("orders", "*", { item: "lamp", qty: 2 });
  assert.equal(await redis.xlen("orders"), 2);
  const range = await redis.xrange("orders", "-", "+");
  assert.deepEqual(range, { [id1]: { item: "book", qty: 1 }, [id3]: { item: "lamp", qty: 2 } });
  const trimmed = await redis.xadd("orders", "*", { item: "cup" },
                                   { trim: { type: "MAXLEN", comparison: "=", threshold: 2 } });
  assert.match(trimmed, /^\d+-\d+$/);
  assert.equal(await redis.xlen("orders"), 2);
});

check("consumer group: xgroup, xreadgroup, xack, xpending", async () => {
  await redis.del("jobs");
  assert.equal(await redis.xgroup("jobs", { type: "CREATE", group: "workers", id: "$",
                                            options: { MKSTREAM: true } }), "OK");
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push(await redis.xadd("jobs", "*", { n: String(i) }));
  const read = await redis.xreadgroup("workers", "alice", "jobs", ">", { count: 3 });
  // [[stream, [[id, [field, value]], ...]]]
  assert.equal(read.length, 1);
  assert.equal(read[0][0], "jobs");
  assert.deepEqual(read[0][1].map((e) => e[0]), ids.slice(0, 3));
  assert.deepEqual(read[0][1][0][1], ["n", 0]);  // the SDK parses "0" as JSON
  const summary = await redis.xpending("jobs", "workers", "-", "+", 10);
  assert.equal(summary.length, 3);
  assert.equal(summary[0][0], ids[0]);
  assert.equal(summary[0][1], "alice");
  assert.equal(summary[0][3], 1);  // delivery count
  assert.equal(await redis.xack("jobs", "workers", ids[0]), 1);
  assert.equal(await redis.xack("jobs", "workers", [ids[1], ids[2]]), 2);
  assert.equal((await redis.xpending("jobs", "workers", "-", "+", 10)).length, 0);
  const rest = await redis.xreadgroup("workers", "bob", "jobs", ">");
  assert.deepEqual(rest[0][1].map((e) => e[0]), ids.slice(3));
  const groups = await redis.xinfo("jobs", { type: "GROUPS" });
  assert.equal(groups.length, 1);
});

check("xclaim and xautoclaim", async () => {
  await redis.del("tasks");
  await redis.xgroup("tasks", { type: "CREATE", group: "g", id: "0", options: { MKSTREAM: true } });
  const a = await redis.xadd("tasks", "*", { t: "a" });
  const b = await redis.xadd("tasks", "*", { t: "b" });
  await redis.xreadgroup("g", "crashed", "tasks", ">");
  await sleep(30);
  const claimed = await redis.xclaim("tasks", "g", "rescuer", 10, a);
  assert.equal(claimed.length, 1);
  assert.equal(claimed[0][0], a);
  assert.deepEqual(claimed[0][1], ["t", "a"]);
  const justId = await redis.xclaim("tasks", "g", "rescuer", 0, b, { justId: true });
  assert.deepEqual(justId, [b]);
  await sleep(30);
  const [next, entries, deleted] = await redis.xautoclaim("tasks", "g", "janitor", 10, "0-0",
                                                          { count: 10 });
  assert.equal(next, "0-0");
  assert.deepEqual(entries.map((e) => e[0]), [a, b]);
  assert.deepEqual(deleted, []);
  const pending = await redis.xpending("tasks", "g", "-", "+", 10, { consumer: "janitor" });
  assert.equal(pending.length, 2);
});

check("blocking xreadgroup is held until an entry arrives", async () => {
  await redis.del("live");
  await redis.xgroup("live", { type: "CREATE", group: "g", id: "$", options: { MKSTREAM: true } });
  const t0 = Date.now();
  const waiting = redis.xreadgroup("g", "c", "live", ">", { blockMS: 5000 });
  await sleep(200);
  const id = await redis.xadd("live", "*", { hello: "world" });
  const got = await waiting;
  assert.ok(Date.now() - t0 < 3000);
  assert.equal(got[0][1][0][0], id);
  const none = await redis.xreadgroup("g", "c", "live", ">", { blockMS: 100 });
  assert.equal(none, null);
});

check("pipeline and multi-exec", async () => {
  await redis.del("p");
  const p = redis.pipeline();
  for (let i = 0; i < 100; i++) p.xadd("p", "*", { i: String(i) });
  p.xlen("p");
  const res = await p.exec();
  assert.equal(res.length, 101);
  assert.equal(res[100], 100);
  const tx = redis.multi();
  tx.xadd("p", "*", { last: "yes" });
  tx.xlen("p");
  const [id, len] = await tx.exec();
  assert.match(id, /^\d+-\d+$/);
  assert.equal(len, 101);
  const bad = redis.pipeline();
  bad.set("str", "x");
  bad.xadd("str", "*", { f: "v" });
  const kept = await bad.exec({ keepErrors: true });
  assert.equal(kept[0].result, "OK");
  assert.match(kept[1].error, /^WRONGTYPE/);
});

check("producer / consumer / janitor loop", async () => {
  const stream = "loop";
  await redis.del(stream);
  await redis.xgroup(stream, { type: "CREATE", group: "workers", id: "$",
                               options: { MKSTREAM: true } });
  const total = 200;
  const processed = new Set();
  let produced = 0;

  async function producer() {
    while (produced < total) {
      const p = redis.pipeline();
      for (let i = 0; i < 20 && produced < total; i++, produced++) {
        p.xadd(stream, "*", { job: String(produced) });
      }
      await p.exec();
      await sleep(5);
    }
  }

  // Consumer "flaky" reads but never acknowledges every third entry: the janitor must hand those
  // to someone else.
  async function consumer(name, flaky) {
    let idle = 0;
    while (idle < 5) {
      const res = await redis.xreadgroup("workers", name, stream, ">", { count: 10, blockMS: 100 });
      if (!res) {
        idle++;
        continue;
      }
      idle = 0;
      for (const [id, fields] of res[0][1]) {
        const job = Number(fields[1]);
        if (flaky && job % 3 === 0) continue;
        processed.add(job);
        await redis.xack(stream, "workers", id);
      }
    }
  }

  async function janitor() {
    for (let round = 0; round < 200 && processed.size < total; round++) {
      await sleep(50);
      const [, entries] = await redis.xautoclaim(stream, "workers", "janitor", 40, "0-0",
                                                 { count: 50 });
      for (const [id, fields] of entries) {
        processed.add(Number(fields[1]));
        await redis.xack(stream, "workers", id);
      }
    }
  }

  await Promise.all([producer(), consumer("steady", false), consumer("flaky", true), janitor()]);
  assert.equal(processed.size, total, `processed ${processed.size} of ${total}`);
  const pending = await redis.xpending(stream, "workers", "-", "+", 10);
  assert.equal(pending.length, 0);
  assert.equal(await redis.xlen(stream), total);
});

let failed = 0;
for (const [name, fn] of checks) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
console.log(`${checks.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
