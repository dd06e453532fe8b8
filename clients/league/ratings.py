"""Ratings from game results: Bradley-Terry by maximum likelihood, likelihood of
superiority, and the sequential probability ratio test.

Each game is a win for one engine and a loss for the other (backgammon-family
games have no draws); the points a game scores do not enter the ratings (they
are reported separately as points per game). With γ_i = 10^(elo_i / 400) the
model is P(i beats j) = γ_i / (γ_i + γ_j). The maximum-likelihood γ are found
by the minorization-maximization iteration of Hunter (2004); ratings are
centred on a mean of 0. A weak prior of `prior` virtual games, half won and
half lost, between every pair that played keeps an unbeaten engine's rating
finite. Standard errors come from the inverse (pseudo-inverse, since only
differences are determined) of the Fisher information.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Ratings:
    names: tuple[str, ...]
    elo: np.ndarray          # centred: mean 0
    cov: np.ndarray          # covariance of the elo estimates (elo^2)
    iterations: int

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))

    def interval(self, i: int) -> tuple[float, float]:
        """95% confidence interval of engine i's rating."""
        half = Z95 * float(self.se[i])
        return float(self.elo[i]) - half, float(self.elo[i]) + half

    def los(self) -> np.ndarray:
        """LOS[i, j]: the likelihood that i is stronger than j, Φ(Δ / sd(Δ))."""
        n = len(self.names)
        out = np.full((n, n), 0.5)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                var = self.cov[i, i] + self.cov[j, j] - 2.0 * self.cov[i, j]
                diff = float(self.elo[i] - self.elo[j])
                if var <= 1e-12:
                    out[i, j] = 0.5 if abs(diff) < 1e-9 else float(diff > 0)
                else:
                    out[i, j] = normal_cdf(diff / math.sqrt(var))
        return out


def normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def bradley_terry(names: Sequence[str], wins: np.ndarray, *, prior: float = 1.0,
                  tol: float = 1e-10, max_iter: int = 100_000) -> Ratings:
    """Ratings from `wins[i, j]` (games i won against j)."""
    w = np.asarray(wins, dtype=float)
    n = len(names)
    if w.shape != (n, n):
        raise ValueError(f"wins must be {n}x{n}")
    played = (w + w.T) > 0
    w = w + np.where(played, prior / 2.0, 0.0)
    np.fill_diagonal(w, 0.0)
    games = w + w.T
    total_wins = w.sum(axis=1)
    gamma = np.ones(n)
    active = games.sum(axis=1) > 0
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - reported
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(active & (denom > 0), total_wins / np.where(denom > 0, denom, 1.0), 1.0)
        new = np.maximum(new, 1e-300)
        new /= math.exp(float(np.mean(np.log(new[active])))) if active.any() else 1.0
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    theta = np.log(gamma)
    theta -= theta.mean()
    p = gamma[:, None] / (gamma[:, None] + gamma[None, :])
    info = -games * p * p.T
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info, rcond=1e-10, hermitian=True) * ELO_PER_NAT ** 2
    return Ratings(tuple(names), theta * ELO_PER_NAT, cov, iterations)


def wins_matrix(names: Sequence[str], results: Sequence[tuple[str, str]]) -> np.ndarray:
    """The wins matrix from (winner, loser) pairs."""
    index = {n: i for i, n in enumerate(names)}
    w = np.zeros((len(names), len(names)))
    for winner, loser in results:
        w[index[winner], index[loser]] += 1
    return w


def expected_score(elo: float) -> float:
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


@dataclass(frozen=True)
class Sprt:
    """Wald's SPRT on game results of A against B: H0 "A is elo0 stronger", H1 "A is
    elo1 stronger" (elo1 > elo0). `decide` returns "H1" (A is stronger), "H0" (it is
    not stronger by elo1) or None (play on)."""

    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, wins: int, losses: int) -> float:
        p0, p1 = expected_score(self.elo0), expected_score(self.elo1)
        return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))

    def decide(self, wins: int, losses: int) -> str | None:
        lower, upper = self.bounds
        llr = self.llr(wins, losses)
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None
