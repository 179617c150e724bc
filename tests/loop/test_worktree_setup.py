"""A worktree needs its project's set-up: a JS package's checkouts have no `node_modules`, so without
`[worktree] setup` every first check failed (`sh: 1: jest: not found`, as in tj/commander.js) and the
fixer was sent after it. `hall init` detects the command from the lockfile; the loop runs it once per
checkout (the gate checkout, the fixer's worktree), again only when a manifest changed; a failure holds
the item `setup_failed` and `hall retry` re-runs the set-up and the checks, never the fixer. A tiny real
npm package whose test runner is a local `file:` dependency (npm ci installs it offline), real npm."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hallmark.core import inbox, items, setup_repo, states, worktree_setup
from hallmark.core.loop import daemon

needs_npm = pytest.mark.skipif(not (shutil.which("npm") and shutil.which("node")), reason="needs node and npm")

CHECKER = (
    "module.exports = (ok, what) => { console.log((ok ? 'ok ' : 'FAIL ') + what); if (!ok) process.exitCode = 1; };\n"
)
RUNNER = '#!/usr/bin/env node\nrequire(require("path").resolve(process.argv[2]));\n'
PACKAGE = {
    "name": "calc",
    "version": "1.0.0",
    "scripts": {"test": "tiny-check test.js"},  # a runner from node_modules/.bin, like jest
    "devDependencies": {"tiny-check": "file:vendor/tiny-check"},
}
LOCK = {
    "name": "calc",
    "version": "1.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {"name": "calc", "version": "1.0.0", "devDependencies": {"tiny-check": "file:vendor/tiny-check"}},
        "node_modules/tiny-check": {"resolved": "vendor/tiny-check", "link": True},
        "vendor/tiny-check": {"version": "1.0.0", "dev": True, "bin": {"tiny-check": "bin/tiny-check.js"}},
    },
}
TEST = 'const check = require("tiny-check"); const { add } = require("./index"); check(add(2, 3) === 5, "add");\n'
SETUP = "npm ci --offline --no-audit --no-fund"  # what init writes, offline: no test ever reaches a network


def _js_package(root: Path) -> None:
    vendor = root / "vendor" / "tiny-check"
    (vendor / "bin").mkdir(parents=True)
    (vendor / "package.json").write_text(
        json.dumps({"name": "tiny-check", "version": "1.0.0", "bin": {"tiny-check": "bin/tiny-check.js"}})
    )
    (vendor / "index.js").write_text(CHECKER)
    (vendor / "bin" / "tiny-check.js").write_text(RUNNER)
    (vendor / "bin" / "tiny-check.js").chmod(0o755)
    (root / "package.json").write_text(json.dumps(PACKAGE, indent=2) + "\n")
    (root / "package-lock.json").write_text(json.dumps(LOCK, indent=2) + "\n")
    (root / "index.js").write_text("module.exports.add = (a, b) => a + b;\n")
    (root / "test.js").write_text(TEST)
    (root / ".gitignore").write_text("node_modules/\n")


@pytest.fixture
def js_repo(loop_repo, kit, monkeypatch):
    monkeypatch.setenv("npm_config_offline", "true")
    monkeypatch.setenv("npm_config_update_notifier", "false")
    root = loop_repo.root
    _js_package(root)
    kit.write_config(root, extra=f'[worktree]\nsetup = "{SETUP}"\n', gates=["npm test"])
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "a tiny npm package")
    kit.git(root, "push", "-q", "--no-verify", "origin", "main")
    return kit.reopen(loop_repo)


def _item(repo, kit, files: dict[str, str], title: str = "Add sub") -> tuple[str, Path]:
    created = items.new(repo, title=title)
    wt = Path(created["worktree"])
    for rel, text in files.items():
        (wt / rel).write_text(text)
    kit.git(wt, "add", "-A")
    kit.git(wt, "commit", "-q", "-m", title)
    items.ready(repo, created["item"])
    return created["item"], wt


SUB = {"index.js": "module.exports.add = (a, b) => a + b;\nmodule.exports.sub = (a, b) => a - b;\n"}


@pytest.mark.parametrize(
    ("files", "command"),
    [
        ({"package-lock.json": "{}"}, "npm ci --no-audit --no-fund"),
        ({"pnpm-lock.yaml": ""}, "pnpm install --frozen-lockfile"),
        ({"yarn.lock": ""}, "yarn install --frozen-lockfile"),
        ({"yarn.lock": "", ".yarnrc.yml": ""}, "yarn install --immutable"),
        ({"bun.lock": ""}, "bun install --frozen-lockfile"),
        ({"uv.lock": ""}, "uv sync --frozen"),
        ({"package.json": "{}"}, ""),
    ],
)
def test_the_set_up_is_detected_from_the_lockfile(tmp_path, files, command):
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    assert worktree_setup.detect(tmp_path) == command


def test_init_writes_the_detected_set_up(git_repo, kit):
    (git_repo / "package-lock.json").write_text(json.dumps(LOCK))
    setup_repo.init(git_repo)
    from hallmark.core.repo import open_repo

    assert open_repo(git_repo).config.worktree_setup == "npm ci --no-audit --no-fund"  # the old init wrote none


@needs_npm
def test_a_js_items_first_check_passes_once_its_checkout_is_set_up(js_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    item_id, wt = _item(js_repo, kit, SUB)
    kit.run_loop(js_repo)
    view = items.fold_item(js_repo, item_id)
    assert view.state == states.CLOSED, view.hold_reason
    (run,) = kit.events(js_repo, item_id, "check_run")
    assert run["exit_code"] == 0  # without the set-up: `sh: 1: tiny-check: not found`, then the fixer
    (setup,) = kit.events(js_repo, item_id, "setup_run")
    assert setup["command"] == SETUP and setup["exit_code"] == 0 and setup["where"] == run["ran_in"]
    assert "added 1 package" in Path(setup["log"]).read_text()
    assert not [e for e in kit.events(js_repo, item_id, "run_started") if e.get("role") == "fix"]
    assert kit.git(wt, "status", "--porcelain") == ""


@needs_npm
def test_the_set_up_runs_again_only_when_a_manifest_changed(js_repo, kit):
    item_id, wt = _item(js_repo, kit, SUB)
    daemon.do_checks(js_repo, items.fold_item(js_repo, item_id))
    items.pull_back(js_repo, item_id)
    (wt / "index.js").write_text(SUB["index.js"] + "module.exports.mul = (a, b) => a * b;\n")
    kit.git(wt, "commit", "-q", "-am", "mul")
    items.ready(js_repo, item_id)
    daemon.do_checks(js_repo, items.fold_item(js_repo, item_id))
    assert len(kit.events(js_repo, item_id, "setup_run")) == 1  # same package.json and lockfile
    items.pull_back(js_repo, item_id)
    package = dict(PACKAGE, description="now described")
    (wt / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    kit.git(wt, "commit", "-q", "-am", "describe")
    items.ready(js_repo, item_id)
    daemon.do_checks(js_repo, items.fold_item(js_repo, item_id))
    assert len(kit.events(js_repo, item_id, "setup_run")) == 2
    assert [e["exit_code"] for e in kit.events(js_repo, item_id, "check_run")] == [0, 0, 0]


@needs_npm
def test_a_failing_set_up_holds_the_item_and_retry_runs_set_up_and_checks_not_the_fixer(js_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    text = (js_repo.root / ".hallmark.toml").read_text()
    (js_repo.root / ".hallmark.toml").write_text(text.replace(SETUP, "npm ci --offline --no-such-flag-ok && exit 3"))
    repo = kit.reopen(js_repo)
    item_id, _wt = _item(repo, kit, SUB)
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.state == states.CHECKS and view.hold == "setup_failed"  # the old loop: checks_failed, the fixer
    assert view.hold_reason.startswith("set-up failed: `npm ci --offline --no-such-flag-ok && exit 3` exited 3")
    assert not kit.events(repo, item_id, "check_run")  # no gate ran on an unprepared checkout
    (entry,) = [e for e in inbox.report(repo)["entries"] if e["item"] == item_id]
    assert entry["kind"] == "setup_failed"
    (repo.root / ".hallmark.toml").write_text(text)  # the person fixes the set-up
    repo = kit.reopen(repo)
    items.retry(repo, item_id, reason="set-up fixed")
    kit.run_loop(repo)
    assert items.fold_item(repo, item_id).state == states.CLOSED
    assert [e["exit_code"] for e in kit.events(repo, item_id, "setup_run")] == [3, 0]
    assert not [e for e in kit.events(repo, item_id, "run_started") if e.get("role") == "fix"]


@needs_npm
def test_the_fixers_worktree_is_set_up_before_it_runs(js_repo, kit, scenario):
    scenario({"review": [kit.approve()]})
    fixer = (
        "test -x node_modules/.bin/tiny-check && "
        "printf '%s\\n' 'module.exports.add = (a, b) => a + b;' > index.js && "
        "npm test >/dev/null && git add index.js && git commit -q -m 'add adds'"
    )
    text = (js_repo.root / ".hallmark.toml").read_text()
    (js_repo.root / ".hallmark.toml").write_text(f"fixer = {json.dumps(fixer)}\n" + text)
    repo = kit.reopen(js_repo)
    item_id, wt = _item(repo, kit, {"index.js": "module.exports.add = (a, b) => a * b;\n"}, title="Break add")
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    ends = [e for e in kit.events(repo, item_id, "run_ended") if e.get("role") == "fix"]
    assert [e["failed"] for e in ends] == [None]  # it found its node_modules, ran the tests, committed
    assert view.state == states.CLOSED, view.hold_reason
    wheres = [e["where"] for e in kit.events(repo, item_id, "setup_run")]
    assert str(wt.resolve()) in [str(Path(w).resolve()) for w in wheres]
