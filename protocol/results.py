"""TypedDicts of every result map, generated from the command table by
`python -m jacquetd_protocol.docgen` (do not edit by hand): `RESULTS` maps each
command to the TypedDict of its result; `Play`, `CompactPlay`, `RankedPlay` and
`Latency` are the records inside results. Fields a newer server adds are not listed.
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired[...] at
# run time (its __required_keys__), which stringized annotations would hide.
from typing import Any, NotRequired, TypedDict


class GameResult(TypedDict):
    """The result of a game a play ends."""

    winner: str
    points: int
    name: str


class FieldWarning(TypedDict):
    """A request field the command does not define, ignored."""

    field: str
    message: str


class Play(TypedDict):
    """A play."""

    move: str
    position_id: str
    position: dict[str, Any]
    gnubg_id: NotRequired[str]
    xgid: NotRequired[str]
    hits: int
    borne_off: int
    result: NotRequired[GameResult]


class CompactPlay(TypedDict):
    """A compact play."""

    move: str
    position_id: str
    board: str
    result: NotRequired[GameResult]


class RankedPlay(TypedDict):
    """A ranked play."""

    move: str
    position_id: str
    position: dict[str, Any]
    gnubg_id: NotRequired[str]
    xgid: NotRequired[str]
    hits: int
    borne_off: int
    result: NotRequired[GameResult]
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float
    plies: int


class Latency(TypedDict):
    """A latency."""

    count: int
    p50: float
    p90: float
    p99: float
    max: float


class HelloResult(TypedDict):
    """The result of `hello`."""

    protocol: str
    engine: str
    version: str
    variants: list[str]
    variant_rules: NotRequired[dict[str, dict[str, Any]]]
    commands: list[str]
    planned: list[str]
    encodings: list[str]
    levels: list[str]
    limits: dict[str, int]
    session: str
    warnings: NotRequired[list[FieldWarning]]


class HelpResult(TypedDict):
    """The result of `help`."""

    usage: str
    commands: NotRequired[dict[str, str]]
    command: NotRequired[str]
    summary: NotRequired[str]
    arguments: NotRequired[list[dict[str, Any]]]
    result: NotRequired[list[str]]
    streams: NotRequired[bool]
    example: NotRequired[str]
    example_request: NotRequired[dict[str, Any]]
    warnings: NotRequired[list[FieldWarning]]


class PingResult(TypedDict):
    """The result of `ping`."""

    warnings: NotRequired[list[FieldWarning]]


class PositionResult(TypedDict):
    """The result of `position`."""

    position_id: str
    position: dict[str, Any]
    may_double: NotRequired[bool]
    gnubg_id: NotRequired[str]
    xgid: NotRequired[str]
    warnings: NotRequired[list[FieldWarning]]


class LegalMovesResult(TypedDict):
    """The result of `legal_moves`."""

    count: int
    plays: list[Play | CompactPlay]
    warnings: NotRequired[list[FieldWarning]]


class ApplyMoveResult(TypedDict):
    """The result of `apply_move`."""

    move: str
    position_id: str
    position: dict[str, Any]
    gnubg_id: NotRequired[str]
    xgid: NotRequired[str]
    hits: int
    borne_off: int
    result: NotRequired[GameResult]
    warnings: NotRequired[list[FieldWarning]]


class BestMoveResult(TypedDict):
    """The result of `best_move`."""

    play: Play
    level: str
    elapsed_ms: float
    stopped: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class AnalyzeResult(TypedDict):
    """The result of `analyze`."""

    plays: list[RankedPlay]
    plies: int
    elapsed_ms: float
    stopped: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class EvaluateResult(TypedDict):
    """The result of `evaluate`."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float
    plies: int
    warnings: NotRequired[list[FieldWarning]]


class CubeResult(TypedDict):
    """The result of `cube`."""

    action: str
    take: str
    no_double: float
    double_take: float
    double_drop: float
    plies: int
    warnings: NotRequired[list[FieldWarning]]


class LuckResult(TypedDict):
    """The result of `luck`."""

    luck: float
    plies: int
    warnings: NotRequired[list[FieldWarning]]


class AnalyzeRecordResult(TypedDict):
    """The result of `analyze_record`."""

    format: str
    plies: int
    moves: list[dict[str, Any]]
    games: list[dict[str, Any]]
    cube: NotRequired[list[dict[str, Any]]]
    thresholds: NotRequired[dict[str, float]]
    summary: NotRequired[list[dict[str, Any]]]
    done: NotRequired[int]
    total: NotRequired[int]
    stopped: NotRequired[bool]
    annotated: NotRequired[dict[str, str]]
    warnings: NotRequired[list[FieldWarning]]


