"""The derived SQLite index: catches up by byte offset, survives deletion, truncation and rewrites."""

from __future__ import annotations

import os
from pathlib import Path

from hallmark.core import index as index_mod
from hallmark.core import items, journal, questions
from hallmark.core.index import Index

from .test_states import CHECKS, DEV, REVIEW, bare_repo, make_item


def _snapshot(repo) -> dict:
    data = items.status_all(repo)
    return {"items": data["items"], "counts": data["counts"]}


def test_catch_up_reads_only_what_was_appended(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001")
    idx = repo.index
    assert [v.id for v in idx.items()] == ["H-0001"]
    assert idx.catch_up() == 0  # nothing new: nothing read
    items.transition(repo, "H-0001", "ready", sha="a" * 40, round=1)
    assert idx.catch_up() == 1
    assert idx.item("H-0001").state == CHECKS


def test_deleting_the_index_and_item_json_changes_nothing(tmp_path: Path):
    repo = bare_repo(tmp_path)
    for n, state in enumerate([DEV, CHECKS, REVIEW, "closed", "dropped"], start=1):
        make_item(repo, f"H-{n:04d}", state)
    questions.ask(repo, "billed or raw?", item_id="H-0002", options=["billed", "raw"])
    before = _snapshot(repo)
    asked = repo.index.questions()
    repo.index.close()
    os.unlink(repo.state_dir / "index.sqlite")
    for cache in repo.paths.items_dir.glob("*/item.json"):
        cache.unlink()
    fresh = bare_repo(tmp_path)
    assert _snapshot(fresh) == before
    assert fresh.index.questions() == asked
    assert fresh.index.rebuild() > 0
    assert _snapshot(fresh) == before


def test_catch_up_after_a_journal_is_truncated_replaced_or_rewritten(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001", REVIEW)
    path = repo.paths.item_journal("H-0001")
    assert repo.index.item("H-0001").state == REVIEW
    original = path.read_bytes()
    lines = original.splitlines(keepends=True)

    with open(path, "r+b") as handle:  # truncated in place: only `created` is left
        handle.truncate(len(lines[0]))
    assert repo.index.item("H-0001").state == DEV
    assert len(repo.index.events(item="H-0001")) == 1

    replacement = tmp_path / "replacement.jsonl"  # replaced by a new file (a restore from backup)
    replacement.write_bytes(b"".join(lines[:2]))
    os.replace(replacement, path)
    assert repo.index.item("H-0001").state == CHECKS
    assert [e["event"] for e in repo.index.events(item="H-0001")] == ["created", "ready"]

    # rewritten in place, same inode, longer: the bytes before the old offset changed
    text = b"".join(lines[:2]).replace(b'"ready"', b'"dropped"')
    with open(path, "r+b") as handle:
        handle.seek(0)
        handle.write(text + lines[2])
        handle.truncate()
    assert repo.index.item("H-0001").state == "dropped"
    assert [e["event"] for e in repo.index.events(item="H-0001")] == ["created", "dropped", "checks_passed"]


def test_a_deleted_journal_leaves_the_index(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001")
    make_item(repo, "H-0002")
    assert len(repo.index.items()) == 2
    os.unlink(repo.paths.item_journal("H-0002"))
    assert [v.id for v in repo.index.items()] == ["H-0001"]
    assert repo.index.events(item="H-0002") == []


def test_bad_lines_keep_their_true_line_numbers(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001")
    path = repo.paths.item_journal("H-0001")
    with open(path, "ab") as handle:
        handle.write(b"garbage\n")
    items.transition(repo, "H-0001", "ready", sha="a" * 40)
    with open(path, "ab") as handle:
        handle.write(b'{"torn')  # no newline: not consumed until it is whole
    idx = repo.index
    assert idx.item("H-0001").state == CHECKS
    rows = idx.db().execute("SELECT line, event FROM events WHERE item='H-0001' ORDER BY line").fetchall()
    assert rows == [(1, "created"), (3, "ready")]
    items.transition(repo, "H-0001", "checks_passed")  # the append closes the torn line first
    assert idx.item("H-0001").state == REVIEW
    rows = idx.db().execute("SELECT line, event FROM events WHERE item='H-0001' ORDER BY line").fetchall()
    assert rows == [(1, "created"), (3, "ready"), (5, "checks_passed")]


def test_a_corrupt_index_file_is_rebuilt_on_the_next_read(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001", CHECKS)
    repo.index.close()
    (repo.state_dir / "index.sqlite").write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(repo.state_dir / "index.sqlite") + suffix).unlink(missing_ok=True)
    assert Index(repo.paths).item("H-0001").state == CHECKS


def test_an_old_schema_is_replaced(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001")
    repo.index.items()
    db = repo.index.db()
    db.execute("UPDATE meta SET value='1' WHERE key='schema'")
    repo.index.close()
    assert [v.id for v in Index(repo.paths).items()] == ["H-0001"]
    assert (
        int(Index(repo.paths).db().execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0])
        == index_mod.SCHEMA_VERSION
    )


def test_repo_level_events_and_filters(tmp_path: Path):
    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001", CHECKS)
    items.record(repo, None, "notification", text="hello")
    idx = repo.index
    assert [e["event"] for e in idx.events(repo_level=True)] == ["notification"]
    assert [e["event"] for e in idx.events(kinds=["ready"])] == ["ready"]
    assert [e["event"] for e in idx.events(item="H-0001", kinds=["created", "ready"])] == ["created", "ready"]
    assert idx.events(since="2999-01-01T00:00:00Z") == []


def test_status_all_reads_the_index_not_every_journal(tmp_path: Path, monkeypatch):
    """Once caught up, status answers from SQLite: unchanged journals are stat'ed, never read."""
    repo = bare_repo(tmp_path)
    for n in range(1, 6):
        make_item(repo, f"H-{n:04d}", CHECKS)
    first = items.status_all(repo)
    opened: list[Path] = []
    real_read = journal.read

    def counting_read(path, *args, **kwargs):  # the real read, counted
        opened.append(Path(path))
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(journal, "read", counting_read)
    assert items.status_all(repo) == first
    assert opened == []
    items.transition(repo, "H-0003", "checks_passed")
    opened.clear()
    assert [i["state"] for i in items.status_all(repo)["items"]] == [CHECKS, CHECKS, REVIEW, CHECKS, CHECKS]
    assert opened == [repo.paths.item_journal("H-0003")]  # only the one that grew


def test_items_come_in_number_order_past_9999(tmp_path: Path):
    repo = bare_repo(tmp_path)
    for item_id in ("H-10000", "H-9999", "H-0002"):
        make_item(repo, item_id)
    assert [v.id for v in repo.index.items()] == ["H-0002", "H-9999", "H-10000"]


def test_a_removed_item_folder_leaves_the_index(tmp_path: Path):
    import shutil

    repo = bare_repo(tmp_path)
    make_item(repo, "H-0001")
    make_item(repo, "H-0002", CHECKS)
    assert len(repo.index.items()) == 2
    shutil.rmtree(repo.paths.item_dir("H-0002"))
    assert [v.id for v in repo.index.items()] == ["H-0001"]
    assert repo.index.events(item="H-0002") == []
    assert repo.index.catch_up() == 0


_CONCURRENT = r"""
import sys, time
from pathlib import Path
from hallmark.core import journal
from hallmark.core.index import Index
from hallmark.core.paths import RepoPaths

root, role, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
common = root / ".git"
paths = RepoPaths(root, common, common, root)
go = root / "go"
while not go.exists():
    time.sleep(0.002)
if role == "write":
    for k in range(150):
        item = f"H-{(k % 3) + 1 + 3 * n:04d}"
        journal.append(paths.item_journal(item), "note", item=item, actor=f"w{n}", k=k)
else:
    index = Index(paths)
    for _ in range(40):
        index.items()
        index.events(kinds=["note"])
"""


def test_readers_catching_up_while_writers_append_index_every_line_once(tmp_path: Path):
    import subprocess
    import sys

    repo = bare_repo(tmp_path)
    for n in range(1, 10):
        make_item(repo, f"H-{n:04d}")
    script = tmp_path / "worker.py"
    script.write_text(_CONCURRENT)
    procs = [subprocess.Popen([sys.executable, str(script), str(tmp_path), "write", str(n)]) for n in range(3)]
    procs += [subprocess.Popen([sys.executable, str(script), str(tmp_path), "read", "0"]) for _ in range(2)]
    (tmp_path / "go").touch()
    assert [p.wait(timeout=120) for p in procs] == [0] * 5
    index = Index(repo.paths)
    notes = index.events(kinds=["note"])
    assert len(notes) == 450  # every appended line once: none missed, none twice
    assert len({(e["actor"], e["k"]) for e in notes}) == 450
    for n in range(1, 10):
        item_id = f"H-{n:04d}"
        on_disk = journal.read(repo.paths.item_journal(item_id)).events
        assert index.item(item_id).events == len(on_disk)
        assert len(index.events(item=item_id)) == len(on_disk)
