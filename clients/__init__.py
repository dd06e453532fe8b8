"""Clients of the jacquetd protocol (v1): a client library, a terminal player and a
league manager.

This package speaks to engines only through the protocol: it imports `protocol`
(the codec, errors, match records), pyzmq and msgpack, never the engine itself.
Anything that speaks protocol v1 (the daemon over ZeroMQ, TCP or stdio, or any
other program over stdio) is used the same way.
"""

from .client import DEFAULT_TIMEOUT, Analysis, JacquetClient, Ranking
from .errors import (
    ERROR_CLASSES,
    BadArgumentError,
    BadPositionError,
    BusyError,
    CancelledError,
    EngineError,
    EngineProtocolError,
    EngineStartError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalMoveError,
    InternalEngineError,
    NotFoundError,
    UnknownCommandError,
)
from .sync import SimpleClient

__all__ = [
    "DEFAULT_TIMEOUT",
    "ERROR_CLASSES",
    "Analysis",
    "BadArgumentError",
    "BadPositionError",
    "BusyError",
    "CancelledError",
    "EngineError",
    "EngineProtocolError",
    "EngineStartError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "IllegalMoveError",
    "InternalEngineError",
    "JacquetClient",
    "NotFoundError",
    "Ranking",
    "SimpleClient",
    "UnknownCommandError",
]
