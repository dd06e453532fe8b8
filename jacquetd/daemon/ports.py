"""Check, before anything slow, that the daemon's TCP ports are free.

The first start compiles the move generator (tens of seconds); a port already taken
must be reported before that, once, with the ways to choose another.
"""

from __future__ import annotations

import socket

from jacquetd.daemon.config import Config, ConfigError

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


def check_ports(cfg: Config) -> None:
    """Raise one ConfigError naming every port that cannot be bound and how to choose
    another; return quietly when all are free."""
    busy = []
    for name, host, port in fixed_ports(cfg):
        why = _free(host, port)
        if why is not None:
            busy.append((name, host, port, why))
    if not busy:
        return
    parts = [f"{name} endpoint {host}:{port} ({why})" for name, host, port, why in busy]
    ways = "; ".join(f"{HOW[name][0]} (or `{HOW[name][1]}` in the configuration file, or "
                     f"${HOW[name][2]})" for name, *_ in busy)
    raise ConfigError(f"cannot listen on {', '.join(parts)}: another program (perhaps "
                      f"another jacquetd) uses it. Choose other ports with {ways}; port 0 "
                      "picks a free one, 'off' turns an endpoint off")
