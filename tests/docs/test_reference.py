"""The documentation site builds with no warning, and its reference pages hold an entry
for every protocol command (protocol/commands.py's table), every flag of every program
(the argparse parsers) and every configuration key (jacquetd/daemon/config.py)."""

from __future__ import annotations

import dataclasses
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.examples import REPO

pytest.importorskip("sphinx", reason="the docs extra: pip install -e .[docs]")
pytest.importorskip("myst_parser", reason="the docs extra: pip install -e .[docs]")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site: the one `tests/run.sh` has just built with these same flags (it
    names it in ``JACQUETD_DOCS_SITE``; a warning fails that build), else a new build."""
    built = os.environ.get("JACQUETD_DOCS_SITE")
    if built and (Path(built) / "index.html").is_file():
        return Path(built)
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q",
                           "-b", "html", "-d", str(out / ".doctrees"), str(REPO / "docs"),
                           str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-5000:]
    assert "WARNING" not in done.stderr, done.stderr[-5000:]
    return out


def _text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_command_has_its_page(site: Path) -> None:
    """Each command has a page whose title names it (one page may hold a family, such as
    `match_double, match_take, match_drop`), with the command's field table."""
    from jacquetd_protocol.commands import COMMANDS

    pages = site / "reference" / "generated" / "protocol" / "commands"
    titled: dict[str, Path] = {}
    for page in pages.glob("*.html"):
        heading = re.search(r"<h1>(.*?)<a", page.read_text(encoding="utf-8"), re.S)
        if heading:
            for name in re.sub(r"<[^>]+>", "", heading.group(1)).split(","):
                titled[html.unescape(name).strip()] = page
    for name in COMMANDS:
        assert name in titled, f"no page for `{name}`"
        assert "timeout_ms" in _text(titled[name]), f"`{name}`: no field table"


def test_every_flag_has_an_entry(site: Path) -> None:
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    import jacquetd_pages

    text = _text(site / "reference" / "generated" / "cli.html")
    sections = re.split(r"\n(?=(?:jacquetd|jacquet-play|jacquet-league|jacquet-analyze)"
                        r"[\w -]*¶)", text)
    for name, parser in jacquetd_pages.programs():
        section = next((s for s in sections if s.startswith(f"{name}¶")), None)
        assert section is not None, f"no section for `{name}`"
        for action in jacquetd_pages.options(parser):
            label = action.option_strings[0] if action.option_strings else str(
                action.metavar or action.dest)
            assert label in section, f"`{name}`: no entry for {label}"


def test_every_config_key_has_an_entry(site: Path) -> None:
    from jacquetd.daemon import config

    text = _text(site / "reference" / "generated" / "config.html")
    keys = set(config._TOP_FIELDS)
    keys |= {f"limits.{f.name}" for f in dataclasses.fields(config.Limits)}
    keys |= {f"heartbeat.{f.name}" for f in dataclasses.fields(config.Heartbeat)}
    for key in sorted(keys):
        assert re.search(rf"^{re.escape(key)}$", text, re.M), f"no entry for `{key}`"
    for variable in config.ENV_SETTINGS:
        assert variable in text, variable


def test_jacquetd_help_names_the_websocket_endpoint() -> None:
    for argv in (["--help"], ["serve", "--help"]):
        done = subprocess.run([sys.executable, "-m", "jacquetd", *argv], capture_output=True,
                              text=True, timeout=60)
        flat = " ".join(done.stdout.split())
        assert "WebSocket" in flat and "web app" in flat, argv


def test_spec_tells_points_and_result_apart() -> None:
    spec = (REPO / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    row = next(ln for ln in spec.splitlines() if ln.startswith("| `matches` |"))
    assert "`points` (the points scored" in row and "`result` (1, 2 or 3" in row


def test_every_benchmark_has_its_row() -> None:
    page = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    for script in sorted((REPO / "benchmarks").glob("bench_*.py")):
        assert script.name in page or f"benchmarks.{script.stem}" in page, script.name
