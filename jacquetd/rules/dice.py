"""A seeded dice source, so that a game or a match can be replayed exactly."""

from __future__ import annotations

import random


class DiceSource:
    """Rolls dice from a seeded generator (or from a fixed list, for replays).

    The same seed gives the same sequence of rolls; `rolls` lists every roll
    handed out so far (opening rolls as single dice pairs).
    """

    def __init__(self, seed: int | None = None, script: list[tuple[int, int]] | None = None
                 ) -> None:
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1 << 63)
        self._rng = random.Random(self.seed)
        self._script = list(script) if script is not None else None
        self.rolls: list[tuple[int, int]] = []

    def roll(self) -> tuple[int, int]:
        """Two dice."""
        if self._script is not None:
            if not self._script:
                raise IndexError("the scripted dice have run out")
            dice = self._script.pop(0)
        else:
            dice = (self._rng.randint(1, 6), self._rng.randint(1, 6))
        self.rolls.append(dice)
        return dice

    def opening(self) -> tuple[int, int]:
        """J2/B2: each side rolls one die until they differ; returns (side 0's, side 1's)."""
        while True:
            dice = self.roll()
            if dice[0] != dice[1]:
                return dice
