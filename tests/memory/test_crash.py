"""Fault injection: the real `hall` is killed (SIGKILL) at every step of accept, retire and undo,
then `hall library reconcile` must leave the store and the files agreeing, the person's text intact.

The kill is injected from outside the product: a sitecustomize.py on the child's PYTHONPATH wraps
os.replace, os.rename, os.unlink, os.rmdir and os.write (each a step that changes the disk), counts
them, and kills the process before step k (or, for a write, half-way through it: a torn line).
Nothing in Hallmark knows about it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core.memory import api
from hallmark.core.repo import open_repo

from ..conftest import BIN, git

SITE = """
import os, signal
_AT = int(os.environ.get("HALLMARK_TEST_KILL_AT", "0") or 0)
_TORN = os.environ.get("HALLMARK_TEST_TORN") == "1"
_LOG = os.environ.get("HALLMARK_TEST_STEPS")
_n = [0]

def _step(name, where, torn=None):
    _n[0] += 1
    if _LOG:
        with open(_LOG, "a") as handle:
            handle.write(f"{_n[0]} {name} {where}\\n")
    if _n[0] == _AT:
        if torn is not None and _TORN:
            torn()
        os.kill(os.getpid(), signal.SIGKILL)

def _wrap(name):
    real = getattr(os, name)
    def wrapper(*args, **kwargs):
        _step(name, args[-1] if name in ("replace", "rename") else args[0])
        return real(*args, **kwargs)
    setattr(os, name, wrapper)

if _AT or _LOG:
    for _name in ("replace", "rename", "unlink", "rmdir"):
        _wrap(_name)
    _write = os.write
    def _os_write(fd, data):
        _step("write", fd, torn=lambda: _write(fd, bytes(data)[: max(1, len(data) // 2)]))
        return _write(fd, data)
    os.write = _os_write
"""

MINE = "\n## My section\n\nKeep these bytes.\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    (folder / "sitecustomize.py").write_text(SITE)
    return folder


def _hall(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env)
    return subprocess.run([str(BIN / "hall"), *args], cwd=cwd, env=full, capture_output=True, text=True, timeout=60)


def _template(root: Path, scenario: str) -> Path:
    """A repo ready for one scenario: a convention proposed (and, for retire/undo, accepted)."""
    from hallmark.core import setup_repo

    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# demo\n")
    setup_repo.init(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    claude = root / "CLAUDE.md"
    claude.write_text(claude.read_text() + MINE)
    repo = open_repo(root)
    lid = api.propose(repo, kind="convention", pattern="Use pathlib for paths")["id"]
    if scenario in ("retire", "undo"):
        api.accept(repo, lid)
        claude.write_text(claude.read_text() + "\nAnd my later note.\n")
    return root


OPS = {
    "accept": ["library", "accept", "L-0001"],
    "retire": ["library", "retire", "L-0001", "--reason", "done"],
    "undo": ["library", "undo", "L-0001"],
}
OUTCOMES = {
    "accept": ({"proposed"}, {"promoted"}),
    "retire": ({"promoted"}, {"retired"}),
    "undo": ({"promoted"}, {"proposed"}),
}


def _check(root: Path, scenario: str, person_text: str, label: str) -> None:
    repo = open_repo(root)
    learning = api.get(repo, "L-0001")
    before, after = OUTCOMES[scenario]
    assert learning.status in before | after, label  # all or nothing
    text = (root / "CLAUDE.md").read_text()
    assert person_text in text, label  # the person's bytes, untouched
    has_block = "<!-- hallmark:learning L-0001 " in text
    assert has_block == (learning.status == "promoted"), (label, learning.status, text)
    assert api.verify_audit(repo) == [], label
    again = api.reconcile(repo)
    assert again["drift"] == [] and not again["repaired"]["settled"] and not again["repaired"]["removed"], label
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert all(line[3:] == "CLAUDE.md" for line in status.splitlines()), (label, status)


@pytest.mark.parametrize("scenario", ["accept", "retire", "undo"])
def test_a_kill_at_every_step_is_repaired_by_reconcile(tmp_path, site, scenario):
    template = _template(tmp_path / "template", scenario)
    person_text = (template / "CLAUDE.md").read_text().split("<!-- hallmark:learning")[0]
    steps_log = tmp_path / "steps.log"
    probe = tmp_path / "probe"
    shutil.copytree(template, probe, symlinks=True)
    done = _hall(OPS[scenario], probe, PYTHONPATH=str(site), HALLMARK_TEST_STEPS=str(steps_log))
    assert done.returncode == 0, done.stdout + done.stderr
    steps = steps_log.read_text().splitlines()
    assert len(steps) >= 4, steps  # intent, file, history, current, audit line … each is a kill point
    points = [(k, False) for k in range(1, len(steps) + 1)]
    points += [(k, True) for k, line in enumerate(steps, 1) if line.split()[1] == "write"]
    for k, torn in points:
        label = f"{scenario}: killed at step {k} ({steps[k - 1]}){' mid-write' if torn else ''}"
        root = tmp_path / f"run-{k}-{int(torn)}"
        shutil.copytree(template, root, symlinks=True)
        killed = _hall(
            OPS[scenario],
            root,
            PYTHONPATH=str(site),
            HALLMARK_TEST_KILL_AT=str(k),
            HALLMARK_TEST_TORN="1" if torn else "0",
        )
        assert killed.returncode == -9, (label, killed.stdout, killed.stderr)
        repaired = _hall(["library", "reconcile"], root)
        assert repaired.returncode == 0, (label, repaired.stdout)
        _check(root, scenario, person_text, label)
        shutil.rmtree(root)
    assert sys.platform != "win32"
