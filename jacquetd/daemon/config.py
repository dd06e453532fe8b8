"""Daemon configuration: embedded defaults, a TOML file, environment variables, flags.

The precedence is the usual one, each later source winning over the earlier ones:

1. the embedded defaults below;
2. the TOML file: ``--config FILE``, else ``$JACQUETD_CONFIG``, else
   ``jacquetd.toml`` in the user's configuration folder (``$XDG_CONFIG_HOME/jacquetd``,
   by default ``~/.config/jacquetd``) when it exists;
3. the ``JACQUETD_*`` environment variables of `ENV_SETTINGS`;
4. the command-line flags.

Every limit here is reported by the ``hello`` command.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacquetd_protocol.messages import Limits as CodecLimits

from jacquetd.search_settings import DEFAULT_SETTINGS, SearchSettings

DEFAULT_ZMQ_PORT = 7780
DEFAULT_TCP_PORT = 7781
DEFAULT_GNUBG_PORT = 7782
DEFAULT_WS_PORT = 7783
LOOPBACK = "127.0.0.1"

OFF_WORDS = frozenset({"", "off", "none", "no", "false"})


class ConfigError(ValueError):
    """A configuration value is malformed or out of range."""


#: The most a configuration file, a WebSocket token file or a CurveZMQ secret key file may
#: hold: each is a few hundred bytes; a larger one (or a device that never ends, such as
#: /dev/zero) is refused after reading at most this much.
MAX_CONFIG_FILE_BYTES = 1024 * 1024
MAX_SECRET_FILE_BYTES = 64 * 1024
#: Worker processes (and front replicas) per core at most: each is a process of its own
#: with the bots' tables; more than a few per core only takes memory and time to start.
MAX_PROCESSES_PER_CORE = 4


def process_cap() -> int:
    """The most workers (or replicas) this machine accepts: `MAX_PROCESSES_PER_CORE` per
    core, at least 8."""
    return max(8, MAX_PROCESSES_PER_CORE * (os.cpu_count() or 1))


def read_bounded(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of the file at `path`, at most `limit` of them; ConfigError naming `what`
    and the path otherwise. At most `limit` + 1 bytes are read, whatever the path names
    (a device such as /dev/zero, a pipe, a file growing meanwhile); a folder is refused."""
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise ConfigError(f"{what} {path}: a folder, not a file")
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise ConfigError(f"{what} {path}: {info.st_size} bytes, more than the "
                                  f"{limit} such a file may hold")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ConfigError(f"{what} {path}: more than the {limit} bytes such a file may hold")
    return data


@dataclass(frozen=True)
class Limits(CodecLimits):
    """Bounds on what one peer may ask of the daemon (all reported by ``hello``).

    The protocol's limits (``protocol.messages.Limits``: message size, nesting, list,
    map and string lengths, requests in flight), enforced by the codec while decoding,
    with their defaults defined there once; then the daemon's own, below. SPEC.md
    section 10 lists the first group (generated), 10.1 the second with the defaults
    that ship (a test compares them).
    """

    # Daemon-side limits.
    # Transport hard cap set as zmq.MAXMSGSIZE: libzmq drops the connection of a
    # peer that sends more than this, before the daemon ever sees the message.
    # It is kept well above max_frame_bytes so that the documented error, not a
    # disconnect, is what a peer normally meets.
    zmq_max_msg_bytes: int = 4 * 1024 * 1024
    max_queue: int = 512  # requests waiting for a worker, all clients together
    default_timeout_ms: int = 300_000  # deadline of a request without timeout_ms
    tcp_write_buffer_bytes: int = 1024 * 1024  # a TCP peer that lets more pile up is dropped
    max_connections: int = 1024  # TCP and gnubg connections together (stdio not counted)
    max_connections_per_source: int = 128  # of those, from one source address
    # A byte-stream connection with nothing in flight that sends nothing this long is closed.
    idle_timeout_ms: int = 300_000
    # A message (protocol request, gnubg line) begun must end within this; else the
    # connection is closed (a peer that trickles bytes holds nothing for long).
    message_timeout_ms: int = 30_000
    gnubg_max_line_bytes: int = 4096  # a longer gnubg line gets an error line
    # Work one request may ask for: search depth (each ply multiplies the work by the 21
    # rolls; 5 plies takes minutes and gigabytes), the memory of the worker running it (a
    # worker over it is replaced and the request gets `too_large`), and the share of the
    # workers (percent, at least one of two or more) kept for cheap requests while heavy
    # ones (2 plies and more, record analysis, a budget over a second) wait.
    max_watches: int = 10_000  # match_watch streams open at once, all clients together
    max_plies: int = 4
    worker_max_rss_mb: int = 2048
    cheap_share_percent: int = 25

    def codec_limits(self) -> CodecLimits:
        """The limits the protocol codec enforces, made once per `Limits` (every decoded
        request asks for them)."""
        made = self.__dict__.get("_codec_limits")
        if made is None:
            names = {f.name for f in dataclasses.fields(CodecLimits)}
            made = CodecLimits(**{k: v for k, v in self.to_dict().items() if k in names})
            object.__setattr__(self, "_codec_limits", made)  # a cache, not a field
        return made


