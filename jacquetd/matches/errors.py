"""The errors of hosted matches: one exception, one code per kind of refusal.

`MatchError` is a `protocol.errors.ProtocolError`, so the daemon's error
boundary sends it as it is: `code`, `message`, and `field` / `rule` when set.
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.errors import ProtocolError

#: Error codes of the match commands and when each is used (docs/spec-matches.md).
MATCH_ERROR_CODES: dict[str, str] = {
    "bad_argument": "A field is missing, of the wrong type or out of range; `field` names it.",
    "not_found": "No match has this id.",
    "forbidden": "The token is missing, wrong, or not allowed this action (a watcher acting, "
    "a seat acting for a bot seat, a seat closing an unfinished match).",
    "out_of_turn": "The token is a seat of the match, but it is not that seat's turn to act.",
    "bad_state": "Nobody may do this now: rolling twice, doubling with the cube off, in the "
    "Crawford game or without owning the cube, taking without a double, acting while a "
    "resignation awaits its answer. `rule` cites RULES.md when a rule forbids it.",
    "illegal_move": "The move cannot be played: not move notation, or against a rule (`rule` "
    "is the RULES.md id), or it matches several plays (`rule` G8, `candidates`). `field` is "
    "`move`.",
    "match_over": "The match is finished or closed; only `match_state`, `match_watch`, "
    "`match_export` and `match_close` still work.",
    "limit": "A server limit is reached: too many open matches (`limit` names it).",
    "conflict": "This client already used this request id for a different action.",
    "internal": "The match store failed; nothing was applied.",
}


class MatchError(ProtocolError):
    """A refused match command. `code` is a key of MATCH_ERROR_CODES."""

    def __init__(self, code: str, message: str, *, rule: str | None = None,
                 field: str | None = None, **extra: Any) -> None:
        if code not in MATCH_ERROR_CODES:
            raise ValueError(f"undocumented match error code {code!r}")
        super().__init__(code, message, field=field, rule=rule, **extra)

    @classmethod
    def of(cls, err: ProtocolError) -> MatchError:
        """`err` (from the one mapping, ``jacquetd.errors``) as a match error."""
        return cls(str(err.code), err.message, rule=err.rule, field=err.field, **err.extra)


def bad_argument(field: str, message: str) -> MatchError:
    return MatchError("bad_argument", f"{field}: {message}", field=field)
