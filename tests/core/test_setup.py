"""`hall init` pieces in-process: gate detection, the CLAUDE.md section, registration, doctor's checks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hallmark.core import doctor, ids, setup_repo
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo
from hallmark.tui.cli.setup import doctor_next, init_next


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


PACKAGE = json.dumps({"scripts": {"test": "vitest", "lint": "eslint .", "build": "tsc", "deploy": "x"}})


@pytest.mark.parametrize(
    ("files", "gates"),
    [
        ({"package.json": PACKAGE}, ["npm run lint", "npm run build", "npm test"]),
        ({"package.json": PACKAGE, "package-lock.json": "{}"}, ["npm run lint", "npm run build", "npm test"]),
        ({"package.json": PACKAGE, "pnpm-lock.yaml": ""}, ["pnpm run lint", "pnpm run build", "pnpm run test"]),
        ({"package.json": PACKAGE, "yarn.lock": ""}, ["yarn lint", "yarn build", "yarn test"]),
        ({"package.json": PACKAGE, "bun.lockb": ""}, ["bun run lint", "bun run build", "bun run test"]),
        ({"package.json": PACKAGE, "bun.lock": ""}, ["bun run lint", "bun run build", "bun run test"]),
        ({"package.json": json.dumps({"name": "no-scripts"})}, []),
        ({"package.json": "{ broken"}, []),
        ({"Cargo.toml": "[package]\nname = 'x'\n"}, ["cargo test", "cargo clippy"]),
        ({"go.mod": "module example.com/x\n"}, ["go test ./...", "go vet ./..."]),
        ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"}, ["pytest"]),
        (
            {"pyproject.toml": "[project]\nname='x'\n[project.optional-dependencies]\ntest = ['pytest>=8']\n"},
            ["pytest"],
        ),
        ({"pyproject.toml": "[project]\nname='x'\n", "tests/test_a.py": "def test(): pass\n"}, ["pytest"]),
        ({"pyproject.toml": "[project]\nname='x'\n"}, []),
        ({"setup.cfg": "[tool:pytest]\n"}, ["pytest"]),
        ({"tox.ini": "[pytest]\n"}, ["pytest"]),
        (
            {"Makefile": "install:\n\tpip install .\ntest: build\n\tpytest\nlint:\n\truff .\nbuild:\n\tx\nCC := gcc\n"},
            ["make lint", "make build", "make test"],
        ),
        (
            {"justfile": "default:\n  just --list\ntest *args:\n  pytest {{args}}\n@check:\n  ruff .\nrelease:\n  x\n"},
            ["just check", "just test"],
        ),
        ({"go.mod": "module x\n", "Makefile": "test:\n\tgo test\n"}, ["go test ./...", "go vet ./...", "make test"]),
    ],
)
def test_gate_detection(tmp_path: Path, files: dict[str, str], gates: list[str]):
    assert setup_repo.detect_gates(write(tmp_path, files)) == gates


def test_the_claude_md_section_is_replaced_only_between_the_markers(tmp_path: Path):
    assert setup_repo.write_claude_section(tmp_path) == "created"
    path = tmp_path / "CLAUDE.md"
    assert path.read_text().startswith(setup_repo.CLAUDE_START)
    path.write_text(
        "# My project\n\nKeep this.\n\n"
        + setup_repo.CLAUDE_START
        + "\nold words\n"
        + setup_repo.CLAUDE_END
        + "\n\n## Mine\nAnd this.\n"
    )
    assert setup_repo.write_claude_section(tmp_path) == "replaced"
    text = path.read_text()
    assert text.startswith("# My project\n\nKeep this.\n\n") and text.endswith("\n\n## Mine\nAnd this.\n")
    assert "old words" not in text and "hall new" in text
    assert text.count(setup_repo.CLAUDE_START) == 1 and text.count(setup_repo.CLAUDE_END) == 1
    assert setup_repo.write_claude_section(tmp_path) == "unchanged"
    assert path.read_text() == text
    other = tmp_path / "other"
    other.mkdir()
    (other / "CLAUDE.md").write_text("Project rules.")
    assert setup_repo.write_claude_section(other) == "appended"
    assert (other / "CLAUDE.md").read_text().startswith("Project rules.\n\n" + setup_repo.CLAUDE_START)


def test_init_sets_up_once_and_registers_the_repo(git_repo: Path, isolated_env: Path):
    write(git_repo, {"Makefile": "test:\n\tpytest\n"})
    first = setup_repo.init(git_repo)
    state = git_repo / ".git" / "hallmark"
    assert first["initialized"] is True and first["config_written"] is True and first["gates"] == ["make test"]
    for sub in ("items", "runs", "sessions", "queue", "checks-cache", "library"):
        assert (state / sub).is_dir()
    cfg = open_repo(git_repo).config
    assert cfg.gates == ["make test"] and cfg.base == "main"
    assert setup_repo.registered_repos() == [git_repo]
    assert (isolated_env / "hallmark-data" / "repos.json").exists()
    (git_repo / ".hallmark.toml").write_text('gates = ["mine"]\n')
    again = setup_repo.init(git_repo)
    assert again["initialized"] is False and again["config_written"] is False
    assert (git_repo / ".hallmark.toml").read_text() == 'gates = ["mine"]\n'
    assert setup_repo.registered_repos() == [git_repo]
    skipped = setup_repo.init(git_repo, claude_md=False)
    assert skipped["claude_md"] == "skipped"


def test_init_outside_a_repo(tmp_path: Path):
    with pytest.raises(HallError) as caught:
        setup_repo.init(tmp_path)
    assert caught.value.code == "NOT_A_REPO" and caught.value.exit_code == 3


def test_item_ids_in_every_form():
    for text in ("42", "H-42", "H-0042", "h42", "h-0042", " 42 "):
        assert ids.parse_item_id(text) == "H-0042"
    assert ids.parse_item_id("12345") == "H-12345"
    for bad in ("", "0", "H-", "Q-1", "H-4x", "-1"):
        with pytest.raises(HallError) as caught:
            ids.parse_item_id(bad)
        assert caught.value.code == "USAGE"
    assert ids.parse_question_id("Q-12") == "Q-12" == ids.parse_question_id("12")


def test_allocation_never_reuses_an_id_after_counters_are_lost(hall_repo):
    state = hall_repo.state_dir
    (state / "items" / "H-0007").mkdir()
    assert ids.allocate(state, "item") == 8
    (hall_repo.paths.repo_journal).write_text(
        hall_repo.paths.repo_journal.read_text()
        + json.dumps({"v": 1, "t": "2026-01-01T00:00:00Z", "event": "question", "qid": "Q-5"})
        + "\n"
    )
    (state / "counters.json").unlink()
    assert ids.allocate(state, "item") == 8  # H-0007 is the highest journal left
    assert ids.allocate(state, "question") == 6
    (state / "counters.json").write_text("not json")
    assert ids.allocate(state, "item") == 8


def _checks(result: dict) -> dict[str, dict]:
    return {c["check"]: c for c in result["checks"]}


def test_doctor_checks_and_every_failure_names_its_fix(git_repo: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    lost = doctor.run(outside)
    assert lost["ok"] is False and _checks(lost)["repo"]["fix"]

    fresh = _checks(doctor.run(git_repo))
    assert fresh["state"]["ok"] is False and fresh["state"]["fix"] == "hall init"
    setup_repo.init(git_repo)
    healthy = doctor.run(git_repo)
    found = _checks(healthy)
    assert {"git", "repo", "state", "config", "journal", "index", "hooks"} <= set(found)
    for name in ("git", "repo", "state", "config", "journal", "index"):
        assert found[name]["ok"], found[name]
    for check in healthy["checks"]:
        if not check["ok"]:
            assert check.get("fix"), check
    assert (
        set(doctor_next(healthy)) == {c["fix"] for c in healthy["checks"] if not c["ok"] and not c.get("optional")}
        or healthy["ok"]
    )

    (git_repo / ".hallmark.toml").write_text("max_rejects = -1\n")
    broken = _checks(doctor.run(git_repo))["config"]
    assert broken["ok"] is False and ".hallmark.toml:1:" in broken["detail"] and broken["fix"]
    (git_repo / ".hallmark.toml").write_text("")

    index = git_repo / ".git" / "hallmark" / "index.sqlite"
    index.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)  # a header and nothing sane behind it
    bad_index = _checks(doctor.run(git_repo))["index"]
    assert bad_index["ok"] is False and bad_index["fix"] == "hall reindex"
    index.unlink()
    assert _checks(doctor.run(git_repo))["index"]["ok"] is True
    assert not index.exists()  # doctor reads; it never creates the index
    db = sqlite3.connect(str(index))
    db.execute("CREATE TABLE t (x)")
    db.close()
    assert _checks(doctor.run(git_repo))["index"]["ok"] is True


def test_hooks_wired_by_hand_satisfy_doctor_without_the_plugin(hall_repo, isolated_env: Path):
    root = hall_repo.root
    assert doctor.hooks_status(root)["ok"] is False
    assert _checks(doctor.run(root))["hooks"]["ok"] is False
    settings = isolated_env / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"command": "/x/bin/hall-hook pre-tool-use"}]}]}})
    )
    found = doctor.hooks_status(root)
    assert found["ok"] is True and str(settings) in found["detail"]
    hooks = _checks(doctor.run(root))["hooks"]
    assert hooks["ok"] is True and "not through the plugin" in hooks["detail"]


@pytest.mark.parametrize(
    ("command", "remotes"),
    [
        ("git push -u origin {branch} && gh pr create --base {base}", ["origin"]),
        ("git -C . push --force-with-lease upstream HEAD", ["upstream"]),
        ("git push", []),
        ("make release", []),
        ("git push -u fork {branch}; git push origin --tags", ["fork", "origin"]),
        ("echo 'unbalanced", []),
    ],
)
def test_ship_remotes_reads_the_pushed_remote(command: str, remotes: list[str]):
    assert doctor.ship_remotes(command) == remotes


def test_doctor_warns_when_the_ship_remote_is_missing(hall_repo):
    import subprocess

    ship = _checks(doctor.run(hall_repo.root))["ship"]
    assert ship["ok"] is False and ship["optional"] is True and "origin" in ship["detail"]
    assert "git remote add origin" in ship["fix"]
    subprocess.run(["git", "remote", "add", "origin", "https://example.invalid/x.git"], cwd=hall_repo.root, check=True)
    assert _checks(doctor.run(hall_repo.root))["ship"]["ok"] is True


def test_init_base_and_capture_are_written(git_repo: Path):
    result = setup_repo.init(git_repo, base="develop", capture="ask")
    cfg = open_repo(git_repo).config
    assert cfg.base == "develop" and cfg.capture.mode == "ask" and result["config_written"] is True


def test_doctor_names_items_whose_worktree_was_deleted(hall_repo):
    import shutil

    from hallmark.core import items

    kept = items.new(hall_repo, title="kept")
    lost = items.new(hall_repo, title="lost")
    shutil.rmtree(lost["worktree"])
    check = _checks(doctor.run(hall_repo.root))["worktrees"]
    assert check["ok"] is False and check["missing"] == [{"item": lost["item"], "worktree": lost["worktree"]}]
    assert f"hall drop {lost['item']}" in check["fix"] and kept["item"] not in check["detail"]
    items.drop(hall_repo, lost["item"], reason="worktree lost")
    assert _checks(doctor.run(hall_repo.root))["worktrees"]["ok"] is True


def test_init_says_to_commit_what_it_wrote(git_repo: Path):
    first = setup_repo.init(git_repo)
    assert init_next(first)[0].startswith("git add .hallmark.toml CLAUDE.md")
    assert init_next(first)[0].endswith("&& git commit -m 'Set up Hallmark'")
    again = setup_repo.init(git_repo)
    assert not init_next(again)[0].startswith("git add")  # nothing new was written
