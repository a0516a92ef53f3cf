"""Shared helpers for streamd's Python tests (integration and differential).

- servers: free ports, start/stop streamd and redis-server, captured logs
- client:  RawClient, a raw RESP connection reading exactly one reply at a time
- resp:    incremental RESP2/RESP3 reply reader, encoders, readable rendering
- script, masks, differential: the differential script format and runner
- runner:  main() for unittest files (logs on failure, 'N passed, N failed' line)
"""

from .client import ConnectionClosed, RawClient, ReplyTimeout
from .resp import ProtocolError, Reply, ReplyReader, encode, encode_command, encode_inline, parse_reply
from .servers import (
    Server,
    ServerStartError,
    free_port,
    redis_available,
    start_redis,
    start_streamd,
    streamd_available,
    streamd_bin,
)
from .runner import main

__all__ = [
    "ConnectionClosed", "RawClient", "ReplyTimeout", "ProtocolError", "Reply", "ReplyReader",
    "encode", "encode_command", "encode_inline", "parse_reply", "Server", "ServerStartError",
    "free_port", "redis_available", "start_redis", "start_streamd", "streamd_available",
    "streamd_bin", "main",
]
