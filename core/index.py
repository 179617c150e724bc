"""The derived SQLite index: catches up from the journal files by byte offset on every read.

Deleting index.sqlite loses nothing; `hall reindex` rebuilds it from the journals.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from . import journal, states
from .bounded_read import open_regular
from .derived_db import DerivedDatabase
from .paths import RepoPaths

SCHEMA_VERSION = 5  # 5: item views carry hallmark_chain (4: hold_next; failed runs the loop cut short not counted)
TAIL_BYTES = 64  # bytes before the offset remembered to notice a journal rewritten in place
_TABLES = ("meta", "files", "items", "events", "questions")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, offset INTEGER, lines INTEGER, inode INTEGER, mtime INTEGER, tail BLOB
);
CREATE TABLE IF NOT EXISTS items (
    id TEXT PRIMARY KEY, state TEXT, title TEXT, branch TEXT, worktree TEXT, updated TEXT,
    created TEXT, view TEXT
);
CREATE TABLE IF NOT EXISTS events (
    file TEXT, line INTEGER, item TEXT, t TEXT, event TEXT, actor TEXT, body TEXT,
    PRIMARY KEY (file, line)
);
CREATE INDEX IF NOT EXISTS events_item ON events(item, t);
CREATE INDEX IF NOT EXISTS events_kind ON events(event, t);
CREATE TABLE IF NOT EXISTS questions (
    qid TEXT PRIMARY KEY, item TEXT, question TEXT, options TEXT, dflt TEXT, wait TEXT,
    session TEXT, asked TEXT, answered TEXT, answer TEXT, answered_by TEXT
);
"""


