"""README.md: at most 15 KB, in the issue's order, its two commands first and valid, its
links and the documentation's statements of versions and variables current."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata

from jacquetd_protocol.version import PROTOCOL_VERSION

from tests.docs.examples import INSTALL, REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_is_at_most_15_kb() -> None:
    assert len(README.encode()) <= 15 * 1024


def test_the_two_commands_come_first() -> None:
    blocks = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    assert README.startswith("# jacquetd\n\n```sh\n")
    assert tuple(blocks[:2]) == INSTALL


def test_sections_in_order() -> None:
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == ["A two-minute tour", "Features", "The levels", "The shape of the code",
                        "Where to go next",
                        "Licence"]
    intro = README.split("## ")[0]
    assert "jacquetd is an engine service" in intro
    tour = README.split("## A two-minute tour")[1].split("\n## ")[0]
    for stop in ("jacquetd stdio", "web app", "jacquet-play", "jacquet-league demo",
                 "SimpleClient.connect"):
        assert stop in tour, stop


def test_install_commands_name_what_exists() -> None:
    """The first command: valid shell, an editable install of this project and its
    `jacquetd` entry point with a `serve` command; the second: tests/run.sh, valid shell."""
    for command in INSTALL:
        subprocess.run(["sh", "-n", "-c", command], check=True)
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert INSTALL[0].split("&&")[2].split() == ["pip", "install", "-e", "."]
    assert project["scripts"]["jacquetd"] == "jacquetd.cli:main"
    entry = [e for e in metadata.entry_points(group="console_scripts") if e.name == "jacquetd"]
    assert entry and entry[0].value == "jacquetd.cli:main"
    from jacquetd.cli import build_parser

    assert build_parser().parse_args(["serve"]).command == "serve"
    run_sh = REPO / "tests" / "run.sh"
    subprocess.run(["sh", "-n", str(run_sh)], check=True)
    assert "sphinx" in run_sh.read_text(), "the test command builds the documentation"


def test_relative_links_exist() -> None:
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", README):
        assert (REPO / target).exists(), target


def test_protocol_version_stated_is_current() -> None:
    for path in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        if "generated" in path.parts or path.name in ("notes.md",):
            continue
        for found in re.findall(r"protocol(?: version)?,? (?:v|version )?(\d+\.\d+)\b",
                                path.read_text(encoding="utf-8")):
            assert found == PROTOCOL_VERSION, f"{path.name}: protocol {found}"


def test_every_variable_is_in_the_configuration_guide() -> None:
    from jacquetd.daemon.config import ENV_SETTINGS

    guide = (REPO / "docs" / "guides" / "configuration.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^ *\| `(JACQUETD_\w+)` \|", guide, re.M))
    assert rows == set(ENV_SETTINGS)


def test_changelog_versions_come_from_the_package_metadata() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "Keep a Changelog" in text
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert released and released[0][0] == metadata.version("jacquetd")
    assert re.search(r"^## \[Unreleased\]$", text, re.M)
