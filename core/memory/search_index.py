"""The library's derived SQLite FTS5 index: `library/search.sqlite`.

It catches up from the audit log by byte offset (every audit line carries the full record),
so a write costs the index nothing and a read pays only for what is new. Deleting the file
loses nothing: the next read rebuilds it from the learning files. Stdlib only.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from typing import Any

from hallmark.core import journal
from hallmark.core.derived_db import DerivedDatabase

from .similarity import normalise
from .store import Learning, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

SCHEMA_VERSION = 3  # 3: normalised patterns collapse mixed separator runs ("a:_b" -> "a b")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS learnings (
    num INTEGER PRIMARY KEY, lid TEXT UNIQUE, project TEXT, status TEXT, kind TEXT, norm TEXT,
    occurrences INTEGER, updated TEXT, paths TEXT, record TEXT
);
CREATE INDEX IF NOT EXISTS learnings_norm ON learnings(project, norm);
CREATE INDEX IF NOT EXISTS learnings_status ON learnings(project, status);
CREATE INDEX IF NOT EXISTS learnings_rank ON learnings(project, paths, status, occurrences, num);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(pattern, rationale, paths, kind, tokenize='unicode61');
"""


def _num(lid: str) -> int:
    return int(lid.split("-", 1)[1])


def fts_query(text: str, mode: str = "AND") -> str:
    """Words of text as quoted FTS5 terms (no operators leak through from user input)."""
    terms = [t for t in re.findall(r"\w+", text.lower()) if len(t) >= 2]
    seen: list[str] = []
    for term in terms:
        if term not in seen:
            seen.append(term)
    return f" {mode} ".join(f'"{t}"' for t in seen[:32])


