"""The ``jacquetd`` command: ``serve``, ``stdio`` and ``keys``.

Only this module configures logging (structured lines on stderr, key=value or
JSON) and turns configuration errors into a message and exit status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

from jacquetd.daemon.config import (
    LOG_LEVELS,
    Config,
    ConfigError,
    Heartbeat,
    Limits,
    build_config,
    load_toml,
)

_KV = re.compile(r"(\w+)=(\"[^\"]*\"|'[^']*'|\S+)")


class KeyValueFormatter(logging.Formatter):
    """``ts=... level=info logger=... event=... key=value ...`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line = (f"ts={ts}.{int(record.msecs):03d}Z level={record.levelname.lower()} "
                f"logger={record.name} {record.getMessage()}")
        if record.exc_info:
            line += " exc=" + json.dumps(self.formatException(record.exc_info))
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line; ``key=value`` words of the message become fields."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        for key, value in _KV.findall(message):
            out[key] = value.strip("\"'")
        out["msg"] = message
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out)


def setup_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _key_values(items: Sequence[str] | None, fields: set[str], what: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or name not in fields:
            raise ConfigError(f"--{what} {item!r}: expected NAME=INTEGER with NAME one of "
                              f"{', '.join(sorted(fields))}")
        try:
            out[name] = int(value)
        except ValueError:
            raise ConfigError(f"--{what} {item!r}: {value!r} is not an integer") from None
    return out


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="TOML file of settings (flags win)")
    p.add_argument("--workers", type=int, metavar="N", help="worker processes (0: one per core)")
    p.add_argument("--limit", action="append", metavar="NAME=N",
                   help="set a limit reported by hello, e.g. max_frame_bytes=65536 "
                   f"(names: {', '.join(f.name for f in dataclasses.fields(Limits))})")
    p.add_argument("--drain-timeout", type=float, metavar="S",
                   help="on SIGTERM/SIGINT, seconds that requests in flight may take to finish")
    p.add_argument("--seed", type=int, metavar="N", help="base seed of the workers' RNGs")
    p.add_argument("--log-level", choices=LOG_LEVELS, help="default: info")
    p.add_argument("--log-format", choices=("kv", "json"), help="default: kv (key=value)")
    p.add_argument("--db", metavar="PATH",
                   help="SQLite database of hosted matches (default: jacquetd/matches.sqlite3 "
                   "in the user's data folder, $XDG_DATA_HOME or ~/.local/share; also "
                   "'default'); 'off' disables the match commands. One daemon owns a "
                   "database. `jacquetd stdio` opens one only when given --db")
    p.add_argument("--max-matches", type=int, metavar="N",
                   help="hosted matches in play at once (default 256)")
    p.add_argument("--match-idle-timeout", type=float, metavar="S",
                   help="seconds without an action before a hosted match is adjourned "
                   "(default 3600)")
    p.add_argument("--test-levels", action="store_true", default=None, help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jacquetd",
        description="Engine service for Jacquet, Belgian Jacquet and backgammon.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the daemon (ZeroMQ, TCP and gnubg endpoints)",
                           description="Run the daemon until SIGTERM or SIGINT. All endpoints "
                           "listen on loopback unless an address is given.")
    serve.add_argument("--bind", metavar="ENDPOINT",
                       help="ZeroMQ ROUTER endpoint, e.g. tcp://127.0.0.1:7780; 'off' disables; "
                       "port 0 picks a free port")
    serve.add_argument("--tcp", metavar="HOST:PORT",
                       help="plain TCP protocol endpoint (default 127.0.0.1:7781; 'off')")
    serve.add_argument("--gnubg", metavar="HOST:PORT",
                       help="GNU Backgammon external-player endpoint (default 127.0.0.1:7782; "
                       "'off')")
    serve.add_argument("--ws", metavar="HOST:PORT",
                       help="WebSocket endpoint and web app (default 127.0.0.1:7783; 'off')")
    serve.add_argument("--ws-origin", action="append", metavar="ORIGIN",
                       help="a page origin allowed on the WebSocket endpoint besides loopback "
                       "ones, e.g. https://example.org (repeatable)")
    serve.add_argument("--ws-token-file", metavar="FILE",
                       help="file holding the bearer token the WebSocket endpoint requires "
                       "(required when it is bound beyond loopback)")
    serve.add_argument("--gnubg-level", metavar="LEVEL",
                       help="bot level answering the gnubg endpoint")
    serve.add_argument("--curve-secret", metavar="FILE",
                       help="server's CurveZMQ secret key (from 'jacquetd keys'); requires "
                       "--curve-clients and turns the unauthenticated endpoints off unless "
                       "given explicitly")
    serve.add_argument("--curve-clients", metavar="DIR",
                       help="folder of the public keys of the clients allowed in")
    serve.add_argument("--heartbeat", action="append", metavar="NAME=MS",
                       help="ZMTP heartbeat: ivl_ms, timeout_ms, ttl_ms")
    _add_engine_options(serve)

    stdio = sub.add_parser("stdio", help="serve one client on standard input and output",
                           description="Read requests (text lines or msgpack) on stdin, write "
                           "replies on stdout; at end of input answer what is in flight, exit.")
    _add_engine_options(stdio)

    keys = sub.add_parser("keys", help="create a CurveZMQ key pair",
                          description="Write NAME.key (public) and NAME.key_secret in DIR.")
    keys.add_argument("directory", metavar="DIR")
    keys.add_argument("--name", default="jacquetd", help="file name stem (default: jacquetd)")

    db = sub.add_parser("db", help="maintain the match database: stats, prune, vacuum, check",
                        description="stats: matches by status, rows, size; prune: apply the "
                        "retention policy now; vacuum: give deleted space back; check: "
                        "integrity and every action log. Refused while a daemon owns the "
                        "database.")
    db.add_argument("action", choices=("stats", "prune", "vacuum", "check"))
    db.add_argument("--db", metavar="PATH", help="the database (default: the user's)")
    db.add_argument("--keep-days", type=float, metavar="D",
                    help="prune: finished and closed matches ended more than D days ago "
                    "(default 365)")
    db.add_argument("--keep-matches", type=int, metavar="N",
                    help="prune: keep at most N finished and closed matches (default 100000)")
    db.add_argument("--keep-replies-days", type=float, metavar="D",
                    help="prune: stored replies for retries older than D days (default 7)")

    sub.add_parser("train", help="train a neural evaluator by TD(lambda) self-play",
                   description="jacquetd train --variant V --games N --seed S [...]: see "
                   "'jacquetd train --help'.", add_help=False)
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attr, key in (("bind", "bind"), ("tcp", "tcp"), ("gnubg", "gnubg"),
                      ("ws", "ws"), ("ws_origin", "ws_origins"),
                      ("ws_token_file", "ws_token_file"),
                      ("gnubg_level", "gnubg_level"), ("curve_secret", "curve_secret"),
                      ("curve_clients", "curve_clients"), ("workers", "workers"),
                      ("drain_timeout", "drain_timeout_s"), ("seed", "seed"),
                      ("log_level", "log_level"), ("log_format", "log_format"),
                      ("test_levels", "test_levels"), ("db", "db"),
                      ("max_matches", "max_matches"),
                      ("match_idle_timeout", "match_idle_timeout_s")):
        value = getattr(args, attr, None)
        if value is not None:
            out[key] = value
    limits = _key_values(args.limit, {f.name for f in dataclasses.fields(Limits)}, "limit")
    if limits:
        out["limits"] = limits
    beats = _key_values(getattr(args, "heartbeat", None),
                        {f.name for f in dataclasses.fields(Heartbeat)}, "heartbeat")
    if beats:
        out["heartbeat"] = beats
    return out


def load_config(args: argparse.Namespace, stdio: bool = False) -> Config:
    overrides = _overrides(args)
    cfg = build_config(args.config, overrides)
    explicit = set(overrides)
    if args.config is not None:
        explicit |= set(load_toml(args.config))
    if cfg.curve:
        # Authentication asked for: the endpoints that cannot authenticate stay off
        # unless they were asked for too.
        changes = {k: None for k in ("tcp", "gnubg", "ws") if k not in explicit}
        cfg = dataclasses.replace(cfg, **changes)
    if stdio:
        # an engine spawned by a client opens no match database unless asked to (`--db
        # PATH`, `--db default`, or `db` in the file): the user's may belong to a daemon
        cfg = dataclasses.replace(cfg, zmq_bind=None, tcp=None, gnubg=None, ws=None,
                                  db=cfg.db if "db" in explicit else None)
    return cfg


