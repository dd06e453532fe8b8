"""The results journal: an append-only file of JSON lines, written as the league goes.

The first line is the league's header (its name and the fingerprint of its
configuration); each further line is one finished match (`"type": "match"`,
keyed by its `job` id) or an event (`"type": "event"`: an engine fault, a
restart). Each line is written whole, flushed and fsync'ed before the league
moves on, so a league killed at any moment loses at most the matches that
were still being played. On `--resume` a last line cut short by the kill is
dropped, and a job already in the journal is never played or counted again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

FORMAT = "jacquet-league-journal/1"


class JournalError(RuntimeError):
    """The journal cannot be used (exists without --resume, or was written by another
    league)."""


class Journal:
    def __init__(self, path: str | Path, header: dict[str, Any], *, resume: bool) -> None:
        self.path = Path(path)
        self.entries: list[dict[str, Any]] = []
        if self.path.exists() and self.path.stat().st_size > 0:
            if not resume:
                raise JournalError(f"{self.path} exists: use --resume to continue it, or "
                                   "remove it")
            self._load(header)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - closed in close()
            self._write({"type": "header", "format": FORMAT, **header})
            return
        self._file = open(self.path, "ab")  # noqa: SIM115 - closed in close()

    def _load(self, header: dict[str, Any]) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a line cut short by a kill: drop it
            with open(self.path, "r+b") as f:
                f.truncate(end)
                f.flush()
                os.fsync(f.fileno())
        lines = data[:end].splitlines()
        first = json.loads(lines[0]) if lines else {}
        if first.get("type") != "header" or first.get("fingerprint") != header["fingerprint"]:
            raise JournalError(f"{self.path} was written by a different league "
                               "(configuration changed); use a new results file")
        seen: set[str] = set()
        for raw in lines[1:]:
            try:
                entry = json.loads(raw)
            except json.JSONDecodeError:
                continue
            if entry.get("type") == "match":
                if entry["job"] in seen:
                    continue
                seen.add(entry["job"])
            self.entries.append(entry)

    def _write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(entry, separators=(",", ":"), sort_keys=True).encode()
                         + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def append(self, entry: dict[str, Any]) -> None:
        """Write one entry durably and keep it."""
        self._write(entry)
        self.entries.append(entry)

    def matches(self) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("type") == "match"]

    def done_jobs(self) -> set[str]:
        return {e["job"] for e in self.matches()}

    def close(self) -> None:
        self._file.close()
