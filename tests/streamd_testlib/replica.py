"""Helpers for the replica-side replication tests (test_replication_replica.py,
test_replication_chain.py): what a replica's INFO says about its link and offsets."""

from __future__ import annotations

import os
import unittest

from . import servers
from .sentinel import wait_until

needs_servers = unittest.skipUnless(servers.streamd_available() and servers.redis_available(),
                                    "streamd or redis-server missing")


def wait_for(pred, timeout: float = 20.0, what: str = "condition"):
    return wait_until(pred, timeout, what, interval=0.02)


def repl(r) -> dict:
    return r.info("replication")


def link_up(r) -> bool:
    return repl(r).get("master_link_status") == "up"


def offset_of(r) -> int:
    """slave_repl_offset on a replica, master_repl_offset on a master."""
    i = repl(r)
    return i["slave_repl_offset"] if i["role"] == "slave" else i["master_repl_offset"]


def same_offset(*clients) -> bool:
    return len({offset_of(c) for c in clients}) == 1


class NodeKind:
    """The servers of a replication test that can run on streamd nodes or, to check the test
    itself, on redis-server nodes (when the environment variable `selftest_env` is "1")."""

    def __init__(self, selftest_env: str, *node_args: str):
        self.selftest = os.environ.get(selftest_env) == "1"
        self.node_args = node_args
        self.needs_servers = unittest.skipUnless(
            servers.redis_available() and (self.selftest or servers.streamd_available()),
            "streamd or redis-server missing")

    def start(self, *args):
        start = servers.start_redis if self.selftest else servers.start_streamd
        return start(*self.node_args, *args)
