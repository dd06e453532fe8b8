"""Fixtures of the hosted-match tests: a store in a temporary directory and a service."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jacquetd.matches import MatchService, MatchStore


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "matches.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(db_path, synchronous="NORMAL")
    yield s
    s.close()


@pytest.fixture
def svc(store: MatchStore) -> MatchService:
    return MatchService(store)
