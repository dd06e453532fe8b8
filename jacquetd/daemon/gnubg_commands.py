"""The gnubg endpoint's decisions, run in a worker: the reply line to a ``board:``
request (a move, a cube action or a resignation answer) and ``evaluation``."""

from __future__ import annotations

from typing import Any

from jacquetd_protocol import gnubg_wire

from jacquetd.bots.interface import ENGINE
from jacquetd.daemon import gnubg
from jacquetd.daemon.engine_commands import WorkerCall

#: Worker jobs of the gnubg endpoint (not protocol commands; routed by the registry).
GNUBG_DECIDE = "gnubg_decide"
GNUBG_EVALUATE = "gnubg_evaluate"


def run_gnubg_decide(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """The reply line to a ``board:`` request: a move, a cube action or a resignation
    answer, by the engine's one cube and resignation policy (``ENGINE.doubles``,
    ``takes``, ``accepts_resignation``) for the level asked."""
    question = gnubg.board_position(args["board"])
    options = args.get("options", {})
    pos = question.position
    level = args.get("level") or ENGINE.default_level
    resignation = options.get("resignation")
    if resignation:
        accepts = ENGINE.accepts_resignation(pos, level, int(resignation),
                                             on_roll=question.actor_on_roll)
        return {"reply": "accept\n" if accepts else "reject\n"}
    if not question.actor_on_roll:
        # `pos` is from the doubler's side (on roll, double pending); the answer is ours
        return {"reply": "take\n" if ENGINE.takes(pos, level, should_stop=call.should_stop)
                else "drop\n"}
    if not pos.dice:
        return {"reply": "double\n" if ENGINE.doubles(pos, level, should_stop=call.should_stop)
                else "roll\n"}
    play = ENGINE.choose(pos, level, seed=args.get("seed", call.seed),
                         should_stop=call.should_stop)
    return {"reply": gnubg_wire.format_move(play.move), "move": play.move}


def run_gnubg_evaluate(args: dict[str, Any], call: WorkerCall) -> dict[str, Any]:
    """``evaluation fibsboard``: P(win), P(win g), P(win bg), P(lose g), P(lose bg) and
    the equity, for the side to act."""
    question = gnubg.board_position(args["board"])
    pos = question.position.without_dice()
    plies = int(args.get("options", {}).get("plies", 0))
    evaluation = ENGINE.evaluate(pos, plies=plies)
    e = evaluation.to_dict()
    # the sixth number: money equity, or in match play the match-winning chance (cubeless)
    last = (ENGINE.match_winning_chance(pos, evaluation) if pos.match is not None
            else e["equity"])
    if question.actor_on_roll:
        values = [e["win"], e["win_gammon"], e["win_backgammon"], e["lose_gammon"],
                  e["lose_backgammon"], last]
    else:
        values = [1.0 - e["win"], e["lose_gammon"], e["lose_backgammon"], e["win_gammon"],
                  e["win_backgammon"], 1.0 - last if pos.match is not None else -last]
    return {"reply": gnubg.format_evaluation([float(v) for v in values])}
