"""Stage 1 item commands through the real `hall` on real temporary git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import jsonschema
from hallmark.core import items, journal
from hallmark.tui.cli.meta import reply_schema

ERROR_KEYS = {"code", "message", "next"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def assert_error(result, code: str, exit_code: int) -> dict:
    assert result.code == exit_code, (result.code, result.stdout, result.stderr)
    data = result.json
    assert set(data) == {"error"} and set(data["error"]) == ERROR_KEYS, data
    assert data["error"]["code"] == code, data
    assert isinstance(data["error"]["message"], str) and data["error"]["message"]
    assert isinstance(data["error"]["next"], list) and all(isinstance(n, str) for n in data["error"]["next"])
    return data["error"]


def new_item(hall, root: Path, title: str = "Fix the parser") -> dict:
    created = hall("new", "--title", title, cwd=root)
    assert created.code == 0, created.stdout + created.stderr
    return created.json


def test_new_creates_the_branch_the_worktree_and_the_created_event(hall, hall_repo):
    root = hall_repo.root
    data = new_item(hall, root, "Fix the parser: CSV quoting!")
    assert data["item"] == "H-0001" and data["state"] == "development"
    assert data["branch"] == "hm/H-0001-fix-the-parser-csv-quoting"
    worktree = Path(data["worktree"])
    assert worktree.is_absolute() and worktree.is_dir() and worktree == root.parent / "repo-H-0001"
    assert git(worktree, "rev-parse", "--abbrev-ref", "HEAD") == data["branch"]
    assert git(worktree, "rev-parse", "HEAD") == git(root, "rev-parse", "main")
    assert data["next"] and any(n.startswith("cd ") for n in data["next"])
    events = journal.read(hall_repo.paths.item_journal("H-0001")).events
    assert [e["event"] for e in events] == ["created"]
    assert events[0]["title"] == "Fix the parser: CSV quoting!" and events[0]["worktree"] == str(worktree)
    cache = json.loads((hall_repo.paths.item_dir("H-0001") / "item.json").read_text())
    assert cache["state"] == "development"
    second = new_item(hall, root, "another")
    assert second["item"] == "H-0002"


def test_new_with_a_request_and_no_title(hall, hall_repo):
    created = hall("new", "make", "the", "export", "faster", cwd=hall_repo.root)
    assert created.code == 0
    assert created.json["title"] == "make the export faster"
    events = journal.read(hall_repo.paths.item_journal(created.json["item"])).events
    assert events[0]["request"] == "make the export faster"


def test_new_without_a_title_is_a_usage_error(hall, hall_repo):
    assert_error(hall("new", cwd=hall_repo.root), "USAGE", 2)
    assert not list(hall_repo.paths.items_dir.iterdir())


def test_ids_in_every_form_and_none_inside_the_worktree(hall, hall_repo):
    root = hall_repo.root
    for _ in range(2):
        new_item(hall, root)
    for given in ("2", "H-2", "H-0002", "h2", "H-00002"):
        shown = hall("status", given, cwd=root)
        assert shown.code == 0 and shown.json["item"] == "H-0002", given
    worktree = Path(hall("status", "2", cwd=root).json["worktree"])
    here = hall("status", cwd=worktree / "")
    assert here.code == 0 and here.json["item"] == "H-0002"
    (worktree / "deep" / "er").mkdir(parents=True)
    assert hall("log", cwd=worktree / "deep" / "er").json["item"] == "H-0002"
    assert_error(hall("status", "42", cwd=root), "ITEM_NOT_FOUND", 3)
    assert_error(hall("status", "H-x", cwd=root), "USAGE", 2)
    assert_error(hall("ready", cwd=root), "NO_ITEM", 3)  # the main checkout is no item's worktree


def test_ready_refuses_a_dirty_worktree_then_freezes_head_and_is_idempotent(hall, hall_repo):
    root = hall_repo.root
    data = new_item(hall, root)
    worktree = Path(data["worktree"])
    (worktree / "app.py").write_text("def add(a, b):\n    return a - b\n")
    journal_path = hall_repo.paths.item_journal("H-0001")
    before = journal_path.read_bytes()
    err = assert_error(hall("ready", cwd=worktree), "DIRTY_WORKTREE", 4)
    assert "app.py" in err["message"]
    assert journal_path.read_bytes() == before
    (worktree / "new.txt").write_text("untracked counts too\n")
    git(worktree, "add", "app.py")
    git(worktree, "commit", "-q", "-m", "subtract")
    assert_error(hall("ready", "1", cwd=root), "DIRTY_WORKTREE", 4)
    (worktree / "new.txt").unlink()

    ready = hall("ready", "1", "--note", "cap at 6", cwd=root)
    assert ready.code == 0, ready.stdout
    head = git(worktree, "rev-parse", "HEAD")
    assert ready.json["state"] == "checks" and ready.json["sha"] == head and ready.json["round"] == 1
    ticket = json.loads((hall_repo.state_dir / "queue" / "H-0001.json").read_text())
    assert ticket["sha"] == head and ticket["item"] == "H-0001"
    last = journal.read(journal_path).events[-1]
    assert last["event"] == "ready" and last["sha"] == head and last["note"] == "cap at 6"

    size = journal_path.stat().st_size
    again = hall("ready", cwd=worktree)
    assert again.code == 0 and again.json["already"] is True and again.json["state"] == "checks"
    assert again.json["sha"] == head and journal_path.stat().st_size == size

    (worktree / "app.py").write_text("def add(a, b):\n    return b + a\n")
    git(worktree, "commit", "-q", "-am", "commute")
    err = assert_error(hall("ready", cwd=worktree), "ITEM_IN_REVIEW", 4)
    assert "hall pull-back H-0001" in err["next"]
    assert journal_path.stat().st_size == size


def test_propose_ready_waits_for_you_or_goes_straight_on_with_auto_ready(hall, hall_repo):
    root = hall_repo.root
    first = new_item(hall, root)
    assert_error(hall("propose-ready", "1", cwd=root), "USAGE", 2)  # --summary is required
    proposed = hall("propose-ready", "1", "--summary", "parser handles quotes", "--why", "bug 12", cwd=root)
    assert proposed.code == 0 and proposed.json["state"] == "awaiting_you"
    inbox = hall("inbox", cwd=root).json
    assert [(e["kind"], e["item"]) for e in inbox["entries"]] == [("ready?", "H-0001")]
    assert_error(hall("propose-ready", "1", "--summary", "again", cwd=root), "WRONG_STATE", 4)
    back = hall("pull-back", "1", "--reason", "not yet", cwd=Path(first["worktree"]))
    assert back.code == 0 and back.json["state"] == "development"

    (root / ".hallmark.toml").write_text(
        (root / ".hallmark.toml").read_text().replace("max_rejects", "auto_ready = true\nmax_rejects")
    )
    new_item(hall, root, "second")
    auto = hall("propose-ready", "2", "--summary", "done", cwd=root)
    assert auto.code == 0 and auto.json["state"] == "checks"
    events = [e["event"] for e in journal.read(hall_repo.paths.item_journal("H-0002")).events]
    assert events == ["created", "proposed_ready", "ready"]
    assert (hall_repo.state_dir / "queue" / "H-0002.json").exists()
    new_item(hall, root, "third")
    asked = hall("propose-ready", "3", "--summary", "done", "--ask", cwd=root)
    assert asked.json["state"] == "awaiting_you"


def test_pull_back_from_the_loop_unqueues(hall, hall_repo):
    root = hall_repo.root
    new_item(hall, root)
    assert hall("ready", "1", cwd=root).code == 0
    assert (hall_repo.state_dir / "queue" / "H-0001.json").exists()
    back = hall("pull-back", "H-1", cwd=root)
    assert back.code == 0 and back.json["state"] == "development" and back.json["sha"] == ""
    assert not (hall_repo.state_dir / "queue" / "H-0001.json").exists()
    assert_error(hall("pull-back", "1", cwd=root), "WRONG_STATE", 4)


def test_drop_needs_a_reason_removes_the_worktree_and_keeps_branch_and_journal(hall, hall_repo):
    root = hall_repo.root
    data = new_item(hall, root)
    worktree = Path(data["worktree"])
    journal_path = hall_repo.paths.item_journal("H-0001")
    before = journal_path.read_bytes()
    assert_error(hall("drop", "1", cwd=root), "USAGE", 2)
    assert_error(hall("drop", "1", "--reason", "  ", cwd=root), "USAGE", 2)
    assert journal_path.read_bytes() == before and worktree.is_dir()
    dropped = hall("drop", "1", "--reason", "superseded by H-0002", cwd=root)
    assert dropped.code == 0, dropped.stdout
    assert dropped.json["state"] == "dropped" and dropped.json["worktree_removed"] is True
    assert not worktree.exists()
    assert git(root, "branch", "--list", data["branch"])  # the branch stays
    events = [e["event"] for e in journal.read(journal_path).events]
    assert events == ["created", "dropped", "worktree_removed"]
    assert_error(hall("drop", "1", "--reason", "again", cwd=root), "WRONG_STATE", 4)
    assert_error(hall("ready", "1", cwd=root), "WRONG_STATE", 4)

    kept = new_item(hall, root, "keep me")
    out = hall("drop", "2", "--reason", "x", "--keep-worktree", cwd=root)
    assert out.code == 0 and out.json["worktree_removed"] is False and Path(kept["worktree"]).is_dir()
    dirty = new_item(hall, root, "dirty")
    (Path(dirty["worktree"]) / "wip.txt").write_text("unsaved work\n")
    out = hall("drop", "3", "--reason", "x", cwd=root)
    assert out.code == 0 and out.json["worktree_removed"] is False
    assert "uncommitted" in out.json["worktree_kept"] and (Path(dirty["worktree"]) / "wip.txt").exists()


def test_retry_gives_an_escalated_item_another_round(hall, hall_repo):
    root = hall_repo.root
    new_item(hall, root)
    assert_error(hall("retry", "1", cwd=root), "USAGE", 2)  # --reason is required
    assert_error(hall("retry", "1", "--reason", "go", cwd=root), "WRONG_STATE", 4)
    assert hall("ready", "1", cwd=root).code == 0
    for action in ("checks_passed", "escalated"):
        items.transition(hall_repo, "H-0001", action, actor="assayer")
    inbox = hall("inbox", cwd=root).json
    assert [e["kind"] for e in inbox["entries"]] == ["escalated"]
    retried = hall("retry", "1", "--reason", "one more round", cwd=root)
    assert retried.code == 0 and retried.json["state"] == "fixing"
    assert_error(hall("retry", "1", "--reason", "go", "--tokens", "lots", cwd=root), "USAGE", 2)


def test_adopt_turns_the_current_branch_into_an_item_once(hall, hall_repo):
    root = hall_repo.root
    assert_error(hall("adopt", cwd=root), "WRONG_STATE", 4)  # main is the base
    git(root, "switch", "-q", "-c", "feature/csv")
    adopted = hall("adopt", "--title", "CSV export", cwd=root)
    assert adopted.code == 0, adopted.stdout
    data = adopted.json
    assert data["item"] == "H-0001" and data["branch"] == "feature/csv" and data["adopted"] is True
    assert data["worktree"] == str(root) and data["state"] == "development"
    again = hall("adopt", cwd=root)
    assert again.code == 0 and again.json["item"] == "H-0001" and again.json["adopted"] is False
    # the adopted checkout is the main one: dropping keeps it
    dropped = hall("drop", "1", "--reason", "done elsewhere", cwd=root)
    assert dropped.json["worktree_removed"] is False and root.is_dir()


def test_status_lists_by_state_and_all_includes_finished(hall, hall_repo):
    root = hall_repo.root
    for title in ("one", "two", "three"):
        new_item(hall, root, title)
    assert hall("ready", "2", cwd=root).code == 0
    assert hall("drop", "3", "--reason", "no", cwd=root).code == 0
    active = hall("status", cwd=root).json
    assert [(i["item"], i["state"]) for i in active["items"]] == [("H-0001", "development"), ("H-0002", "checks")]
    assert active["counts"] == {"development": 1, "checks": 1} and active["next"]
    assert active["by_state"] == {"development": ["H-0001"], "checks": ["H-0002"]}
    everything = hall("status", "--all", cwd=root).json
    assert [i["state"] for i in everything["items"]] == ["development", "checks", "dropped"]
    one = hall("status", "2", cwd=root).json
    assert one["item"] == "H-0002" and one["round"] == 1 and one["events"] == 2 and one["next"]


def test_log_filters_by_kind_and_limit(hall, hall_repo):
    root = hall_repo.root
    new_item(hall, root)
    assert hall("ready", "1", cwd=root).code == 0
    assert hall("pull-back", "1", "--reason", "wait", cwd=root).code == 0
    full = hall("log", "1", cwd=root).json
    assert [e["event"] for e in full["events"]] == ["created", "ready", "pulled_back"] and full["next"]
    assert all(set(e) >= {"v", "t", "actor", "event", "item"} for e in full["events"])
    only = hall("log", "1", "--kind", "ready,pulled_back", cwd=root).json
    assert [e["event"] for e in only["events"]] == ["ready", "pulled_back"]
    assert [e["event"] for e in hall("log", "1", "--limit", "1", cwd=root).json["events"]] == ["pulled_back"]
    assert_error(hall("log", "1", "--limit", "many", cwd=root), "USAGE", 2)
    repo_level = hall("log", "--repo-level", cwd=root).json
    assert repo_level["item"] is None and [e["event"] for e in repo_level["events"]] == ["initialized"]


def test_ask_and_answer(hall, hall_repo):
    root = hall_repo.root
    data = new_item(hall, root)
    asked = hall(
        "ask",
        "billed or raw?",
        "--options",
        "billed,raw",
        "--default",
        "billed",
        "--wait",
        "4h",
        cwd=Path(data["worktree"]),
    )
    assert asked.code == 0, asked.stdout
    assert asked.json["qid"] == "Q-1" and asked.json["item"] == "H-0001" and asked.json["options"] == ["billed", "raw"]
    repo_q = hall("ask", "which licence?", cwd=root).json
    assert repo_q["qid"] == "Q-2" and repo_q["item"] is None
    assert_error(hall("ask", "x?", "--options", "a,b", "--default", "c", cwd=root), "USAGE", 2)
    assert_error(hall("ask", "x?", "--wait", "soonish", cwd=root), "USAGE", 2)
    inbox = hall("inbox", cwd=root).json
    assert [e["qid"] for e in inbox["entries"]] == ["Q-1", "Q-2"] and inbox["count"] == 2
    assert hall("status", "1", cwd=root).json["open_questions"] == ["Q-1"]

    answered = hall("answer", "Q-1", "b", cwd=root)  # an option letter
    assert answered.code == 0 and answered.json["answer"] == "raw"
    assert_error(hall("answer", "Q-1", "billed", cwd=root), "ALREADY_ANSWERED", 4)
    assert_error(hall("answer", "Q-99", "x", cwd=root), "QUESTION_NOT_FOUND", 3)
    assert_error(hall("answer", "what", "x", cwd=root), "USAGE", 2)
    assert hall("answer", "2", "MIT", "licence", cwd=root).json["answer"] == "MIT licence"
    assert hall("inbox", cwd=root).json["entries"] == []
    assert hall("status", "1", cwd=root).json["open_questions"] == []


def test_inbox_dismiss_hides_until_the_entry_changes(hall, hall_repo):
    root = hall_repo.root
    hall("ask", "first?", cwd=root)
    hall("ask", "second?", cwd=root)
    assert hall("inbox", "1", "--dismiss", cwd=root).json["dismissed"] == ["Q-1"]
    assert [e["qid"] for e in hall("inbox", cwd=root).json["entries"]] == ["Q-2"]
    assert len(hall("inbox", "--all", cwd=root).json["entries"]) == 2
    assert_error(hall("inbox", "7", "--dismiss", cwd=root), "USAGE", 2)
    hall("inbox", "--clear", cwd=root)
    assert hall("inbox", cwd=root).json["entries"] == []
    notices = hall("inbox", "--notices", cwd=root).json
    assert notices["notices"] == [] and notices["next"]


def test_concurrent_hall_new_and_ask_get_unique_ids(hall_repo):
    """Separate `hall` processes at once: item and question IDs never collide."""
    root = hall_repo.root
    hall_bin = str(Path(os.environ["PATH"].split(os.pathsep)[0]) / "hall")
    procs = [
        subprocess.Popen(
            [hall_bin, "new", "--title", f"parallel {n}"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    procs += [
        subprocess.Popen(
            [hall_bin, "ask", f"question {n}?"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    replies = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, out + err
        replies.append(json.loads(out))
    item_ids = [r["item"] for r in replies[:6]]
    qids = [r["qid"] for r in replies[6:]]
    assert sorted(item_ids) == [f"H-{n:04d}" for n in range(1, 7)]
    assert sorted(qids, key=lambda q: int(q[2:])) == [f"Q-{n}" for n in range(1, 9)]
    assert len({r["worktree"] for r in replies[:6]}) == 6  # git's own worktree race is serialised
    assert all(Path(r["worktree"]).is_dir() for r in replies[:6])


QUESTION_KEYS = ["qid", "item", "question", "options", "default", "wait"]


def test_ask_block_returns_the_answer_or_the_default_after_the_wait(hall, hall_repo):
    root = hall_repo.root
    hall_bin = str(Path(os.environ["PATH"].split(os.pathsep)[0]) / "hall")
    waiting = subprocess.Popen(
        [hall_bin, "ask", "ship it?", "--block", "--wait", "60s"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while hall_repo.paths.repo_journal.read_text().count('"question"') < 1:  # until it has asked
        assert time.monotonic() < deadline and waiting.poll() is None
        time.sleep(0.05)
    assert hall("answer", "Q-1", "yes", cwd=root).code == 0
    out, _ = waiting.communicate(timeout=60)
    reply = json.loads(out)
    assert reply["answer"] == "yes" and reply["answered_by"] == "you" and reply["defaulted"] is False
    assert reply["next"] == ["hall inbox"]
    # the question's keys, next, then the answer's (AskedAndWaited), valid against hall schema ask
    assert list(reply) == [*QUESTION_KEYS, "next", "answer", "answered_by", "defaulted", "delivered_here"]
    jsonschema.validate(reply, reply_schema(["ask"]))

    defaulted = hall(
        "ask", "billed or raw?", "--options", "billed,raw", "--default", "billed", "--wait", "1s", "--block", cwd=root
    )
    assert defaulted.code == 0
    assert defaulted.json["answer"] == "billed" and defaulted.json["defaulted"] is True
    last = journal.read(hall_repo.paths.repo_journal).events[-1]
    assert last["event"] == "question_defaulted" and last["qid"] == "Q-2" and "default" in last["reason"]

    unanswered = hall("ask", "anyone?", "--wait", "1s", "--block", cwd=root)  # no default: no answer
    assert unanswered.code == 0
    assert list(unanswered.json) == [*QUESTION_KEYS, "next", "answer", "answered_by", "defaulted"]
    assert unanswered.json["answer"] is None and unanswered.json["next"] == ["hall answer Q-3 <answer>", "hall inbox"]


def test_drop_from_inside_the_worktree_says_where_to_go(hall, hall_repo):
    data = new_item(hall, hall_repo.root)
    dropped = hall("drop", "--reason", "wrong idea", cwd=Path(data["worktree"]))
    assert dropped.code == 0 and dropped.json["worktree_removed"] is True
    assert dropped.json["next"][0] == f"cd {hall_repo.root}"
    assert not Path(data["worktree"]).exists()


def test_a_dismissed_hold_stays_hidden_while_the_item_moves_on(hall, hall_repo):
    root = hall_repo.root
    new_item(hall, root)
    items.record(hall_repo, "H-0001", "held", actor="hall", kind="budget", reason="per-item cap")
    shown = hall("inbox", cwd=root).json["entries"]
    assert [(e["kind"], e["item"]) for e in shown] == [("budget", "H-0001")]
    assert hall("inbox", "1", "--dismiss", cwd=root).code == 0
    items.record(hall_repo, "H-0001", "usage", actor="fixer", role="fix", model="m", input_tokens=5)
    assert hall("inbox", cwd=root).json["entries"] == []  # other events don't bring it back
    items.record(hall_repo, "H-0001", "released", actor="hall")
    items.record(hall_repo, "H-0001", "held", actor="hall", kind="budget", reason="per-item cap again")
    assert [e["kind"] for e in hall("inbox", cwd=root).json["entries"]] == ["budget"]  # a new hold shows
