"""The command line is an API: JSON off a TTY, text on one, errors as data, exit codes, never a prompt."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hallmark.core import items, journal, states

from .test_items_cli import assert_error, new_item

HALL = str(Path(sys.executable).parent / "hall")

DEV, AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL_, CLOSED, DROPPED = (
    "development",
    "awaiting_you",
    "checks",
    "review",
    "fixing",
    "escalated",
    "hallmarked",
    "closed",
    "dropped",
)
PATH_TO = {
    DEV: [],
    AWAIT: ["proposed_ready"],
    CHECKS: ["ready"],
    REVIEW: ["ready", "checks_passed"],
    FIXING: ["ready", "checks_failed"],
    ESC: ["ready", "checks_passed", "escalated"],
    HALL_: ["ready", "checks_passed", "hallmarked"],
    CLOSED: ["ready", "checks_passed", "hallmarked", "shipped"],
    DROPPED: ["dropped"],
}
# verb -> (arguments, {state it succeeds from: state it leads to}); the seed's table for the verbs
VERBS: dict[str, tuple[list[str], dict[str, str]]] = {
    "propose-ready": (["--summary", "done"], {DEV: AWAIT}),
    "ready": ([], {DEV: CHECKS, AWAIT: CHECKS}),
    "pull-back": (["--reason", "not yet"], {s: DEV for s in (AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL_)}),
    "drop": (
        ["--reason", "no longer needed", "--keep-worktree"],
        {s: DROPPED for s in (DEV, AWAIT, CHECKS, REVIEW, FIXING, ESC, HALL_)},
    ),
    "retry": (["--reason", "one more round"], {ESC: FIXING}),
}
IN_LOOP = {CHECKS, REVIEW, FIXING, ESC, HALL_}


def run_on_pty(args: list[str], cwd: Path) -> str:
    """Run hall with stdout on a real pseudo-terminal; return what a person would see."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="140", TERM="xterm")
    proc = subprocess.Popen([HALL, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def test_json_on_a_pipe_text_on_a_tty_and_json_forced(hall, hall_repo):
    root = hall_repo.root
    new_item(hall, root, "Fix the parser")
    piped = hall("status", cwd=root)
    assert piped.json["items"][0]["item"] == "H-0001"
    shown = run_on_pty(["status"], root)
    assert "H-0001" in shown and "Fix the parser" in shown and "next:" in shown
    with pytest.raises(json.JSONDecodeError):
        json.loads(shown)
    forced = run_on_pty(["status", "--json"], root)
    assert json.loads(forced)["items"][0]["title"] == "Fix the parser"
    error_text = run_on_pty(["status", "77"], root)
    assert "ITEM_NOT_FOUND" in error_text and not error_text.lstrip().startswith("{")
    error_json = run_on_pty(["--json", "status", "77"], root)
    assert json.loads(error_json)["error"]["code"] == "ITEM_NOT_FOUND"


def test_every_success_carries_next_and_errors_have_the_shape(hall, hall_repo, tmp_path: Path):
    root = hall_repo.root
    for args in (
        ["status"],
        ["status", "--all"],
        ["log", "--repo-level"],
        ["inbox"],
        ["reindex"],
        ["doctor"],
        ["help"],
        ["new", "--title", "x"],
        ["status", "1"],
        ["log", "1"],
    ):
        reply = hall(*args, cwd=root).json
        assert isinstance(reply.get("next"), list) and all(isinstance(n, str) for n in reply["next"]), args
    assert_error(hall("status", "9", cwd=root), "ITEM_NOT_FOUND", 3)
    assert_error(hall("drop", "1", cwd=root), "USAGE", 2)
    assert_error(hall("frobnicate", cwd=root), "USAGE", 2)
    assert_error(hall("status", "--colour", cwd=root), "USAGE", 2)
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert_error(hall("status", cwd=outside), "NOT_A_REPO", 3)


def test_not_initialized_and_invalid_config(hall, git_repo):
    err = assert_error(hall("status", cwd=git_repo), "NOT_INITIALIZED", 3)
    assert "hall init" in err["next"]
    assert hall("init", cwd=git_repo).code == 0
    config = git_repo / ".hallmark.toml"
    config.write_text(config.read_text().replace('mode = "gate"', 'mode = "sometimes"'))
    err = assert_error(hall("new", "--title", "x", cwd=git_repo), "INVALID_CONFIG", 2)
    lines = config.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, start=1) if "sometimes" in text)
    assert f".hallmark.toml:{line}:" in err["message"] and "capture.mode" in err["message"]
    status = hall("status", cwd=git_repo)  # reading still works, and says what is wrong
    assert status.code == 0 and "capture.mode" in status.json["warnings"][0]
    assert status.json["next"][0] == "edit .hallmark.toml"


