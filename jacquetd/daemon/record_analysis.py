"""``analyze_record``: a match record read back and analysed move by move (worker side).

Each move of the record is replayed on the rules core (`jacquetd.matches.records`);
the plays of its roll are ranked at `plies` (0 to 2), and the move's equity loss is the
best play's equity minus the played one's, both at the same depth (cubeless money
equity, the mover's view; `jacquetd.bots.review`), marked against the thresholds. Each
player's summary sums the moves (`review.summary`).
With `luck`, each roll's luck is judged too (`ENGINE.luck`): the
first roll of a game in `jacquet-be` and `backgammon`, the opening dice played at
once (B2), is judged among the 15 non-double rolls.
"""

from __future__ import annotations

from typing import Any

from jacquetd_protocol.annotate import annotated
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.match_files import RecordTooLarge, detect, read_match_file
from jacquetd_protocol.records import FORMAT, MatchRecord, RecordError, format_game

from jacquetd.bots import review
from jacquetd.bots.interface import ENGINE, Stopped, Unsupported
from jacquetd.matches.records import ReplayError, check, replay
from jacquetd.rules import Play, Position, RulesError, apply_move


def read_record(text: Any) -> MatchRecord:
    """Read a record argument (RECORDS.md, `.mat` or SGF) whole and check what needs no
    rules: its size, every line, the headers' values and the games' scores
    (`match_files.read_match_file`). This is what the front does before it queues an
    analysis, in time proportional to the text. ProtocolError: `too_large` (field
    `record`, limit `max_record_lines`), or `bad_argument` (field `record`; `header`
    names a header at fault, `line` the line where one is known)."""
    if not isinstance(text, str):
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, "record: must be a string", field="record")
    try:
        record = read_match_file(text)
    except RecordTooLarge as exc:
        raise ProtocolError(ErrorCode.TOO_LARGE, f"record: {exc}", field="record",
                            limit="max_record_lines") from None
    except RecordError as exc:
        extra: dict[str, Any] = {}
        if exc.header is not None:
            extra["header"] = exc.header
        if exc.line:
            extra["line"] = exc.line
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"record: {exc}", field="record",
                            **extra) from None
    if detect(text) != "jacquet-match":
        record.headers["Format"] = detect(text)
    record.headers.setdefault("Format", FORMAT)  # a record may leave its format unsaid
    return record


