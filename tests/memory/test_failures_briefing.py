"""Failure capture (knowledge gap vs iteration noise) and the token-capped briefing."""

from __future__ import annotations

import json

import pytest
from hallmark.core import journal
from hallmark.core.memory import api, briefing, failures

GAPS = [
    ('npm error Missing script: "typecheck"', "missing-script:typecheck"),
    ("npm ERR! missing script: lint", "missing-script:lint"),
    ("bash: line 1: pnpm: command not found", "command-not-found:pnpm"),
    ("zsh: command not found: poetry", "command-not-found:poetry"),
    ("make: *** No rule to make target 'check'.  Stop.", "missing-target:make check"),
    (
        "python: can't open file '/repo/scripts/seed.py': [Errno 2] No such file or directory",
        "missing-file:/repo/scripts/seed.py",
    ),
    ("ModuleNotFoundError: No module named 'httpx'", "missing-module:httpx"),
    ("git: 'stash-all' is not a git command. See 'git --help'.", "unknown-subcommand:git stash-all"),
    ("pytest: error: unrecognized arguments: --fast", "unknown-option:--fast"),
    ("error: Justfile does not contain recipe `deploy`.", "missing-target:just deploy"),
]
NOISE = [
    ("FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4\n1 failed, 12 passed", "test-failure"),
    ("src/cart.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.", "type-error"),
    ('  File "app.py", line 3\n    def f(:\nSyntaxError: invalid syntax', "syntax-error"),
    ("ruff: app.py:1:1: F401 `os` imported but unused", "lint-error"),
    ("Exit code 1", "other"),
]


@pytest.mark.parametrize("text, signature", GAPS)
def test_knowledge_gaps(text, signature):
    found = failures.classify(f"Exit code 127\n{text}")
    assert (found.kind, found.signature) == ("knowledge_gap", signature)


@pytest.mark.parametrize("text, signature", NOISE)
def test_iteration_noise(text, signature):
    found = failures.classify(text)
    assert (found.kind, found.signature) == ("iteration_noise", signature)


def payload(command, error, session="s-1", cwd=None):
    return {
        "hook_event_name": "PostToolUseFailure",
        "session_id": session,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "error": error,
        "cwd": cwd,
    }


def test_a_knowledge_gap_in_two_items_becomes_a_proposed_learning(repo, monkeypatch):
    error = 'Exit code 1\nnpm error Missing script: "typecheck"'
    monkeypatch.setenv("HALL_ITEM", "H-0001")
    failures.capture(repo.paths, payload("npm run typecheck", error))
    failures.capture(repo.paths, payload("npm run typecheck", error))  # same item again: still one item
    assert api.list_learnings(repo) == []
    monkeypatch.setenv("HALL_ITEM", "H-0002")
    failures.capture(repo.paths, payload("npm run typecheck", error, session="s-2"))
    [learning] = api.list_learnings(repo)
    assert learning.status == "proposed" and learning.origin == "failures" and learning.kind == "convention"
    assert "typecheck" in learning.pattern and learning.occurrences == 2
    assert [e["item"] for e in learning.evidence] == ["H-0001", "H-0002"]
    assert all(e["source"] == "cli_error" and "Missing script" in e["quote"] for e in learning.evidence)
    monkeypatch.setenv("HALL_ITEM", "H-0003")
    failures.capture(repo.paths, payload("npm run typecheck", error, session="s-3"))
    assert api.get(repo, learning.id).occurrences == 3


def test_iteration_noise_never_becomes_a_learning(repo, monkeypatch):
    for n in range(4):
        monkeypatch.setenv("HALL_ITEM", f"H-000{n + 1}")
        failures.capture(repo.paths, payload("pytest", "Exit code 1\nFAILED tests/t.py::test_x - AssertionError"))
    events = journal.read(failures.failures_path(repo.paths)).events
    assert len(events) == 4 and {e["kind"] for e in events} == {"iteration_noise"}
    assert api.list_learnings(repo) == []


def test_a_declined_gap_stays_declined(repo, monkeypatch):
    error = "bash: poetry: command not found"
    for n in (1, 2):
        monkeypatch.setenv("HALL_ITEM", f"H-000{n}")
        failures.capture(repo.paths, payload("poetry install", error))
    [learning] = api.list_learnings(repo)
    api.reject(repo, learning.id, "we do use poetry; install it")
    monkeypatch.setenv("HALL_ITEM", "H-0003")
    failures.capture(repo.paths, payload("poetry install", error))
    again = api.get(repo, learning.id)
    assert again.status == "rejected" and again.reproposed == 1 and api.pending(repo) == []