def db_command(args: argparse.Namespace) -> int:
    """``jacquetd db ACTION``: maintenance of the match database (not while served)."""
    from jacquetd.matches import default_db_path
    from jacquetd.matches import store as stores

    path = args.db or str(default_db_path())
    if not os.path.exists(path):
        print(f"jacquetd: no match database at {path}", file=sys.stderr)
        return 2
    try:
        store = stores.MatchStore(path)
    except stores.StoreError as exc:
        print(f"jacquetd: {exc}", file=sys.stderr)
        return 2
    try:
        if args.action == "stats":
            print(json.dumps(stores.stats(store), indent=2))
        elif args.action == "prune":
            base = stores.Retention()
            policy = stores.Retention(
                base.keep_days if args.keep_days is None else args.keep_days,
                base.keep_matches if args.keep_matches is None else args.keep_matches,
                base.keep_replies_days if args.keep_replies_days is None
                else args.keep_replies_days)
            counts = stores.prune(store, policy, time.time())
            print(f"pruned {counts['matches']} matches and {counts['replies']} stored replies")
        elif args.action == "vacuum":
            print(f"vacuumed: {stores.vacuum(store)} bytes freed")
        else:
            problems = stores.check(store)
            for problem in problems:
                print(problem)
            print("ok" if not problems else f"{len(problems)} problems")
            return 1 if problems else 0
    finally:
        store.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:
        # the trainer owns its own options (jacquetd.bots.train)
        from jacquetd.bots.train import main as train_main

        return train_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "db":
        return db_command(args)
    if args.command == "keys":
        from jacquetd.daemon.server import create_keys

        public, secret = create_keys(args.directory, args.name)
        print(f"public key: {public}\nsecret key: {secret}")
        return 0
    try:
        cfg = load_config(args, stdio=args.command == "stdio")
    except ConfigError as exc:
        print(f"jacquetd: {exc}", file=sys.stderr)
        return 2
    setup_logging(cfg.log_level, cfg.log_format)
    from jacquetd.daemon import server

    try:
        if args.command == "stdio":
            return server.run_stdio(cfg)
        return server.serve(cfg)
    except ConfigError as exc:
        logging.getLogger("jacquetd").error("event=config_error error=%s", json.dumps(str(exc)))
        print(f"jacquetd: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
