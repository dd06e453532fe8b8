"""Game phases of a decision, for error breakdowns (benchmarks/bench_truth.py).

The phase is the mover's, checked in this order:

- `courier`: the variant has a courier (J6/B4) and the mover is in its courier
  phase (at least 14 checkers on its 24-point, none in its finishing table,
  none borne off);
- `contact`: some checker still has to pass an opposing one (`features.contact`);
- `bear-off`: no contact and every checker of the mover is home (points 1-6);
- `race`: no contact, the mover still has checkers outside home.
"""

from __future__ import annotations

from collections.abc import Sequence

from jacquetd.rules import Variant

from . import features

PHASES: tuple[str, ...] = ("contact", "race", "bear-off", "courier")


def phase_of(variant: Variant, me: Sequence[int], opp: Sequence[int]) -> str:
    """The phase of a position with `me` (26 counts, own numbering) on roll."""
    if variant.courier and me[24] >= 14 and me[0] == 0 and not any(me[1:7]):
        return "courier"
    if features.contact(variant, features.as_batch([tuple(me)]),
                        features.as_batch([tuple(opp)]))[0]:
        return "contact"
    if not any(me[7:26]):
        return "bear-off"
    return "race"