@dataclass(frozen=True)
class Heartbeat:
    """Liveness of peers (milliseconds): TCP keepalive on the ZeroMQ socket (see
    server.set_liveness: not ZMTP heartbeats), pings on WebSocket connections."""

    ivl_ms: int = 5_000  # probe (ping) a connection silent this long, and this often
    timeout_ms: int = 15_000  # drop a peer that has not answered this long


@dataclass(frozen=True)
class Config:
    """Everything ``jacquetd serve`` needs to start."""

    zmq_bind: str | None = f"tcp://{LOOPBACK}:{DEFAULT_ZMQ_PORT}"
    tcp: tuple[str, int] | None = (LOOPBACK, DEFAULT_TCP_PORT)
    gnubg: tuple[str, int] | None = (LOOPBACK, DEFAULT_GNUBG_PORT)
    # WebSocket endpoint and web app (jacquetd.daemon.ws): extra allowed page origins
    # (loopback origins always are), and the file of the bearer token (required when the
    # endpoint is bound beyond loopback).
    ws: tuple[str, int] | None = (LOOPBACK, DEFAULT_WS_PORT)
    ws_origins: tuple[str, ...] = ()
    ws_token_file: str | None = None
    workers: int = 0  # 0: one per core
    # front replicas (replicas.py): processes answering legal_moves and apply_move
    # beside the front; -1 (not set): 2 on a machine of 2 cores or more, else 0
    replicas: int = -1
    limits: Limits = field(default_factory=Limits)
    heartbeat: Heartbeat = field(default_factory=Heartbeat)
    curve_secret: str | None = None  # path of the server's secret certificate
    curve_clients: str | None = None  # folder of the authorised clients' public certificates
    drain_timeout_s: float = 10.0  # SIGTERM/SIGINT: how long in-flight requests may finish
    cancel_grace_s: float = 0.5  # a worker that ignores a cancel this long is replaced
    gnubg_level: str = "neural-2"  # bot level answering the gnubg endpoint (best_move's default)
    # The searches' move filter (CANDIDATES:WINDOW per depth) and pruning networks
    # (jacquetd.bots.search; docs/bots.md)
    move_filter: str = DEFAULT_SETTINGS.filter_text()
    prune: bool = True
    seed: int | None = None  # base seed of the worker RNGs (None: from the OS)
    log_level: str = "info"
    log_format: str = "kv"  # "kv" (key=value) or "json"
    # Hosted matches: the SQLite database ("" the user's data folder, None: off), how many
    # matches may be in play at once, and how long one may stay idle before it is adjourned.
    db: str | None = ""
    max_matches: int = 256
    match_idle_timeout_s: float = 3600.0
    # Retention (at start and every few hours): finished and closed matches are kept this
    # many days after they ended, at most keep_matches of them; stored replies (retries)
    # keep_replies_days. Matches in play or adjourned are never pruned.
    keep_days: float = 365.0
    keep_matches: int = 100_000
    keep_replies_days: float = 7.0
    # A Dask scheduler (tcp://HOST:PORT, or tls://...) that `rollout` sends its trials to;
    # None: the daemon's own worker pool.
    scheduler: str | None = None
    # Tuning of the front (no flag; the file or `--config`). Each default is the value the
    # named benchmark chose; rerun it with `--config` to choose again on other hardware.
    # ZeroMQ messages the front reads per turn of its event loop: more reads a flood
    # further ahead of the other endpoints' turns, fewer costs a turn per few messages
    # (`python benchmarks/bench_hardening.py`: the TCP and gnubg probes' p99 under floods).
    zmq_read_batch: int = 16
    # A replica holds a second request (one waiting behind the one it computes) only while
    # the replicas' mean time an answer is at least this many microseconds: a cheap
    # request waits less in the front than behind another in a replica
    # (`python benchmarks/bench_daemon_paired.py --clients 8`, against `--replicas 0`).
    replica_deep_us: int = 400

    @property
    def worker_count(self) -> int:
        if self.workers > 0:
            return self.workers
        return max(1, os.cpu_count() or 1)

    @property
    def replica_count(self) -> int:
        if self.replicas >= 0:
            return self.replicas
        return 2 if (os.cpu_count() or 1) >= 2 else 0

    @property
    def curve(self) -> bool:
        return self.curve_secret is not None

    @property
    def search_settings(self) -> SearchSettings:
        """The workers' search settings (`move_filter` checked by `_check`)."""
        return SearchSettings(SearchSettings.parse_filters(self.move_filter), self.prune)


