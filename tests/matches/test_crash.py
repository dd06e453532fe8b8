"""The crash test: a client plays several matches in a child process that is killed with
SIGKILL at seeded points (inside a transaction, between commit and reply, and at random
times); each restart resumes every match at its last accepted action, and the final
records and event streams equal those of an uninterrupted run with the same seeds."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from jacquetd_protocol.records import format_record

from jacquetd.matches import MatchService, MatchStore

from .crashdrive import CLIENT, drive

REPO = Path(__file__).resolve().parents[2]
SEED = 20240611
MATCHES = 5
HOOK_KILLS = 8
TIMED_KILLS = 3
VOLATILE = ("Match", "Created", "Ended")


def _outcome(db: Path, ids: dict[int, str]) -> dict[int, tuple[str, list[dict]]]:
    svc = MatchService(MatchStore(db))
    out = {}
    for i, mid in ids.items():
        rec = svc.record(mid)
        for key in VOLATILE:
            rec.headers.pop(key, None)
        out[i] = (format_record(rec), svc.match_watch({"match_id": mid})["events"])
    svc.close()
    return out


def _child(db: Path, journal: Path, kill_after: int) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, "-m", "tests.matches.crashdrive", str(db), str(journal), str(SEED),
         str(MATCHES), str(kill_after)], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)


def test_sigkill_at_random_points_then_resume(tmp_path: Path) -> None:
    clean_ids = drive(tmp_path / "clean.sqlite3", tmp_path / "clean.journal", SEED, MATCHES)
    expected = _outcome(tmp_path / "clean.sqlite3", clean_ids)

    db, journal = tmp_path / "crash.sqlite3", tmp_path / "crash.journal"
    rng = random.Random(SEED)
    killed = finished = 0
    retries: list[str] = []
    plan = [("hook", rng.randint(1, 300)) for _ in range(HOOK_KILLS)]
    plan += [("timer", 0)] * TIMED_KILLS + [("none", 0)]
    for how, kill_after in plan:
        proc = _child(db, journal, kill_after)
        if how == "timer":
            time.sleep(rng.uniform(0.4, 1.2))
            proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
        retries += [w for w in err.decode().split() if w in ("replayed", "applied")]
        if proc.returncode == 0:
            finished += 1
            break
        assert proc.returncode == -signal.SIGKILL, err.decode()[-3000:]
        killed += 1
    assert finished == 1 and killed >= HOOK_KILLS
    # a request cut off before its commit was applied when sent again, one cut off
    # after its commit got the stored reply
    assert "applied" in retries and "replayed" in retries, retries

    store = MatchStore(db)
    ids = {}
    for i in range(MATCHES):
        new = store.request(CLIENT, f"new:{i}")
        assert new is not None
        ids[i] = new.reply["match_id"]
    store.close()
    got = _outcome(db, ids)
    assert len(got) == MATCHES
    for i in range(MATCHES):
        assert got[i][0] == expected[i][0], f"match {i}: records differ"
        assert got[i][1] == expected[i][1], f"match {i}: event streams differ"
