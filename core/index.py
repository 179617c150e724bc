"""The derived SQLite index: catches up from the journal files by byte offset on every read.

Deleting index.sqlite loses nothing; `hall reindex` rebuilds it from the journals.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from . import journal, states
from .paths import RepoPaths

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, offset INTEGER, lines INTEGER, inode INTEGER);
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


class Index:
    def __init__(self, paths: RepoPaths) -> None:
        self.paths = paths
        self.path = paths.state_dir / "index.sqlite"
        self._db: sqlite3.Connection | None = None

    # -- connection -------------------------------------------------------------------
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None or int(row[0]) != SCHEMA_VERSION:
                for table in ("files", "items", "events", "questions"):
                    db.execute(f"DELETE FROM {table}")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            self._db = db
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- catch-up ---------------------------------------------------------------------
    def journal_files(self) -> list[tuple[str | None, Path]]:
        files: list[tuple[str | None, Path]] = [(None, self.paths.repo_journal)]
        items_dir = self.paths.items_dir
        try:
            names = sorted(os.listdir(items_dir))
        except FileNotFoundError:
            names = []
        for name in names:
            files.append((name, items_dir / name / "events.jsonl"))
        return files

    def catch_up(self) -> int:
        """Read what was appended since last time. Returns the number of new events."""
        lock = self.paths.state_dir / "index.sqlite"
        with journal.locked(lock):
            db = self.db()
            known = {row[0]: (row[1], row[2], row[3]) for row in db.execute("SELECT path, offset, lines, inode FROM files")}
            added = 0
            db.execute("BEGIN")
            try:
                for item_id, path in self.journal_files():
                    added += self._catch_up_file(db, item_id, path, known.get(str(path)))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return added

    def _catch_up_file(self, db: sqlite3.Connection, item_id: str | None, path: Path,
                       known: tuple[int, int, int] | None) -> int:
        try:
            st = path.stat()
        except FileNotFoundError:
            if known is not None:
                self._forget(db, item_id, path)
            return 0
        offset, lines, inode = known if known else (0, 0, st.st_ino)
        if known and (st.st_ino != inode or st.st_size < offset):
            self._forget(db, item_id, path)  # replaced or truncated: refold from nothing
            offset, lines = 0, 0
        if known and st.st_size == offset:
            return 0
        result = journal.read(path, offset, lines, include_tail=False)
        view = None
        if item_id is not None:
            row = db.execute("SELECT view FROM items WHERE id=?", (item_id,)).fetchone()
            view = states.ItemView.from_dict(json.loads(row[0])) if row and offset else states.ItemView(id=item_id)
        line = lines
        rows = []
        for event in result.events:
            line += 1  # approximate: bad lines are skipped but still counted below
            if view is not None:
                states.apply(view, event)
            self._index_side_tables(db, item_id, event)
            rows.append((str(path), line, event.get("item") or item_id, event.get("t"), event.get("event"),
                         event.get("actor"), json.dumps(event, separators=(",", ":"))))
        db.executemany("INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?)", rows)
        if view is not None and view.events:
            db.execute("INSERT OR REPLACE INTO items VALUES (?,?,?,?,?,?,?,?)",
                       (item_id, view.state, view.title, view.branch, view.worktree, view.updated,
                        view.created, json.dumps(view.to_dict())))
        db.execute("INSERT OR REPLACE INTO files VALUES (?,?,?,?)", (str(path), result.offset, result.lines, st.st_ino))
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
                (event.get("qid"), item_id, event.get("question"), json.dumps(event.get("options") or []),
                 event.get("default"), event.get("wait"), event.get("session"), event.get("t")),
            )
        elif name in ("answered", "question_defaulted"):
            db.execute("UPDATE questions SET answered=?, answer=?, answered_by=? WHERE qid=?",
                       (event.get("t"), event.get("answer"), event.get("actor") if name == "answered" else "default",
                        event.get("qid")))

    def rebuild(self) -> int:
        self.close()
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(str(self.path) + suffix)
            except FileNotFoundError:
                pass
        return self.catch_up()

    # -- queries ----------------------------------------------------------------------
    def items(self, *, include_terminal: bool = True) -> list[states.ItemView]:
        self.catch_up()
        rows = self.db().execute("SELECT view FROM items ORDER BY id").fetchall()
        views = [states.ItemView.from_dict(json.loads(r[0])) for r in rows]
        if not include_terminal:
            views = [v for v in views if not v.terminal]
        return views

    def item(self, item_id: str) -> states.ItemView | None:
        self.catch_up()
        row = self.db().execute("SELECT view FROM items WHERE id=?", (item_id,)).fetchone()
        return states.ItemView.from_dict(json.loads(row[0])) if row else None

    def events(self, *, item: str | None = None, kinds: list[str] | None = None, since: str | None = None,
               repo_level: bool = False) -> list[dict[str, Any]]:
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

    def questions(self, *, open_only: bool = False) -> list[dict[str, Any]]:
        self.catch_up()
        sql = "SELECT qid, item, question, options, dflt, wait, session, asked, answered, answer, answered_by FROM questions"
        if open_only:
            sql += " WHERE answered IS NULL"
        sql += " ORDER BY asked"
        keys = ("qid", "item", "question", "options", "default", "wait", "session", "asked", "answered", "answer", "answered_by")
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