class BotMatchResult(TypedDict):
    """The result of `bot_match`."""

    matches: list[dict[str, Any]]
    warnings: NotRequired[list[FieldWarning]]


class RolloutResult(TypedDict):
    """The result of `rollout`."""

    trials_done: int
    trials: int
    lines: list[dict[str, Any]]
    done: bool
    stopped: NotRequired[bool]
    stop_reason: NotRequired[str]
    where: str
    elapsed_ms: float
    warnings: NotRequired[list[FieldWarning]]


class CancelResult(TypedDict):
    """The result of `cancel`."""

    target: int | str
    warnings: NotRequired[list[FieldWarning]]


class StatsResult(TypedDict):
    """The result of `stats`."""

    served: int
    inflight: int
    uptime_s: float
    worker_restarts: int
    latency_ms: dict[str, Latency]
    errors: dict[str, int]
    warnings: NotRequired[list[FieldWarning]]


class QuitResult(TypedDict):
    """The result of `quit`."""

    warnings: NotRequired[list[FieldWarning]]


class MatchNewResult(TypedDict):
    """The result of `match_new`."""

    match_id: str
    tokens: list[str | None]
    owner_token: str
    withheld: NotRequired[bool]
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchStateResult(TypedDict):
    """The result of `match_state`."""

    match_id: str
    status: str
    variant: str
    length: int
    cube: bool
    crawford: bool
    dice_mode: str
    bot_time_ms: int
    seats: list[dict[str, Any]]
    you: int | None
    owner: bool
    score: list[int]
    game: int
    crawford_game: bool
    phase: str
    turn: int | None
    to_act: int | None
    may: list[list[str]]
    dice: list[int]
    cube_state: dict[str, Any] | None
    resignation: dict[str, Any] | None
    position_side: int
    position: dict[str, Any]
    position_id: str
    gnubg_id: NotRequired[str]
    xgid: NotRequired[str]
    legal_moves: list[str]
    history: list[str]
    actions: int
    last_event: int
    created_at: float
    updated_at: float
    winner: NotRequired[int]
    seed: NotRequired[int]
    warnings: NotRequired[list[FieldWarning]]


class MatchRollResult(TypedDict):
    """The result of `match_roll`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchMoveResult(TypedDict):
    """The result of `match_move`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchDoubleResult(TypedDict):
    """The result of `match_double`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchTakeResult(TypedDict):
    """The result of `match_take`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchDropResult(TypedDict):
    """The result of `match_drop`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchResignResult(TypedDict):
    """The result of `match_resign`."""

    match_id: str
    status: str
    actions: int
    events: list[dict[str, Any]]
    phase: str
    to_act: int | None
    may: list[str]
    score: list[int]
    game: int
    last_event: int
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchWatchResult(TypedDict):
    """The result of `match_watch`."""

    match_id: str
    events: list[dict[str, Any]]
    last_event: int
    status: str
    done: bool
    warnings: NotRequired[list[FieldWarning]]


class MatchListResult(TypedDict):
    """The result of `match_list`."""

    matches: list[dict[str, Any]]
    total: int
    offset: int
    warnings: NotRequired[list[FieldWarning]]


class MatchCloseResult(TypedDict):
    """The result of `match_close`."""

    match_id: str
    status: str
    abandoned: bool
    last_event: int
    already: NotRequired[bool]
    replayed: NotRequired[bool]
    warnings: NotRequired[list[FieldWarning]]


class MatchExportResult(TypedDict):
    """The result of `match_export`."""

    match_id: str
    format: str
    record: str
    warnings: NotRequired[list[FieldWarning]]


RESULTS: dict[str, type] = {
    "hello": HelloResult,
    "help": HelpResult,
    "ping": PingResult,
    "position": PositionResult,
    "legal_moves": LegalMovesResult,
    "apply_move": ApplyMoveResult,
    "best_move": BestMoveResult,
    "analyze": AnalyzeResult,
    "evaluate": EvaluateResult,
    "cube": CubeResult,
    "luck": LuckResult,
    "analyze_record": AnalyzeRecordResult,
    "bot_match": BotMatchResult,
    "rollout": RolloutResult,
    "cancel": CancelResult,
    "stats": StatsResult,
    "quit": QuitResult,
    "match_new": MatchNewResult,
    "match_state": MatchStateResult,
    "match_roll": MatchRollResult,
    "match_move": MatchMoveResult,
    "match_double": MatchDoubleResult,
    "match_take": MatchTakeResult,
    "match_drop": MatchDropResult,
    "match_resign": MatchResignResult,
    "match_watch": MatchWatchResult,
    "match_list": MatchListResult,
    "match_close": MatchCloseResult,
    "match_export": MatchExportResult,
}
