"""Helpers for the replica-side replication tests (test_replication_replica.py,
test_replication_chain.py): what a replica's INFO says about its link and offsets."""

from __future__ import annotations

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
