"""Check, before anything slow, that the daemon can start: its TCP ports are free, its
data folder is usable, its match database is not another daemon's, and the files it
reads (the WebSocket token, the CurveZMQ secret key) are readable and small.

The first start compiles the move generator (tens of seconds) and builds tables; a
conflict must be reported before that, once, with every way out. `check_start` says
every problem it finds in one message, and keeps the database's lock from then on (the
store opened later adopts it), so that no other daemon takes the database meanwhile.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from jacquetd.daemon.config import (
    MAX_SECRET_FILE_BYTES,
    Config,
    ConfigError,
    database_path,
    read_bounded,
)

#: How to move each endpoint elsewhere: flag, TOML key, environment variable.
HOW = {
    "zmq": ("--bind tcp://HOST:PORT", "bind", "JACQUETD_BIND"),
    "tcp": ("--tcp HOST:PORT", "tcp", "JACQUETD_TCP"),
    "gnubg": ("--gnubg HOST:PORT", "gnubg", "JACQUETD_GNUBG"),
    "ws": ("--ws HOST:PORT", "ws", "JACQUETD_WS"),
}


def fixed_ports(cfg: Config) -> list[tuple[str, str, int]]:
    """(endpoint, host, port) of every TCP endpoint with a fixed port (port 0 and
    ipc/inproc endpoints cannot be taken)."""
    out: list[tuple[str, str, int]] = []
    if cfg.zmq_bind is not None and cfg.zmq_bind.startswith("tcp://"):
        host, _, port = cfg.zmq_bind[len("tcp://"):].rpartition(":")
        if port.isascii() and port.isdigit() and int(port) > 0:
            host = host.strip("[]")
            out.append(("zmq", "0.0.0.0" if host == "*" else host, int(port)))
    for name, where in (("tcp", cfg.tcp), ("gnubg", cfg.gnubg), ("ws", cfg.ws)):
        if where is not None and where[1] > 0:
            out.append((name, where[0], where[1]))
    return out


def _free(host: str, port: int) -> str | None:
    """None if `host:port` can be bound now, else why not."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot resolve {host}: {exc.strerror or exc}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


#: The ways to move a database elsewhere, named in every message about ports: a second
#: daemon (the usual holder of a taken port) also owns its database.
DB_HOW = ("a second daemon also needs a match database of its own: --db PATH (or `db` in "
          "the configuration file, or $JACQUETD_DB), or --db off")


def port_problems(cfg: Config) -> list[str]:
    """What keeps the fixed ports from being bound (one sentence, or none)."""
    busy = []
    for name, host, port in fixed_ports(cfg):
        why = _free(host, port)
        if why is not None:
            busy.append((name, host, port, why))
    if not busy:
        return []
    parts = [f"{name} endpoint {host}:{port} ({why})" for name, host, port, why in busy]
    ways = "; ".join(f"{HOW[name][0]} (or `{HOW[name][1]}` in the configuration file, or "
                     f"${HOW[name][2]})" for name, *_ in busy)
    text = (f"cannot listen on {', '.join(parts)}: another program (perhaps another "
            f"jacquetd) uses it. Choose other ports with {ways}; port 0 picks a free one, "
            "'off' turns an endpoint off")
    if cfg.db is not None:
        text += f"; {DB_HOW}"
    return [text]


def check_ports(cfg: Config) -> None:
    """Raise one ConfigError naming every port that cannot be bound and how to choose
    another (and how to give a second daemon its own database); return quietly when all
    are free."""
    problems = port_problems(cfg)
    if problems:
        raise ConfigError(problems[0])


def database_problems(cfg: Config) -> list[str]:
    """Whether the database's folder can be made and written, and the database is free;
    takes the database's lock for this process when it is (`store.reserve`)."""
    path = database_path(cfg)
    if path is None:
        return []
    from jacquetd.matches import store

    ways = ("--db PATH (or `db` in the configuration file, or $JACQUETD_DB), or --db off "
            "to serve without hosted matches")
    folder = Path(store.resolve_path(path)).parent
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return [f"the data folder {folder} cannot be made: {probe} is not a folder; "
                f"choose another database with {ways}"]
    if probe == folder and not os.access(folder, os.W_OK | os.X_OK):
        return [f"the data folder {folder} is not writable by this user; choose another "
                f"database with {ways}"]
    if probe != folder and not os.access(probe, os.W_OK | os.X_OK):
        return [f"the data folder {folder} cannot be made ({probe} is not writable by this "
                f"user); choose another database with {ways}"]
    try:
        from jacquetd.daemon.hosted import private_folder

        private_folder(folder, tighten=path == store.default_db_path())
        store.reserve(path)
    except store.StoreInUse as exc:
        return [str(exc)]
    except OSError as exc:
        return [f"the match database {path} cannot be opened: {exc.strerror or exc}; choose "
                f"another with {ways}"]
    return []


def file_problems(cfg: Config) -> list[str]:
    """The WebSocket token file and the CurveZMQ secret key, read with a size limit (the
    daemon reads them again when it opens the endpoints), and the clients' key folder."""
    out = []
    for path, what in ((cfg.ws_token_file if cfg.ws is not None else None, "--ws-token-file"),
                       (cfg.curve_secret if cfg.zmq_bind is not None else None,
                        "--curve-secret")):
        if path is None:
            continue
        try:
            read_bounded(path, MAX_SECRET_FILE_BYTES, what)
        except ConfigError as exc:
            out.append(str(exc))
    if cfg.curve_clients is not None and not Path(cfg.curve_clients).is_dir():
        out.append(f"--curve-clients {cfg.curve_clients}: not a folder")
    return out


def check_start(cfg: Config, *, ports: bool = True) -> None:
    """Everything that can stop the daemon's start, checked in well under a second before
    any compile or build: the files it reads, the ports (`ports`: the endpoints are
    served), the data folder and the database's lock. One ConfigError says every problem
    found; on success this process holds the database's lock."""
    problems = file_problems(cfg)
    if ports:
        problems += port_problems(cfg)
    problems += database_problems(cfg)
    if problems:
        raise ConfigError("; and ".join(problems) if len(problems) > 1 else problems[0])
