"""Every file Hallmark reads is a regular file within its role's size (reliability F5, F6).

Each reader meets a FIFO, /dev/zero, a directory and a symlink loop in a real repo and real
processes, each bounded in time (a timeout) and memory (RLIMIT_AS), so a regression fails rather
than hangs or eats the machine. On the old code the FIFO cases hung and /dev/zero grew to GBs.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hallmark.core import bounded_read, journal

BIN = Path(sys.executable).parent
MEMORY = 2 * 1024**3  # a reader that slurps /dev/zero dies here instead of taking the machine
TIMEOUT = 60


@pytest.fixture
def deadline():
    """In-process reads too are bounded in time: a read that blocks (a FIFO opened without
    O_NONBLOCK) is interrupted by SIGALRM and fails the test instead of hanging the run."""

    def expired(_signum, _frame):
        raise TimeoutError("a read blocked for 20 s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _run(argv: list[str], cwd: Path, stdin: bytes = b"") -> tuple[int, str]:
    proc = subprocess.run(
        argv, cwd=cwd, input=stdin, capture_output=True, timeout=TIMEOUT, preexec_fn=_limited, check=False
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def hall(cwd: Path, *args: str) -> tuple[int, str]:
    return _run([str(BIN / "hall"), *args], cwd)


def hook(cwd: Path, event: str, payload: dict) -> tuple[int, str]:
    return _run([str(BIN / "hall-hook"), event], cwd, json.dumps(payload).encode())


def _special(path: Path, kind: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "dir":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path.name)


KINDS = ["fifo", "zero", "dir", "loop"]


# -- the owner ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_reader_refuses_each_special_file_at_once(tmp_path, kind, deadline):
    target = tmp_path / "f"
    _special(target, kind)
    started = time.monotonic()
    with pytest.raises(OSError) as caught:
        bounded_read.read_bytes(target, 1024)
    assert time.monotonic() - started < 5
    assert str(target) in str(caught.value)


def test_a_file_over_its_limit_is_refused_naming_it(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(bounded_read.Refused, match="over the 1,024-byte limit") as caught:
        bounded_read.read_bytes(big, 1024)
    assert caught.value.path == str(big)
    assert bounded_read.read_bytes(big, 4096, offset=2000) == b"x" * 48


def test_a_journal_that_is_a_fifo_reads_as_one_bad_entry_and_is_never_appended_to(tmp_path, deadline):
    path = tmp_path / "events.jsonl"
    os.mkfifo(path)
    found = journal.read(path)
    assert found.events == [] and found.bad[0].line == 0 and "FIFO" in found.bad[0].reason
    with pytest.raises(OSError, match="FIFO"):
        journal.append(path, "note", item=None, actor="you")


# -- .hallmark.toml ---------------------------------------------------------------------------


@pytest.fixture
def made(hall_repo):
    """hall_repo with one item (its worktree exists)."""
    from hallmark.core import items

    result = items.new(hall_repo, title="bounded")
    return hall_repo, result["item"], Path(result["worktree"])


def _write(cwd: Path) -> dict:
    return {"session_id": "s-b", "cwd": str(cwd), "tool_name": "Write", "tool_input": {"file_path": str(cwd / "a.py")}}


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_config_is_refused_by_status_doctor_and_the_hooks(made, kind):
    repo, item, wt = made
    config = repo.root / ".hallmark.toml"
    _special(config, kind)
    code, out = hall(repo.root, "status", "--all")
    assert code == 0 and item in out and ".hallmark.toml" in out  # status still answers, with a warning
    code, out = hall(repo.root, "doctor")
    check = next(c for c in json.loads(out)["checks"] if c["check"] == "config")
    assert check["ok"] is False and ".hallmark.toml" in check["detail"]
    code, out = hook(wt, "pre-tool-use", _write(wt))
    assert code == 0 and '"deny"' in out  # the gate cannot read its config: it denies
    code, out = hook(wt, "session-start", {"session_id": "s-b", "cwd": str(wt), "source": "startup"})
    assert code == 0


def test_a_huge_config_is_refused(made):
    repo, _item, wt = made
    with (repo.root / ".hallmark.toml").open("a") as fh:
        fh.write("# " + "x" * (bounded_read.CONFIG_LIMIT + 10) + "\n")
    code, out = hook(wt, "pre-tool-use", _write(wt))
    assert code == 0 and '"deny"' in out and "limit" in out


# -- an item's journal (F6: one damaged item, every other keeps working) ---------------------------


@pytest.mark.parametrize("kind", ["fifo", "dir", "zero"])
def test_one_special_journal_damages_its_own_item_only(made, kind):
    from hallmark.core import items

    repo, first, first_wt = made
    other = items.new(repo, title="still fine")
    hall(repo.root, "status", "--all")  # the index knew the journal as a file before
    _special(repo.paths.item_journal(first), kind)

    code, out = hall(repo.root, "status", "--all")
    reply = json.loads(out)
    assert code == 0 and [i["item"] for i in reply["items"]] == [other["item"]]
    assert reply["damaged"][0]["item"] == first and reply["counts"]["damaged"] == 1
    code, out = hall(repo.root, "doctor")
    checks = {c["check"]: c for c in json.loads(out)["checks"]}
    assert first in checks["items"]["detail"] and checks["journal"]["ok"] is False
    assert "every other item keeps working" in checks["journal"]["fix"]
    code, out = hall(repo.root, "reindex")
    assert code == 0 and json.loads(out)["items"] == 1
    code, out = hall(repo.root, "status", first)
    assert json.loads(out)["error"]["code"] == "ITEM_NOT_FOUND" and "not a regular file" in out
    code, out = hall(repo.root, "daemon", "run", "--until-idle")
    assert code == 0, out
    code, out = hook(Path(other["worktree"]), "session-start", {"session_id": "s-o", "cwd": other["worktree"]})
    assert code == 0 and other["item"] in out
    code, out = hook(first_wt, "pre-tool-use", _write(first_wt))
    assert code == 0 and '"deny"' in out
    code, out = hall(repo.root, "ready", other["item"])
    assert code == 0, out


# -- files named on the command line ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "zero", "dir"])
@pytest.mark.parametrize(
    "args",
    [
        ("checkpoint", "set", "--from-file"),
        ("verdict", "1", "--file"),
        ("library", "import", "--from"),
        ("library", "import", "--craft"),
    ],
    ids=["checkpoint", "verdict", "import-from", "import-craft"],
)
def test_a_special_file_argument_is_a_usage_error_naming_it(made, tmp_path, kind, args):
    repo, _item, _wt = made
    target = tmp_path / "input"
    _special(target, kind)
    code, out = hall(repo.root, *args, str(target))
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "USAGE" and str(target) in error["message"]
    assert error["next"] and error["next"][0].startswith("hall ")


def test_checkpoint_from_stdin_is_bounded(made):
    repo, _item, _wt = made
    code, out = _run(
        [str(BIN / "hall"), "checkpoint", "set", "--from-file", "-"],
        repo.root,
        b"Phase: " + b"a" * (bounded_read.CHECKPOINT_LIMIT + 1),
    )
    assert code == 2 and "limit" in json.loads(out)["error"]["message"]


def test_a_copied_file_that_is_a_fifo_never_blocks_drop(hall_repo):
    """`[worktree] copy` hashes the copies before removing a worktree: a FIFO in a copy's place is
    never opened for reading (it holds no bytes; git does not see it either)."""
    from hallmark.core import items
    from hallmark.core.repo import open_repo

    root = hall_repo.root
    (root / ".gitignore").write_text(".env\n")
    (root / ".env").write_text("A=1\n")
    with (root / ".hallmark.toml").open("a") as fh:
        fh.write('\n[worktree]\ncopy = [".env"]\n')
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "env"], cwd=root, check=True)
    repo = open_repo(root)
    made = items.new(repo, title="fifo env")
    wt = Path(made["worktree"])
    (wt / ".env").unlink()
    os.mkfifo(wt / ".env")
    code, out = hall(root, "drop", made["item"], "--reason", "x")
    assert code == 0 and json.loads(out)["state"] == "dropped"


# -- a person's files Hallmark edits a section of ---------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_init_refuses_a_special_claude_md(git_repo, kind):
    _special(git_repo / "CLAUDE.md", kind)
    code, out = hall(git_repo, "init")
    error = json.loads(out)["error"]
    assert code == 4 and error["code"] == "WRONG_STATE" and "CLAUDE.md" in error["message"]


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_promotion_never_reads_a_special_file(tmp_path, kind):
    """In a child process: a regression reading /dev/zero in this one would take the machine."""
    target = tmp_path / "CLAUDE.md"
    _special(target, kind)
    probe = (
        "import sys\n"
        "from hallmark.core.errors import HallError\n"
        "from hallmark.core.memory import safe_write\n"
        "try:\n"
        "    safe_write.read_text(__import__('pathlib').Path(sys.argv[1]))\n"
        "except HallError as exc:\n"
        "    print(exc.message)\n"
    )
    code, out = _run([sys.executable, "-c", probe, str(target)], tmp_path)
    assert code == 0 and "not a regular file" in out
