"""core/runner/follow.py: the one follower beneath `hall trace --follow` and the app's trace view."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hallmark.core.runner.follow import StreamFollower
from hypothesis import given, settings
from hypothesis import strategies as st


def _drain(follower: StreamFollower) -> list[tuple[int, bytes]]:
    follower.check()
    return list(follower.read())


def test_whole_lines_only_and_the_half_written_one_waits(tmp_path: Path):
    path = tmp_path / "20261130T090000000Z-review.jsonl"
    path.write_bytes(b'{"a":1}\n{"b"')
    follower = StreamFollower(path)
    assert _drain(follower) == [(0, b'{"a":1}\n')]
    assert follower.offset == 8 and follower.last == b'{"a":1}' and follower.pending
    with open(path, "ab") as handle:
        handle.write(b':2}\n{"type":"hall_run_end","failure":null}\n')
    assert _drain(follower) == [(8, b'{"b":2}\n{"type":"hall_run_end","failure":null}\n')]
    assert follower.saw_end and follower.last == b'{"type":"hall_run_end","failure":null}'
    assert _drain(follower) == [] and not follower.pending


def test_a_truncated_or_replaced_file_starts_again(tmp_path: Path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"one\ntwo\n")
    follower = StreamFollower(path)
    assert [data for _, data in _drain(follower)] == [b"one\ntwo\n"]
    path.write_bytes(b"x\n")  # shrank
    assert follower.check() is True
    assert list(follower.read()) == [(0, b"x\n")]
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(b"fresh line that is longer\n")
    os.replace(replacement, path)  # another inode, larger than the offset
    assert follower.check() is True and follower.offset == 0
    assert list(follower.read()) == [(0, b"fresh line that is longer\n")]
    assert follower.check() is False


def test_a_line_longer_than_a_chunk_is_read_whole(tmp_path: Path):
    path = tmp_path / "run.jsonl"
    long = b"x" * 10_000
    path.write_bytes(long + b"\nshort\n")
    follower = StreamFollower(path, chunk=1024)
    pieces = _drain(follower)
    assert b"".join(data for _, data in pieces) == long + b"\nshort\n"
    assert pieces[0][0] == 0 and all(data.endswith(b"\n") for _, data in pieces)


def test_the_last_read_takes_a_torn_line_and_the_tail_shows_the_end_first(tmp_path: Path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"".join(b"line %d\n" % n for n in range(1000)) + b"torn")
    follower = StreamFollower(path)
    follower.check()
    base, data = follower.tail(100)
    assert data.endswith(b"line 999\n") and data.startswith(b"line ") and base + len(data) == path.stat().st_size - 4
    assert follower.offset == 0  # the tail does not move the follower
    list(follower.read())
    assert follower.rest() == b"torn" and follower.offset == path.stat().st_size


def test_the_lock_probe_says_live_only_while_a_runner_holds_it(tmp_path: Path):
    fcntl = pytest.importorskip("fcntl", reason="POSIX flock")
    path = tmp_path / "20261130T090000000Z-review.jsonl"
    path.write_bytes(b"")
    follower = StreamFollower(path)
    assert not follower.live() and follower.stopped() == "unlocked"
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert follower.live() and follower.live(max_age=60)
    finally:
        os.close(fd)
    assert follower.live(max_age=60)  # probed at most once a minute: the last answer stands
    assert not follower.live() and follower.stopped() == "released"


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=12), st.data())
def test_following_a_file_written_in_any_pieces_yields_each_whole_line_once(tmp_path_factory, lines, data):
    """However the writer's bytes are cut, the follower yields exactly the file's whole lines, in
    order, each once, with offsets that follow one another."""
    path = tmp_path_factory.mktemp("follow") / "run.jsonl"
    content = b"".join(line + b"\n" for line in lines) + data.draw(st.binary(max_size=10)).replace(b"\n", b"")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(content)), max_size=6)))
    follower = StreamFollower(path, chunk=data.draw(st.integers(1, 64)))
    got: list[tuple[int, bytes]] = []
    written = 0
    path.write_bytes(b"")
    for cut in [*cuts, len(content)]:
        with open(path, "ab") as handle:
            handle.write(content[written:cut])
        written = max(written, cut)
        assert follower.check() is False
        got += list(follower.read())
    whole = content[: content.rfind(b"\n") + 1]
    assert b"".join(piece for _, piece in got) == whole
    offset = 0
    for start, piece in got:
        assert start == offset and piece.endswith(b"\n")
        offset += len(piece)
