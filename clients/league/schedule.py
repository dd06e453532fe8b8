"""Which matches a league plays, in which order, with which dice.

Every match is a `Job` with a stable id, its two engines (seat 0 first) and the
seed of its dice. With `swap`, the jobs come in pairs that share a seed and a
`pair` id: the same dice stream played twice with the seats swapped, so that
luck cancels out of the pair. Jobs are ordered round by round (one pair of
every pairing, then the next), so a league stopped early is still balanced.
"""

from __future__ import annotations

from dataclasses import dataclass

from jacquetd_protocol.seeds import job_seed

from .config import LeagueConfig


@dataclass(frozen=True)
class Job:
    id: str
    players: tuple[str, str]
    seed: int
    pair: str
    round: int


def pairings(config: LeagueConfig) -> list[tuple[str, str]]:
    names = [e.name for e in config.engines]
    if config.sprt is not None:
        return [(config.sprt.a, config.sprt.b)]
    if config.format == "gauntlet":
        challenger = config.challenger or names[0]
        return [(challenger, n) for n in names if n != challenger]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def schedule(config: LeagueConfig) -> list[Job]:
    """Every job of the league, in playing order."""
    games = config.sprt.max_games if config.sprt is not None else config.games
    per_round = 2 if config.swap else 1
    rounds = (games + per_round - 1) // per_round
    jobs: list[Job] = []
    for k in range(rounds):
        for a, b in pairings(config):
            seed = job_seed(config.seed, a, b, k)
            pair = f"{a}~{b}#{k}"
            jobs.append(Job(f"{pair}:0", (a, b), seed, pair, k))
            if config.swap and per_round * k + 1 < games:
                jobs.append(Job(f"{pair}:1", (b, a), seed, pair, k))
    return jobs
