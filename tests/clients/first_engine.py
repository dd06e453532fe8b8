"""A tiny external engine for the client tests: protocol v1 over stdio, msgpack.

It plays the first legal play (or, with `--random SEED`, a seeded random one)
and answers the rules commands (`position`, `legal_moves`, `apply_move`) from
the rules core, so the tests can also use it as a stand-in rules server. Fault
switches for the league's fault tests:

    --crash-after N   exit (status 3) on the N-th best_move
    --hang-after N    stop answering from the N-th best_move on
    --illegal-after N answer a move that is not legal from the N-th best_move on
    --luck            offer a `luck` command (a made-up figure: (d1 + d2 - 7) / 10)

Run: python tests/clients/first_engine.py [options]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

import msgpack

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from jacquetd_protocol.codec import StreamDecoder, decode_request, encode_reply
from jacquetd_protocol.errors import ErrorCode, ProtocolError
from jacquetd_protocol.messages import Reply, Request
from jacquetd_protocol.positions import start_variant

from jacquetd.rules import (
    VARIANTS,
    AmbiguousMoveError,
    IllegalMoveError,
    MoveSyntaxError,
    Position,
    apply_move,
    legal_plays,
)
from jacquetd.rules.describe import all_variant_rules
from jacquetd.rules.scoring import game_result, result_name

COMMANDS = ["hello", "ping", "quit", "position", "legal_moves", "apply_move", "best_move"]


def resolve(value: Any, dice: Any = None) -> Position:
    if isinstance(value, str):
        variant = start_variant(value)
        pos = Position.initial(variant) if variant else Position.from_id(value)
    else:
        pos = Position.from_dict(value)
    return pos.with_dice(tuple(dice)) if dice else pos


def play_dict(play: Any) -> dict[str, Any]:
    out = {"move": play.move, "position_id": play.after.to_id(),
           "position": play.after.to_dict(), "hits": play.hits, "borne_off": play.borne_off}
    if play.raw.me[0] == 15:  # the play ends the game: its result (SPEC 5.2)
        v = play.before.rules
        points = game_result(v, play.raw.me, play.raw.opp, play.after.primed[1])
        cube = play.before.cube.value if play.before.cube is not None else 1
        out["result"] = {"winner": "on_roll", "points": points * cube,
                         "name": result_name(v, points)}
    return out


class Engine:
    def __init__(self, opts: argparse.Namespace) -> None:
        self.opts = opts
        self.rng = random.Random(opts.random) if opts.random is not None else None
        self.best_moves = 0

    def handle(self, cmd: str, args: dict[str, Any]) -> dict[str, Any]:
        if cmd == "hello":
            return {"protocol": "1.0", "engine": "first-engine", "version": "1",
                    "variants": list(VARIANTS), "variant_rules": all_variant_rules(),
                    "commands": COMMANDS + (["luck"] if self.opts.luck else []), "planned": [],
                    "encodings": ["msgpack"], "levels": ["first"], "limits": {}}
        if cmd == "luck" and self.opts.luck:
            resolve(args["position"])
            dice = args["dice"]
            return {"luck": (dice[0] + dice[1] - 7) / 10}
        if cmd in ("ping", "quit"):
            return {}
        if cmd == "position":
            pos = resolve(args["position"])
            return {"position_id": pos.to_id(), "position": pos.to_dict(),
                    "may_double": pos.may_double()}
        if cmd == "legal_moves":
            plays = [play_dict(p) for p in legal_plays(resolve(args["position"],
                                                               args.get("dice")))]
            return {"count": len(plays), "plays": plays}
        if cmd == "apply_move":
            return play_dict(apply_move(resolve(args["position"], args.get("dice")),
                                        args["move"]))
        if cmd == "best_move":
            self.best_moves += 1
            n, o = self.best_moves, self.opts
            if o.crash_after and n >= o.crash_after:
                sys.exit(3)
            if o.hang_after and n >= o.hang_after:
                while True:
                    time.sleep(60)
            plays = legal_plays(resolve(args["position"], args.get("dice")))
            play = self.rng.choice(plays) if self.rng else plays[0]
            chosen = play_dict(play)
            if o.illegal_after and n >= o.illegal_after:
                chosen = {**chosen, "move": "24/1"}
            return {"play": chosen, "level": "first", "elapsed_ms": 0.0}
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"no command {cmd}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--random", type=int, default=None)
    parser.add_argument("--crash-after", type=int, default=0)
    parser.add_argument("--hang-after", type=int, default=0)
    parser.add_argument("--illegal-after", type=int, default=0)
    parser.add_argument("--luck", action="store_true")
    engine = Engine(parser.parse_args())
    decoder = StreamDecoder()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        data = os.read(stdin.fileno(), 65536)
        if not data:
            return
        for frame in decoder.feed(data):
            if isinstance(frame, ProtocolError):
                continue
            rid: Any = None
            try:
                raw = msgpack.unpackb(frame) if frame[:1] >= b"\x80" else {}
                if raw.get("cmd") == "luck":  # not in the codec's command table (yet)
                    rid = raw.get("id")
                    req = Request(rid, "luck", raw)
                else:
                    req = decode_request(frame)
                rid = req.id
                reply = Reply.success(rid, engine.handle(req.cmd, req.args))
            except ProtocolError as exc:
                reply = Reply.failure(exc.id if exc.id is not None else rid, exc)
            except (IllegalMoveError, MoveSyntaxError, AmbiguousMoveError) as exc:
                reply = Reply.failure(rid, ProtocolError(ErrorCode.ILLEGAL_MOVE, str(exc),
                                                         field="move"))
            except ValueError as exc:  # the rules core's other refusals
                reply = Reply.failure(rid, ProtocolError(ErrorCode.BAD_POSITION, str(exc)))
            stdout.write(encode_reply(reply, "msgpack"))
            stdout.flush()
            if req.cmd == "quit":
                return


if __name__ == "__main__":
    main()