def test_a_failure_holding_a_secret_is_not_stored(repo, monkeypatch):
    monkeypatch.setenv("HALL_ITEM", "H-0001")
    failures.capture(
        repo.paths, payload("curl -H 'Authorization: Bearer abcdEFGH1234ijklMNOP5678qrst' x", "Exit code 22")
    )
    assert journal.read(failures.failures_path(repo.paths)).events == []


def test_successful_calls_are_ignored(repo):
    failures.capture(
        repo.paths,
        {
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a\n", "stderr": "", "interrupted": False},
        },
    )
    assert not failures.failures_path(repo.paths).exists()


# -- briefing -------------------------------------------------------------------------------------
def accept(repo, kind, pattern, **kw):
    lid = api.propose(repo, kind=kind, pattern=pattern, **kw)["id"]
    return api.accept(repo, lid, promote_it=False)


def test_briefing_scoped_first_then_search_then_general(repo):
    general = accept(repo, "rule", "Every public function has a docstring")
    scoped = accept(repo, "rule", "Checkout totals are computed in cents", paths=["web/checkout/**"])
    searched = accept(repo, "map", "The cart module keeps the checkout basket in session storage")
    elsewhere = accept(repo, "rule", "Migrations are reversible", paths=["db/**"])
    result = briefing.build(repo.paths, changed=["web/checkout/total.ts"], query="basket", effort="medium")
    order = [(x["id"], x["why"]) for x in result["learnings"]]
    assert order[0] == (scoped.id, "scoped to the changed paths")
    assert order[1] == (searched.id, "matched by search")
    assert (general.id, "general (no path scope)") in order
    assert elsewhere.id not in [x["id"] for x in result["learnings"]]
    assert result["cap_tokens"] == 4000 and result["token_estimate"] == "estimated as UTF-8 bytes / 4, rounded up"
    assert result["tokens"] == briefing.estimate_tokens(result["text"])


@pytest.mark.parametrize("effort, cap", [("low", 2000), ("medium", 4000), ("high", 6000)])
def test_briefing_caps_by_effort_and_never_exceeds_them(repo, effort, cap):
    for n in range(90):
        accept(repo, "rule", f"Rule {n}: " + " ".join(f"word{n}x{k}" for k in range(60)))
    result = briefing.build(repo.paths, effort=effort)
    assert result["tokens"] <= cap and result["cap_tokens"] == cap and result["omitted"] > 0
    assert briefing.estimate_tokens(result["text"]) <= cap


def test_briefing_limit_from_config_caps_high_and_low(repo):
    (repo.root / ".hallmark.toml").write_text(
        (repo.root / ".hallmark.toml").read_text() + '\n[library]\nbriefing_limit = "3k"\n'
    )
    assert briefing.build(repo.paths, effort="high")["cap_tokens"] == 3000
    assert briefing.build(repo.paths, effort="medium")["cap_tokens"] == 3000
    assert briefing.build(repo.paths, effort="low")["cap_tokens"] == 2000
    assert briefing.parse_tokens("1.5k") == 1500 and briefing.parse_tokens(4000) == 4000


def test_search_index_is_derived_and_rebuilds(repo, hall):
    learning = accept(repo, "map", "The watchman sweeps stale leases every minute")
    assert [x["id"] for x in hall("library", "search", "watchman", "leases", cwd=repo.root).json["learnings"]] == [
        learning.id
    ]
    index = repo.state_dir / "library" / "search.sqlite"
    for suffix in ("", "-wal", "-shm"):
        path = index.with_name(index.name + suffix)
        if path.exists():
            path.unlink()
    assert [x["id"] for x in hall("library", "search", "watchman", cwd=repo.root).json["learnings"]] == [learning.id]
    index.write_bytes(b"not a database at all" * 100)
    assert hall("library", "search", "watchman", cwd=repo.root).json["count"] == 1


def test_briefing_cli(repo, hall):
    accept(repo, "enforcement", "No any in TypeScript", paths=["src/**/*.ts"])
    reply = hall("library", "briefing", "--paths", "src/a/b.ts", "--effort", "low", cwd=repo.root).json
    assert reply["cap_tokens"] == 2000 and [x["why"] for x in reply["learnings"]] == ["scoped to the changed paths"]
    assert "bytes / 4" in reply["text"] and reply["next"]
    assert json.loads(json.dumps(reply))["memory_restored"] is True


def test_briefing_without_paths_offers_every_accepted_learning(repo):
    scoped = accept(repo, "enforcement", "No any in TypeScript", paths=["src/**/*.ts"])
    general = accept(repo, "rule", "Docstrings say why")
    result = briefing.build(repo.paths, effort="low")
    assert {x["id"] for x in result["learnings"]} == {scoped.id, general.id}
    assert [x["id"] for x in briefing.build(repo.paths, changed=["docs/a.md"])["learnings"]] == [general.id]
