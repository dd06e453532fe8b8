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
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacquetd_protocol.messages import Limits as CodecLimits

DEFAULT_ZMQ_PORT = 7780
DEFAULT_TCP_PORT = 7781
DEFAULT_GNUBG_PORT = 7782
DEFAULT_WS_PORT = 7783
LOOPBACK = "127.0.0.1"

OFF_WORDS = frozenset({"", "off", "none", "no", "false"})


class ConfigError(ValueError):
    """A configuration value is malformed or out of range."""


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
    # Work one request may ask for: search depth (4 plies takes about 40 s here; 5 takes
    # minutes and gigabytes), the memory of the worker running it (a worker over it is
    # replaced and the request gets `too_large`), and the share of the workers (percent,
    # at least one of two or more) kept for cheap requests while heavy ones (2 plies and
    # more, record analysis, a budget over a second) wait.
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
    ttl_ms: int = 30_000  # accepted for older configurations; no longer used


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
    if scheme == "tcp" and text.endswith(":0"):
        text = text[:-2] + ":*"
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
_TOP_FIELDS = {
    "bind",
    "tcp",
    "gnubg",
    "ws",
    "ws_origins",
    "ws_token_file",
    "workers",
    "replicas",
    "curve_secret",
    "curve_clients",
    "drain_timeout_s",
    "cancel_grace_s",
    "gnubg_level",
    "seed",
    "log_level",
    "log_format",
    "db",
    "max_matches",
    "match_idle_timeout_s",
    "keep_days",
    "keep_matches",
    "keep_replies_days",
    "scheduler",
}
LOG_LEVELS = ("debug", "info", "warning", "error")


def _positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name}: expected an integer >= {minimum}, got {value!r}")
    return value


def _check(cfg: Config) -> Config:
    lim = cfg.limits
    for name in _LIMIT_FIELDS:
        _positive_int(f"limits.{name}", getattr(lim, name))
    if lim.zmq_max_msg_bytes < lim.max_frame_bytes:
        raise ConfigError("limits.zmq_max_msg_bytes must be >= limits.max_frame_bytes")
    for name in _HEARTBEAT_FIELDS:
        _positive_int(f"heartbeat.{name}", getattr(cfg.heartbeat, name), minimum=0)
    _positive_int("workers", cfg.workers, minimum=0)
    if not cfg.gnubg_level:
        raise ConfigError("gnubg_level must name a bot level")
    if cfg.log_level not in LOG_LEVELS:
        raise ConfigError(f"log_level: one of {', '.join(LOG_LEVELS)}")
    if cfg.log_format not in ("kv", "json"):
        raise ConfigError("log_format: 'kv' or 'json'")
    if cfg.drain_timeout_s < 0 or cfg.cancel_grace_s < 0:
        raise ConfigError("drain_timeout_s and cancel_grace_s must be >= 0")
    if (cfg.curve_secret is None) != (cfg.curve_clients is None):
        raise ConfigError("curve_secret and curve_clients go together")
    if cfg.zmq_bind is None and cfg.tcp is None and cfg.gnubg is None and cfg.ws is None:
        raise ConfigError("every endpoint is off: nothing to serve")
    return cfg


def apply_settings(base: Config, settings: dict[str, Any], origin: str) -> Config:
    """Return ``base`` updated from a mapping shaped like the TOML file.

    Top-level keys are those of ``_TOP_FIELDS``; ``[limits]`` and
    ``[heartbeat]`` tables hold the fields of :class:`Limits` and
    :class:`Heartbeat`. Unknown keys are errors (a typo should not be ignored).
    """
    changes: dict[str, Any] = {}
    for key, value in settings.items():
        if key == "limits":
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: [limits] must be a table")
            unknown = set(value) - _LIMIT_FIELDS
            if unknown:
                raise ConfigError(f"{origin}: unknown limits: {', '.join(sorted(unknown))}")
            changes["limits"] = dataclasses.replace(changes.get("limits", base.limits), **value)
        elif key == "heartbeat":
            if not isinstance(value, dict):
                raise ConfigError(f"{origin}: [heartbeat] must be a table")
            unknown = set(value) - _HEARTBEAT_FIELDS
            if unknown:
                raise ConfigError(f"{origin}: unknown heartbeat keys: {', '.join(sorted(unknown))}")
            changes["heartbeat"] = dataclasses.replace(
                changes.get("heartbeat", base.heartbeat), **value
            )
        elif key not in _TOP_FIELDS:
            raise ConfigError(f"{origin}: unknown key {key!r}")
        elif value is None:
            continue
        elif key == "bind":
            changes["zmq_bind"] = parse_zmq_endpoint(str(value))
        elif key in ("tcp", "gnubg", "ws"):
            changes[key] = parse_host_port(str(value), key)
        elif key == "ws_origins":
            items = value.split(",") if isinstance(value, str) else list(value)
            changes[key] = tuple(str(o).strip().rstrip("/") for o in items if str(o).strip())
        elif key in ("workers", "seed", "replicas"):
            changes[key] = _positive_int(key, value, minimum=0)
        elif key == "db":
            text = str(value).strip()
            # "default" (or empty): the user's data folder; an engine on stdio opens a
            # database only when asked to (see cli.load_config)
            changes[key] = (None if text.lower() in OFF_WORDS - {""}
                            else "" if text.lower() == "default" else text)
        elif key in ("max_matches", "keep_matches"):
            changes[key] = _positive_int(key, value)
        elif key in ("keep_days", "keep_replies_days"):
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"{origin}: {key} must be a number >= 0")
            changes[key] = float(value)
        elif key == "match_idle_timeout_s":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{origin}: {key} must be a number > 0")
            changes[key] = float(value)
        elif key in ("drain_timeout_s", "cancel_grace_s"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{origin}: {key} must be a number")
            changes[key] = float(value)
        else:
            changes[key] = str(value)
    return _check(dataclasses.replace(base, **changes))


def load_toml(path: str | Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


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
