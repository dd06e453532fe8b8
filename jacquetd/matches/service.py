"""Hosted matches: the handlers of the `match_*` commands over `HostedMatch` and `MatchStore`.

`MatchService` is synchronous and fast: every handler validates its arguments,
checks the token, applies at most one action, writes it in one transaction and
returns the result map. Only the bot deciders are slow, and the service never
calls them inside a handler (unless `play_bots_inline` is set, for tools and
tests): a driver asks `bot_job(match_id)` what a bot seat must decide, runs the
job anywhere (a thread, a worker process) and hands the answer to
`apply_bot(job, answer)`, which ignores answers that went stale. `run_bots`
is that driver, synchronous; `jacquetd.matches.aio.AsyncMatchService` is the
asyncio one, with `wait_events` for `match_watch`.

The handler of each command of `COMMANDS` is the method of its name (`(args,
caller) -> dict`, raising `MatchError`); `handle(cmd, args, caller)` dispatches by name.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jacquetd_protocol import match_files, records
from jacquetd_protocol.commands import COMMANDS as COMMANDS_BY_NAME
from jacquetd_protocol.commands import MATCH_COMMAND_NAMES, validate_args
from jacquetd_protocol.errors import ProtocolError
from jacquetd_protocol.mat import MatchFileError
from jacquetd_protocol.seeds import MAX_SEED

from jacquetd.rules import VARIANTS, Position, find_variant
from jacquetd.rules.interchange import foreign_ids

from .errors import MatchError, bad_argument
from .players import (
    QUESTIONS,
    BotCube,
    BotMove,
    available_levels,
    default_bot_cube,
    default_bot_move,
    default_level,
    random_move,
)
from .state import Act, HostedMatch, MatchConfig, Seat, result_names
from .store import (
    SECRET_REPLY_FIELDS,
    MatchStore,
    StoredMatch,
    StoredRequest,
    StoreError,
    withhold_secrets,
)

log = logging.getLogger(__name__)

STATUSES = ("playing", "adjourned", "over", "closed")
RECENT_EVENTS = 1024  # events of a match kept in memory for its watchers

RESIGN_WORDS = {
    "single": 1, "normal": 1, "marcia": 2, "gammon": 2, "double": 2,
    "marcia-per-punto": 3, "marcia_per_punto": 3, "backgammon": 3, "oin": 1, "mars": 2,
}

#: The match commands, as the protocol's command table names them (the actions among
#: them, `MATCH_ACTIONS`, store their replies for retries).
COMMANDS = MATCH_COMMAND_NAMES


@dataclass(frozen=True)
class Caller:
    """Who sends a request: `client` is the retry scope (whoever can present it gets the
    stored replies of its requests), `request_id` the request's id (None: no retry
    protection), `session` the session key the request proved it holds (the daemon checks
    it; `secrecy.Secrets.check_session`). The tokens of a stored reply are sealed with the
    session key and given back only to a request that presents it; without a session
    they are never stored, and a replay carries null in their place (`withheld: true`)."""

    client: str = ""
    request_id: int | str | None = None
    session: str | None = None


@dataclass(frozen=True)
class MatchLimits:
    """Bounds of the match service."""

    max_open: int = 256
    """Matches in play at once (adjourned and finished ones do not count)."""
    idle_timeout_s: float = 3600.0
    """A match in play without an action for this long is adjourned by `adjourn_idle`."""
    max_length: int = 99
    default_bot_time_ms: int = 5000
    max_bot_time_ms: int = 60_000
    default_list: int = 50
    max_list: int = 500
    max_events: int = 1000
    """Events returned by one `match_watch` reply (or batch)."""
    cache: int = 64
    """Finished and adjourned matches kept in memory after use."""


@dataclass
class BotJob:
    """A decision a bot seat must take: `question` is `move`, `roll`, `double`, `take` or
    `resign`; `seq` the number of actions when it was asked (answers to an older state
    are dropped)."""

    match_id: str
    seq: int
    side: int
    level: str
    question: str
    position: Position
    time_s: float
    points: int = 0

    def call(self, bot_move: BotMove, bot_cube: BotCube) -> str:
        """Ask the decider (blocking)."""
        if self.question == "roll":
            return "roll"
        if self.question == "move":
            return bot_move(self.position, self.level, self.time_s)
        return bot_cube(self.position, self.level, self.time_s, self.question, self.points)


@dataclass
class _Live:
    """A match loaded in memory."""

    row: StoredMatch
    config: MatchConfig
    hm: HostedMatch
    status: str
    last_event: int
    updated_at: float
    declined: int | None = None
    """The action count at which the bot on roll declined to double."""
    touched: float = field(default_factory=time.monotonic)
    recent: deque[dict[str, Any]] = field(default_factory=deque)
    """The last stored events read back (contiguous numbers), for watchers."""


# -- arguments ------------------------------------------------------------------------
#
# A match command's arguments are validated once, by the protocol's command table
# (`jacquetd_protocol.commands.validate_args`): by the daemon's codec for a request that
# came over the wire, by `checked_args` for a direct call. The handlers below only read
# them, and check what the table cannot know: this server's limits and its bot levels.


def checked_args(cmd: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """`args` of match command `cmd` validated by the protocol's command table, with the
    table's defaults filled in (as the daemon's `arguments` does)."""
    command = COMMANDS_BY_NAME[cmd]
    try:
        checked = validate_args(command, args)
    except ProtocolError as exc:
        raise MatchError.of(exc) from None
    return {p.name: p.default for p in command.all_params()} | checked


def _within(args: Mapping[str, Any], name: str, default: int, hi: int) -> int:
    """Integer argument `name` (default `default`), at most this service's `hi`
    (`MatchLimits`)."""
    v = args.get(name)
    if v is None:
        return default
    if v > hi:
        raise bad_argument(name, f"must be at most {hi} here")
    return int(v)


Handler = Callable[..., dict[str, Any]]  # (args, caller=None, *, checked=False) -> dict


def _command(body: Callable[[MatchService, Mapping[str, Any], Caller], dict[str, Any]]
             ) -> Handler:
    """The handler of the match command named as `body`: `args` validated by the command
    table (unless `checked`: the daemon's codec did it), the caller defaulted, then
    `body(service, args, caller)`."""
    cmd = body.__name__

    @functools.wraps(body)
    def handler(self: MatchService, args: Mapping[str, Any], caller: Caller | None = None,
                *, checked: bool = False) -> dict[str, Any]:
        return body(self, args if checked else checked_args(cmd, args), caller or Caller())

    return handler


def _plain_action(kind: str) -> Handler:
    """The handler of `match_<kind>`, an action with no argument of its own."""

    def body(service: MatchService, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        return service._act(f"match_{kind}", kind, args, caller, lambda live, side: Act(kind, side))

    body.__name__ = f"match_{kind}"
    return _command(body)


def _fingerprint(cmd: str, args: Mapping[str, Any]) -> str:
    body = {k: v for k, v in args.items()
            if k not in ("timeout_ms", "session") and v is not None}
    text = json.dumps([cmd, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class MatchService:
    """The match commands over a `MatchStore`. Thread-safe; see the module docstring."""

    def __init__(self, store: MatchStore, *, limits: MatchLimits | None = None,
                 bot_move: BotMove | None = None, bot_cube: BotCube | None = None,
                 bot_levels: tuple[str, ...] | None = None,
                 clock: Callable[[], float] = time.time,
                 play_bots_inline: bool = False) -> None:
        self.store = store
        self.limits = limits or MatchLimits()
        self.bot_move: BotMove = bot_move or default_bot_move
        self.bot_cube: BotCube = bot_cube or default_bot_cube
        self._levels = bot_levels
        self.clock = clock
        self.play_bots_inline = play_bots_inline
        self._lock = threading.RLock()
        self.bots_stopped = False
        self._live: dict[str, _Live] = {}
        self._listeners: list[Callable[[str, int], None]] = []

    # -- plumbing ----------------------------------------------------------------------

    @property
    def levels(self) -> tuple[str, ...]:
        return self._levels if self._levels is not None else available_levels()

    def add_listener(self, fn: Callable[[str, int], None]) -> None:
        """Call `fn(match_id, last_event)` after every stored change of a match. It runs
        in the thread that made the change, with the service's lock held: keep it short
        (`loop.call_soon_threadsafe`)."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[str, int], None]) -> None:
        self._listeners.remove(fn)

    def close(self) -> None:
        self.store.close()

    def handle(self, cmd: str, args: Mapping[str, Any], caller: Caller | None = None, *,
               checked: bool = False) -> dict[str, Any]:
        """Run the handler of `cmd` (one of COMMANDS). `checked`: `args` were already
        validated by the protocol's command table (the daemon's codec did it), so they
        are not validated again."""
        if cmd not in COMMANDS:
            raise MatchError("bad_argument", f"no match command {cmd!r}", field="cmd")
        handler: Handler = getattr(self, cmd)  # each command's is the method of its name
        return handler(args, caller, checked=checked)

    def _notify(self, match_id: str, last_event: int) -> None:
        for fn in list(self._listeners):
            try:
                fn(match_id, last_event)
            except Exception:  # a broken listener must not undo a stored action
                log.exception("match listener failed")

    def _replayed(self, cmd: str, args: Mapping[str, Any], caller: Caller
                  ) -> tuple[str, dict[str, Any] | None]:
        """The fingerprint of this request, and the stored reply if it is a retry."""
        fp = _fingerprint(cmd, args)
        if caller.request_id is None:
            return fp, None
        stored = self.store.request(caller.client, caller.request_id)
        if stored is None:
            return fp, None
        if stored.fingerprint != fp:
            raise MatchError("conflict", f"request id {caller.request_id!r} was already used "
                             "by this client for a different action")
        return fp, {**self._unsealed(stored.reply, caller), "replayed": True}

    def _seat_action(self, cmd: str, args: Mapping[str, Any], caller: Caller
                     ) -> dict[str, Any] | tuple[str, _Live, str, int | None]:
        """The start of an action by a seat or the owner (the lock held): the stored reply
        if it is a retry; else the request's fingerprint, the match, the role of the
        token (`seat` or `owner`) and its side. A token that holds no seat is
        `forbidden`."""
        fp, stored = self._replayed(cmd, args, caller)
        if stored is not None:
            return stored
        live = self._load(args.get("match_id"))
        role, side = self._who(live, args.get("token"))
        if role == "watcher":
            raise MatchError("forbidden", "this token holds no seat of the match",
                             field="token")
        return fp, live, role, side

    def _request(self, caller: Caller, fp: str, reply: dict[str, Any]) -> StoredRequest | None:
        if caller.request_id is None:
            return None
        return StoredRequest(caller.client, caller.request_id, fp, self._sealed(reply, caller))

    def _sealed(self, reply: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """What the store keeps of a reply: its tokens sealed with the session, or none."""
        if not any(k in reply for k in SECRET_REPLY_FIELDS):
            return reply
        if caller.session is None:
            return withhold_secrets(reply)
        box = self.store.secrets.seal
        out = dict(reply)
        out["tokens"] = [None if t is None else box(t, caller.session) for t in reply["tokens"]]
        out["owner_token"] = box(reply["owner_token"], caller.session)
        out["sealed"] = True
        return out

    def _unsealed(self, stored: dict[str, Any], caller: Caller) -> dict[str, Any]:
        if not stored.pop("sealed", False):
            return stored
        opened = [None if t is None else self.store.secrets.unseal(t, caller.session)
                  for t in stored["tokens"]]
        owner = self.store.secrets.unseal(stored["owner_token"], caller.session)
        if owner is None or any(o is None and t is not None
                                for o, t in zip(opened, stored["tokens"], strict=True)):
            return withhold_secrets(stored)
        return {**stored, "tokens": opened, "owner_token": owner}

    def _load(self, match_id: Any) -> _Live:
        if not isinstance(match_id, str) or not match_id:
            raise bad_argument("match_id", "is required")
        live = self._live.get(match_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        row = self.store.get(match_id) if len(match_id) <= 64 else None
        if row is None:
            raise MatchError("not_found", f"no match {match_id[:64]!r}")
        config = MatchConfig.from_dict(row.config)
        hm = HostedMatch(config, row.seed if config.dice == "seeded" else None)
        hm.begin()
        for _actor, body in self.store.actions(match_id):
            hm.apply(Act.from_dict(body))
        live = _Live(row, config, hm, row.status, row.events, row.updated_at)
        self._live[match_id] = live
        self._evict()
        return live

    def _evict(self) -> None:
        idle = [m for m in self._live.values() if m.status != "playing"]
        extra = len(idle) - self.limits.cache
        if extra > 0:
            for m in sorted(idle, key=lambda m: m.touched)[:extra]:
                del self._live[m.row.id]

    def _drop(self, match_id: str) -> None:
        """Forget the in-memory state (after a failed write): the next use replays the log."""
        self._live.pop(match_id, None)

    def _who(self, live: _Live, token: Any) -> tuple[str, int | None]:
        """("seat", side), ("owner", None) or ("watcher", None)."""
        if not isinstance(token, str) or not token:
            return "watcher", None
        tokens = live.row.tokens
        keys = self.store.secrets
        for side, t in enumerate(tokens["seats"]):
            if keys.token_matches(token, t):
                return "seat", side
        if keys.token_matches(token, tokens["owner"]):
            return "owner", None
        return "watcher", None

    def _number(self, live: _Live, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        first = live.last_event + 1
        live.last_event += len(events)
        return [{"n": first + i, **e} for i, e in enumerate(events)]

    def _summary(self, live: _Live) -> dict[str, Any]:
        hm = live.hm
        score = hm.score()
        summary = {"status": live.status, "updated_at": live.updated_at,
                   "ended_at": live.updated_at if live.status in ("over", "closed") else None,
                   "score0": score[0], "score1": score[1], "winner": hm.winner(),
                   "games": len(hm.rules.games), "actions": len(hm.acts),
                   "events": live.last_event}
        if live.status in ("over", "closed"):
            summary["seed"] = live.row.seed  # no longer secret: written in clear
        return summary

    def _resume(self, live: _Live) -> None:
        if live.status != "adjourned":
            return
        self._check_open_limit()
        self._set_status(live, "playing", {"type": "resumed", "game": len(live.hm.rules.games)})

    def _set_status(self, live: _Live, status: str, event: dict[str, Any],
                    request: StoredRequest | None = None) -> None:
        """Store the match's new `status` with its `event` (a failed write restores it
        in memory: `internal`), then tell the listeners."""
        now = float(self.clock())
        before = (live.status, live.last_event, live.updated_at)
        live.status, live.updated_at = status, now
        events = self._number(live, [event])
        try:
            self.store.update(live.row.id, events, self._summary(live), request, at=now)
        except StoreError as exc:
            live.status, live.last_event, live.updated_at = before
            raise MatchError("internal", str(exc)) from None
        if status == "closed":
            self._reveal(live)
        self._notify(live.row.id, live.last_event)

    def _check_open_limit(self) -> None:
        if self.store.count(["playing"]) >= self.limits.max_open:
            raise MatchError("limit", f"{self.limits.max_open} matches are in play already",
                             limit="max_open")

    # -- the state map -----------------------------------------------------------------

    def _state(self, live: _Live, who: tuple[str, int | None]) -> dict[str, Any]:
        hm, c = live.hm, live.config
        g = hm.game
        over = live.status in ("over", "closed")
        turn = g.turn if g.opening_roll is not None and not hm.over else None
        pos = hm.position(turn if turn is not None else 0)
        cube = None
        if g.cube_enabled:
            cube = {"value": g.cube_value, "owner": g.cube_owner, "pending": g.pending_double}
        resign = None
        if g.pending_resign is not None and g.result is None:
            side, points = g.pending_resign
            resign = {"side": side, "points": points,
                      "name": result_names(c.variant)[points]}
        state: dict[str, Any] = {
            "match_id": live.row.id, "status": live.status,
            "variant": c.variant, "length": c.length, "cube": c.cube, "crawford": c.crawford,
            "dice_mode": c.dice, "bot_time_ms": c.bot_time_ms,
            "seats": [s.to_dict() for s in c.seats],
            "you": who[1] if who[0] == "seat" else None, "owner": who[0] == "owner",
            "score": list(hm.score()), "game": len(hm.rules.games),
            "crawford_game": bool(g.match is not None and g.match.crawford),
            "phase": "over" if over else hm.phase, "turn": turn,
            "to_act": None if over else hm.to_act(),
            "may": [[] if over else hm.may(0), [] if over else hm.may(1)],
            "dice": list(g.rolled or ()), "cube_state": cube, "resignation": resign,
            "position_side": turn if turn is not None else 0,
            "position": pos.to_dict(), "position_id": pos.to_id(), **foreign_ids(pos),
            "legal_moves": [] if over else hm.legal_moves(),
            "history": records.body_lines(hm.games),
            "actions": len(hm.acts), "last_event": live.last_event,
            "created_at": live.row.created_at, "updated_at": live.updated_at,
        }
        if hm.over:
            state["winner"] = hm.winner()
        if over and live.row.seed is not None:
            state["seed"] = live.row.seed
        return state

    def _brief(self, live: _Live, side: int | None, events: list[dict[str, Any]]
               ) -> dict[str, Any]:
        """The reply of an action: what it caused and what comes next."""
        hm = live.hm
        over = live.status in ("over", "closed")
        return {"match_id": live.row.id, "status": live.status, "actions": len(hm.acts),
                "events": events, "phase": "over" if over else hm.phase,
                "to_act": None if over else hm.to_act(),
                "may": [] if over or side is None else hm.may(side),
                "score": list(hm.score()), "game": len(hm.rules.games),
                "last_event": live.last_event}

    # -- actions -----------------------------------------------------------------------

    def _commit(self, live: _Live, act: Act, actor: str, side: int | None,
                caller: Caller | None = None, fp: str = "") -> dict[str, Any]:
        """Apply `act`, store it with its events (and `caller`'s request) in one
        transaction, return the reply."""
        hm = live.hm
        seq = len(hm.acts)
        try:
            logged, events = hm.apply(act)
        except MatchError:
            raise
        except Exception:
            self._drop(live.row.id)  # the state may be half changed: rebuild from the log
            raise
        now = float(self.clock())
        live.updated_at = now
        if hm.over:
            live.status = "over"
        numbered = self._number(live, events)
        reply = self._brief(live, side, numbered)
        request = self._request(caller, fp, reply) if caller is not None else None
        try:
            self.store.append(live.row.id, seq, actor, logged.to_dict(), numbered,
                              self._summary(live), request, at=now)
        except StoreError as exc:
            self._drop(live.row.id)
            raise MatchError("internal", str(exc)) from None
        except BaseException:
            self._drop(live.row.id)  # nothing was stored: forget what memory applied
            raise
        if live.status == "over":
            self._reveal(live)
        self._notify(live.row.id, live.last_event)
        return reply

    def _reveal(self, live: _Live) -> None:
        row = live.row
        live.row = StoredMatch(row.id, row.config, row.seed, row.tokens, live.status,
                               row.created_at, live.updated_at, live.updated_at,
                               live.hm.score(), live.hm.winner(), len(live.hm.rules.games),
                               len(live.hm.acts), live.last_event)

    def _act(self, cmd: str, kind: str, args: Mapping[str, Any], caller: Caller,
             build: Callable[[_Live, int | None], Act]) -> dict[str, Any]:
        with self._lock:
            begun = self._seat_action(cmd, args, caller)
            if isinstance(begun, dict):
                return begun  # a retry: the stored reply
            fp, live, role, side = begun
            if live.status in ("over", "closed") or live.hm.over:
                raise MatchError("match_over", f"the match is {live.status}")
            hm = live.hm
            if role == "owner":
                side = self._owner_side(live, kind)
            act = build(live, side)
            hm.check(side, "roll" if act.kind == "opening" else kind)
            self._resume(live)
            reply = self._commit(live, act, role, side, caller, fp)
        if self.play_bots_inline:
            self.run_bots(live.row.id)
        return reply

    def _owner_side(self, live: _Live, kind: str) -> int | None:
        """The owner's token acts only to supply dice (supplied-dice matches)."""
        if kind != "roll" or live.config.dice != "supplied":
            raise MatchError("forbidden", "the owner token only closes the match and, with "
                             "supplied dice, supplies them", field="token")
        if live.hm.phase == "opening":
            return None
        side = live.hm.to_act()
        if side is None or live.hm.phase != "roll":
            raise MatchError("bad_state", f"no roll is due (phase {live.hm.phase})")
        return side

    # -- handlers ----------------------------------------------------------------------

    @_command
    def match_new(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Create a match; returns its id, the seat tokens and the owner token."""
        lim = self.limits
        try:
            variant = find_variant(args.get("variant") or "jacquet")
        except (KeyError, ValueError):
            raise bad_argument("variant", f"one of {', '.join(VARIANTS)}") from None
        # N10: a variant may set the length of a match created without one
        length = _within(args, "length", min(variant.default_match_length, lim.max_length),
                         lim.max_length)
        cube = variant.cube_default if args.get("cube") is None else bool(args["cube"])
        crawford = True if args.get("crawford") is None else bool(args["crawford"])
        dice = args.get("dice") or "seeded"
        seed: int | None = args.get("seed")
        if seed is not None and dice == "supplied":
            raise bad_argument("seed", "a supplied-dice match has no seed")
        bot_time = _within(args, "bot_time_ms", lim.default_bot_time_ms, lim.max_bot_time_ms)
        seats = []
        for i in (0, 1):
            spec = str(args.get(f"seat{i}") or "client").strip()
            name = str(args.get(f"name{i}") or "")
            if not printable(name):
                raise bad_argument(f"name{i}", "must not hold control characters (line ends, "
                                   "tabs, ...)")
            if spec == "client":
                seats.append(Seat("client", None, name))
                continue
            level = spec.removeprefix("bot:") if spec.startswith("bot:") else spec
            if level == "bot":
                level = default_level() if default_level() in self.levels else self.levels[0]
            if level not in self.levels:
                raise bad_argument(f"seat{i}", f"'client' or a bot level "
                                   f"({', '.join(self.levels)})")
            seats.append(Seat("bot", level, name or f"bot:{level}"))
        config = MatchConfig(variant.name, length, cube, crawford, dice,
                             (seats[0], seats[1]), bot_time)
        with self._lock:
            fp, stored = self._replayed("match_new", args, caller)
            if stored is not None:
                return stored
            self._check_open_limit()
            if seed is None and dice == "seeded":
                seed = secrets.randbelow(MAX_SEED + 1)
            match_id = secrets.token_hex(8)
            while self.store.get(match_id) is not None:  # pragma: no cover - 2^-64
                match_id = secrets.token_hex(8)
            seat_tokens = [secrets.token_urlsafe(18) if s.kind == "client" else None
                           for s in seats]
            owner_token = secrets.token_urlsafe(18)
            hm = HostedMatch(config, seed if dice == "seeded" else None)
            events = [{"type": "created", "game": 0, **config.to_dict()}, *hm.begin()]
            now = float(self.clock())
            hashed = {"seats": [None if t is None else self.store.secrets.token_hash(t)
                                for t in seat_tokens],
                      "owner": self.store.secrets.token_hash(owner_token)}
            # a match cannot end before its first action: it is in play
            row = StoredMatch(match_id, config.to_dict(), seed if dice == "seeded" else None,
                              hashed, "playing", now, now, None, hm.score(), None, 1, 0,
                              len(events))
            live = _Live(row, config, hm, "playing", 0, now)
            numbered = self._number(live, events)
            reply = {"match_id": match_id, "tokens": seat_tokens,
                     "owner_token": owner_token,
                     **{k: v for k, v in self._brief(live, None, numbered).items()
                        if k not in ("match_id", "may")}}
            try:
                self.store.create(row, numbered, self._request(caller, fp, reply))
            except StoreError as exc:
                raise MatchError("internal", str(exc)) from None
            self._live[match_id] = live
            self._notify(match_id, live.last_event)
        if self.play_bots_inline:
            self.run_bots(match_id)
        return reply

    @_command
    def match_state(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """The whole state; with a seat token, `you` and (if adjourned) a resumption."""
        with self._lock:
            live = self._load(args.get("match_id"))
            who = self._who(live, args.get("token"))
            if args.get("token") is not None and who[0] == "watcher":
                raise MatchError("forbidden", "this token holds no seat of the match",
                                 field="token")
            if who[0] == "seat" and live.status == "adjourned":
                self._resume(live)
            return self._state(live, who)

    @_command
    def match_roll(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Roll (seeded dice) or enter the dice rolled (supplied dice: `dice`)."""
        given = args.get("dice")
        dice = (int(given[0]), int(given[1])) if given is not None else None

        def build(live: _Live, side: int | None) -> Act:
            if live.config.dice == "seeded":
                if dice is not None:
                    raise bad_argument("dice", "this match rolls its own dice")
                return Act("roll", side)
            if dice is None:
                raise bad_argument("dice", "this match's dice are supplied: give them")
            if live.hm.phase == "opening":
                return Act("opening", None, dice=dice)
            return Act("roll", side, dice=dice)

        return self._act("match_roll", "roll", args, caller, build)

    @_command
    def match_move(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Play a move given as text (any legal spelling; `pass` when nothing can move)."""
        move = str(args["move"])
        return self._act("match_move", "move", args, caller,
                         lambda live, side: Act("move", side, move=move))

    match_double = _plain_action("double")
    match_take = _plain_action("take")
    match_drop = _plain_action("drop")

    @_command
    def match_resign(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Offer to resign (`points`: 1-3 or a result name), or answer an offer
        (`answer`: accept or reject; `points` may also be the word accept or reject)."""
        answer: str | None = args.get("answer")
        points_arg: Any = args.get("points")
        if answer is None and isinstance(points_arg, str) and points_arg in ("accept",
                                                                               "reject"):
            answer, points_arg = points_arg, None
        if answer is not None:
            if points_arg is not None:
                raise bad_argument("points", "give either points (an offer) or an answer")
            return self._act("match_resign", answer, args, caller,
                             lambda live, side: Act(answer, side))
        if isinstance(points_arg, str):
            word = points_arg.strip().lower().replace(" ", "-")
            ascii_number = word.isascii() and word.isdigit()
            points_arg = int(word) if ascii_number else RESIGN_WORDS.get(word, word)
        if points_arg not in (1, 2, 3):
            raise bad_argument("points", "1, 2, 3 or a result name (single, marcia, gammon, "
                               "marcia-per-punto, backgammon, oin, mars), or an answer")
        points = int(points_arg)
        return self._act("match_resign", "resign", args, caller,
                         lambda live, side: Act("resign", side, value=points))

    @_command
    def match_watch(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """The events after number `after` (default 0), at most `limit`; `done` is true
        when the match is over or closed and every event has been returned."""
        after = int(args.get("after") or 0)
        limit = min(int(args.get("limit") or self.limits.max_events), self.limits.max_events)
        with self._lock:
            live = self._load(args.get("match_id"))
            events = self._recent_events(live, after, limit)
            last = events[-1]["n"] if events else after
            return {"match_id": live.row.id, "events": events, "last_event": live.last_event,
                    "status": live.status,
                    "done": live.status in ("over", "closed") and last >= live.last_event}

    def _recent_events(self, live: _Live, after: int, limit: int) -> list[dict[str, Any]]:
        """`events`, served from the match's last stored events kept in memory when they
        cover the request: hundreds of watchers of one match then cost one read per event,
        not one each. The memory holds only events read back from the store."""
        recent = live.recent
        first = recent[0]["n"] if recent else None
        if first is not None and first <= after + 1 and recent[-1]["n"] >= live.last_event:
            start = after + 1 - first
            return [recent[i] for i in range(start, min(len(recent), start + limit))]
        events = self.events(live.row.id, after, limit)
        if events:
            if recent and recent[-1]["n"] + 1 == events[0]["n"]:
                recent.extend(events)
            elif not recent or events[0]["n"] < recent[0]["n"]:
                recent.clear()
                recent.extend(events)
            while len(recent) > RECENT_EVENTS:
                recent.popleft()
        return events

    def events(self, match_id: str, after: int = 0, limit: int | None = None
               ) -> list[dict[str, Any]]:
        """Stored events numbered above `after`, in order."""
        return self.store.events(match_id, after, limit or self.limits.max_events)

    def last_event(self, match_id: str) -> int:
        with self._lock:
            return self._load(match_id).last_event

    @_command
    def match_list(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Matches by filter, newest first: `status` (a status or a list; default all but
        closed), `variant`, `player` (a seat's name), `bots` (true: with a bot seat),
        `limit`, `offset`."""
        status = args.get("status")
        if status is None:
            statuses = ["playing", "adjourned", "over"]
        else:
            statuses = list(status)
            if not all(s in (*STATUSES, "all") for s in statuses):
                raise bad_argument("status", f"one or more of {', '.join(STATUSES)}, all")
            statuses = list(STATUSES) if "all" in statuses else list(statuses)
        variant = args.get("variant")
        if variant is not None:
            try:
                variant = find_variant(variant).name
            except (KeyError, ValueError):
                raise bad_argument("variant", f"one of {', '.join(VARIANTS)}") from None
        limit = _within(args, "limit", self.limits.default_list, self.limits.max_list)
        offset = int(args.get("offset") or 0)
        rows, total = self.store.search(statuses=statuses, variant=variant,
                                        player=args.get("player"), bots=args.get("bots"),
                                        limit=limit, offset=offset)
        return {"matches": [self._listed(r) for r in rows], "total": total,
                "offset": offset}

    @staticmethod
    def _listed(row: StoredMatch) -> dict[str, Any]:
        c = row.config
        return {"match_id": row.id, "status": row.status, "variant": c["variant"],
                "length": c["length"], "cube": c["cube"], "dice_mode": c["dice"],
                "seats": c["seats"], "score": list(row.score), "game": row.games,
                "winner": row.winner, "actions": row.actions, "last_event": row.events,
                "created_at": row.created_at, "updated_at": row.updated_at}

    @_command
    def match_close(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """Close a match: the owner closes any (an unfinished one is abandoned); a seat
        closes a finished one. A closed match is kept, listed with `status=closed`."""
        with self._lock:
            begun = self._seat_action("match_close", args, caller)
            if isinstance(begun, dict):
                return begun  # a retry: the stored reply
            fp, live, role, _ = begun
            if live.status == "closed":
                return {"match_id": live.row.id, "status": "closed", "abandoned": False,
                        "last_event": live.last_event, "already": True}
            abandoned = live.status != "over"
            if abandoned and role != "owner":
                raise MatchError("forbidden", "only the owner token closes an unfinished match",
                                 field="token")
            event: dict[str, Any] = {"type": "closed", "game": len(live.hm.rules.games),
                                     "abandoned": abandoned}
            if abandoned and live.row.seed is not None:
                event["seed"] = live.row.seed
            reply = {"match_id": live.row.id, "status": "closed", "abandoned": abandoned,
                     "last_event": live.last_event + 1}  # the number of `event`
            self._set_status(live, "closed", event, self._request(caller, fp, reply))
            return reply

    @_command
    def match_export(self, args: Mapping[str, Any], caller: Caller) -> dict[str, Any]:
        """The match record (protocol/RECORDS.md) as text; the seed only once over."""
        fmt = args.get("format") or match_files.JACQUET_MATCH
        with self._lock:
            live = self._load(args.get("match_id"))
            record = self.record(live.row.id)
        if fmt == match_files.JACQUET_MATCH:
            return {"match_id": live.row.id, "format": records.FORMAT,
                    "record": records.format_record(record)}
        try:
            text = match_files.format_match_file(record, fmt)
        except MatchFileError as exc:
            raise bad_argument("format", exc.message) from None
        return {"match_id": live.row.id, "format": fmt, "record": text}

    # -- records -----------------------------------------------------------------------

    def record(self, match_id: str) -> records.MatchRecord:
        """The match record of a match (in play or not)."""
        with self._lock:
            live = self._load(match_id)
            c = live.config
            h: dict[str, str] = {
                "Format": records.FORMAT, "Match": live.row.id, "Variant": c.variant,
                "Length": str(c.length), "Cube": "on" if c.cube else "off",
                "Crawford": "on" if c.crawford else "off", "Dice": c.dice,
            }
            if live.status in ("over", "closed") and live.row.seed is not None:
                h["Seed"] = str(live.row.seed)
            for i, seat in enumerate(c.seats):
                # a name stored before names were checked may hold a line end: never let it
                # break the record
                h[f"Player{i}"] = header_text(seat.name) or (
                    "client" if seat.kind == "client" else f"bot:{seat.level}")
            h["Created"] = _iso(live.row.created_at)
            if live.status in ("over", "closed"):
                h["Ended"] = _iso(live.updated_at)
            h["Status"] = live.status
            winner = live.hm.winner()
            h["Result"] = str(winner) if winner is not None else "*"
            score = live.hm.score()
            h["Score"] = f"{score[0]} {score[1]}"
            games = [records.GameRecord(g.number, g.score, g.crawford, g.opening,
                                        list(g.actions), g.result) for g in live.hm.games]
            return records.MatchRecord(h, games)

    # -- bots --------------------------------------------------------------------------

    def stop_bots(self) -> None:
        """Shutdown: from now on no bot seat decides (`bot_job` is None) and no bot answer
        is applied; the matches stay in play and their bots resume in the next process."""
        with self._lock:
            self.bots_stopped = True

    def bot_job(self, match_id: str) -> BotJob | None:
        """The decision a bot seat of this match must take now, if any."""
        if self.bots_stopped:
            return None
        with self._lock:
            live = self._load(match_id)
            hm = live.hm
            if live.status != "playing" or hm.over:
                return None
            pending = hm.flow.pending()
            if pending is None:
                return None
            decision, side = pending
            if side is None:
                return None
            seat = live.config.seats[side]
            if seat.kind != "bot" or seat.level is None:
                return None
            seq = len(hm.acts)
            g = hm.game
            time_s = live.config.bot_time_ms / 1000
            job = BotJob(live.row.id, seq, side, seat.level, decision, hm.position(side),
                         time_s)
            if decision == "roll":
                if "double" in hm.may(side) and live.declined != seq:
                    job.question = "double"
                elif live.config.dice == "supplied":
                    return None  # the owner supplies this seat's dice
            elif decision == "take":
                job.position = hm.position(g.turn)
            elif decision == "accept":
                assert g.pending_resign is not None
                job.question = "resign"
                job.points = g.pending_resign[1]
            return job

    def apply_bot(self, job: BotJob, answer: str | None) -> bool:
        """Apply a bot's answer to `job`. Returns False (and does nothing) when the match
        moved on since the job was made. A missing or unusable answer falls back to the
        `random` level's choice (logged), so a bot seat never stalls its match."""
        with self._lock:
            live = self._live.get(job.match_id)
            if (self.bots_stopped or live is None or live.status != "playing"
                    or len(live.hm.acts) != job.seq
                    or live.hm.to_act() != job.side):
                return False
            q = job.question
            if q == "move":
                try:
                    self._commit(live, Act("move", job.side, move=str(answer)), "bot", job.side)
                    return True
                except MatchError as exc:
                    log.warning("bot %s answered %r in match %s: %s; playing at random",
                                job.level, answer, job.match_id, exc.message)
                self._commit(live, Act("move", job.side, move=random_move(job.position)), "bot",
                             job.side)
                return True
            choices = QUESTIONS.get(q, ("roll",))
            if answer not in choices:
                if answer is not None:
                    log.warning("bot %s answered %r to %s in match %s", job.level, answer, q,
                                job.match_id)
                answer = {"double": "roll", "take": "take", "resign": "reject"}.get(q, "roll")
            if q == "double" and answer == "roll":
                live.declined = job.seq
                if live.config.dice == "supplied":
                    return True
            kind = "roll" if answer in (None, "roll") else str(answer)
            self._commit(live, Act(kind, job.side), "bot", job.side)
            return True

    def run_bots(self, match_id: str, max_steps: int = 100_000) -> int:
        """Let the bot seats of a match act until a client must act (synchronously);
        returns the number of decisions taken."""
        steps = 0
        while steps < max_steps:
            job = self.bot_job(match_id)
            if job is None:
                break
            try:
                answer: str | None = job.call(self.bot_move, self.bot_cube)
            except Exception:
                log.exception("bot %s failed in match %s", job.level, match_id)
                answer = None
            self.apply_bot(job, answer)
            steps += 1
        return steps

    # -- housekeeping ------------------------------------------------------------------

    def playing(self) -> list[str]:
        """Ids of the matches in play."""
        return self.store.ids(["playing"])

    def adjourn_idle(self, now: float | None = None) -> list[str]:
        """Adjourn the matches in play without an action for `limits.idle_timeout_s`;
        returns their ids. They stay stored; a seat's next request resumes them."""
        now = float(self.clock()) if now is None else now
        done = []
        with self._lock:
            for match_id in self.store.idle("playing", now - self.limits.idle_timeout_s):
                live = self._load(match_id)
                if live.updated_at >= now - self.limits.idle_timeout_s:
                    continue
                live.status = "adjourned"
                events = self._number(live, [{"type": "adjourned",
                                              "game": len(live.hm.rules.games)}])
                try:
                    self.store.update(match_id, events, self._summary(live), at=now)
                except StoreError:
                    self._drop(match_id)
                    log.exception("cannot adjourn match %s", match_id)
                    continue
                self._notify(match_id, live.last_event)
                done.append(match_id)
            self._evict()
        return done


def printable(text: str) -> bool:
    """True when `text` holds no control or format character (no line end, no tab)."""
    return all(ch == " " or ch.isprintable() for ch in text)


def header_text(text: str) -> str:
    """`text` fit for a record header: every control character becomes a space."""
    if printable(text):
        return text
    return " ".join("".join(ch if ch == " " or ch.isprintable() else " " for ch in text)
                    .split())


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
