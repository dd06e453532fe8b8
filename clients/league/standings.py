"""Standings from the journal's match entries: points per game, ratings, LOS, SPRT."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ratings import Ratings, Sprt, bradley_terry, wins_matrix


@dataclass
class EngineLine:
    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    points_won: int = 0
    points_lost: int = 0
    forfeits: int = 0
    luck_games: int = 0
    luck_sum: float = 0.0          # own luck minus the opponent's, summed (points)
    elo: float = 0.0
    elo_low: float = 0.0
    elo_high: float = 0.0

    @property
    def ppg(self) -> float:
        """Net points per game (won minus lost)."""
        return (self.points_won - self.points_lost) / self.games if self.games else 0.0

    @property
    def luck_adjusted_ppg(self) -> float | None:
        """Net points per game with each game's luck taken out; None unless every game of
        this engine was judged."""
        if not self.games or self.luck_games != self.games:
            return None
        return (self.points_won - self.points_lost - self.luck_sum) / self.games

    @property
    def score(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class Standings:
    lines: list[EngineLine]
    ratings: Ratings
    los: np.ndarray
    head_to_head: dict[tuple[str, str], list[int]]   # (a, b) -> [a wins, b wins, a pts, b pts]
    games: int
    matches: int
    faults: list[dict[str, Any]] = field(default_factory=list)
    sprt: dict[str, Any] | None = None

    @property
    def luck_available(self) -> bool:
        return any(line.luck_games for line in self.lines)

    def line(self, name: str) -> EngineLine:
        return next(x for x in self.lines if x.name == name)


def compute(names: Sequence[str], matches: Sequence[dict[str, Any]],
            sprt: tuple[Sprt, str, str] | None = None) -> Standings:
    """Standings of `names` from match entries (see runner.py for their shape)."""
    lines = {n: EngineLine(n) for n in names}
    results: list[tuple[str, str]] = []
    h2h: dict[tuple[str, str], list[int]] = {}
    faults: list[dict[str, Any]] = []
    games = 0
    for m in matches:
        players = m["players"]
        for g in m["games"]:
            games += 1
            w, lo = players[g["winner"]], players[1 - g["winner"]]
            results.append((w, lo))
            lines[w].wins += 1
            lines[lo].losses += 1
            lines[w].points_won += g["points"]
            lines[lo].points_lost += g["points"]
            for seat in (0, 1):
                lines[players[seat]].games += 1
            if g.get("fault"):
                lines[lo].forfeits += 1
                faults.append({"job": m["job"], "engine": lo, "fault": g["fault"],
                               "message": g.get("fault_message", "")})
            luck = g.get("luck")
            if luck is not None:
                for seat in (0, 1):
                    line = lines[players[seat]]
                    line.luck_games += 1
                    line.luck_sum += luck[seat] - luck[1 - seat]
            key = (min(players[0], players[1]), max(players[0], players[1]))
            row = h2h.setdefault(key, [0, 0, 0, 0])
            side = 0 if w == key[0] else 1
            row[side] += 1
            row[2 + side] += g["points"]
    ratings = bradley_terry(list(names), wins_matrix(list(names), results))
    for i, n in enumerate(names):
        lines[n].elo = float(ratings.elo[i])
        lines[n].elo_low, lines[n].elo_high = ratings.interval(i)
    ordered = sorted(lines.values(), key=lambda x: (-x.elo, -x.ppg, x.name))
    sprt_state = None
    if sprt is not None:
        test, a, b = sprt
        wins = sum(1 for w, lo in results if w == a and lo == b)
        losses = sum(1 for w, lo in results if w == b and lo == a)
        lower, upper = test.bounds
        sprt_state = {"a": a, "b": b, "wins": wins, "losses": losses,
                      "llr": test.llr(wins, losses), "lower": lower, "upper": upper,
                      "elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha,
                      "beta": test.beta, "decision": test.decide(wins, losses)}
    return Standings(ordered, ratings, ratings.los(), h2h, games, len(matches), faults,
                     sprt_state)


def format_table(st: Standings, *, luck_judged: bool = True) -> str:
    """The standings as a plain-text table (`luck_judged` False: the league did not ask
    for luck)."""
    head = (f"{'engine':<16} {'games':>5} {'W-L':>9} {'ppg':>7} {'luck-adj':>8} "
            f"{'elo':>7} {'95% CI':>17} {'fault':>5}")
    out = [head, "-" * len(head)]
    for x in st.lines:
        adj = x.luck_adjusted_ppg
        out.append(f"{x.name:<16} {x.games:>5} {f'{x.wins}-{x.losses}':>9} {x.ppg:>+7.3f} "
                   f"{(f'{adj:+.3f}' if adj is not None else 'n/a'):>8} {x.elo:>+7.1f} "
                   f"{f'[{x.elo_low:+.0f}, {x.elo_high:+.0f}]':>17} {x.forfeits:>5}")
    if not st.luck_available:
        out.append("luck-adjusted: unavailable (the daemon offers no `luck` command)"
                   if luck_judged else "luck-adjusted: not judged (luck = false, --no-luck)")
    names = [x.name for x in st.lines]
    index = {n: i for i, n in enumerate(st.ratings.names)}
    out.append("")
    out.append("likelihood of superiority (row stronger than column)")
    out.append(" " * 16 + "".join(f"{n[:8]:>9}" for n in names))
    for a in names:
        cells = "".join(f"{'':>9}" if a == b else f"{st.los[index[a], index[b]]:>9.3f}"
                        for b in names)
        out.append(f"{a:<16}{cells}")
    if st.sprt is not None:
        s = st.sprt
        verdict = {"H1": f"{s['a']} is stronger than {s['b']} (H1 accepted)",
                   "H0": f"{s['a']} is not stronger than {s['b']} by {s['elo1']:g} elo "
                         "(H0 accepted)",
                   None: "undecided"}[s["decision"]]
        out.append("")
        out.append(f"SPRT {s['a']} vs {s['b']}: elo0={s['elo0']:g} elo1={s['elo1']:g} "
                   f"alpha={s['alpha']:g} beta={s['beta']:g}: W-L {s['wins']}-{s['losses']}, "
                   f"LLR {s['llr']:+.3f} in [{s['lower']:.3f}, {s['upper']:.3f}]: {verdict}")
    return "\n".join(out)