def database_path(cfg: Config) -> Path | None:
    """The match database of this configuration, as given (None: hosted matches off)."""
    if cfg.db is None:
        return None
    from jacquetd.matches.store import default_db_path

    return Path(cfg.db).expanduser() if cfg.db else default_db_path()


def parse_host_port(text: str, what: str) -> tuple[str, int] | None:
    """Parse ``HOST:PORT`` (or ``PORT`` alone, on loopback); ``off`` disables."""
    text = text.strip()
    if text.lower() in OFF_WORDS:
        return None
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = LOOPBACK, text
    host = host.strip("[]") or LOOPBACK
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"{what}: expected HOST:PORT, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise ConfigError(f"{what}: port {port} out of range")
    return host, port


def parse_zmq_endpoint(text: str) -> str | None:
    """Accept ``tcp://HOST:PORT``, ``ipc://PATH``, ``inproc://NAME``, or ``HOST:PORT``."""
    text = text.strip()
    if text.lower() in OFF_WORDS:
        return None
    if "://" not in text:
        host, port = parse_host_port(text, "--bind") or (LOOPBACK, 0)
        return f"tcp://{host}:{port if port else '*'}"
    scheme = text.split("://", 1)[0]
    if scheme not in ("tcp", "ipc", "inproc"):
        raise ConfigError(f"--bind: unsupported transport {scheme!r}")
    if scheme == "tcp":
        where, sep, port_text = text[len("tcp://"):].rpartition(":")
        if not sep or not where:
            raise ConfigError(f"--bind {text!r}: expected tcp://HOST:PORT")
        if port_text != "*":
            if (not (port_text.isascii() and port_text.isdigit())
                    or not 0 <= int(port_text) <= 65535):
                raise ConfigError(f"--bind {text!r}: port {port_text!r} out of range "
                                  "(0-65535, or * for a free one)")
            if int(port_text) == 0:
                text = f"tcp://{where}:*"
    return text


def is_loopback_host(host: str) -> bool:
    if host in ("localhost", "*"):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def zmq_endpoint_is_loopback(endpoint: str) -> bool:
    if not endpoint.startswith("tcp://"):
        return True  # ipc and inproc never leave the machine
    host = endpoint[len("tcp://") :].rpartition(":")[0].strip("[]")
    return is_loopback_host(host)


_LIMIT_FIELDS = {f.name for f in dataclasses.fields(Limits)}
_HEARTBEAT_FIELDS = {f.name for f in dataclasses.fields(Heartbeat)}
#: The top-level keys of the file: the fields of `Config` (`bind` is `zmq_bind`), the
#: tables `limits` and `heartbeat` aside.
_TOP_FIELDS = ({f.name for f in dataclasses.fields(Config)} - {"zmq_bind", "limits", "heartbeat"}
               | {"bind"})
LOG_LEVELS = ("debug", "info", "warning", "error")


#: The largest integer setting accepted (limits, heartbeat times): beyond it a value is a
#: mistake, and the system calls it reaches would overflow.
MAX_INT_SETTING = 2**31 - 1


def _positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if (isinstance(value, bool) or not isinstance(value, int) or value < minimum
            or value > MAX_INT_SETTING):
        raise ConfigError(f"{name}: expected an integer from {minimum} to {MAX_INT_SETTING}, "
                          f"got {value!r}")
    return value


