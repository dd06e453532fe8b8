"""The one mapping from exceptions to protocol errors.

Every path that answers a peer (the daemon's front and workers, the hosted matches,
the rollout and record commands) turns an exception into the error a peer sees here
and nowhere else:

- a :class:`~jacquetd_protocol.errors.ProtocolError` (and so a ``MatchError``) is
  sent as it is;
- rules errors keep their RULES.md id: a bad position is ``bad_position`` (field
  ``position``), a move that cannot be played ``illegal_move`` (field ``move``, with
  the ``candidates`` of an ambiguous one), a game-state error ``bad_position``, or
  ``bad_state`` inside a hosted match, where the match is the state;
- a level or answer the bots do not have (an
  :class:`~jacquetd.engine_errors.EngineArgumentError`) is ``bad_argument`` naming
  the field;
- a search stopped by its deadline before any answer is ``timeout``;
- anything else is ``internal`` with a generic message (the traceback goes to the
  log, never to the peer).

It imports the standard library, the protocol's errors, the rules core and the
engine's error types only (no numpy, no bots): every process that answers a peer loads
it.
"""

from __future__ import annotations

from jacquetd_protocol.errors import ErrorCode, ProtocolError

from jacquetd.engine_errors import EngineArgumentError
from jacquetd.rules import (
    AmbiguousMoveError,
    GameStateError,
    IllegalMoveError,
    MoveSyntaxError,
    PositionError,
    RulesError,
)


class SearchTimedOut(RuntimeError):
    """A search was stopped by its deadline before it had any answer."""


def to_protocol_error(exc: BaseException, *, game_state: ErrorCode = ErrorCode.BAD_POSITION
                      ) -> ProtocolError:
    """The error a peer sees for `exc`; `game_state` is the code of a
    :class:`GameStateError` (``bad_state`` in a hosted match)."""
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, PositionError):
        return ProtocolError(ErrorCode.BAD_POSITION, exc.message, field="position", rule=exc.rule)
    if isinstance(exc, AmbiguousMoveError):
        return ProtocolError(ErrorCode.ILLEGAL_MOVE, exc.message, field="move", rule=exc.rule,
                             candidates=list(exc.candidates))
    if isinstance(exc, IllegalMoveError | MoveSyntaxError):
        return ProtocolError(ErrorCode.ILLEGAL_MOVE, exc.message, field="move", rule=exc.rule)
    if isinstance(exc, GameStateError):
        field = "position" if game_state == ErrorCode.BAD_POSITION else None
        return ProtocolError(game_state, exc.message, field=field, rule=exc.rule)
    if isinstance(exc, RulesError):
        return ProtocolError(ErrorCode.BAD_POSITION, exc.message, rule=exc.rule)
    if isinstance(exc, EngineArgumentError):
        return ProtocolError(ErrorCode.BAD_ARGUMENT, str(exc), field=exc.field)
    if isinstance(exc, SearchTimedOut):
        return ProtocolError(ErrorCode.TIMEOUT, "the deadline passed during the search")
    return ProtocolError(ErrorCode.INTERNAL, "internal error")


def in_field(err: ProtocolError, field: str) -> ProtocolError:
    """`err` re-aimed at the request field `field` (its message prefixed with it): for a
    rules error met while reading one argument (``candidates``)."""
    return ProtocolError(err.code, f"{field}: {err.message}", field=field, rule=err.rule,
                         **err.extra)
