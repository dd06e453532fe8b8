"""The shell and Python examples of README.md and docs/guides/, read from the Markdown.

A fenced block is an example when its language is ``sh``, ``console`` or ``python``:

- ``sh``: the block runs (``sh -e``) and must succeed;
- ``console``: each ``$ `` line runs and its output must match the lines below it, where
  ``...`` stands for any text (within a line, or whole lines when alone on one);
- ``python``: the block runs; where the text right after it says "prints `X`", the output
  must be X.

A block preceded by ``<!-- not run: REASON -->`` is not run; its command lines are
checked instead against the real parsers of our programs (every flag must exist).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs" / "guides").glob("*.md"))]
#: The default ports the examples are written with, by endpoint.
DEFAULT_PORTS = {"zmq": 7780, "tcp": 7781, "gnubg": 7782, "ws": 7783}

_FENCE = re.compile(r"^```(\w*)\s*$")
_NOT_RUN = re.compile(r"^<!-- not run: (.+?) -->\s*$")
_PRINTS = re.compile(r"prints `([^`]+)`")


@dataclass
class Example:
    path: Path
    line: int
    lang: str
    text: str
    not_run: str | None
    prints: str | None

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def examples(path: Path) -> list[Example]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Example] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        before = [ln for ln in lines[max(0, start - 3):start] if ln.strip()]
        not_run = next((n.group(1) for ln in before[-1:] if (n := _NOT_RUN.match(ln))), None)
        after = " ".join(lines[j + 1:j + 4])
        p = _PRINTS.search(after)
        if lang in ("sh", "console", "python"):
            out.append(Example(path, start + 1, lang, "\n".join(lines[start + 1:j]),
                               not_run, p.group(1) if p and lang == "python" else None))
        i = j + 1
    return out


#: The README's two commands (checked by tests/docs/test_readme.py, not run here: the
#: first installs and serves until stopped, the second runs the whole suite).
INSTALL = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && jacquetd serve",
    "sh tests/run.sh",
)


def all_examples() -> list[Example]:
    return [e for path in DOCUMENTS for e in examples(path) if e.text not in INSTALL]


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def matches(expected: list[str], actual: str) -> bool:
    """Whether ACTUAL's lines match EXPECTED's, ``...`` standing for any text."""
    while expected and not expected[-1].strip():
        expected = expected[:-1]
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in line.rstrip().split("...")) + r"\n")
    text = "\n".join(ln.rstrip() for ln in actual.strip("\n").split("\n")) + "\n"
    return re.fullmatch("".join(parts) + r"\s*", text) is not None


def with_ports(text: str, ports: dict[str, int]) -> str:
    for name, default in DEFAULT_PORTS.items():
        text = re.sub(rf"(?<![0-9]){default}(?![0-9])", str(ports[name]), text)
    return text