def _check(cfg: Config) -> Config:
    """What no single setting shows: the limits and heartbeat tables (taken whole), the
    processes against this machine, the names and the settings that go together. Each
    top-level value was checked as it was read (`apply_settings`)."""
    lim = cfg.limits
    for name in _LIMIT_FIELDS:
        _positive_int(f"limits.{name}", getattr(lim, name))
    if lim.zmq_max_msg_bytes < lim.max_frame_bytes:
        raise ConfigError("limits.zmq_max_msg_bytes must be >= limits.max_frame_bytes")
    for name in _HEARTBEAT_FIELDS:
        _positive_int(f"heartbeat.{name}", getattr(cfg.heartbeat, name), minimum=0)
    for name in ("workers", "replicas"):
        if getattr(cfg, name) > process_cap():
            raise ConfigError(f"{name}: at most {process_cap()} on this machine "
                              f"({MAX_PROCESSES_PER_CORE} per core), got {getattr(cfg, name)}")
    try:
        SearchSettings.parse_filters(cfg.move_filter)
    except ValueError as exc:
        raise ConfigError(f"move_filter: {exc}") from None
    if cfg.log_level not in LOG_LEVELS:
        raise ConfigError(f"log_level: one of {', '.join(LOG_LEVELS)}")
    if cfg.log_format not in ("kv", "json"):
        raise ConfigError("log_format: 'kv' or 'json'")
    if (cfg.curve_secret is None) != (cfg.curve_clients is None):
        raise ConfigError("curve_secret and curve_clients go together")
    if cfg.zmq_bind is None and cfg.tcp is None and cfg.gnubg is None and cfg.ws is None:
        raise ConfigError("every endpoint is off: nothing to serve")
    return cfg


def _number(origin: str, key: str, value: Any, *, above_zero: bool) -> float:
    """A finite number >= 0 (> 0 with `above_zero`), as a float."""
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or value < 0 or (above_zero and value == 0)):
        raise ConfigError(f"{origin}: {key}: expected a finite number "
                          f"{'> 0' if above_zero else '>= 0'} (seconds or days), got {value!r}")
    return float(value)


def known_levels() -> tuple[str, ...]:
    """The bot levels the daemon answers with (the ladder, and a test's fault levels)."""
    from jacquetd.bots.players import BOT_LEVELS
    from jacquetd.daemon import fault_hook

    faults = fault_hook.installed()
    return BOT_LEVELS + (tuple(faults.levels) if faults is not None else ())


def _level(origin: str, key: str, value: Any) -> str:
    levels = known_levels()
    if not isinstance(value, str) or value not in levels:
        raise ConfigError(f"{origin}: {key}: no bot level {value!r} (levels: "
                          f"{', '.join(levels)})")
    return value


def apply_settings(base: Config, settings: dict[str, Any], origin: str) -> Config:
    """Return ``base`` updated from a mapping shaped like the TOML file.

    Top-level keys are those of ``_TOP_FIELDS``; ``[limits]`` and
    ``[heartbeat]`` tables hold the fields of :class:`Limits` and
    :class:`Heartbeat`. Unknown keys are errors (a typo should not be ignored).
    """
    changes: dict[str, Any] = {}
    for key, value in settings.items():
        if key in ("limits", "heartbeat"):
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: [{key}] must be a table")
            unknown = set(value) - (_LIMIT_FIELDS if key == "limits" else _HEARTBEAT_FIELDS)
            if unknown:
                raise ConfigError(f"{origin}: unknown {key} keys: {', '.join(sorted(unknown))}")
            changes[key] = dataclasses.replace(changes.get(key, getattr(base, key)), **value)
        elif key not in _TOP_FIELDS:
            raise ConfigError(f"{origin}: unknown key {key!r}")
        elif value is None:
            continue
        elif key == "bind":
            changes["zmq_bind"] = parse_zmq_endpoint(str(value))
        elif key in ("tcp", "gnubg", "ws"):
            changes[key] = parse_host_port(str(value), key)
        elif key == "ws_origins":
            if isinstance(value, str):
                items = value.split(",")
            elif isinstance(value, list | tuple) and all(isinstance(o, str) for o in value):
                items = list(value)
            else:
                raise ConfigError(f"{origin}: ws_origins: expected a list of origins such as "
                                  f'["https://board.example.org"], got {value!r}')
            changes[key] = tuple(o.strip().rstrip("/") for o in items if o.strip())
        elif key in ("workers", "replicas", "replica_deep_us"):
            changes[key] = _positive_int(key, value, minimum=0)
        elif key == "seed":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
                raise ConfigError(f"{origin}: seed: expected an integer from 0 to 2**63 - 1, "
                                  f"got {value!r}")
            changes[key] = value
        elif key == "db":
            text = str(value).strip()
            # "default" (or empty): the user's data folder; an engine on stdio opens a
            # database only when asked to (see cli.load_config)
            changes[key] = (None if text.lower() in OFF_WORDS - {""}
                            else "" if text.lower() == "default" else text)
        elif key in ("max_matches", "keep_matches", "zmq_read_batch"):
            changes[key] = _positive_int(key, value)
        elif key in ("keep_days", "keep_replies_days", "drain_timeout_s", "cancel_grace_s"):
            changes[key] = _number(origin, key, value, above_zero=False)
        elif key == "match_idle_timeout_s":
            changes[key] = _number(origin, key, value, above_zero=True)
        elif key == "gnubg_level":
            changes[key] = _level(origin, key, value)
        elif key == "prune":
            if not isinstance(value, bool):
                raise ConfigError(f"{origin}: prune: expected true or false, got {value!r}")
            changes[key] = value
        elif key in ("log_level", "log_format", "ws_token_file", "curve_secret",
                     "curve_clients", "scheduler") and not isinstance(value, str):
            raise ConfigError(f"{origin}: {key}: expected a string, got {value!r}")
        else:
            changes[key] = str(value)
    return _check(dataclasses.replace(base, **changes))


