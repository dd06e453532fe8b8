"""The league file (TOML): what to play, between whom, and how. Every key, with its
default and meaning, is in docs/guides/leagues.md; relative paths in `command` run
from the league file's folder.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: A variant's name; which variants exist is the daemon's to say (`hello`'s `variants`),
#: checked when the league starts it.
VARIANT_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}\Z")
FORMATS = ("round-robin", "gauntlet")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}\Z")
#: The daemon a league spawns when its file names none: empty means `python -m jacquetd
#: stdio` with the league's own interpreter (clients/spawning.py).
DEFAULT_DAEMON: tuple[str, ...] = ()


class LeagueConfigError(ValueError):
    """The league file is not valid; the message names the key at fault."""


@dataclass(frozen=True)
class EngineSpec:
    """One participant: exactly one of `level` (a daemon bot level), `command` (a
    protocol v1 program over stdio) or `gnubg` (the gnubg program's path)."""

    name: str
    level: str | None = None
    command: tuple[str, ...] | None = None
    gnubg: str | None = None
    plies: int | None = None
    time_ms: int | None = None   # overrides the league's time_ms for this engine
    options: dict[str, Any] = field(default_factory=dict)  # extra best_move arguments

    @property
    def kind(self) -> str:
        return "level" if self.level else "command" if self.command else "gnubg"

    def describe(self) -> str:
        if self.level:
            return f"daemon level {self.level}" + (f", {self.plies} plies"
                                                    if self.plies is not None else "")
        if self.command:
            return "command " + " ".join(self.command)
        return "GNU Backgammon" + (f", {self.plies} plies" if self.plies is not None else "")


@dataclass(frozen=True)
class SprtSpec:
    a: str
    b: str
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 2000


@dataclass(frozen=True)
class LeagueConfig:
    engines: tuple[EngineSpec, ...]
    name: str = "league"
    variant: str = "jacquet"
    format: str = "round-robin"
    games: int = 2
    swap: bool = True
    match_length: int = 0
    cube: bool = False
    luck: bool = True   # judge every roll's luck: luck-adjusted figures (results the same)
    time_ms: int = 200
    seed: int = 1
    concurrency: int = 1
    challenger: str | None = None
    daemon_connect: str | None = None
    daemon_command: tuple[str, ...] = DEFAULT_DAEMON
    sprt: SprtSpec | None = None
    base_dir: str = "."
    cluster_scheduler: str | None = None   # [cluster] scheduler: a Dask scheduler's address

    def engine(self, name: str) -> EngineSpec:
        return next(e for e in self.engines if e.name == name)

    def fingerprint(self) -> str:
        """A hash of everything that decides the games (not `concurrency`, where the
        daemon is, nor whether luck is judged): a journal is only resumed by the league
        that wrote it."""
        d = asdict(self)
        for key in ("concurrency", "daemon_connect", "daemon_command", "base_dir",
                    "cluster_scheduler", "luck"):
            d.pop(key)
        blob = json.dumps(d, sort_keys=True, default=list).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _get(d: dict[str, Any], key: str, kind: type | tuple[type, ...], default: Any,
         where: str = "") -> Any:
    value = d.get(key, default)
    if value is default:
        return value
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise LeagueConfigError(f"{where}{key}: expected a number, not {value!r}")
    if not isinstance(value, kind):
        name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise LeagueConfigError(f"{where}{key}: expected {name}, not {value!r}")
    return value


def _engine(raw: Any, n: int) -> EngineSpec:
    where = f"engines[{n}]."
    if not isinstance(raw, dict):
        raise LeagueConfigError(f"engines[{n}]: expected a table")
    name = _get(raw, "name", str, None, where)
    if name is None or not NAME_RE.match(name):
        raise LeagueConfigError(f"{where}name: 1-40 letters, digits or _.+- (got {name!r})")
    level = _get(raw, "level", str, None, where)
    command = _get(raw, "command", (list, str), None, where)
    gnubg = _get(raw, "gnubg", (str, bool), None, where)
    if sum(x is not None and x is not False for x in (level, command, gnubg)) != 1:
        raise LeagueConfigError(f"engines[{n}] ({name}): give exactly one of level, command, "
                                "gnubg")
    if isinstance(command, str):
        command = command.split()
    if command is not None and (not command or not all(isinstance(w, str) for w in command)):
        raise LeagueConfigError(f"{where}command: a list of words")
    plies = _get(raw, "plies", int, None, where)
    time_ms = _get(raw, "time_ms", int, None, where)
    known = {"name", "level", "command", "gnubg", "plies", "time_ms"}
    options = {k: v for k, v in raw.items() if k not in known}
    return EngineSpec(name, level, tuple(command) if command else None,
                      ("gnubg" if gnubg is True else gnubg) or None, plies, time_ms, options)


def parse_league(data: dict[str, Any], base_dir: str = ".") -> LeagueConfig:
    """A validated LeagueConfig from the parsed TOML tables."""
    raw_engines = data.get("engines")
    if not isinstance(raw_engines, list) or len(raw_engines) < 2:
        raise LeagueConfigError("engines: a league needs at least two [[engines]]")
    engines = tuple(_engine(e, i) for i, e in enumerate(raw_engines))
    names = [e.name for e in engines]
    if len(set(names)) != len(names):
        raise LeagueConfigError(f"engines: names must be unique ({', '.join(names)})")
    variant = _get(data, "variant", str, "jacquet")
    if not VARIANT_RE.match(variant):
        raise LeagueConfigError(f"variant: a variant's name, such as jacquet, jacquet-be or "
                                f"backgammon (got {variant!r})")
    if variant != "backgammon" and any(e.gnubg for e in engines):
        raise LeagueConfigError("gnubg plays the backgammon variant only")
    fmt = _get(data, "format", str, "round-robin").replace("_", "-")
    if fmt not in FORMATS:
        raise LeagueConfigError(f"format: one of {', '.join(FORMATS)} (got {fmt!r})")
    challenger = _get(data, "challenger", str, None)
    if challenger is not None and challenger not in names:
        raise LeagueConfigError(f"challenger: no engine {challenger!r}")
    ints = {}
    for key, default, low in (("games", 2, 1), ("match_length", 0, 0), ("time_ms", 200, 1),
                              ("concurrency", 1, 1)):
        value = _get(data, key, int, default)
        if value < low:
            raise LeagueConfigError(f"{key}: at least {low}")
        ints[key] = value
    seed = _get(data, "seed", int, 1)
    daemon = _get(data, "daemon", dict, {})
    connect = _get(daemon, "connect", str, None, "daemon.")
    command = _get(daemon, "command", (list, str), list(DEFAULT_DAEMON), "daemon.")
    if isinstance(command, str):
        command = command.split()
    cluster = _get(data, "cluster", dict, {})
    scheduler = _get(cluster, "scheduler", str, None, "cluster.")
    if scheduler is not None and not re.match(r"^(tcp|tls)://[^\s/]+:[0-9]+\Z", scheduler):
        raise LeagueConfigError(f"cluster.scheduler: tcp://HOST:PORT or tls://HOST:PORT "
                                f"(got {scheduler!r})")
    sprt = None
    if "sprt" in data:
        s = _get(data, "sprt", dict, {})
        pair = _get(s, "engines", list, None, "sprt.")
        if not pair or len(pair) != 2 or not all(p in names for p in pair) or pair[0] == pair[1]:
            raise LeagueConfigError("sprt.engines: two different engine names of the league")
        values = {k: float(_get(s, k, (int, float), d, "sprt."))
                  for k, d in (("elo0", 0.0), ("elo1", 50.0), ("alpha", 0.05), ("beta", 0.05))}
        if not values["elo1"] > values["elo0"]:
            raise LeagueConfigError("sprt: elo1 must be above elo0")
        if not (0 < values["alpha"] < 0.5 and 0 < values["beta"] < 0.5):
            raise LeagueConfigError("sprt: alpha and beta between 0 and 0.5")
        sprt = SprtSpec(pair[0], pair[1], max_games=_get(s, "max_games", int, 2000, "sprt."),
                        **values)
    return LeagueConfig(
        engines=engines, name=_get(data, "name", str, "league"), variant=variant, format=fmt,
        swap=_get(data, "swap", bool, True), cube=_get(data, "cube", bool, False), seed=seed,
        luck=_get(data, "luck", bool, True),
        challenger=challenger, daemon_connect=connect, daemon_command=tuple(command),
        sprt=sprt, base_dir=base_dir, cluster_scheduler=scheduler, **ints)


def load_league(path: str | Path) -> LeagueConfig:
    """Read and validate a league file; LeagueConfigError names what is wrong."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LeagueConfigError(f"{path.name}: {exc}") from None
    return parse_league(data, str(path.parent.resolve()))
