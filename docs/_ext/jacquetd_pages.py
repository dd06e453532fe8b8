"""Reference pages generated at build time from the project's own sources.

- ``reference/protocol/``: protocol/SPEC.md split into one page per chapter and one page
  per command (a heading naming commands of ``protocol.commands.COMMANDS``); links
  between sections are rewritten to the page that now holds their target. SPEC.md stays
  the one source: its generated tables come from the command table (``docgen``).
- ``reference/cli.md``: every program's options, read from its argparse parser.
- ``reference/config.md``: every key of the TOML file, read from
  ``jacquetd.daemon.config`` (defaults from its dataclasses, the variable and flag of each).

The generated files live under ``docs/reference/generated/`` and are not kept in git.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "reference" / "generated"

_HEADING = re.compile(r"^(#{1,6}) +(.*?) *$")
_LINK = re.compile(r"\]\(#([^)\s]+)\)")


def slug(text: str) -> str:
    """The anchor myst-parser (and GitHub) give a heading."""
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@dataclasses.dataclass
class Page:
    name: str  # path under generated/protocol, without .md
    title: str
    lines: list[str] = dataclasses.field(default_factory=list)
    children: list[str] = dataclasses.field(default_factory=list)


def _command_names(heading: str, commands: set[str]) -> list[str]:
    names = [n.strip(" `") for n in heading.split(",")]
    return names if names and all(n in commands for n in names) else []


def split_spec(text: str, commands: set[str]) -> list[Page]:
    """SPEC.md cut into pages: the preface, one per ``##`` chapter, one per command."""
    index = Page("index", "")
    pages: list[Page] = [index]
    anchors: dict[str, str] = {}
    whole: set[str] = set()  # anchors that stand for a whole page
    chapter = index
    command: Page | None = None
    command_level = 0
    fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            fence = not fence
        m = None if fence else _HEADING.match(line)
        if m:
            level, title = len(m.group(1)), m.group(2)
            if level == 1:
                index.title = title
                continue
            if command is not None and level <= command_level:
                command = None
            names = _command_names(title, commands) if level >= 3 else []
            if level == 2:
                number = title.split(".", 1)[0]
                chapter = Page(f"{int(number):02d}-{slug(title)[len(number):].strip('-')}"
                               if number.isdigit() else slug(title), title)
                pages.append(chapter)
                anchors[slug(title)] = chapter.name
                chapter.lines.append(f"# {title}")
                continue
            if names:
                command = Page(f"commands/{names[0]}", title)
                command_level = level
                pages.append(command)
                chapter.children.append(command.name)
                anchors[slug(title)] = command.name
                for name in names:  # a command's name links to its page
                    anchors.setdefault(slug(name), command.name)
                    whole.add(slug(name))
                command.lines.append(f"# {title}")
                continue
            target = command or chapter
            shift = command_level - 1 if command else 1
            anchors[slug(title)] = target.name
            target.lines.append("#" * max(2, level - shift) + " " + title)
            continue
        (command or chapter).lines.append(line)
    for page in pages:
        here = page.name
        depth = here.count("/")

        def fix(m: re.Match[str], here: str = here, depth: int = depth) -> str:
            anchor = m.group(1)
            where = anchors.get(anchor)
            if where is None or (where == here and anchor not in whole):
                return m.group(0)
            if anchor in whole:
                return f"]({'../' * depth}{where}.md)"
            return f"]({'../' * depth}{where}.md#{anchor})"

        page.lines = [_LINK.sub(fix, line) for line in page.lines]
    return pages


def protocol_pages() -> dict[Path, str]:
    from jacquetd_protocol.commands import COMMANDS

    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    pages = split_spec(spec, set(COMMANDS))
    out: dict[Path, str] = {}
    chapters = [p for p in pages[1:] if not p.name.startswith("commands/")]
    chapters = [p for p in chapters if p.title.lower() != "contents"]
    index = pages[0]
    body = [f"# {index.title}", "", "Generated from `protocol/SPEC.md`, one page per chapter "
            "and one per command.", "", *index.lines, "", "```{toctree}", ":maxdepth: 2", "",
            *[p.name for p in chapters], "```", ""]
    out[Path("protocol/index.md")] = "\n".join(body)
    for page in pages[1:]:
        if page.title.lower() == "contents":
            continue
        lines = list(page.lines)
        if page.children:
            up = "../" * page.name.count("/")
            lines += ["", "```{toctree}", ":maxdepth: 1", "",
                      *[c.replace(up, "") for c in page.children], "```"]
        out[Path("protocol") / f"{page.name}.md"] = "\n".join(lines) + "\n"
    return out


