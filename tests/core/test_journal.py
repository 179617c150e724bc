"""The journal: whole lines under a lock, bad lines skipped and reported, concurrent writers lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hallmark.core import journal

WRITERS = 8
EVENTS_PER_WRITER = 260  # 8 x 260 = 2,080 events in all
IDS_PER_WRITER = 12

_WRITER = r"""
import json, os, sys, time
from pathlib import Path
from hallmark.core import ids, journal

path, state_dir, go, tag, count, id_count = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
while not go.exists():  # start together, so the writers really overlap
    time.sleep(0.002)
allocated = []
for n in range(count):
    journal.append(Path(path), "bench", item="H-0001", actor=f"writer-{tag}", writer=tag, n=n,
                   text="x" * (n % 300))
    if n % (count // id_count) == 0 and len(allocated) < 2 * id_count:
        allocated.append(ids.item_id(ids.allocate(state_dir, "item")))
        allocated.append(ids.question_id(ids.allocate(state_dir, "question")))
print(json.dumps(allocated))
"""


def test_append_writes_one_whole_line_with_the_envelope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-10-09T10:04:12Z")
    path = tmp_path / "items" / "H-0042" / "events.jsonl"
    record = journal.append(path, "ready", item="H-0042", actor="you", sha="7c2d018", round=1, note="a\nb")
    raw = path.read_bytes()
    assert raw.count(b"\n") == 1 and raw.endswith(b"\n")
    assert json.loads(raw) == record
    assert record == {
        "v": 1,
        "t": "2026-10-09T10:04:12.000Z",
        "actor": "you",
        "event": "ready",
        "item": "H-0042",
        "sha": "7c2d018",
        "round": 1,
        "note": "a\nb",
    }


def test_a_field_may_not_overwrite_the_envelope(tmp_path: Path):
    with pytest.raises(ValueError, match="clashes"):
        journal.append(tmp_path / "e.jsonl", "x", item=None, actor="you", **{"t": "yesterday"})
    assert not (tmp_path / "e.jsonl").exists()


def test_bad_lines_are_skipped_and_reported_with_their_line_numbers(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    journal.append(path, "created", item="H-0001", actor="you", title="t")
    with open(path, "ab") as handle:
        handle.write(b"this is not json\n")
        handle.write(b"\xff\xfe not utf-8\n")
        handle.write(b"[1, 2]\n")
        handle.write(b'{"no": "event"}\n')
        handle.write(b"\n")
    journal.append(path, "ready", item="H-0001", actor="you", sha="abc", round=1)
    with open(path, "ab") as handle:
        handle.write(b'{"v":1,"t":"2026-01-01T00:00:00Z","event":"pulled_b')  # torn: a crash mid-write
    result = journal.read(path)
    assert [e["event"] for e in result.events] == ["created", "ready"]
    assert result.numbers == [1, 7]
    reasons = {b.line: b.reason for b in result.bad}
    assert set(reasons) == {2, 3, 4, 5, 8}  # line 6 is empty: skipped, not an error
    assert reasons[2].startswith("not JSON")
    assert reasons[3] == "not UTF-8"
    assert reasons[4] == "not a JSON object"
    assert reasons[5] == "missing 'event' or 't'"
    assert "torn" in reasons[8]
    assert all(b.path == str(path) for b in result.bad)


def test_an_append_after_a_torn_line_does_not_merge_into_it(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    journal.append(path, "created", item="H-0001", actor="you")
    with open(path, "ab") as handle:
        handle.write(b'{"v":1,"event":"rea')
    journal.append(path, "ready", item="H-0001", actor="you", sha="abc", round=1)
    result = journal.read(path)
    assert [e["event"] for e in result.events] == ["created", "ready"]
    assert [(b.line, b.reason.split(" (")[0]) for b in result.bad] == [(2, "not JSON")]


def test_reading_from_an_offset_leaves_a_torn_tail_for_later(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    journal.append(path, "created", item="H-0001", actor="you")
    first = journal.read(path, include_tail=False)
    with open(path, "ab") as handle:
        handle.write(b'{"v":1,"t":"x","event":"half')  # a writer mid-line, or a crash
    second = journal.read(path, first.offset, first.lines, include_tail=False)
    assert second.events == [] and second.bad == [] and second.offset == first.offset
    journal.append(path, "ready", item="H-0001", actor="you")
    third = journal.read(path, second.offset, second.lines, include_tail=False)
    assert [e["event"] for e in third.events] == ["ready"] and third.numbers == [3]
    assert [b.line for b in third.bad] == [2]


def test_reading_a_missing_journal_is_empty(tmp_path: Path):
    result = journal.read(tmp_path / "nope.jsonl")
    assert result.events == [] and result.bad == [] and result.offset == 0


def test_eight_processes_append_at_once_and_allocate_unique_ids(tmp_path: Path):
    """The acceptance test: >= 2,000 events from 8 processes, all whole, none lost, IDs unique."""
    state_dir = tmp_path / "hallmark"
    (state_dir / "items").mkdir(parents=True)
    path = state_dir / "items" / "H-0001" / "events.jsonl"
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(script),
                str(path),
                str(state_dir),
                str(go),
                str(tag),
                str(EVENTS_PER_WRITER),
                str(IDS_PER_WRITER),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for tag in range(WRITERS)
    ]
    time.sleep(0.3)  # let every interpreter start and wait at the line
    go.touch()
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * WRITERS

    raw = path.read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b""  # ends in a newline: no torn tail
    parsed = [json.loads(line) for line in lines[:-1]]  # every line parses on its own
    assert len(parsed) == WRITERS * EVENTS_PER_WRITER >= 2000
    result = journal.read(path)
    assert result.bad == [] and len(result.events) == len(parsed)
    for tag in range(WRITERS):  # none lost, none duplicated, each writer's order kept
        mine = [e["n"] for e in parsed if e["writer"] == tag]
        assert mine == list(range(EVENTS_PER_WRITER))
        assert all(e["text"] == "x" * (e["n"] % 300) for e in parsed if e["writer"] == tag)

    allocated = [i for out in outputs for i in json.loads(out)]
    items = [i for i in allocated if i.startswith("H-")]
    questions = [i for i in allocated if i.startswith("Q-")]
    assert len(items) == len(set(items)) == WRITERS * IDS_PER_WRITER
    assert len(questions) == len(set(questions)) == WRITERS * IDS_PER_WRITER
    # H-0001's journal exists, so item numbers start above it; no number is skipped or repeated
    assert sorted(int(i[2:]) for i in items) == list(range(2, WRITERS * IDS_PER_WRITER + 2))
    counters = json.loads((state_dir / "counters.json").read_text())
    assert counters == {"item": WRITERS * IDS_PER_WRITER + 1, "question": WRITERS * IDS_PER_WRITER}


def test_the_lock_is_exclusive(tmp_path: Path):
    """While one step holds the journal's lock, another process cannot append."""
    path = tmp_path / "events.jsonl"
    code = (
        "import sys; from pathlib import Path; from hallmark.core import journal\n"
        "from hallmark.core.errors import HallError\n"
        "try:\n"
        "    with journal.locked(Path(sys.argv[1]), timeout=0.2): print('got it')\n"
        "except HallError as exc: print('timeout', exc.code)\n"
    )
    with journal.locked(path):
        held = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    free = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
    assert held.stdout.strip() == "timeout COMMAND_FAILED"  # a clear error, never a hang
    assert free.stdout.strip() == "got it"


def test_nothing_is_rewritten_in_place(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    journal.append(path, "created", item="H-0001", actor="you")
    before = path.read_bytes()
    inode = os.stat(path).st_ino
    journal.append(path, "ready", item="H-0001", actor="you")
    after = path.read_bytes()
    assert after.startswith(before) and os.stat(path).st_ino == inode


def test_the_one_lock_is_filelocks_flock_and_needs_no_filelock(tmp_path: Path):
    """journal.locked takes the same flock filelock takes on POSIX (a FileLock holder keeps it out,
    and it keeps a FileLock out). That it needs no filelock to do it (the hook path's budget) is a row
    of tests/test_import_hygiene.py."""
    fcntl = pytest.importorskip("fcntl", reason="the flock path is POSIX-only")
    assert fcntl
    path = tmp_path / "events.jsonl"
    try_journal = (
        "import sys; from pathlib import Path; from hallmark.core import journal\n"
        "from hallmark.core.errors import HallError\n"
        "try:\n"
        "    with journal.locked(Path(sys.argv[1]), timeout=0.2): print('got it')\n"
        "except HallError as exc: print('timeout', exc.code)\n"
    )
    from filelock import FileLock, Timeout

    with FileLock(str(journal.lock_path(path))):
        held = subprocess.run(
            [sys.executable, "-c", try_journal, str(path)], capture_output=True, text=True, timeout=60
        )
    assert held.stdout.split() == ["timeout", "COMMAND_FAILED"]
    free = subprocess.run([sys.executable, "-c", try_journal, str(path)], capture_output=True, text=True, timeout=60)
    assert free.stdout.split() == ["got", "it"]
    with journal.locked(path), pytest.raises(Timeout):
        FileLock(str(journal.lock_path(path)), timeout=0.1).acquire()


def test_a_hook_append_waits_for_a_verb_holding_the_lock(tmp_path: Path):
    """The hooks append through journal.locked too: while a verb holds an item's lock, a hook's
    line waits, then lands whole after the verb's own line."""
    import threading

    from hallmark.hooks import common

    class Paths:  # only what common.record reads
        def __init__(self, root: Path) -> None:
            self.root = root

        def item_journal(self, item: str) -> Path:
            return self.root / item / "events.jsonl"

    paths = Paths(tmp_path)
    path = paths.item_journal("H-0001")
    done = threading.Event()
    with journal.locked(path):
        worker = threading.Thread(target=lambda: (common.record(paths, "H-0001", "prompt", prompt="hi"), done.set()))
        worker.start()
        assert not done.wait(0.5)  # blocked on the verb's lock
        journal.append_unlocked(path, journal.make_event("ready", "H-0001", "you", {}))
    worker.join(30)
    assert done.is_set()
    assert [e["event"] for e in journal.read(path).events] == ["ready", "prompt"]