class Index(DerivedDatabase):
    def __init__(self, paths: RepoPaths) -> None:
        self.paths = paths
        self.path = paths.state_dir / "index.sqlite"
        self._db: sqlite3.Connection | None = None
        self._settled = False  # inside settled(): queries skip the catch-up
        self._in_memory = False  # the state dir cannot hold the index: this process folds into memory

    def _prepare(self, db: sqlite3.Connection) -> None:
        row = None
        with suppress(sqlite3.OperationalError):
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or str(row[0]) != str(SCHEMA_VERSION):
            for table in _TABLES:
                db.execute(f"DROP TABLE IF EXISTS {table}")
        db.executescript(_SCHEMA)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    # -- catch-up ---------------------------------------------------------------------

    def _journal_paths(self) -> list[tuple[str | None, str]]:
        """(item id or None, journal path) for the repo journal and every item; plain strings,
        because this runs on every read over every item."""
        items_dir = str(self.paths.items_dir)
        files: list[tuple[str | None, str]] = [(None, str(self.paths.repo_journal))]
        try:
            names = sorted(os.listdir(items_dir))
        except FileNotFoundError:
            names = []
        join = os.path.join
        files.extend((name, join(items_dir, name, "events.jsonl")) for name in names)
        return files

    def catch_up(self) -> int:
        """Read what was appended since last time. Returns the number of new events.

        The index is derived, so a read never needs a writable state dir: when the lock or the
        database cannot be written (read-only, full, an index that is a directory), this process
        folds every journal into an index in memory instead, and answers from that."""
        if self._settled:
            return 0
        if self._in_memory:
            return self._catch_up_locked()
        try:
            with journal.locked(self.path):
                return self._catch_up_locked()
        except (OSError, sqlite3.Error):
            self._to_memory()
            return self._catch_up_locked()

    def _to_memory(self) -> None:
        with suppress(sqlite3.Error):
            self.close()
        db = sqlite3.connect(":memory:", isolation_level=None)
        self._prepare(db)
        self._db = db
        self._in_memory = True

    def _catch_up_locked(self) -> int:
        """The catch-up itself (the caller holds the lock, or the index is in memory)."""
        db = self.db()
        known = {row[0]: row[1:] for row in db.execute("SELECT path, offset, lines, inode, mtime, tail FROM files")}
        changed: list[tuple[str | None, str, tuple[Any, ...] | None]] = []
        for item_id, path in self._journal_paths():
            seen = known.pop(path, None)
            if seen is not None:
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    st = None
                if st is not None and (st.st_size, st.st_ino, st.st_mtime_ns) == (seen[0], seen[2], seen[3]):
                    continue  # the common case: nothing appended (one stat, no open)
            changed.append((item_id, path, seen))
        gone = [(path, row) for path, row in known.items()]  # journals whose folder went away
        if not changed and not gone:
            return 0
        added = 0
        db.execute("BEGIN")
        try:
            for item_id, path, seen in changed:
                added += self._catch_up_file(db, item_id, Path(path), seen)
            for path, _ in gone:
                item_id = Path(path).parent.name if Path(path).parent != self.paths.state_dir else None
                self._forget(db, item_id, Path(path))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return added

    def _catch_up_file(
        self, db: sqlite3.Connection, item_id: str | None, path: Path, known: tuple[Any, ...] | None
    ) -> int:
        try:
            st = path.stat()
        except FileNotFoundError:
            if known is not None:
                self._forget(db, item_id, path)
            return 0
        offset, lines = 0, 0
        if known is not None:
            offset, lines, inode, mtime, tail = known
            if st.st_size == offset and st.st_ino == inode and st.st_mtime_ns == mtime:
                return 0  # the common case: nothing appended (one stat, no open)
            if st.st_ino != inode or st.st_size < offset or not _same_tail(path, offset, tail):
                self._forget(db, item_id, path)  # replaced, truncated or rewritten: refold from nothing
                offset, lines = 0, 0
        result = journal.read(path, offset, lines, include_tail=False)
        view = None
        if item_id is not None:
            row = db.execute("SELECT view FROM items WHERE id=?", (item_id,)).fetchone() if offset else None
            view = states.ItemView.from_dict(json.loads(row[0])) if row else states.ItemView(id=item_id)
        rows = []
        for event, line in zip(result.events, result.numbers, strict=True):
            if view is not None:
                states.apply(view, event)
            self._index_side_tables(db, item_id, event)
            rows.append(
                (
                    str(path),
                    line,
                    event.get("item") or item_id,
                    event.get("t"),
                    event.get("event"),
                    event.get("actor"),
                    json.dumps(event, separators=(",", ":")),
                )
            )
        db.executemany("INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?)", rows)
        if view is not None and view.events:
            db.execute(
                "INSERT OR REPLACE INTO items VALUES (?,?,?,?,?,?,?,?)",
                (
                    item_id,
                    view.state,
                    view.title,
                    view.branch,
                    view.worktree,
                    view.updated,
                    view.created,
                    json.dumps(view.to_dict()),
                ),
            )
        db.execute(
            "INSERT OR REPLACE INTO files VALUES (?,?,?,?,?,?)",
            (str(path), result.offset, result.lines, st.st_ino, st.st_mtime_ns, _tail_of(path, result.offset)),
        )
        return len(result.events)

    def _forget(self, db: sqlite3.Connection, item_id: str | None, path: Path) -> None:
        db.execute("DELETE FROM files WHERE path=?", (str(path),))
        db.execute("DELETE FROM events WHERE file=?", (str(path),))
        if item_id is not None:
            db.execute("DELETE FROM items WHERE id=?", (item_id,))
            db.execute("DELETE FROM questions WHERE item=?", (item_id,))
        else:
            db.execute("DELETE FROM questions WHERE item IS NULL")

    def _index_side_tables(self, db: sqlite3.Connection, item_id: str | None, event: dict[str, Any]) -> None:
        name = event.get("event")
        if name == "question":
            db.execute(
                "INSERT OR REPLACE INTO questions (qid, item, question, options, dflt, wait, session, asked) VALUES (?,?,?,?,?,?,?,?)",
                (
                    event.get("qid"),
                    item_id,
                    event.get("question"),
                    json.dumps(event.get("options") or []),
                    event.get("default"),
                    event.get("wait"),
                    event.get("session"),
                    event.get("t"),
                ),
            )
        elif name in ("answered", "question_defaulted"):
            db.execute(
                "UPDATE questions SET answered=?, answer=?, answered_by=? WHERE qid=?",
                (
                    event.get("t"),
                    event.get("answer"),
                    event.get("actor") if name == "answered" else "default",
                    event.get("qid"),
                ),
            )

    def rebuild(self) -> int:
        """Throw every derived row away and read every journal again from its first byte."""
        with journal.locked(self.path):
            try:
                db = self.db()
                db.execute("BEGIN")
                for table in _TABLES[1:]:
                    db.execute(f"DELETE FROM {table}")
                db.execute("COMMIT")
            except sqlite3.DatabaseError:
                self.close()
                self._unlink()
        return self.catch_up()  # outside the lock: flock is not re-entrant across FileLock objects

    # -- queries ----------------------------------------------------------------------
    def items(self, *, include_terminal: bool = True) -> list[states.ItemView]:
        self.catch_up()
        rows = self.db().execute("SELECT view FROM items ORDER BY length(id), id").fetchall()  # H-9999 < H-10000
        views = [states.ItemView.from_dict(json.loads(r[0])) for r in rows]
        if not include_terminal:
            views = [v for v in views if not v.terminal]
        return views

    def item(self, item_id: str) -> states.ItemView | None:
        self.catch_up()
        row = self.db().execute("SELECT view FROM items WHERE id=?", (item_id,)).fetchone()
        return states.ItemView.from_dict(json.loads(row[0])) if row else None

    def events(
        self,
        *,
        item: str | None = None,
        kinds: list[str] | None = None,
        since: str | None = None,
        repo_level: bool = False,
    ) -> list[dict[str, Any]]:
        self.catch_up()
        sql = "SELECT body FROM events WHERE 1=1"
        args: list[Any] = []
        if item is not None:
            sql += " AND item=?"
            args.append(item)
        elif repo_level:
            sql += " AND item IS NULL"
        if kinds:
            sql += f" AND event IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        if since:
            sql += " AND t >= ?"
            args.append(since)
        sql += " ORDER BY t, file, line"
        return [json.loads(r[0]) for r in self.db().execute(sql, args)]

    def progress_times(self, item_ids: list[str]) -> dict[str, tuple[str, str]]:
        """item -> (when its last event that is not a watchman notice was written, when the watchman
        last flagged it, or ""). The watchman's own notice is not progress (core.watchman)."""
        if not item_ids:
            return {}
        self.catch_up()
        out: dict[str, tuple[str, str]] = {}
        for start in range(0, len(item_ids), 500):  # SQLite's variable limit
            chunk = item_ids[start : start + 500]
            sql = (
                "SELECT item, MAX(CASE WHEN event='notice' AND actor='watchman' THEN NULL ELSE t END), "
                "MAX(CASE WHEN event='notice' AND actor='watchman' THEN t END) FROM events "
                f"WHERE item IN ({','.join('?' * len(chunk))}) GROUP BY item"
            )
            for item, progress, noticed in self.db().execute(sql, chunk):
                out[str(item)] = (progress or "", noticed or "")
        return out

    @contextmanager
    def settled(self) -> Iterator[Index]:
        """One catch-up for a block of queries: a screen's load asks several questions of the same
        moment, and each catch-up stats every journal under a lock."""
        self.catch_up()
        self._settled = True
        try:
            yield self
        finally:
            self._settled = False

    def questions(self, *, open_only: bool = False) -> list[dict[str, Any]]:
        self.catch_up()
        sql = "SELECT qid, item, question, options, dflt, wait, session, asked, answered, answer, answered_by FROM questions"
        if open_only:
            sql += " WHERE answered IS NULL"
        sql += " ORDER BY asked"
        keys = (
            "qid",
            "item",
            "question",
            "options",
            "default",
            "wait",
            "session",
            "asked",
            "answered",
            "answer",
            "answered_by",
        )
        out = []
        for row in self.db().execute(sql):
            entry = dict(zip(keys, row, strict=True))
            entry["options"] = json.loads(entry["options"] or "[]")
            out.append(entry)
        return out

    def question(self, qid: str) -> dict[str, Any] | None:
        for entry in self.questions():
            if entry["qid"] == qid:
                return entry
        return None


def _tail_of(path: Path, offset: int) -> bytes:
    """The bytes just before offset: if they change, the file was rewritten, not appended to."""
    if offset <= 0:
        return b""
    start = max(0, offset - TAIL_BYTES)
    try:
        fd = open_regular(path)  # a journal swapped for a FIFO never blocks the index
    except OSError:
        return b""
    try:
        return os.pread(fd, offset - start, start)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _same_tail(path: Path, offset: int, tail: bytes | None) -> bool:
    return _tail_of(path, offset) == (tail or b"")
