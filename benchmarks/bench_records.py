"""The front process's cost of one `legal_moves` request: ``python benchmarks/bench_records.py``.

Times, in-process, what the daemon does for a request besides the transport:
decode the msgpack frame and answer it as the daemon does (resolve the position,
generate the plays, write a record per play and encode the reply; a full msgpack
reply is written directly by `registry.packed_reply`, the others through the
result map of `handle_legal_moves`). Printed: the median time of the answer alone
(from the checked arguments to the reply's bytes) and of the whole, and the mean of the
whole (which weighs the positions with many plays as a server's CPU does), for

- ``start``: `start:backgammon` with dice 3-1 (16 plays; bench_daemon.py's request),
- ``compact``: the same with ``compact`` (move, position id and board literal per play),
- ``varied``: distinct backgammon positions of seeded random games, each sent once
  (every position new to the caches; the median over a few thousand requests).

With ``--against DIR`` (another checkout of the project, e.g. one made by ``git
worktree add``), the same requests run in two processes, one importing this
checkout's `jacquetd` and one importing DIR's, in alternating rounds so that both
see the same load on a shared machine; the ratios and whether the replies are the
same bytes are printed. The protocol codec is the installed one in both.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
KINDS = ("start", "compact", "varied")


def child(tree: Path) -> None:
    """Answer `KIND N` lines on stdin with the medians of N requests (JSON on stdout)."""
    sys.path.insert(0, str(tree))
    from jacquetd_protocol.codec import decode_request, encode_reply, encode_request
    from jacquetd_protocol.commands import arguments
    from jacquetd_protocol.messages import Reply, Request

    from jacquetd.daemon import front_commands
    from jacquetd.rules import Position, legal_plays

    def frame(args: dict[str, Any]) -> bytes:
        return encode_request(Request(1, "legal_moves", args, "msgpack"))

    start = {"position": "start:backgammon", "dice": [3, 1]}
    fixed = {"start": frame(start), "compact": frame({**start, "compact": True})}
    rng = random.Random(1)
    varied: list[bytes] = []
    pos = Position.initial("backgammon")
    while len(varied) < 6000:
        pos = pos.with_dice((rng.randint(1, 6), rng.randint(1, 6)))
        varied.append(frame({"position": pos.to_id()}))
        pos = rng.choice(legal_plays(pos)).after
        if pos.game_over():
            pos = Position.initial("backgammon")

    # the msgpack reply written directly (daemon/packed_plays.py), where the tree has it:
    # through the command registry, or in a tree from before it through front_commands
    try:
        from jacquetd.daemon.registry import packed_reply as registry_packed

        packed_reply: Any = registry_packed
    except ImportError:
        packed_reply = getattr(front_commands, "packed_reply", None)

    def one(data: bytes) -> tuple[float, float, bytes]:
        t0 = time.perf_counter()
        req = decode_request(data)
        args = arguments(req)
        t1 = time.perf_counter()
        out = (packed_reply(req.cmd, req.id, args, req.encoding)
               if packed_reply is not None else None)
        if out is None:
            result = front_commands.handle_legal_moves(None, args)  # type: ignore[arg-type]
            out = encode_reply(Reply.success(req.id, result), "msgpack")
        t2 = time.perf_counter()
        return t2 - t1, t2 - t0, out

    for data in (*fixed.values(), *varied[:50]):
        one(data)
    next_varied = 50
    print("ready", flush=True)
    for line in sys.stdin:
        kind, count = line.split()
        answer: list[float] = []
        whole: list[float] = []
        digest = hashlib.sha256()
        for _ in range(int(count)):
            if kind == "varied":
                data = varied[next_varied % len(varied)]
                next_varied += 1
            else:
                data = fixed[kind]
            h, w, out = one(data)
            answer.append(h)
            whole.append(w)
            digest.update(out)
        print(json.dumps({"answer": statistics.median(answer) * 1e3,
                          "whole": statistics.median(whole) * 1e3,
                          "mean": statistics.fmean(whole) * 1e3,
                          "digest": digest.hexdigest()}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("-n", type=int, default=300, help="requests per round")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts.child)
        return
    trees = [REPO] + ([opts.against.resolve()] if opts.against else [])
    procs = [subprocess.Popen([sys.executable, __file__, "--child", str(tree)], cwd=tree,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for tree in trees]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    print(f"legal_moves in-process, median ms over {opts.rounds} rounds of {opts.n} "
          "requests (answer = from the checked arguments to the reply's bytes; whole = "
          "decode + answer)")
    for kind in KINDS:
        got: list[dict[str, list[Any]]] = [{"answer": [], "whole": [], "mean": [],
                                            "digest": []} for _ in procs]
        for _ in range(opts.rounds):
            for proc, into in zip(procs, got, strict=True):
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{kind} {opts.n}\n")
                proc.stdin.flush()
                for key, value in json.loads(proc.stdout.readline()).items():
                    into[key].append(value)
        fields = ("answer", "whole", "mean")
        here = {k: statistics.median(got[0][k]) for k in fields}
        line = (f"{kind:>8}: answer {here['answer']:.3f}  whole {here['whole']:.3f}"
                f" (mean {here['mean']:.3f})")
        if len(procs) > 1:
            there = {k: statistics.median(got[1][k]) for k in fields}
            same = got[0]["digest"] == got[1]["digest"]
            line += (f"  | against: answer {there['answer']:.3f}  whole {there['whole']:.3f}"
                     f" (mean {there['mean']:.3f})"
                     f"  | {there['answer'] / here['answer']:.2f}x answer, "
                     f"{there['whole'] / here['whole']:.2f}x whole, "
                     f"{there['mean'] / here['mean']:.2f}x mean; same reply bytes: {same}")
        print(line)
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    main()
