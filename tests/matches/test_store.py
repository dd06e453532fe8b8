"""MatchStore: WAL, the default path, transactions that are all or nothing, exact rebuilds."""

from __future__ import annotations

from pathlib import Path

import pytest

from jacquetd.matches import Caller, MatchError, MatchService, MatchStore, default_db_path
from jacquetd.matches.store import StoreError

from .scripted import decide, play_out


def test_database_is_in_wal_mode_and_private(db_path: Path, store: MatchStore) -> None:
    assert store.journal_mode == "wal"
    assert db_path.stat().st_mode & 0o077 == 0


def test_default_path_follows_xdg() -> None:
    assert default_db_path({"XDG_DATA_HOME": "/data", "HOME": "/home/u"}) == Path(
        "/data/jacquetd/matches.sqlite3")
    assert default_db_path({"HOME": "/home/u"}) == Path(
        "/home/u/.local/share/jacquetd/matches.sqlite3")
    # XDG says a relative value is invalid and must be ignored
    assert default_db_path({"XDG_DATA_HOME": "rel", "HOME": "/home/u"}) == Path(
        "/home/u/.local/share/jacquetd/matches.sqlite3")


def test_parent_directories_are_created(tmp_path: Path) -> None:
    s = MatchStore(tmp_path / "a" / "b" / "m.sqlite3")
    assert (tmp_path / "a" / "b" / "m.sqlite3").exists()
    s.close()


def test_a_reopened_store_offers_every_match_at_its_last_action(db_path: Path,
                                                                store: MatchStore) -> None:
    svc = MatchService(store)
    ids = []
    for i, variant in enumerate(("jacquet", "jacquet-be", "backgammon")):
        r = svc.match_new({"variant": variant, "length": 2, "cube": True, "seed": i})
        ids.append(r)
        # play part of each match
        for _ in range(15 + 7 * i):
            s = svc.match_state({"match_id": r["match_id"]})
            side = s["to_act"]
            cmd, extra = decide(s, side, i)
            svc.handle(cmd, {"match_id": r["match_id"], "token": r["tokens"][side], **extra})
    before = {r["match_id"]: svc.match_state({"match_id": r["match_id"]}) for r in ids}
    store.close()
    svc2 = MatchService(MatchStore(db_path))
    for r in ids:
        after = svc2.match_state({"match_id": r["match_id"]})
        assert after == before[r["match_id"]]
    # and they play on to the end
    for i, r in enumerate(ids):
        play_out(svc2, r["match_id"], r["tokens"], seed=i)
    assert svc2.match_list({"status": ["over"]})["total"] == 3
    svc2.close()


def test_a_failed_commit_applies_nothing(store: MatchStore) -> None:
    svc = MatchService(store)
    r = svc.match_new({"seed": 5})
    mid = r["match_id"]
    side = svc.match_state({"match_id": mid})["to_act"]
    before = svc.match_state({"match_id": mid})

    def fail(point: str) -> None:
        if point == "written":
            raise OSError("disk full")

    store.fault_hook = fail
    with pytest.raises(OSError):
        svc.match_roll({"match_id": mid, "token": r["tokens"][side]}, Caller("c", 1))
    store.fault_hook = None
    # memory was rebuilt from the log: the roll never happened, the request id is free
    assert svc.match_state({"match_id": mid}) == before
    assert svc.match_watch({"match_id": mid})["last_event"] == before["last_event"]
    reply = svc.match_roll({"match_id": mid, "token": r["tokens"][side]}, Caller("c", 1))
    assert "replayed" not in reply and reply["actions"] == 1


def test_store_errors_become_internal_errors(db_path: Path, store: MatchStore) -> None:
    svc = MatchService(store)
    r = svc.match_new({"seed": 5})
    side = svc.match_state({"match_id": r["match_id"]})["to_act"]
    other = MatchStore(db_path, exclusive=False)  # a foreign writer, past the lock
    other._db.execute("BEGIN IMMEDIATE")  # another writer holds the database
    store._db.execute("PRAGMA busy_timeout=50")
    with pytest.raises(MatchError) as exc:
        svc.match_roll({"match_id": r["match_id"], "token": r["tokens"][side]})
    assert str(exc.value.code) == "internal"
    other._db.execute("ROLLBACK")
    other.close()
    svc.match_roll({"match_id": r["match_id"], "token": r["tokens"][side]})
    assert svc.match_state({"match_id": r["match_id"]})["actions"] == 1


def test_a_newer_schema_is_refused(db_path: Path, store: MatchStore) -> None:
    store._db.execute("UPDATE meta SET value='99' WHERE key='schema'")
    store.close()
    with pytest.raises(StoreError, match="schema"):
        MatchStore(db_path)


def test_every_action_is_one_row_with_its_events(store: MatchStore) -> None:
    svc = MatchService(store)
    r = svc.match_new({"variant": "jacquet-be", "length": 1, "seed": 3})
    play_out(svc, r["match_id"], r["tokens"], seed=3)
    actions = store.actions(r["match_id"])
    row = store.get(r["match_id"])
    assert row is not None and row.actions == len(actions) and row.status == "over"
    events = store.events(r["match_id"])
    assert row.events == len(events) == events[-1]["n"]
    assert {a for a, _ in actions} == {"seat"}