def analyze_record(record: MatchRecord, *, game: int | None = None, luck: bool = True,
                   plies: int = 0, thresholds: dict[str, float] | None = None,
                   should_stop: Any = None, cancelled: Any = None,
                   report: Any = None, annotate: bool = False) -> dict[str, Any]:
    """The result map of ``analyze_record`` (see protocol/SPEC.md). The whole record is
    replayed on the rules first: a move the rules refuse, however late, is refused before
    any move is analysed. `report` (if given) gets a partial after each decision: `done`
    and `total` (the record's actions, those of `game` only when given) and the entries
    `moves` and `cube` analysed since the previous partial. When `cancelled()` turns true
    the analysis ends, inside a decision's search too, and the result covers the
    decisions done before, with `stopped`; when `should_stop()` turns true otherwise (the
    deadline), ProtocolError `timeout`."""
    try:
        check(record)
    except (ReplayError, RulesError) as exc:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"record: {exc}", field="record") from None
    try:  # the analysis needs the variant's network (none is shipped for long-nardy yet)
        ENGINE.evaluate(Position.initial(record.variant))
    except Unsupported as exc:
        raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"record: {exc}", field="record") from None
    limits = {**review.THRESHOLDS, **(thresholds or {})}
    moves: list[dict[str, Any]] = []
    cube: list[dict[str, Any]] = []
    games: dict[int, dict[str, Any]] = {}
    judge_luck = luck
    cube_on = bool(record.cube)
    opened: set[int] = set()  # games whose first roll was seen
    offered: review.CubeJudgement | None = None  # the doubler's decision, awaiting an answer
    total = sum(len(g.actions) for g in record.games if game is None or g.number == game)
    done = 0
    sent = [0, 0]  # moves and cube entries already reported
    stopped = False

    def halted() -> bool:
        return bool((cancelled is not None and cancelled())
                    or (should_stop is not None and should_stop()))

    def progress() -> None:
        if report is not None and (len(moves), len(cube)) != (sent[0], sent[1]):
            report({"done": done, "total": total, "moves": moves[sent[0]:],
                    "cube": cube[sent[1]:]})
            sent[0], sent[1] = len(moves), len(cube)

    with ENGINE.remembering(record.variant):  # a decision meets the last ones' positions
        try:
            for step in replay(record):
                if game is not None and step.game != game:
                    continue
                progress()
                if cancelled is not None and cancelled():
                    stopped = True
                    break
                if should_stop is not None and should_stop():
                    raise _deadline()
                done += 1
                pos = step.position
                side = step.action.side
                kind = step.action.kind
                if kind in ("roll", "double") and cube_on and pos.may_double():
                    try:
                        judged_cube = review.judge_cube(pos, plies=plies, should_stop=halted)
                    except Stopped:
                        judged_cube = None
                    if judged_cube is None or halted():  # cut short: the decision is not done
                        if cancelled is not None and cancelled():
                            done, stopped = done - 1, True
                            break
                        raise _deadline()
                    act = "double" if kind == "double" else "no_double"
                    cube.append(_cube_entry(step.game, step.index, side, act, judged_cube,
                                            limits, pos))
                    offered = judged_cube if kind == "double" else None
                    continue
                if kind in ("take", "drop") and offered is not None:
                    act = "take" if kind == "take" else "pass"
                    cube.append(_cube_entry(step.game, step.index, side, act, offered, limits, pos))
                    offered = None
                    continue
                if kind != "move":
                    continue
                played = step.action.move or ""
                first = step.game not in opened
                opened.add(step.game)
                chosen = apply_move(pos, played)
                judged = review.judge_play(pos, chosen, plies=plies, should_stop=halted)
                if halted():  # the search may have been cut short: the decision is not done
                    if cancelled is not None and cancelled():
                        done, stopped = done - 1, True
                        break
                    raise _deadline()
                loss = round(judged.loss, 6)
                entry: dict[str, Any] = {
                    "game": step.game, "index": step.index, "side": side,
                    "dice": list(pos.dice), "move": chosen.move, "best": judged.best.move,
                    "equity": round(judged.equity, 6),
                    "best_equity": round(judged.best_equity, 6),
                    "loss": loss, "choices": judged.choices,
                    "forced": judged.forced, "plies": judged.plies, "units": judged.units,
                    "mark": None if judged.forced else review.mark(loss, limits),
                    "position": pos.to_dict(), "chances": _chances(pos),
                }
                if judge_luck:
                    opening = first and _plays_opening_dice(record, step.game)
                    entry["luck"] = round(ENGINE.luck(pos.without_dice(),
                                                      (pos.dice[0], pos.dice[1]),
                                                      opening=opening), 6)
                if annotate:  # the two plays' own chances, for gnubg's move analysis
                    entry["play_chances"] = [_after(p, judged.plies) for p in (chosen, judged.best)]
                moves.append(entry)
                g = games.setdefault(step.game, {"game": step.game, "moves": 0, "loss": [0.0, 0.0],
                                                 "luck": [0.0, 0.0]})
                g["moves"] += 1
                g["loss"][side] += entry["loss"]
                if "luck" in entry:
                    g["luck"][side] += entry["luck"]
        except (ReplayError, RulesError) as exc:
            raise ProtocolError(ErrorCode.BAD_ARGUMENT, f"record: {exc}", field="record") from None
    out_games = []
    for rec in record.games:
        if game is not None and rec.number != game:
            continue
        g = games.get(rec.number, {"game": rec.number, "moves": 0, "loss": [0.0, 0.0],
                                   "luck": [0.0, 0.0]})
        g["loss"] = [round(x, 6) for x in g["loss"]]
        g["luck"] = [round(x, 6) for x in g["luck"]] if judge_luck else None
        g["result"] = format_game(rec)[-1] if rec.result is not None else None
        out_games.append(g)
    if not judge_luck:
        for entry in moves:
            entry.pop("luck", None)
    summary = [review.summary(moves, cube, len(out_games), side) for side in (0, 1)]
    out = {"format": record.headers.get("Format", ""), "plies": plies, "moves": moves,
           "games": out_games, "cube": cube, "thresholds": limits, "summary": summary,
           "done": done, "total": total}
    if stopped:
        out["stopped"] = True
    if annotate:
        out["annotated"] = annotated(record, out)
    return out


def _cube_entry(game: int, index: int, side: int, act: str, judged: review.CubeJudgement,
                limits: dict[str, float], pos: Position) -> dict[str, Any]:
    """One cube decision of `side`: `double`/`no_double` (the doubler) or `take`/`pass`
    (its opponent), with the doubler's figures, what the action cost, and the position
    `pos` where it was taken with its chances."""
    loss = round(judged.loss(act), 6)
    right = judged.action if act in ("double", "no_double") else judged.take
    counted = act != "no_double" or loss > 0 or judged.close(limits["blunder"])
    return {"game": game, "index": index, "side": side, "action": act, "best": right,
            "no_double": round(judged.no_double, 6),
            "double_take": round(judged.double_take, 6),
            "double_pass": round(judged.double_pass, 6),
            "loss": loss, "mark": review.mark(loss, limits), "counted": counted,
            "plies": judged.plies, "units": judged.units,
            "position": pos.to_dict(), "chances": _chances(pos)}


def _chances(pos: Position) -> dict[str, float]:
    """The side on turn's chances before its roll (cubeless, 0 plies)."""
    return ENGINE.evaluate(pos.without_dice() if pos.dice else pos).to_dict()


def _after(play: Play, plies: int) -> dict[str, float]:
    """The mover's chances after `play` (cubeless, at `plies`)."""
    e = ENGINE.evaluate(play.after, plies=plies)
    return {"win": round(1 - e.win, 6), "win_gammon": round(e.lose_gammon, 6),
            "win_backgammon": round(e.lose_backgammon, 6),
            "lose_gammon": round(e.win_gammon, 6), "lose_backgammon": round(e.win_backgammon, 6),
            "equity": round(-e.equity, 6)}


def _plays_opening_dice(record: MatchRecord, number: int) -> bool:
    """Whether the first move of game `number` plays the opening dice (B2: no doubles)."""
    rec = next(g for g in record.games if g.number == number)
    return bool(rec.actions) and rec.actions[0].kind == "move"


def _deadline() -> ProtocolError:
    return ProtocolError(ErrorCode.TIMEOUT, "the deadline passed during the analysis")
