"""Average networks into one (a logit ensemble), to measure it before it could ship.

    python benchmarks/average_nets.py --out ens/backgammon.npz A.npz B.npz C.npz
    python benchmarks/average_nets.py --out ens/backgammon.npz A.npz B.npz \\
        --held-out labelled.npz

The result is one network whose hidden layer is the members' side by side
and whose output is the sigmoid of the mean of their output logits
(`jacquetd.bots.net.average_nets`); every tool that takes `--weights` reads
it. Its sidecar JSON names the members and the commands that made them.
`--held-out FILE` also prints each member's and the average's equity error
against a labelled positions file (the `--data` file of `jacquetd distill` or
of `distill_gnubg.py`, ideally one none of the members was fitted on).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from jacquetd.bots import supervised
from jacquetd.bots.net import Net, average_nets
from jacquetd.rules import find_variant


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("members", nargs="+", help="the network files to average")
    ap.add_argument("--out", required=True, help="the averaged network (.npz; a .json beside it)")
    ap.add_argument("--held-out", default=None, metavar="FILE",
                    help="a labelled positions file to measure the members and the average on")
    args = ap.parse_args(argv)
    nets = [Net.load(m) for m in args.members]
    variants = {n.meta.get("variant") for n in nets}
    versions = {int(n.meta.get("feature_version", 1)) for n in nets}
    if len(variants) != 1 or len(versions) != 1:
        print(f"average_nets: the members differ in variant {sorted(map(str, variants))} or "
              f"feature version {sorted(versions)}", file=sys.stderr)
        return 2
    variant, version = variants.pop(), versions.pop()
    meta = {"variant": variant, "feature_version": version, "n_inputs": nets[0].n_inputs,
            "hidden": sum(n.n_hidden for n in nets),
            "command": "python benchmarks/average_nets.py " + shlex.join(argv),
            "members": [{"file": Path(m).name, "hidden": n.n_hidden,
                         "command": n.meta.get("command"),
                         "stages": supervised.earlier_stages(n.meta)}
                        for m, n in zip(args.members, nets, strict=True)]}
    try:
        avg = average_nets(nets, meta)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    avg.save(out)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"wrote {out}: {avg.n_hidden} hidden units from {len(nets)} networks")
    if args.held_out:
        v = find_variant(str(variant))
        pos, extra = supervised.Positions.load(Path(args.held_out))
        x = supervised.encode(v, pos, version)
        print(f"equity error against {Path(args.held_out).name} ({len(pos)} positions):")
        for name, net in [*zip(args.members, nets, strict=True), (str(out), avg)]:
            err = supervised.held_out_error(v, net, x, pos, extra["targets"])
            print(f"  {name}: {net.n_hidden} hidden units, equity "
                  f"{err['equity_mae']:.4f}, win {err['win_mae']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
