"""The exceptions of the client library.

Every failure a client call can end in is an `EngineError` (a `RuntimeError`,
as in python-chess): an error reply from the engine becomes the subclass for
its protocol error code (`IllegalMoveError` for `illegal_move`, ...), carrying
the reply's `code`, `message`, `field`, `rule` and any further members in
`extra`. Failures on the client's side have their own subclasses:
`EngineTerminatedError` (the engine went away), `EngineTimeoutError` (a
per-call timeout passed; also a `TimeoutError`) and `EngineProtocolError` (the
engine sent something that is not protocol v1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jacquetd_protocol.errors import ErrorCode

RequestId = int | str | None


class EngineError(RuntimeError):
    """A request failed. `code` is the protocol's error code (an `ErrorCode`, or a
    plain string for a code newer than this library), or None for a failure on the
    client's side that the engine never reported."""

    default_code: ErrorCode | None = None

    def __init__(self, message: str, *, code: ErrorCode | str | None = None,
                 field: str | None = None, rule: str | None = None, id: RequestId = None,
                 extra: Mapping[str, Any] | None = None) -> None:
        self.code = code if code is not None else self.default_code
        self.message = message
        self.field = field
        self.rule = rule
        self.id = id
        self.extra = dict(extra or {})
        prefix = f"{self.code}: " if self.code is not None else ""
        where = "".join(f" [{k}={v}]" for k, v in (("field", field), ("rule", rule)) if v)
        super().__init__(f"{prefix}{message}{where}")


class EngineTerminatedError(EngineError):
    """The engine process exited or the connection closed; pending calls fail with this."""


class EngineStartError(EngineTerminatedError):
    """The engine could not be started: the program is missing, exited at once, or did not
    answer `hello` in time. Programs report it apart from an engine that failed later."""


class EngineTimeoutError(EngineError, TimeoutError):
    """A call did not finish in time: the client's own timeout, or the engine's `timeout`
    error reply (for a request's `timeout_ms`)."""

    default_code = ErrorCode.TIMEOUT


class EngineProtocolError(EngineError):
    """The engine sent a frame this client cannot read as protocol v1."""


class BadFrameError(EngineError):
    default_code = ErrorCode.BAD_FRAME


class UnknownCommandError(EngineError):
    default_code = ErrorCode.UNKNOWN_COMMAND


class BadArgumentError(EngineError, ValueError):
    default_code = ErrorCode.BAD_ARGUMENT


class BadPositionError(EngineError, ValueError):
    default_code = ErrorCode.BAD_POSITION


class IllegalMoveError(EngineError, ValueError):
    """The engine refused a move; `rule` is the RULES.md id broken, and `extra` may hold
    `candidates` when the spelling was ambiguous."""

    default_code = ErrorCode.ILLEGAL_MOVE


class TooLargeError(EngineError):
    default_code = ErrorCode.TOO_LARGE


class TooDeepError(EngineError):
    default_code = ErrorCode.TOO_DEEP


class CancelledError(EngineError):
    """The request was stopped by `cancel` (not `asyncio.CancelledError`)."""

    default_code = ErrorCode.CANCELLED


class BusyError(EngineError):
    default_code = ErrorCode.BUSY


class InternalEngineError(EngineError):
    default_code = ErrorCode.INTERNAL


class UnsupportedVersionError(EngineError):
    default_code = ErrorCode.UNSUPPORTED_VERSION


class NotFoundError(EngineError, LookupError):
    default_code = ErrorCode.NOT_FOUND


class ForbiddenError(EngineError):
    default_code = ErrorCode.FORBIDDEN


#: Error code -> exception class raised for an error reply with that code.
ERROR_CLASSES: dict[ErrorCode, type[EngineError]] = {
    ErrorCode.BAD_FRAME: BadFrameError,
    ErrorCode.UNKNOWN_COMMAND: UnknownCommandError,
    ErrorCode.BAD_ARGUMENT: BadArgumentError,
    ErrorCode.BAD_POSITION: BadPositionError,
    ErrorCode.ILLEGAL_MOVE: IllegalMoveError,
    ErrorCode.TOO_LARGE: TooLargeError,
    ErrorCode.TOO_DEEP: TooDeepError,
    ErrorCode.TIMEOUT: EngineTimeoutError,
    ErrorCode.CANCELLED: CancelledError,
    ErrorCode.BUSY: BusyError,
    ErrorCode.INTERNAL: InternalEngineError,
    ErrorCode.UNSUPPORTED_VERSION: UnsupportedVersionError,
    ErrorCode.NOT_FOUND: NotFoundError,
    ErrorCode.FORBIDDEN: ForbiddenError,
}


def error_from_reply(error: Mapping[str, Any], id: RequestId = None) -> EngineError:
    """The exception for a reply's `error` map (`{"code", "message", "field"?, "rule"?, ...}`)."""
    raw = str(error.get("code", ErrorCode.INTERNAL))
    try:
        code: ErrorCode | str = ErrorCode(raw)
    except ValueError:
        code = raw
    cls = ERROR_CLASSES.get(code, EngineError) if isinstance(code, ErrorCode) else EngineError
    extra = {k: v for k, v in error.items() if k not in ("code", "message", "field", "rule")}
    field = error.get("field")
    rule = error.get("rule")
    return cls(str(error.get("message", "")), code=code,
               field=field if isinstance(field, str) else None,
               rule=rule if isinstance(rule, str) else None, id=id, extra=extra)
