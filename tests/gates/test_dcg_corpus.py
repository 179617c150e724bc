"""dcg's corpus (../shared/corpora/dcg, MIT) reused for the push gate.

1. Every case holding `git reset --hard`, with `git push origin main` put in its place, keeps
   its verdict: deny stays deny, allow stays not-denied (the shell structure decides).
2. The heredoc-as-data and quoting false-positive files stay not-denied as they are, even in a
   worktree under strict mode.

Read in place; skipped when ../shared is absent.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from gatehelp import bash, decision, hook_env, run_hook
from hallmark.hooks.main import run

PUSH = "git push origin main"


def _cases(shared_dir) -> list[dict]:
    found = []
    for path in sorted((shared_dir / "corpora" / "dcg" / "tests" / "corpus").rglob("*.toml")):
        found += [
            {**case, "file": path.name, "expected": case.get("expected") or case.get("expected_decision")}
            for case in tomllib.loads(path.read_text(encoding="utf-8")).get("case", [])
            if isinstance(case.get("command"), str)
        ]
    return found


def _decide(command: str, cwd) -> str:
    out = run("pre-tool-use", json.dumps(bash(command, cwd)).encode())
    return "pass" if out is None else out["hookSpecificOutput"]["permissionDecision"]


def test_substituted_cases_keep_their_verdict(shared_dir, gate_repo):
    cases = [c for c in _cases(shared_dir) if "git reset --hard" in c["command"]]
    assert len(cases) >= 50
    wrong = []
    for case in cases:
        command = case["command"].replace("git reset --hard", PUSH)
        for cwd in (gate_repo.main, gate_repo.wt):
            got = _decide(command, cwd)
            if (case["expected"] == "deny") != (got == "deny"):
                wrong.append((case["file"], case["expected"], got, command))
    assert not wrong, wrong[:10]


def test_substituted_cases_through_the_real_process(shared_dir, gate_repo, pycache):
    cases = [c for c in _cases(shared_dir) if "git reset --hard" in c["command"]][:12]
    env = hook_env(gate_repo, pycache)
    for case in cases:
        code, out, _ = run_hook(
            "pre-tool-use", bash(case["command"].replace("git reset --hard", PUSH), gate_repo.main), env
        )
        assert code == 0
        assert (decision(out) == "deny") == (case["expected"] == "deny"), case["command"]


@pytest.mark.parametrize("name", ["heredoc_data.toml", "quoting.toml"])
def test_data_and_quoting_false_positives_stay_allowed(shared_dir, gate_repo, name):
    cases = [c for c in _cases(shared_dir) if c["file"] == name and c["expected"] == "allow"]
    assert cases
    denied = [c["command"] for c in cases if _decide(c["command"], gate_repo.wt) == "deny"]
    assert not denied, denied[:5]


def test_every_allow_case_is_not_a_push(shared_dir, gate_repo):
    """Across the whole corpus, no allow case (without a literal push in it) is read as a push."""
    from hallmark.core.gates.push import Context, analyze

    cases = [c for c in _cases(shared_dir) if c["expected"] == "allow" and "push" not in c["command"]]
    assert len(cases) > 150
    pushes = [
        c["command"]
        for c in cases
        if any(f.kind in ("push", "note") for f in analyze(c["command"], Context(str(gate_repo.wt))))
    ]
    assert not pushes, pushes[:5]
