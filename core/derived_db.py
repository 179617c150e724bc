"""A derived SQLite database: rebuilt from the files it indexes, so a corrupt one is thrown away.

The journal index and the memory store's search index share this: WAL, one connection per
object, and open-or-rebuild.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path


class DerivedDatabase:
    path: Path
    _db: sqlite3.Connection | None = None

    def db(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = self._open()
            except sqlite3.DatabaseError:
                # derived data: a corrupt or foreign file is thrown away and rebuilt
                self._unlink()
                self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    def _prepare(self, db: sqlite3.Connection) -> None:
        """Create or migrate the schema (each subclass has its own)."""
        raise NotImplementedError

    def _unlink(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(str(self.path) + suffix)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
