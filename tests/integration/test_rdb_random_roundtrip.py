"""Round trips of a random dataset between streamd and redis-server 7.0.15 (issue 14): a fixed
seed, a few hundred keys (rdb_random_dataset.py: streams with groups, consumers, PELs, deleted
entries, trims, XSETID; strings with TTLs; three databases), compared key by key (XINFO STREAM
FULL less consumer timing, XRANGE, XINFO GROUPS, extended XPENDING less idle, consumers'
seen-time, PEXPIRETIME) before and after:
- streamd SAVE (rdb-version 10) -> redis-server loads the dump.rdb;
- redis-server SAVE -> streamd loads the dump.rdb;
- DUMP on streamd -> RESTORE ... ABSTTL on redis-server, and the reverse.
Seed and size: STREAMD_RDB_SEED (14), STREAMD_RDB_KEYS (200; seed 14 with 300 keys and seeds 1-3 with 200 passed too)."""

import os
import shutil
import unittest

import aof_helpers as h
import rdb_random_dataset as ds
from streamd_testlib import servers

SEED = int(os.environ.get("STREAMD_RDB_SEED", "14"))
KEYS = int(os.environ.get("STREAMD_RDB_KEYS", "200"))
NO_AOF = ("--appendonly", "no")


def diff(a: dict, b: dict) -> str:
    if a.get(("snapshot",)) != b.get(("snapshot",)):
        return h.diff(a[("snapshot",)], b[("snapshot",)])
    return h.diff({k: v for k, v in a.items() if k != ("snapshot",)},
                  {k: v for k, v in b.items() if k != ("snapshot",)})


@unittest.skipUnless(servers.missing_reason() is None, servers.missing_reason() or "")
class RandomRoundTripTest(unittest.TestCase):
    def streamd(self, wd=None):
        return h.start(self, wd or h.workdir(self), *NO_AOF, "--rdb-version", "10")

    def redis(self, wd=None):
        r = servers.start_redis("--sanitize-dump-payload", "yes", workdir=wd or h.workdir(self))
        self.addCleanup(r.stop)
        return r

    def assert_same(self, before: dict, after: dict):
        self.assertGreater(len(before[("snapshot",)]), KEYS // 2)
        # (assertTrue: unittest's own diff of these large dicts takes minutes)
        self.assertTrue(before == after, diff(before, after))

    def by_file(self, source, target):
        """source() builds the dataset and SAVEs; target(workdir) loads the copied dump.rdb."""
        src = source()
        ds.build(src, SEED, KEYS)
        with src.client() as c:
            self.assertEqual(h.call(c, "SAVE"), b"OK")
        before = ds.keyspace(src)
        wd = h.workdir(self)
        shutil.copy(src.workdir / "dump.rdb", wd / "dump.rdb")
        self.assert_same(before, ds.keyspace(target(wd)))

    def by_dump(self, source, target):
        src = source()
        ds.build(src, SEED, KEYS)
        dst = target()
        before = ds.keyspace(src)
        self.assertEqual(ds.copy_by_dump(src, dst), len(before[("snapshot",)]))
        self.assert_same(before, ds.keyspace(dst))

    def test_streamd_save_loads_into_redis(self):
        self.by_file(self.streamd, self.redis)

    def test_redis_save_loads_into_streamd(self):
        self.by_file(self.redis, self.streamd)

    def test_dump_on_streamd_restores_on_redis(self):
        self.by_dump(self.streamd, self.redis)

    def test_dump_on_redis_restores_on_streamd(self):
        self.by_dump(self.redis, self.streamd)

    def test_same_commands_give_the_same_dataset(self):
        # The generator's commands mean the same on both servers (explicit IDs): the two
        # datasets differ only in delivery times, which come from each server's clock.
        s, r = self.streamd(), self.redis()
        ds.build(s, SEED, KEYS)
        ds.build(r, SEED, KEYS)
        a, b = ds.keyspace(s), ds.keyspace(r)
        self.assertEqual(a.keys(), b.keys())
        for k in a:
            if k != ("snapshot",):
                self.assertEqual(a[k]["xrange"], b[k]["xrange"], k)


if __name__ == "__main__":
    unittest.main()