# -- the command-line reference --------------------------------------------------------------


class _Caught(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def parser_of(main: Callable[[list[str]], Any]) -> argparse.ArgumentParser:
    """The parser a ``main(argv)`` builds, taken as it parses (it is never run further)."""
    original = argparse.ArgumentParser.parse_args

    def catch(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        raise _Caught(self)

    argparse.ArgumentParser.parse_args = catch  # type: ignore[method-assign]
    try:
        main(["--help"])
    except _Caught as caught:
        return caught.parser
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    raise RuntimeError(f"{main} built no parser")


def programs() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every program and subcommand, with its parser, as installed entry points run them."""
    from jacquetd_clients import analyze, play
    from jacquetd_clients.league import cli as league_cli

    from jacquetd import cli
    from jacquetd.bots import supervised, train

    out: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(name: str, parser: argparse.ArgumentParser) -> None:
        out.append((name, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(f"{name} {sub}", subparser)

    walk("jacquetd", cli.build_parser())
    # `jacquetd train` and `jacquetd distill` hand their arguments to these parsers.
    out = [(n, p) for n, p in out if n not in ("jacquetd train", "jacquetd distill")]
    out.append(("jacquetd train", train.build_parser()))
    out.append(("jacquetd distill", supervised.build_parser()))
    walk("jacquet-play", play.build_parser())
    walk("jacquet-league", parser_of(league_cli.main))
    walk("jacquet-analyze", analyze.build_parser())
    return out


def options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        yield action


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        text = text % {"default": action.default, "prog": "", "metavar": action.metavar,
                       "choices": action.choices}
    return text


def option_label(action: argparse.Action) -> str:
    if action.option_strings:
        label = ", ".join(action.option_strings)
        if action.nargs != 0:
            label += f" {action.metavar or action.dest.upper()}"
        return label
    return str(action.metavar or action.dest)


def cli_page() -> str:
    lines = ["# Command-line reference", "",
             "Generated from the programs' argparse parsers: each program and subcommand with "
             "every argument it takes. `PROGRAM --help` prints the same.", ""]
    for name, parser in programs():
        lines += [f"## `{name}`", "", _cell(parser.description).strip() or "", "",
                  "```text", parser.format_usage().strip(), "```", ""]
        rows = list(options(parser))
        if rows:
            lines += ["| argument | meaning |", "|---|---|"]
            for action in rows:
                choices = (f" (one of: {', '.join(map(str, action.choices))})"
                           if action.choices else "")
                lines.append(f"| `{_cell(option_label(action))}` | "
                             f"{_cell(_help(action))}{_cell(choices)} |")
            lines.append("")
    return "\n".join(lines) + "\n"


# -- the configuration reference -------------------------------------------------------------


def config_keys() -> list[tuple[str, Any]]:
    """Every key of the TOML file with its embedded default."""
    from jacquetd.daemon import config

    base = config.Config()
    attr = {"bind": "zmq_bind"}
    out = [(key, getattr(base, attr.get(key, key))) for key in sorted(config._TOP_FIELDS)]
    out += [(f"limits.{f.name}", getattr(base.limits, f.name))
            for f in dataclasses.fields(config.Limits)]
    out += [(f"heartbeat.{f.name}", getattr(base.heartbeat, f.name))
            for f in dataclasses.fields(config.Heartbeat)]
    return out


def _flag_helps() -> dict[str, tuple[str, str]]:
    from jacquetd import cli

    out: dict[str, tuple[str, str]] = {}
    serve = dict(programs())["jacquetd serve"]
    del cli
    for action in options(serve):
        if action.option_strings:
            out[action.dest] = (action.option_strings[-1], _help(action))
    return out


#: What a key without a flag of its own is for.
KEY_DOCS = {
    "zmq_read_batch": "ZeroMQ messages the front reads per turn of its event loop (a "
    "flood read further ahead delays the other endpoints); default chosen by `python "
    "benchmarks/bench_hardening.py`",
    "replica_deep_us": "a front replica holds a second request only while the replicas' "
    "mean answer time is at least this many microseconds; default chosen by `python "
    "benchmarks/bench_daemon_paired.py --clients 8`",
    "cancel_grace_s": "seconds a worker may ignore a cancel or a deadline before it is "
    "killed and replaced",
    "ws_origins": "page origins allowed on the WebSocket endpoint besides loopback ones "
    "(a list, or one string of comma-separated origins)",
    "keep_days": "finished and closed matches are kept this many days after they ended "
    "(applied at start and every few hours; `jacquetd db prune --keep-days`)",
    "keep_matches": "at most this many finished and closed matches are kept "
    "(`jacquetd db prune --keep-matches`)",
    "keep_replies_days": "stored replies kept for retries, in days "
    "(`jacquetd db prune --keep-replies-days`)",
    "limits.zmq_max_msg_bytes": "set as `zmq.MAXMSGSIZE`: libzmq drops a peer that sends "
    "a bigger message; at least `max_frame_bytes`",
    "limits.max_queue": "requests waiting for a worker, all clients together; more get `busy`",
    "limits.default_timeout_ms": "deadline of a request without `timeout_ms`",
    "limits.tcp_write_buffer_bytes": "a TCP peer that lets more replies pile up unread is "
    "dropped",
    "limits.max_connections": "TCP, WebSocket and gnubg connections together (stdio not "
    "counted)",
    "limits.max_connections_per_source": "of those, from one source address",
    "limits.idle_timeout_ms": "a byte-stream connection with nothing in flight that sends "
    "nothing this long is closed",
    "limits.message_timeout_ms": "a message begun must end within this, else the connection "
    "is closed",
    "limits.gnubg_max_line_bytes": "a longer gnubg line gets an error line",
    "limits.max_watches": "`match_watch` streams open at once, all clients together",
    "limits.max_plies": "the deepest search one request may ask for",
    "limits.worker_max_rss_mb": "a worker whose memory grows past this is replaced and its "
    "request answered `too_large`",
    "limits.cheap_share_percent": "share of the workers kept for cheap requests while "
    "heavy ones wait",
    "heartbeat.ivl_ms": "probe (ping) a connection silent this long, and this often",
    "heartbeat.timeout_ms": "drop a peer that has not answered this long",
}


def _toml(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], int):
        return f'"{value[0]}:{value[1]}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def config_page() -> str:
    from jacquetd_protocol.docgen import LIMIT_DOCS

    from jacquetd.daemon import config

    flags = _flag_helps()
    env = {key: name for name, (key, _) in config.ENV_SETTINGS.items()}
    dest = {"bind": "bind", "drain_timeout_s": "drain_timeout",
            "match_idle_timeout_s": "match_idle_timeout"}
    lines = ["# Configuration reference", "",
             "Generated from `jacquetd/daemon/config.py`: every key of the TOML file "
             "(`--config FILE`, `$JACQUETD_CONFIG`, or `jacquetd.toml` in the user's "
             "configuration folder), its embedded default, the environment variable and the "
             "flag that set it. Later sources win: defaults, file, variables, flags. Keys "
             "named `limits.X` go in a `[limits]` table (`--limit X=N`), `heartbeat.X` in a "
             "`[heartbeat]` table (`--heartbeat X=N`).", "",
             "| key | default | variable | flag | meaning |", "|---|---|---|---|---|"]
    for key, default in config_keys():
        flag, text = flags.get(dest.get(key, key), ("", ""))
        if key.startswith("limits."):
            flag, text = "--limit", LIMIT_DOCS.get(key[7:], "")
        elif key.startswith("heartbeat."):
            flag = "--heartbeat"
        text = KEY_DOCS.get(key) or text
        shown = _toml(default)
        lines.append(f"| `{key}` | `{_cell(shown)}` | {'`' + env[key] + '`' if key in env else ''}"
                     f" | {'`' + flag + '`' if flag else ''} | {_cell(text)} |")
    lines += ["", f"`${config.CONFIG_ENV}` names the file itself.", ""]
    return "\n".join(lines)


def generate(out: Path = OUT) -> list[Path]:
    files = {**protocol_pages(), Path("cli.md"): cli_page(), Path("config.md"): config_page()}
    written = []
    for rel, text in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    keep = set(written)
    for old in out.rglob("*.md"):
        if old not in keep:
            old.unlink()
    return written


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", lambda app: generate())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