class SearchIndex(DerivedDatabase):
    def __init__(self, store: Store) -> None:
        self.store = store
        self.path = store.root / "search.sqlite"
        self._db: sqlite3.Connection | None = None

    def _prepare(self, db: sqlite3.Connection) -> None:
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or int(row[0]) != SCHEMA_VERSION:
            db.executescript("DELETE FROM learnings; DELETE FROM fts; DELETE FROM meta;")
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    # -- catching up --------------------------------------------------------------------
    def _meta(self, key: str) -> str | None:
        row = self.db().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> None:
        self.db().execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def _upsert(self, record: dict[str, Any]) -> None:
        learning = Learning.from_dict(record)
        num = _num(learning.id)
        db = self.db()
        db.execute("DELETE FROM fts WHERE rowid=?", (num,))
        db.execute(
            "INSERT OR REPLACE INTO learnings VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                num,
                learning.id,
                learning.project,
                learning.status,
                learning.kind,
                normalise(learning.pattern),
                learning.occurrences,
                learning.updated,
                json.dumps(learning.paths),
                json.dumps(record),
            ),
        )
        db.execute(
            "INSERT INTO fts(rowid, pattern, rationale, paths, kind) VALUES (?,?,?,?,?)",
            (num, learning.pattern, learning.rationale, " ".join(learning.paths), learning.kind),
        )

    def catch_up(self) -> None:
        audit_path = self.store.audit_path
        try:
            stat = audit_path.stat()
        except FileNotFoundError:
            stat = None
        offset = int(self._meta("offset") or 0)
        inode = self._meta("inode")
        size = stat.st_size if stat else 0
        if stat is None and offset == 0:
            return
        if stat is None or (inode and inode != str(stat.st_ino)) or size < offset:
            self.rebuild()
            return
        if size == offset:
            return
        result = journal.read(audit_path, offset, include_tail=False)
        db = self.db()
        db.execute("BEGIN IMMEDIATE")
        try:
            for event in result.events:
                if event.get("event") == "library" and isinstance(event.get("record"), dict):
                    self._upsert(event["record"])
            self._set_meta("offset", str(result.offset))
            self._set_meta("inode", str(stat.st_ino))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def rebuild(self) -> None:
        """From the learning files (the truth), then remember where the audit log ends."""
        db = self.db()
        records = self.store.all()
        try:
            stat = self.store.audit_path.stat()
        except FileNotFoundError:
            stat = None
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM learnings")
            db.execute("DELETE FROM fts")
            for learning in records:
                self._upsert(learning.to_dict())
            self._set_meta("offset", str(stat.st_size if stat else 0))
            self._set_meta("inode", str(stat.st_ino if stat else ""))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # -- queries ------------------------------------------------------------------------
    def by_norm(self, project: str, norm: str) -> list[Learning]:
        rows = (
            self.db()
            .execute("SELECT record FROM learnings WHERE project=? AND norm=? ORDER BY num", (project, norm))
            .fetchall()
        )
        return [Learning.from_dict(json.loads(r[0])) for r in rows]

    def search(
        self,
        project: str,
        text: str,
        *,
        statuses: tuple[str, ...] = ("accepted", "promoted"),
        limit: int = 20,
        mode: str = "AND",
        exclude: set[str] | None = None,
        offset: int = 0,
    ) -> list[Learning]:
        query = fts_query(text, mode)
        if not query:
            return []
        marks = ",".join("?" for _ in statuses)
        sql = (
            f"SELECT l.record FROM fts JOIN learnings l ON l.num = fts.rowid "
            f"WHERE fts MATCH ? AND l.project=? AND l.status IN ({marks}) "
            f"ORDER BY bm25(fts), l.num LIMIT ? OFFSET ?"
        )
        try:
            rows = self.db().execute(sql, (query, project, *statuses, limit + len(exclude or ()), offset)).fetchall()
        except sqlite3.OperationalError:
            return []
        out = [Learning.from_dict(json.loads(r[0])) for r in rows]
        if exclude:
            out = [x for x in out if x.id not in exclude]
        return out[:limit]

    def pending(self, project: str) -> list[Learning]:
        """Proposed and skipped learnings, and active ones with a retirement proposal."""
        try:
            rows = (
                self.db()
                .execute(
                    "SELECT record FROM learnings WHERE project=? AND (status IN ('proposed','skipped') OR "
                    "(status IN ('accepted','promoted') AND json_extract(record, '$.retire_proposal') IS NOT NULL)) "
                    "ORDER BY num",
                    (project,),
                )
                .fetchall()
            )
        except sqlite3.OperationalError:  # an SQLite without JSON1: filter here instead
            rows = [
                r
                for r in self.db().execute(
                    "SELECT record FROM learnings WHERE project=? AND status IN ('proposed','skipped','accepted','promoted') "
                    "ORDER BY num",
                    (project,),
                )
                if json.loads(r[0]).get("status") in ("proposed", "skipped") or json.loads(r[0]).get("retire_proposal")
            ]
        return [Learning.from_dict(json.loads(r[0])) for r in rows]

    def known_ids(self) -> set[str]:
        return {row[0] for row in self.db().execute("SELECT lid FROM learnings")}

    def unreadable(self) -> list[str]:
        """Learning files on disk the index could not take in (corrupt, or written behind its back)."""
        from .store import parse

        out: list[str] = []
        try:
            names = [n for n in os.listdir(self.store.learnings_dir) if n.startswith("L-") and n.endswith(".md")]
        except FileNotFoundError:
            return out
        rows = int(self.db().execute("SELECT count(*) FROM learnings").fetchone()[0])
        if len(names) == rows:
            return out  # every file is in the index
        known = self.known_ids()
        for path in (self.store.learnings_dir / n for n in names):
            if path.stem in known:
                continue
            try:
                parse(path.read_text(encoding="utf-8"), str(path))
            except (ValueError, OSError, TypeError):
                out.append(str(path))
        return out

    def scoped_ids(self, project: str, changed: list[str]) -> list[int]:
        """Active learnings a changed path falls under, most seen first (as row numbers). Globs are
        matched on the paths column, once per distinct glob list."""
        from .globs import any_match

        rows = (
            self.db()
            .execute(
                "SELECT num, paths, occurrences FROM learnings WHERE project=? AND status IN ('accepted','promoted') "
                "AND paths != '[]'",
                (project,),
            )
            .fetchall()
        )
        verdicts: dict[str, bool] = {}
        hits = []
        for num, paths, occurrences in rows:
            if paths not in verdicts:
                verdicts[paths] = any_match(changed, json.loads(paths))
            if verdicts[paths]:
                hits.append((-occurrences, num))
        return [num for _, num in sorted(hits)]

    def records(self, nums: list[int]) -> list[Learning]:
        if not nums:
            return []
        marks = ",".join("?" for _ in nums)
        found = {
            num: record
            for num, record in self.db().execute(f"SELECT num, record FROM learnings WHERE num IN ({marks})", nums)
        }
        return [Learning.from_dict(json.loads(found[n])) for n in nums if n in found]

    def count(self, project: str, statuses: tuple[str, ...]) -> int:
        marks = ",".join("?" for _ in statuses)
        return int(
            self.db()
            .execute(f"SELECT count(*) FROM learnings WHERE project=? AND status IN ({marks})", (project, *statuses))
            .fetchone()[0]
        )

    def top(self, project: str, status: str, limit: int) -> list[Learning]:
        """The most-seen learnings with one status."""
        rows = (
            self.db()
            .execute(
                "SELECT record FROM learnings WHERE project=? AND status=? ORDER BY occurrences DESC, num LIMIT ?",
                (project, status, limit),
            )
            .fetchall()
        )
        return [Learning.from_dict(json.loads(r[0])) for r in rows]

    def iter_general(self, project: str, *, scoped_too: bool = False) -> Iterator[Learning]:
        """Active learnings with no path scope (or all, with scoped_too), most seen first, read lazily."""
        where = "" if scoped_too else "AND paths = '[]' "
        nums = [
            n
            for (n,) in self.db().execute(
                f"SELECT num FROM learnings WHERE project=? {where}AND status IN ('accepted','promoted') "
                "ORDER BY occurrences DESC, num",
                (project,),
            )
        ]
        for start in range(0, len(nums), 50):
            yield from self.records(nums[start : start + 50])

    def iter_search(self, project: str, text: str, mode: str = "OR") -> Iterator[Learning]:
        """Active learnings matching text, best first, read lazily."""
        query = fts_query(text, mode)
        if not query:
            return
        try:
            cursor = self.db().execute(
                "SELECT l.record FROM fts JOIN learnings l ON l.num = fts.rowid WHERE fts MATCH ? AND l.project=? "
                "AND l.status IN ('accepted','promoted') ORDER BY bm25(fts), l.num",
                (query, project),
            )
            for (record,) in cursor:
                yield Learning.from_dict(json.loads(record))
        except sqlite3.OperationalError:
            return
