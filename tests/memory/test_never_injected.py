"""Pending means never injected: proposed, skipped, rejected and retired learnings (with unique
markers) never appear in a briefing, the SessionStart hook's output, a search or a promoted file.
Through the real `hall library briefing` command and the real `hall-hook` processes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core.memory import api, checkpoint, inject, notes

BIN = Path(sys.executable).parent
HIDDEN = {
    "proposed": "zqxproposedmarker",
    "skipped": "zqxskippedmarker",
    "rejected": "zqxrejectedmarker",
    "retired": "zqxretiredmarker",
    "tombstone-evidence": "zqxtombquotemarker",
}
SHOWN = "zqxacceptedmarker"
QUERY = " ".join([*HIDDEN.values(), SHOWN])


@pytest.fixture
def seeded(repo):
    def propose(marker, kind="convention", paths=None):
        return api.propose(
            repo,
            kind=kind,
            pattern=f"Convention {marker} about the checkout cache",
            rationale=f"because {marker}",
            paths=paths or ["web/**"],
            evidence={"source": "user_statement", "quote": f"said {marker}"},
        )["id"]

    propose(HIDDEN["proposed"])
    api.skip(repo, propose(HIDDEN["skipped"]))
    rejected = propose(HIDDEN["rejected"])
    api.reject(repo, rejected, "wrong")
    # the same rejected pattern comes back with new evidence: it goes to the tombstone
    api.propose(
        repo,
        kind="convention",
        pattern=f"Convention {HIDDEN['rejected']} about the checkout cache",
        evidence={"source": "user_correction", "quote": f"again {HIDDEN['tombstone-evidence']}"},
    )
    retired = propose(HIDDEN["retired"])
    api.accept(repo, retired)  # promoted into CLAUDE.md …
    api.retire(repo, retired, "not true any more")  # … and taken back out
    shown = propose(SHOWN, kind="rule")
    api.accept(repo, shown, promote_it=False)
    checkpoint.set_checkpoint(
        repo.paths, {"Phase": "review", "Active work": "H-0001", "Next step": "drain the library"}
    )
    notes.add(repo.paths, fact="Staging needs the VPN", facet="infrastructure")
    return repo


def assert_hidden(text: str, where: str) -> None:
    for status, marker in HIDDEN.items():
        assert marker not in text, f"a {status} learning leaked into {where}"


def test_briefing_command_never_shows_pending_or_declined(seeded, hall):
    for effort in ("low", "medium", "high"):
        result = hall(
            "library",
            "briefing",
            "--paths",
            "web/checkout/cache.ts",
            "--effort",
            effort,
            "--query",
            QUERY,
            cwd=seeded.root,
        )
        assert result.code == 0
        assert_hidden(result.stdout, f"hall library briefing --effort {effort}")
        assert SHOWN in result.stdout  # the channel works: the accepted one is there
    search = hall("library", "search", *HIDDEN.values(), SHOWN, cwd=seeded.root)
    assert_hidden(json.dumps(search.json["learnings"]), "hall library search")
    assert [x["pattern"] for x in search.json["learnings"]] == [f"Convention {SHOWN} about the checkout cache"]


def test_promoted_files_never_hold_pending_or_declined(seeded):
    texts = [(seeded.root / "CLAUDE.md").read_text()]
    claude_dir = seeded.root / ".claude"
    if claude_dir.exists():
        texts += [p.read_text() for p in claude_dir.rglob("*") if p.is_file()]
    for text in texts:
        assert_hidden(text, "a promoted file")


def test_session_context_in_process(seeded):
    context = inject.session_context(seeded.paths)
    assert_hidden(context, "session_context")
    assert SHOWN in context and "Phase: review" in context and "Staging needs the VPN" in context
    assert "Authority order" in context
    assert context.index("Phase: review") < context.index("Authority order") < context.index(SHOWN)
    assert "1 proposed learnings wait" in context or "2 proposed learnings wait" in context


def _hook(name: str, payload: dict, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["CLAUDE_PROJECT_DIR"] = str(cwd)
    return subprocess.run(
        [str(BIN / "hall-hook"), name],
        input=json.dumps(payload),
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


hooks_written = all(importlib.util.find_spec(f"hallmark.hooks.{m}") is not None for m in ("main", "session_start"))
SKIP_REASON = "hooks/session_start.py (the gates part) is not in this tree yet"


@pytest.mark.skipif(not hooks_written, reason=SKIP_REASON)
def test_session_start_hook_process_never_shows_pending_or_declined(seeded):
    payload = {
        "session_id": "s-neg",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "cwd": str(seeded.root),
        "transcript_path": str(seeded.root / "t.jsonl"),
    }
    result = _hook("session-start", payload, seeded.root)
    assert result.returncode == 0, result.stderr
    assert_hidden(result.stdout + result.stderr, "hall-hook session-start")
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert SHOWN in context and "Phase: review" in context and "Authority order" in context


@pytest.mark.skipif(not hooks_written, reason=SKIP_REASON)
def test_session_start_hook_process_degrades_plainly(seeded):
    (seeded.root / ".agentmemory-project").write_text("github.com/not/this\n")
    payload = {"session_id": "s-deg", "hook_event_name": "SessionStart", "source": "startup", "cwd": str(seeded.root)}
    result = _hook("session-start", payload, seeded.root)
    assert result.returncode == 0
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "memory was NOT restored" in context and SHOWN not in context and "Phase: review" not in context


def test_an_unreadable_learning_file_is_reported_not_hidden(seeded):
    from hallmark.core.memory.search_index import SearchIndex
    from hallmark.core.memory.store import Store

    store = Store(seeded.paths)
    (store.learnings_dir / "L-0099.md").write_text("garbage without front matter")
    SearchIndex(store).rebuild()
    context = inject.session_context(seeded.paths)
    assert "1 learning files could not be read" in context and SHOWN in context


def test_degraded_mode_when_the_store_is_not_a_directory(tmp_path, git_repo, hall):
    hall("init", cwd=git_repo)
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=git_repo, check=True)
    from hallmark.core.paths import discover

    paths = discover(git_repo)
    library = paths.state_dir / "library"
    for child in sorted(library.rglob("*"), reverse=True):
        child.unlink() if child.is_file() else child.rmdir()
    library.rmdir()
    library.write_text("oops")
    context = inject.session_context(paths)
    assert context.startswith("Hallmark memory was NOT restored") and "do not claim" in context
    brief = hall("library", "briefing", cwd=git_repo)
    assert brief.json["memory_restored"] is False and "NOT restored" in brief.json["text"]


def test_not_initialised_is_degraded_not_silent(git_repo):
    from hallmark.core.paths import discover

    context = inject.session_context(discover(git_repo))
    assert "NOT restored" in context and "hall init" in context


@pytest.mark.skipif(importlib.util.find_spec("hallmark.hooks.post_tool_use") is None, reason=SKIP_REASON)
def test_failure_capture_through_the_real_hook_process(repo):
    """Two items hit the same knowledge gap (a missing npm script): the hook process records both and
    the store proposes one learning, which still reaches no SessionStart context until accepted."""
    error = 'Exit code 1\nnpm error Missing script: "typecheck"'
    for n, item in enumerate(("H-0001", "H-0002")):
        payload = {
            "session_id": f"s-{n}",
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm run typecheck"},
            "tool_use_id": f"t{n}",
            "error": error,
            "cwd": str(repo.root),
        }
        env = dict(os.environ, HALL_ITEM=item)
        result = subprocess.run(
            [str(BIN / "hall-hook"), "post-tool-use-failure"],
            input=json.dumps(payload),
            cwd=repo.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0
    [learning] = api.list_learnings(repo)
    assert learning.status == "proposed" and learning.origin == "failures" and learning.occurrences == 2
    context = inject.session_context(repo.paths)
    assert "typecheck" not in context and "1 proposed learnings wait" in context


def test_session_context_stays_within_its_cap(repo):
    checkpoint.set_checkpoint(
        repo.paths, {"Phase": "review", "Active work": "H-1", "Completed": "x" * 3000, "Next step": "go"}
    )
    for n in range(30):
        notes.add(repo.paths, fact=f"Fact number {n} about the deployment pipeline and its many quirks", facet="gotcha")
    for n in range(60):
        lid = api.propose(repo, kind="map", pattern=f"Module m{n} " + "does things " * 20)["id"]
        api.accept(repo, lid, promote_it=False)
    context = inject.session_context(repo.paths)
    assert len(context.encode()) <= inject.TOTAL_CAP_BYTES
    assert "Phase: review" in context and "10 older notes" in context and "more: `hall library search" in context


@pytest.mark.skipif(not hooks_written, reason=SKIP_REASON)
def test_no_hook_process_output_holds_pending_or_declined(seeded):
    events = {
        "session-start": {"hook_event_name": "SessionStart", "source": "resume"},
        "user-prompt-submit": {"hook_event_name": "UserPromptSubmit", "prompt": "what do we know about caching?"},
        "pre-tool-use": {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "x"}},
        "post-tool-use": {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": False},
        },
        "stop": {"hook_event_name": "Stop", "stop_hook_active": False},
        "notification": {"hook_event_name": "Notification", "message": "Claude is waiting for your input"},
    }
    for name, payload in events.items():
        result = _hook(name, {"session_id": "s-all", "cwd": str(seeded.root), **payload}, seeded.root)
        assert result.returncode == 0
        assert_hidden(result.stdout + result.stderr, f"hall-hook {name}")
