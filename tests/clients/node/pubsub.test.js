// Drives streamd's pub/sub through ioredis's subscriber mode: SUBSCRIBE / PSUBSCRIBE /
// SSUBSCRIBE with their "message" / "pmessage" / "smessage" events, PUBLISH / SPUBLISH counts,
// PUBSUB introspection, UNSUBSCRIBE back to normal mode.
// Usage: node pubsub.test.js <port>   (tests/integration/test_client_node.py runs it)
// Prints one "ok <name>" line per check and exits non-zero on the first failure.
"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");
const { checks, start } = require("./checks");

const port = Number(process.argv[2] || 6379);

// The next `n` events of `type` on `sub`, as arrays of their arguments.
function next(sub, type, n = 1) {
  return new Promise((resolve, reject) => {
    const got = [];
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${type}`)), 5000);
    const on = (...args) => {
      got.push(args.map(String));
      if (got.length === n) {
        clearTimeout(timer);
        sub.off(type, on);
        resolve(got);
      }
    };
    sub.on(type, on);
  });
}

async function main() {
  const opts = { port, host: "127.0.0.1", maxRetriesPerRequest: 1 };
  const pub = new Redis(opts);
  const sub = new Redis(opts);
  const { check, run } = checks();

  check("subscribe counts and message events", async () => {
    assert.equal(await sub.subscribe("news", "alerts"), 2);
    const msgs = next(sub, "message", 2);
    assert.equal(await pub.publish("news", "hello"), 1);
    assert.equal(await pub.publish("alerts", "fire"), 1);
    assert.deepEqual(await msgs, [["news", "hello"], ["alerts", "fire"]]);
  });

  check("psubscribe and pmessage", async () => {
    assert.equal(await sub.psubscribe("news.*"), 3);
    const msgs = next(sub, "pmessage");
    assert.equal(await pub.publish("news.sport", "goal"), 1);
    assert.deepEqual(await msgs, [["news.*", "news.sport", "goal"]]);
  });

  check("ssubscribe and smessage", async () => {
    assert.equal(await sub.ssubscribe("orders"), 1);
    const msgs = next(sub, "smessage");
    assert.equal(await pub.spublish("orders", "o-1"), 1);
    assert.deepEqual(await msgs, [["orders", "o-1"]]);
  });

  check("pubsub introspection", async () => {
    assert.deepEqual((await pub.pubsub("CHANNELS")).sort(), ["alerts", "news"]);
    assert.deepEqual(await pub.pubsub("NUMSUB", "news", "none"), ["news", 1, "none", 0]);
    assert.equal(await pub.pubsub("NUMPAT"), 1);
    assert.deepEqual(await pub.pubsub("SHARDCHANNELS"), ["orders"]);
    assert.deepEqual(await pub.pubsub("SHARDNUMSUB", "orders"), ["orders", 1]);
  });

  check("unsubscribe everything and use the connection normally", async () => {
    await sub.unsubscribe("news", "alerts");
    await sub.punsubscribe("news.*");
    await sub.sunsubscribe("orders");
    assert.equal(await pub.publish("news", "nobody"), 0);
    assert.equal(await sub.set("k", "v"), "OK");
    assert.equal(await sub.get("k"), "v");
  });

  await run(pub, sub);
}

start(main);
