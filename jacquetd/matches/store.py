"""Durable storage of hosted matches: SQLite (standard library) in WAL mode.

A match is stored as its configuration, its seed, its seat tokens and its
*action log*; the state is never stored, it is rebuilt by replaying the log
from the seed (`HostedMatch` is deterministic). Every accepted action is one
transaction that writes, together:

* the action (`actions`, keyed by match and sequence number),
* the events it caused (`events`, numbered per match),
* the match's summary row (`matches`: status, score, counters, for listing),
* the idempotency entry (`requests`: client id + request id, a fingerprint of
  the request and the reply sent), so that a retried request gets the stored
  reply and is never applied twice.

So a process killed at any instant leaves either all of an action or none of
it. `synchronous=FULL` (the default) also survives a power cut; NORMAL is
enough for a killed process and is faster.

One process owns a database, whatever path names it: the path is resolved (symbolic
links followed) before anything is opened, the lock file `DB-lock` and the key file
`DB-key` are those beside the resolved file, and the database file itself is locked
too (a hard link names the same file under another name).

Secrets at rest (`secrecy.Secrets`, keyed by the file `DB-key` beside the
database, mode 0600): the `tokens` column holds keyed hashes of the tokens,
never the tokens; the seed of a match not yet over is sealed (`seed_box`) and
written in clear (`seed`) only once the match is over or closed; stored replies
never hold a token in clear (see `MatchService`). A version-1 database is
converted when it is opened.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .secrecy import Secrets

SCHEMA_VERSION = 2
DB_NAME = "matches.sqlite3"
KEY_SUFFIX = "-key"
LOCK_SUFFIX = "-lock"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    seed INTEGER,
    seed_box TEXT,
    tokens TEXT NOT NULL,
    status TEXT NOT NULL,
    variant TEXT NOT NULL,
    length INTEGER NOT NULL,
    player0 TEXT NOT NULL,
    player1 TEXT NOT NULL,
    bots INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    ended_at REAL,
    score0 INTEGER NOT NULL DEFAULT 0,
    score1 INTEGER NOT NULL DEFAULT 0,
    winner INTEGER,
    games INTEGER NOT NULL DEFAULT 0,
    actions INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS matches_status ON matches (status, updated_at);
CREATE TABLE IF NOT EXISTS actions (
    match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    actor TEXT NOT NULL,
    body TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (match_id, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS requests (
    client TEXT NOT NULL,
    request_id TEXT NOT NULL,
    match_id TEXT,
    fingerprint TEXT NOT NULL,
    reply TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (client, request_id)
) WITHOUT ROWID;
"""

SUMMARY_COLUMNS = ("status", "updated_at", "ended_at", "score0", "score1", "winner", "games",
                   "actions", "events", "seed")


class StoreError(RuntimeError):
    """The database cannot be opened or written, or holds something this code cannot read."""


#: The ways out of a database held by another daemon, as every such message gives them.
DB_WAYS_OUT = ("stop that daemon; or give this one its own database with --db PATH (or "
               "`db` in the configuration file, or $JACQUETD_DB); or serve without hosted "
               "matches with --db off")


class StoreInUse(StoreError):
    """Another process holds the database (`pid`: its process id, 0 if unknown)."""

    def __init__(self, path: str, pid: int) -> None:
        holder = f"process {pid}" if pid else "another process"
        super().__init__(f"the match database {path} is in use by {holder} (one daemon owns "
                         f"a database): {DB_WAYS_OUT}")
        self.pid = pid
        self.db_path = path


def resolve_path(path: str | os.PathLike[str]) -> str:
    """The absolute path of the database file `path` names, `~` expanded and symbolic
    links followed (also a link to a file not yet created): every name of one database
    gives the same lock and key files."""
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def _holder(fd: int) -> int:
    text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    return int(text) if text.isascii() and text.isdigit() else 0


#: Database locks taken ahead by this process (`reserve`), by resolved database path: the
#: store that opens the database adopts them.
_RESERVED: dict[str, tuple[int, int]] = {}


