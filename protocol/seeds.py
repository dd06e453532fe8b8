"""Seeds of played games: how a match's seed gives every other seed of its games.

Whoever plays a match from a seed (the referee of `jacquetd_clients.game`, the daemon's
`bot_match`, a league) derives the seeds here, so the same seed plays the same match
wherever it is played:

- one dice stream serves every game of a match, drawn from `random.Random(match_seed)`
  (the opening throw: two dice until they differ, the higher one opens; then two
  `randint(1, 6)` a roll);
- game `n` (0 for the first) of a match has the seed `game_seed(match_seed, n)`;
- a player that uses chance gets, for the decision after `moves` moves of its game,
  `move_seed(game_seed, moves)`;
- a league's match gets `job_seed(league_seed, *coordinates)`.

Every seed stays below the protocol's largest integer (`MAX_SEED`, 2^63 - 1).
"""

from __future__ import annotations

import hashlib

#: The protocol's largest integer: every seed sent to a server is at most this.
MAX_SEED = (1 << 63) - 1


def game_seed(match_seed: int, games_before: int) -> int:
    """The seed of a match's game that has `games_before` games before it."""
    return match_seed + games_before


def move_seed(game: int, moves: int) -> int:
    """The seed handed to a player for its decision after `moves` moves of the game
    whose seed is `game`."""
    return (game * 100_003 + moves) % MAX_SEED


def job_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a league's seed and a match's coordinates in its schedule."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
