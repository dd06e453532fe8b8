"""What the backgammon world's notations cost: writing and reading gnubg ids and XGIDs,
and the share of them in a reply's play (`play_dict` gives both for every play of a
backgammon position).

    python -m benchmarks.bench_interchange [N]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from jacquetd.daemon import plays as daemon_plays
from jacquetd.daemon.warmup import warm_up
from jacquetd.rules import legal_plays
from jacquetd.rules.gnubg_id import gnubg_id, parse_gnubg_id
from jacquetd.rules.interchange import foreign_ids
from jacquetd.rules.xgid import format_xgid, parse_xgid
from tests.interchange.positions import random_positions


def per_item_us(f: Callable[[Any], object], items: Iterable[Any], repeat: int = 3) -> float:
    """The best of `repeat` runs, microseconds per item."""
    items = list(items)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            f(x)
        best = min(best, time.perf_counter() - t)
    return best / len(items) * 1e6


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    positions = random_positions(n, seed=1)
    ids = [gnubg_id(p) for p in positions]
    xgids = [format_xgid(p) for p in positions]
    print(f"{n} random backgammon positions")
    print(f"gnubg_id      {per_item_us(gnubg_id, positions):7.1f} us")
    print(f"format_xgid   {per_item_us(format_xgid, positions):7.1f} us")
    print(f"parse gnubg   {per_item_us(parse_gnubg_id, ids):7.1f} us")
    print(f"parse XGID    {per_item_us(parse_xgid, xgids):7.1f} us")
    rng = random.Random(3)
    rolled = [p.with_dice((rng.randint(1, 6), rng.randint(1, 6))) for p in positions
              if not p.game_over() and not (p.cube and p.cube.pending)][:300]
    warm_up()
    plays = [x for p in rolled for x in legal_plays(p)]
    whole = per_item_us(daemon_plays.play_dict, plays)
    ids_part = per_item_us(lambda x: foreign_ids(x.after), plays)
    print(f"play_dict     {whole:7.1f} us per play ({len(plays)} plays), of which gnubg_id "
          f"and xgid {ids_part:.1f} us")


if __name__ == "__main__":
    main()
