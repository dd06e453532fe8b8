"""The errors the engine raises for a request argument it has no answer for.

Standard library only: the one error mapping (:mod:`jacquetd.errors`) recognises them
without importing the engine, so a process that maps an error does not load numpy or
the evaluator. The bots raise them; :mod:`jacquetd.bots.interface` exports them.
"""

from __future__ import annotations


class EngineArgumentError(Exception):
    """An argument the engine cannot serve; a peer sees ``bad_argument`` naming
    ``field``, the request argument at fault (None when no one argument is)."""

    field: str | None = None


class Unsupported(EngineArgumentError, LookupError):
    """The engine has no answer of this kind for this request (``field`` names the
    request argument at fault, when one is)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownLevel(EngineArgumentError, ValueError):
    """No bot has this level name (``field`` names the request argument at fault)."""

    field = "level"


__all__ = ["EngineArgumentError", "UnknownLevel", "Unsupported"]