def load_toml(path: str | Path) -> dict[str, Any]:
    """The settings of the TOML file at `path` (at most `MAX_CONFIG_FILE_BYTES`)."""
    data = read_bounded(path, MAX_CONFIG_FILE_BYTES, "configuration file")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"configuration file {path}: not UTF-8 text ({exc.reason} at "
                          f"byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"configuration file {path}: {exc}") from None


#: Environment variables for the common settings: variable -> (TOML key, type).
ENV_SETTINGS: dict[str, tuple[str, type]] = {
    "JACQUETD_BIND": ("bind", str),
    "JACQUETD_TCP": ("tcp", str),
    "JACQUETD_GNUBG": ("gnubg", str),
    "JACQUETD_WS": ("ws", str),
    "JACQUETD_WORKERS": ("workers", int),
    "JACQUETD_DB": ("db", str),
    "JACQUETD_LOG_LEVEL": ("log_level", str),
    "JACQUETD_LOG_FORMAT": ("log_format", str),
    "JACQUETD_DRAIN_TIMEOUT": ("drain_timeout_s", float),
    "JACQUETD_GNUBG_LEVEL": ("gnubg_level", str),
}
#: The variable naming the configuration file (``--config`` wins over it).
CONFIG_ENV = "JACQUETD_CONFIG"
CONFIG_NAME = "jacquetd.toml"


def default_config_path() -> Path:
    """``jacquetd.toml`` in the user's configuration folder (platformdirs: on Linux
    ``$XDG_CONFIG_HOME/jacquetd``, by default ``~/.config/jacquetd``)."""
    import platformdirs

    return platformdirs.user_config_path("jacquetd", appauthor=False) / CONFIG_NAME


def config_file(flag: str | None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The TOML file to read: the flag's, else ``$JACQUETD_CONFIG`` (both must exist),
    else the default path if a file is there, else None."""
    env = os.environ if environ is None else environ
    if flag:
        return Path(flag)
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    path = default_config_path()
    return path if path.is_file() else None


def env_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings given by ``JACQUETD_*`` variables, typed, keyed like the TOML file."""
    env = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for name, (key, kind) in ENV_SETTINGS.items():
        text = env.get(name)
        if text is None or text == "":
            continue
        try:
            out[key] = kind(text)
        except ValueError:
            raise ConfigError(f"${name}: expected {'an integer' if kind is int else 'a number'},"
                              f" got {text!r}") from None
    return out


def build_config(toml_path: str | Path | None, overrides: dict[str, Any],
                 environ: Mapping[str, str] | None = None) -> Config:
    """Embedded defaults, then the TOML file, then the environment, then the flags.
    `environ` None: no environment variables (pass ``os.environ`` to read them)."""
    cfg = _check(Config())
    if toml_path is not None:
        cfg = apply_settings(cfg, load_toml(toml_path), str(toml_path))
    if environ is not None:
        names = {key: name for name, (key, _) in ENV_SETTINGS.items()}
        for key, value in env_settings(environ).items():
            try:
                cfg = apply_settings(cfg, {key: value}, f"${names[key]}")
            except ConfigError as exc:
                raise ConfigError(f"${names[key]}={value!r}: {exc}") from None
    return apply_settings(cfg, overrides, "command line")
