"""The ``jacquetd`` command: ``serve``, ``stdio``, ``keys``, ``db``, ``train`` and ``distill``.

Only this module configures logging (through `jacquetd.logs`: structured lines on
stderr, key=value or JSON) and turns configuration errors into one message and exit
status 2. The options of `serve` and `stdio` are declared in tables
(`ENGINE_OPTIONS`, `SERVE_OPTIONS`): each row holds the flags, the argparse keywords
and the configuration key it sets, and its help text states the default.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn

from jacquetd_protocol.version import PROTOCOL_VERSION

from jacquetd.daemon.config import (
    CONFIG_ENV,
    ENV_SETTINGS,
    LOG_LEVELS,
    Config,
    ConfigError,
    Heartbeat,
    Limits,
    build_config,
    config_file,
    default_config_path,
    load_toml,
)
from jacquetd.logs import setup_logging
from jacquetd.version import version

#: A `jacquetd stdio` (usually an engine spawned by a client) logs warnings and errors
#: only, unless a log level is asked for (flag, environment or file).
STDIO_LOG_LEVEL = "warning"

Option = tuple[tuple[str, ...], dict[str, Any], str | None]

_D = Config()


def _env_of(key: str) -> str:
    names = [name for name, (k, _) in ENV_SETTINGS.items() if k == key]
    return f"; ${names[0]}" if names else ""


def _hostport(where: tuple[str, int] | None) -> str:
    return "off" if where is None else f"{where[0]}:{where[1]}"


def version_text() -> str:
    """``jacquetd VERSION (protocol X.Y)``."""
    return f"jacquetd {version()} (protocol {PROTOCOL_VERSION})"


#: Options of `serve` and `stdio`: (flags, argparse keywords, configuration key or None
#: when handled apart). Each help text ends with the default and the environment
#: variable, if there is one.
ENGINE_OPTIONS: list[Option] = [
    (("--config",), dict(metavar="FILE", help="TOML file of settings (default: "
                          f"${CONFIG_ENV}, else {default_config_path()} if it exists)"), None),
    (("--workers",), dict(type=int, metavar="N", help="worker processes (default "
                           f"{_D.workers}: one per core{_env_of('workers')})"), "workers"),
    (("--replicas",), dict(type=int, metavar="N", help="front replica processes answering "
                            "legal_moves and apply_move on other cores (default: "
                            "2 on a machine of two cores or more, else 0; stdio: 0)"),
     "replicas"),
    (("--limit",), dict(action="append", metavar="NAME=N",
                        help="set a limit reported by hello (default: "
                        + ", ".join(f"{f.name}={getattr(_D.limits, f.name)}"
                                    for f in dataclasses.fields(Limits)) + ")"), None),
    (("--drain-timeout",), dict(type=float, metavar="S",
                                help="on SIGTERM, SIGINT or SIGHUP, seconds that requests in "
                                f"flight may take to finish (default {_D.drain_timeout_s:g}"
                                f"{_env_of('drain_timeout_s')})"), "drain_timeout_s"),
    (("--seed",), dict(type=int, metavar="N",
                       help="base seed of the workers' RNGs (default: from the OS)"), "seed"),
    (("--log-level",), dict(choices=LOG_LEVELS,
                            help=f"default {_D.log_level} for serve, {STDIO_LOG_LEVEL} for "
                            f"stdio{_env_of('log_level')}"), "log_level"),
    (("--log-format",), dict(choices=("kv", "json"),
                             help="kv: key=value text; json: one object a line with typed "
                             f"values (default {_D.log_format}{_env_of('log_format')})"),
     "log_format"),
    (("--db",), dict(metavar="PATH",
                     help="SQLite database of hosted matches; 'default' is the user's, "
                     "'off' disables the match commands; one daemon owns a database "
                     "(default for serve: jacquetd/matches.sqlite3 in the user's data "
                     "folder, $XDG_DATA_HOME or ~/.local/share; for stdio: off"
                     f"{_env_of('db')})"), "db"),
    (("--max-matches",), dict(type=int, metavar="N", help="hosted matches in play at once "
                              f"(default {_D.max_matches})"), "max_matches"),
    (("--match-idle-timeout",), dict(type=float, metavar="S",
                                     help="seconds without an action before a hosted match is "
                                     f"adjourned (default {_D.match_idle_timeout_s:g})"),
     "match_idle_timeout_s"),
    (("--move-filter",), dict(metavar="N:W,...", help="the searches' move filter: at each "
                              "depth the candidates (at most N, within W equity of the best "
                              "one ply shallower) that go deeper (default "
                              f"{_D.move_filter})"), "move_filter"),
    (("--no-prune",), dict(action="store_const", const=False, dest="prune",
                           help="search every reply in full, without the pruning networks "
                           "(default: pruning on)"), "prune"),
    (("--scheduler",), dict(metavar="tcp://HOST:PORT", help="a Dask scheduler: `rollout` "
                            "sends its trials to its workers (needs jacquetd[cluster])"),
     "scheduler"),
]

#: Options of `serve` only: the endpoints and their security.
SERVE_OPTIONS: list[Option] = [
    (("--bind",), dict(metavar="ENDPOINT",
                       help="ZeroMQ ROUTER endpoint (tcp://HOST:PORT, ipc://PATH); 'off' "
                       f"disables; port 0 picks a free port (default {_D.zmq_bind}"
                       f"{_env_of('bind')})"), "bind"),
    (("--tcp",), dict(metavar="HOST:PORT", help="plain TCP protocol endpoint; 'off' disables "
                      f"(default {_hostport(_D.tcp)}{_env_of('tcp')})"), "tcp"),
    (("--gnubg",), dict(metavar="HOST:PORT", help="GNU Backgammon external-player endpoint; "
                        f"'off' disables (default {_hostport(_D.gnubg)}{_env_of('gnubg')})"),
     "gnubg"),
    (("--ws",), dict(metavar="HOST:PORT", help="WebSocket endpoint and web app; 'off' "
                     f"disables (default {_hostport(_D.ws)}{_env_of('ws')})"), "ws"),
    (("--ws-origin",), dict(action="append", metavar="ORIGIN",
                            help="a page origin allowed on the WebSocket endpoint besides the "
                            "loopback ones, e.g. https://board.example.org (repeatable)"),
     "ws_origins"),
    (("--ws-token-file",), dict(metavar="FILE", help="file of the bearer token the WebSocket "
                                "endpoint requires (required beyond loopback; default: none)"),
     "ws_token_file"),
    (("--gnubg-level",), dict(metavar="LEVEL", help="bot level answering the gnubg endpoint "
                              f"(default {_D.gnubg_level}{_env_of('gnubg_level')})"),
     "gnubg_level"),
    (("--curve-secret",), dict(metavar="FILE",
                               help="server's CurveZMQ secret key (from 'jacquetd keys'); "
                               "requires --curve-clients and turns the unauthenticated "
                               "endpoints off unless given explicitly (default: none)"),
     "curve_secret"),
    (("--curve-clients",), dict(metavar="DIR", help="folder of the public keys of the clients "
                                "allowed in (default: none)"), "curve_clients"),
    (("--heartbeat",), dict(action="append", metavar="NAME=MS",
                            help="liveness of peers: TCP keepalive probes on the ZeroMQ "
                            "socket, pings on WebSocket connections (default: "
                            + ", ".join(f"{f.name}={getattr(_D.heartbeat, f.name)}"
                                        for f in dataclasses.fields(Heartbeat)) + ")"), None),
]

EPILOG = ("Settings come from the embedded defaults, then the configuration file, then the "
          "environment variables " + ", ".join(ENV_SETTINGS) + ", then the flags; each "
          "wins over the ones before. SIGTERM, SIGINT and SIGHUP each drain (requests in "
          "flight finish, up to --drain-timeout) and stop the daemon.")


def _add_options(p: argparse.ArgumentParser, table: list[Option]) -> None:
    for flags, kwargs, _key in table:
        p.add_argument(*flags, **kwargs)


def _dest(flags: tuple[str, ...]) -> str:
    return flags[0].lstrip("-").replace("-", "_")


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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose unknown arguments are reported by the subcommand that
    was chosen (its own usage), not by the top-level parser."""

    subcommands: dict[str, argparse.ArgumentParser]

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            chosen = getattr(self, "subcommands", {}).get(getattr(parsed, "command", ""), self)
            chosen.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jacquetd",
                     description="Engine service for Jacquet, Belgian Jacquet and backgammon.",
                     epilog=EPILOG)
    parser.add_argument("--version", action="version", version=version_text(),
                        help="print the version of jacquetd and of its protocol, and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                title="commands")

    serve = sub.add_parser("serve", help="run the daemon (ZeroMQ, TCP, gnubg and WebSocket "
                           "endpoints, and the web app)",
                           description="Run the daemon until SIGTERM, SIGINT or SIGHUP (each "
                           "drains, then stops): the protocol over ZeroMQ (--bind), plain TCP "
                           "(--tcp) and WebSocket (--ws, which also serves the web app over "
                           "HTTP), and GNU Backgammon's external-player interface (--gnubg). "
                           "Every endpoint listens on loopback unless an address is given.",
                           epilog=EPILOG)
    _add_options(serve, SERVE_OPTIONS)
    _add_options(serve, ENGINE_OPTIONS)

    stdio = sub.add_parser("stdio", help="serve one client on standard input and output",
                           description="Read requests (text lines or msgpack) on stdin, write "
                           "replies on stdout; at end of input answer what is in flight, exit. "
                           "This is how clients spawn an engine; it logs warnings and errors "
                           "only unless --log-level says otherwise.", epilog=EPILOG)
    _add_options(stdio, ENGINE_OPTIONS)

    keys = sub.add_parser("keys", help="create a CurveZMQ key pair",
                          description="Write NAME.key (public) and NAME.key_secret in DIR.")
    keys.add_argument("directory", metavar="DIR", help="folder to write the keys in")
    keys.add_argument("--name", default="jacquetd", help="file name stem (default: jacquetd)")

    db = sub.add_parser("db", help="maintain the match database: stats, prune, vacuum, check",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="stats   matches by status, rows, size\n"
                        "prune   apply the retention policy now\n"
                        "vacuum  give deleted space back\n"
                        "check   integrity and every action log\n\n"
                        "Refused while a daemon owns the database.")
    db.add_argument("action", choices=("stats", "prune", "vacuum", "check"), help="what to do")
    db.add_argument("--db", metavar="PATH", help="the database (default: the user's, "
                    "jacquetd/matches.sqlite3 in the user's data folder)")
    db.add_argument("--keep-days", type=float, metavar="D",
                    help="prune: finished and closed matches ended more than D days ago "
                    f"(default {_D.keep_days:g})")
    db.add_argument("--keep-matches", type=int, metavar="N",
                    help="prune: keep at most N finished and closed matches "
                    f"(default {_D.keep_matches})")
    db.add_argument("--keep-replies-days", type=float, metavar="D",
                    help="prune: stored replies for retries older than D days "
                    f"(default {_D.keep_replies_days:g})")

    from jacquetd import rollout_cli

    rollout = sub.add_parser("rollout", help="roll a position out (or compare plays), here "
                             "or on a Dask cluster", description=rollout_cli.__doc__)
    rollout_cli.add_arguments(rollout)

    sub.add_parser("train", help="train a neural evaluator by TD(lambda) self-play",
                   description="jacquetd train --variant V --games N --seed S [...]: see "
                   "'jacquetd train --help'.", add_help=False)
    sub.add_parser("distill", help="train a neural evaluator on its own deeper search's "
                   "figures (supervised)",
                   description="jacquetd distill --variant V --games N --seed S [...]: see "
                   "'jacquetd distill --help'.", add_help=False)
    sub.add_parser("train-prune", help="train a variant's pruning network (the search's "
                   "first ranking of replies)",
                   description="jacquetd train-prune --variant V [--states N --seed S]: see "
                   "'jacquetd train-prune --help'.", add_help=False)
    parser.subcommands = dict(sub.choices)
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for flags, kwargs, key in ENGINE_OPTIONS + SERVE_OPTIONS:
        value = getattr(args, kwargs.get("dest") or _dest(flags), None)
        if key is not None and value is not None:
            out[key] = value
    limits = _key_values(args.limit, {f.name for f in dataclasses.fields(Limits)}, "limit")
    if limits:
        out["limits"] = limits
    beats = _key_values(getattr(args, "heartbeat", None),
                        {f.name for f in dataclasses.fields(Heartbeat)}, "heartbeat")
    if beats:
        out["heartbeat"] = beats
    return out


def load_config(args: argparse.Namespace, stdio: bool = False,
                environ: Mapping[str, str] | None = None) -> Config:
    """The configuration of `serve` or `stdio`: the defaults, the file, the environment
    and the flags (see config.py). `environ` None: this process's environment."""
    env = os.environ if environ is None else environ
    overrides = _overrides(args)
    path = config_file(args.config, env)
    cfg = build_config(path, overrides, env)
    explicit = set(overrides) | {key for name, (key, _) in ENV_SETTINGS.items() if env.get(name)}
    if path is not None:
        explicit |= set(load_toml(path))
    if stdio and "log_level" not in explicit:
        cfg = dataclasses.replace(cfg, log_level=STDIO_LOG_LEVEL)
    if cfg.curve:
        # Authentication asked for: the endpoints that cannot authenticate stay off
        # unless they were asked for too.
        changes: dict[str, Any] = {k: None for k in ("tcp", "gnubg", "ws")
                                   if k not in explicit}
        cfg = dataclasses.replace(cfg, **changes)
    if stdio:
        # an engine spawned by a client opens no match database unless asked to (`--db
        # PATH`, `--db default`, or `db` in the file): the user's may belong to a daemon;
        # and no front replicas unless asked for (one client: one hop fewer)
        cfg = dataclasses.replace(cfg, zmq_bind=None, tcp=None, gnubg=None, ws=None,
                                  db=cfg.db if "db" in explicit else None,
                                  replicas=max(0, cfg.replicas))
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


def _exit_at_once(code: int) -> NoReturn:
    """End the process now, skipping the interpreter's teardown.

    Tearing down the loaded compiled kernels takes about 0.4 s after everything is
    closed; a client that spawns `jacquetd stdio` per game or per match would wait for
    it at every `quit`. By then the daemon has answered, closed its stores and stopped
    its workers, so only the buffers are left to flush."""
    import logging

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    as_program = argv is None  # started as `jacquetd ...`, not called by other code
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"] and "--version" in argv[1:]:
        print(version_text())
        return 0
    if argv[:1] == ["train"]:
        # the trainer owns its own options (jacquetd.bots.train)
        from jacquetd.bots.train import main as train_main

        return train_main(argv[1:])
    if argv[:1] == ["train-prune"]:
        from jacquetd.bots.prune_train import main as prune_main

        return prune_main(argv[1:])
    if argv[:1] == ["distill"]:
        from jacquetd.bots.supervised import main as distill_main

        return distill_main(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "db":
        return db_command(args)
    if args.command == "rollout":
        from jacquetd import rollout_cli

        return rollout_cli.main(args)
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
    from jacquetd.daemon import ports

    try:
        # Conflicts first: every port, the data folder, the database's lock and the
        # files to read, said at once, before the compile and the table builds.
        ports.check_start(cfg, ports=args.command == "serve")
    except ConfigError as exc:
        print(f"jacquetd: {exc}", file=sys.stderr)
        return 2
    setup_logging(cfg.log_level, cfg.log_format)
    from jacquetd.daemon import server

    try:
        if args.command == "stdio":
            code = server.run_stdio(cfg)
            if as_program:
                _exit_at_once(code)
            return code
        return server.serve(cfg)
    except ConfigError as exc:  # said once, on stderr (a port in use, an unreadable key)
        print(f"jacquetd: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