def test_never_prompts(hall_repo):
    """With stdin open and silent, every command still answers at once (or refuses)."""
    root = hall_repo.root
    for args in (["drop", "1"], ["new"], ["init"], ["answer", "Q-1"], ["retry"], ["ready", "1"], ["ask"]):
        proc = subprocess.Popen(
            [HALL, *args], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            out, _ = proc.communicate(timeout=30)  # never writes to stdin: a prompt would hang here
        finally:
            proc.kill()
        assert proc.returncode in (0, 2, 3, 4), (args, proc.returncode, out)
        assert "next" in json.loads(out) or "error" in json.loads(out)


def test_help_in_json_on_a_pipe(hall, hall_repo):
    reply = hall("new", "--help", cwd=hall_repo.root)
    assert reply.code == 0
    data = reply.json
    assert data["command"] == "hall new" and {a["name"] for a in data["arguments"]} >= {"--title", "request"}


def test_torn_and_garbage_lines_never_stop_status_or_log_and_doctor_names_them(hall, hall_repo):
    root = hall_repo.root
    data = new_item(hall, root)
    path = hall_repo.paths.item_journal("H-0001")
    with open(path, "ab") as handle:
        handle.write(b"}{ garbage from a bad editor\n")
        handle.write(b'{"v":1,"t":"2026-11-30T10:00:00.000Z","actor":"you","event":"rea')  # torn by a crash
    for args in (["status"], ["status", "1"], ["status", "--all"], ["log", "1"]):
        reply = hall(*args, cwd=root)
        assert reply.code == 0, (args, reply.stdout)
    assert [e["event"] for e in hall("log", "1", cwd=root).json["events"]] == ["created"]
    assert hall("status", "1", cwd=root).json["state"] == "development"

    doctor = hall("doctor", cwd=root)
    assert doctor.code == 1
    check = next(c for c in doctor.json["checks"] if c["check"] == "journal")
    assert check["ok"] is False and check["fix"]
    assert f"{path}:2:" in check["detail"] and f"{path}:3:" in check["detail"]
    assert [(b["path"], b["line"]) for b in check["bad_lines"]] == [(str(path), 2), (str(path), 3)]
    assert "torn" in check["bad_lines"][1]["reason"]

    # the next append starts on a fresh line; nothing after the bad lines is lost
    assert hall("ready", cwd=Path(data["worktree"])).code == 0
    assert [e["event"] for e in hall("log", "1", cwd=root).json["events"]] == ["created", "ready"]
    assert hall("status", "1", cwd=root).json["state"] == "checks"


def test_deleting_the_index_and_item_json_gives_the_same_status(hall, hall_repo):
    root = hall_repo.root
    for title in ("a", "b", "c"):
        new_item(hall, root, title)
    assert hall("ready", "2", cwd=root).code == 0
    assert hall("drop", "3", "--reason", "no", cwd=root).code == 0
    hall("ask", "why?", "--item", "1", cwd=root)
    before = hall("status", "--all", cwd=root).json
    inbox_before = hall("inbox", cwd=root).json
    for suffix in ("", "-wal", "-shm"):
        Path(str(hall_repo.state_dir / "index.sqlite") + suffix).unlink(missing_ok=True)
    for cache in hall_repo.paths.items_dir.glob("*/item.json"):
        cache.unlink()
    assert hall("status", "--all", cwd=root).json == before
    assert hall("inbox", cwd=root).json == inbox_before
    rebuilt = hall("reindex", cwd=root)
    assert rebuilt.code == 0 and rebuilt.json["items"] == 3 and rebuilt.json["events"] >= 7
    assert hall("status", "--all", cwd=root).json == before


def _item_in(repo, item_id: str, state: str) -> None:
    journal.append(
        repo.paths.item_journal(item_id),
        "created",
        item=item_id,
        actor="you",
        title=item_id,
        branch=f"hm/{item_id}",
        worktree=str(repo.root),
        base="main",
    )
    for action in PATH_TO[state]:
        items.transition(repo, item_id, action, actor="you", sha="f" * 40, reason="walk")  # signed, as a person's


def test_every_verb_in_every_state_through_the_cli(hall_repo):
    """Exactly the seed's transitions succeed; every other pair is exit 4 with the journal unchanged."""
    repo = hall_repo
    cases = []
    number = 0
    for verb in VERBS:
        for state in states.STATES:
            number += 1
            item_id = f"H-{number:04d}"
            _item_in(repo, item_id, state)
            cases.append((verb, state, item_id, repo.paths.item_journal(item_id).read_bytes()))

    def run(case):
        verb, _, item_id, _ = case
        args, _ = VERBS[verb]
        return subprocess.run([HALL, verb, item_id, *args], cwd=repo.root, capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, cases))
    for (verb, state, item_id, before), proc in zip(cases, results, strict=True):
        leads_to = VERBS[verb][1].get(state)
        reply = json.loads(proc.stdout)
        if leads_to is not None:
            assert proc.returncode == 0, (verb, state, proc.stdout)
            assert reply["state"] == leads_to, (verb, state)
        else:
            expected = "ITEM_IN_REVIEW" if verb == "ready" and state in IN_LOOP else "WRONG_STATE"
            assert proc.returncode == 4, (verb, state, proc.stdout)
            assert reply["error"]["code"] == expected, (verb, state, reply)
            assert repo.paths.item_journal(item_id).read_bytes() == before, (verb, state)


def test_bare_hall_off_a_tty_prints_the_status_as_json(hall, hall_repo):
    new_item(hall, hall_repo.root, "bare")
    reply = hall(cwd=hall_repo.root)
    assert reply.code == 0 and reply.json["items"][0]["title"] == "bare" and reply.json["next"]
    elsewhere = hall("-C", str(hall_repo.root), "status", cwd=hall_repo.root.parent)
    assert elsewhere.code == 0 and elsewhere.json["items"][0]["item"] == "H-0001"


def test_an_internal_error_is_data_too(hall, hall_repo):
    (hall_repo.state_dir / "counters.json").mkdir()  # something no code path expects
    err = assert_error(hall("new", "--title", "x", cwd=hall_repo.root), "INTERNAL", 1)
    assert "hall doctor" in err["next"]
    debug = hall("new", "--title", "x", cwd=hall_repo.root, env={"HALLMARK_DEBUG": "1"})
    assert debug.code == 1 and "Traceback" in debug.stderr