def _lock_pair(db_path: str) -> tuple[int, int]:
    """Lock the lock file beside the (resolved) database `db_path` and the database file
    itself; the two descriptors, or StoreInUse naming the holder."""
    fd = os.open(db_path + LOCK_SUFFIX, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            pid = _holder(fd)
        finally:
            os.close(fd)
        raise StoreInUse(db_path, pid) from None
    # The database file itself (flock, which SQLite's own fcntl locks do not touch): the
    # same file reached through a hard link has another lock file, not another inode.
    try:
        db_fd = os.open(db_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        os.close(fd)
        raise
    try:
        fcntl.flock(db_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(db_fd)
        os.close(fd)
        raise StoreInUse(db_path, 0) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd, db_fd


def reserve(path: str | os.PathLike[str]) -> str:
    """Take the lock of the database `path` names now, for the store this process opens on
    it later (a daemon checks it before its slow start-up); the resolved path. Raises
    StoreInUse when another process holds it, OSError when the files cannot be made."""
    db_path = resolve_path(path)
    if db_path not in _RESERVED:
        _RESERVED[db_path] = _lock_pair(db_path)
    return db_path


def default_db_path(env: dict[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME/jacquetd/matches.sqlite3`, else `~/.local/share/jacquetd/...`."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_DATA_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else (
        Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return root / "jacquetd" / DB_NAME


def request_key(request_id: int | str) -> str:
    """Request ids 5 and "5" differ: keep the type in the stored key."""
    return f"i:{request_id}" if isinstance(request_id, int) else f"s:{request_id}"


@dataclass(frozen=True)
class StoredMatch:
    """A row of `matches`, decoded. `seed` is the true seed (unsealed); `tokens` holds the
    keyed hashes of the tokens (`Secrets.token_hash`)."""

    id: str
    config: dict[str, Any]
    seed: int | None
    tokens: dict[str, Any]
    status: str
    created_at: float
    updated_at: float
    ended_at: float | None
    score: tuple[int, int]
    winner: int | None
    games: int
    actions: int
    events: int


@dataclass(frozen=True)
class StoredRequest:
    """An idempotency entry: who asked (client, request id), what (fingerprint), the reply."""

    client: str
    request_id: int | str
    fingerprint: str
    reply: dict[str, Any]


SECRET_REPLY_FIELDS = ("tokens", "owner_token")


def withhold_secrets(reply: dict[str, Any]) -> dict[str, Any]:
    """`reply` without the tokens it carries (null in their place), marked `withheld`."""
    out = dict(reply)
    if isinstance(out.get("tokens"), list):
        out["tokens"] = [None for _ in out["tokens"]]
    if "owner_token" in out:
        out["owner_token"] = None
    out["withheld"] = True
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class MatchStore:
    """The SQLite database of hosted matches. Thread-safe (one connection, one lock).

    `fault_hook`, when set, is called with `"written"` after an action's rows are
    written and before the commit, and with `"committed"` after it: tests use it to
    kill the process at exactly those instants.
    """

    def __init__(self, path: str | os.PathLike[str], *, synchronous: str = "FULL",
                 busy_timeout_s: float = 5.0, exclusive: bool = True) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous}")
        self.fault_hook: Callable[[str], None] | None = None
        self._lock = threading.RLock()
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True,
                                                      mode=0o700)
            # every name of the database (a symbolic link, a relative path) is this one
            self.path = resolve_path(self.path)
            Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # the file is created private before SQLite opens it (its -wal and -shm files
            # take its mode)
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        self._lock_fds: tuple[int, ...] = ()
        if self.path != ":memory:" and exclusive:
            held = _RESERVED.pop(self.path, None)
            self._lock_fds = held if held is not None else _lock_pair(self.path)
        try:
            self.secrets = (Secrets.random() if self.path == ":memory:"
                            else Secrets.load(self.path + KEY_SUFFIX))
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot read the key of the match database {self.path}: "
                             f"{exc}") from exc
        try:
            self._db = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None,
                                       check_same_thread=False)
            if self.path != ":memory:":
                os.chmod(self.path, 0o600)  # seat tokens live here
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._db.execute("PRAGMA foreign_keys=ON")
            row = None
            if self._db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone():
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and int(row[0]) == 1:
                self._upgrade_from_1()
            elif row is not None and int(row[0]) != SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {row[0]}, this code reads "
                                 f"{SCHEMA_VERSION}")
            self._db.executescript(_SCHEMA)
            if row is None:
                self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                                 (str(SCHEMA_VERSION),))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the match database {self.path}: {exc}") from exc

    def _upgrade_from_1(self) -> None:
        """Version 1 kept tokens, seeds and the tokens of stored replies in clear: hash the
        tokens, seal the seeds of matches not over, withhold the stored replies' tokens."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("ALTER TABLE matches ADD COLUMN seed_box TEXT")
            rows = db.execute("SELECT id, tokens, seed, status FROM matches").fetchall()
            for match_id, tokens_text, seed, status in rows:
                tokens = json.loads(tokens_text)
                hashed = {"seats": [None if t is None else self.secrets.token_hash(t)
                                    for t in tokens["seats"]],
                          "owner": self.secrets.token_hash(tokens["owner"])}
                box = None if seed is None else self.secrets.seal(str(seed))
                clear = seed if status in ("over", "closed") else None
                db.execute("UPDATE matches SET tokens = ?, seed = ?, seed_box = ? WHERE id = ?",
                           (_dumps(hashed), clear, box, match_id))
            for client, rid, reply_text in db.execute(
                    "SELECT client, request_id, reply FROM requests").fetchall():
                reply = json.loads(reply_text)
                if "owner_token" in reply or "tokens" in reply:
                    reply = withhold_secrets(reply)
                    db.execute("UPDATE requests SET reply = ? WHERE client = ? AND "
                               "request_id = ?", (json.dumps(reply, separators=(",", ":")),
                                                  client, rid))
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
            for fd in self._lock_fds:
                os.close(fd)  # releases the lock
            self._lock_fds = ()

    # -- writing -----------------------------------------------------------------------

    def _transaction(self, write: Callable[[sqlite3.Connection], None]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    write(self._db)
                    if self.fault_hook is not None:
                        self.fault_hook("written")
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"match database write failed: {exc}") from exc
            if self.fault_hook is not None:
                self.fault_hook("committed")

    @staticmethod
    def _write_events(db: sqlite3.Connection, match_id: str,
                      events: Sequence[dict[str, Any]]) -> None:
        db.executemany("INSERT INTO events (match_id, n, body) VALUES (?, ?, ?)",
                       [(match_id, e["n"], json.dumps(e, separators=(",", ":")))
                        for e in events])

    @staticmethod
    def _write_request(db: sqlite3.Connection, match_id: str | None,
                       request: StoredRequest | None, at: float) -> None:
        if request is None:
            return
        db.execute("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?)",
                   (request.client, request_key(request.request_id), match_id,
                    request.fingerprint,
                    json.dumps(request.reply, separators=(",", ":")),  # keep the key order
                    at))

    @staticmethod
    def _write_summary(db: sqlite3.Connection, match_id: str, summary: dict[str, Any]) -> None:
        bad = set(summary) - set(SUMMARY_COLUMNS)
        if bad:
            raise ValueError(f"not summary columns: {sorted(bad)}")
        cols = ", ".join(f"{k} = ?" for k in summary)
        db.execute(f"UPDATE matches SET {cols} WHERE id = ?", (*summary.values(), match_id))

    def create(self, match: StoredMatch, events: Sequence[dict[str, Any]],
               request: StoredRequest | None = None) -> None:
        """Store a new match with its first events (and the `match_new` request)."""
        seats = match.config["seats"]

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO matches (id, config, seed, seed_box, tokens, status, variant, "
                "length, player0, player1, bots, created_at, updated_at, ended_at, score0, "
                "score1, winner, games, actions, events) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (match.id, _dumps(match.config),
                 match.seed if match.status in ("over", "closed") else None,
                 None if match.seed is None else self.secrets.seal(str(match.seed)),
                 _dumps(match.tokens),
                 match.status, match.config["variant"], match.config["length"],
                 seats[0].get("name", ""), seats[1].get("name", ""),
                 sum(1 for s in seats if s["player"] == "bot"), match.created_at,
                 match.updated_at, match.ended_at, match.score[0], match.score[1],
                 match.winner, match.games, match.actions, match.events))
            self._write_events(db, match.id, events)
            self._write_request(db, match.id, request, match.created_at)

        self._transaction(write)

    def append(self, match_id: str, seq: int, actor: str, action: dict[str, Any],
               events: Sequence[dict[str, Any]], summary: dict[str, Any],
               request: StoredRequest | None = None, *, at: float) -> None:
        """One accepted action: the action, its events, the summary and the request."""
        self._change(match_id, events, summary, request, at, (seq, actor, _dumps(action)))

    def update(self, match_id: str, events: Sequence[dict[str, Any]],
               summary: dict[str, Any], request: StoredRequest | None = None,
               *, at: float) -> None:
        """A change that is not a game action (adjourned, resumed, closed), with its events."""
        self._change(match_id, events, summary, request, at)

    def _change(self, match_id: str, events: Sequence[dict[str, Any]],
                summary: dict[str, Any], request: StoredRequest | None, at: float,
                action: tuple[int, str, str] | None = None) -> None:
        """One transaction: the action (seq, actor, body) if any, the events, the
        summary and the request."""

        def write(db: sqlite3.Connection) -> None:
            if action is not None:
                db.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?)", (match_id, *action, at))
            self._write_events(db, match_id, events)
            self._write_summary(db, match_id, summary)
            self._write_request(db, match_id, request, at)

        self._transaction(write)

    # -- reading -----------------------------------------------------------------------

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, tuple(args)).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"match database read failed: {exc}") from exc

    _MATCH_COLUMNS = ("id, config, seed, tokens, status, created_at, updated_at, ended_at, "
                      "score0, score1, winner, games, actions, events, seed_box")

    def _decode(self, row: tuple[Any, ...]) -> StoredMatch:
        seed = row[2]
        if seed is None and row[14] is not None:
            opened = self.secrets.unseal(row[14])
            if opened is None:
                raise StoreError(f"match {row[0]}: its seed cannot be opened with this "
                                 "database's key")
            seed = int(opened)
        return StoredMatch(row[0], json.loads(row[1]), seed, json.loads(row[3]), row[4],
                           row[5], row[6], row[7], (row[8], row[9]), row[10], row[11], row[12],
                           row[13])

    def get(self, match_id: str) -> StoredMatch | None:
        rows = self._query(f"SELECT {self._MATCH_COLUMNS} FROM matches WHERE id = ?",
                           (match_id,))
        return self._decode(rows[0]) if rows else None

    def actions(self, match_id: str) -> list[tuple[str, dict[str, Any]]]:
        """The action log in order: (actor, action) pairs."""
        rows = self._query("SELECT seq, actor, body FROM actions WHERE match_id = ? "
                           "ORDER BY seq", (match_id,))
        for i, (seq, _, _) in enumerate(rows):
            if seq != i:
                raise StoreError(f"match {match_id}: action log has a gap at {i}")
        return [(actor, json.loads(body)) for _, actor, body in rows]

    def events(self, match_id: str, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        rows = self._query("SELECT body FROM events WHERE match_id = ? AND n > ? "
                           "ORDER BY n LIMIT ?", (match_id, after, limit))
        return [json.loads(body) for (body,) in rows]

    def request(self, client: str, request_id: int | str) -> StoredRequest | None:
        rows = self._query("SELECT fingerprint, reply FROM requests WHERE client = ? AND "
                           "request_id = ?", (client, request_key(request_id)))
        if not rows:
            return None
        return StoredRequest(client, request_id, rows[0][0], json.loads(rows[0][1]))

    def ids(self, statuses: Sequence[str]) -> list[str]:
        marks = ", ".join("?" for _ in statuses)
        return [r[0] for r in self._query(
            f"SELECT id FROM matches WHERE status IN ({marks}) ORDER BY created_at, id",
            statuses)]

    def count(self, statuses: Sequence[str]) -> int:
        marks = ", ".join("?" for _ in statuses)
        return int(self._query(f"SELECT COUNT(*) FROM matches WHERE status IN ({marks})",
                               statuses)[0][0])

    def idle(self, status: str, before: float) -> list[str]:
        return [r[0] for r in self._query(
            "SELECT id FROM matches WHERE status = ? AND updated_at < ? ORDER BY updated_at",
            (status, before))]

    def search(self, *, statuses: Sequence[str] | None = None, variant: str | None = None,
               player: str | None = None, bots: bool | None = None, limit: int = 50,
               offset: int = 0) -> tuple[list[StoredMatch], int]:
        """Matches by filter, newest first, and the total number that match."""
        where: list[str] = []
        args: list[Any] = []
        if statuses:
            where.append(f"status IN ({', '.join('?' for _ in statuses)})")
            args += statuses
        if variant is not None:
            where.append("variant = ?")
            args.append(variant)
        if player is not None:
            where.append("(player0 = ? OR player1 = ?)")
            args += [player, player]
        if bots is not None:
            where.append("bots > 0" if bots else "bots = 0")
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        total = int(self._query(f"SELECT COUNT(*) FROM matches{clause}", args)[0][0])
        rows = self._query(f"SELECT {self._MATCH_COLUMNS} FROM matches{clause} "
                           "ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                           [*args, limit, offset])
        return [self._decode(r) for r in rows], total


# -- maintenance (retention, `jacquetd db`) ----------------------------------------------


@dataclass(frozen=True)
class Retention:
    """What the store keeps of the past: finished and closed matches (with their actions,
    events and stored replies) for `keep_days` after they ended, and at most
    `keep_matches` of them (the oldest go first); stored replies (for retries) for
    `keep_replies_days`. Matches in play or adjourned are never pruned."""

    keep_days: float = 365.0
    keep_matches: int = 100_000
    keep_replies_days: float = 7.0


def prune(store: MatchStore, policy: Retention, now: float) -> dict[str, int]:
    """Apply `policy`; returns how many matches and stored replies were deleted."""
    ended = ("over", "closed")

    def write(db: sqlite3.Connection) -> None:
        old = [r[0] for r in db.execute(
            "SELECT id FROM matches WHERE status IN (?, ?) AND ended_at < ?",
            (*ended, now - policy.keep_days * 86400.0))]
        extra = [r[0] for r in db.execute(
            "SELECT id FROM matches WHERE status IN (?, ?) ORDER BY ended_at DESC, id "
            "LIMIT -1 OFFSET ?", (*ended, policy.keep_matches))]
        gone = sorted(set(old) | set(extra))
        db.executemany("DELETE FROM requests WHERE match_id = ?", [(m,) for m in gone])
        db.executemany("DELETE FROM matches WHERE id = ?", [(m,) for m in gone])
        replies = db.execute("DELETE FROM requests WHERE at < ?",
                             (now - policy.keep_replies_days * 86400.0,)).rowcount
        counts["matches"], counts["replies"] = len(gone), replies

    counts = {"matches": 0, "replies": 0}
    store._transaction(write)
    return counts


def stats(store: MatchStore) -> dict[str, Any]:
    """Sizes of the database: matches by status, rows per table, bytes on disk."""
    by_status = dict(store._query("SELECT status, COUNT(*) FROM matches GROUP BY status"))
    rows = {t: int(store._query(f"SELECT COUNT(*) FROM {t}")[0][0])
            for t in ("matches", "actions", "events", "requests")}
    size = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            size += os.path.getsize(store.path + suffix)
    return {"path": store.path, "matches": by_status, "rows": rows, "bytes": size}


def check(store: MatchStore) -> list[str]:
    """Problems found: SQLite's integrity check, then every action log without gaps and
    every match readable (its seed opens with this database's key). [] when sound."""
    problems = [r[0] for r in store._query("PRAGMA integrity_check") if r[0] != "ok"]
    for (match_id,) in store._query("SELECT id FROM matches"):
        try:
            store.get(match_id)
            store.actions(match_id)
        except StoreError as exc:
            problems.append(str(exc))
    return problems


def vacuum(store: MatchStore) -> int:
    """Rebuild the file to give the space of deleted rows back; returns bytes freed."""
    before = stats(store)["bytes"]
    with store._lock:
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store._db.execute("VACUUM")
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return max(0, int(before) - int(stats(store)["bytes"]))
