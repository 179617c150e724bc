"""Checks that test the worktree: a src-layout project installed editable from the main checkout (a
real venv whose site-packages holds the `.pth` `pip install -e .` writes) must not have its item's
broken change approved; init and doctor warn; a gate whose output names main-checkout files says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hallmark.core import doctor, gate_checkout, items, setup_repo, states, worktree_env
from hallmark.core.loop import checks, daemon

TEST = (
    "import unittest\n\nimport pkg\n\n\nclass T(unittest.TestCase):\n    def test_value(self):\n"
    "        self.assertEqual(pkg.value(), 1)\n"
)


@pytest.fixture
def editable(loop_repo, tmp_path, monkeypatch, kit):
    """loop_repo turned into a src-layout project, `pip install -e .`'d into a venv first on PATH."""
    root = loop_repo.root
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("def value():\n    return 1\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_pkg.py").write_text(TEST)
    kit.write_config(root, gates=["python -m unittest discover -s tests -q"])
    kit.git(root, "add", "-A")
    kit.git(root, "commit", "-q", "-m", "src layout")
    kit.git(root, "push", "-q", "--no-verify", "origin", "main")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "__editable__.pkg-0.1.pth").write_text(str(root / "src") + "\n")  # what setuptools writes for src/
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    worktree_env._PROBE_CACHE.clear()
    return kit.reopen(loop_repo)


def test_a_broken_change_in_an_editable_src_layout_is_not_approved(editable, ready_item, scenario, kit):
    repo = editable
    scenario({"review": [kit.approve()], "fix": [{"edits": []}]})
    item_id = ready_item({"src/pkg/__init__.py": "def value():\n    return 2  # broken\n"}, title="break it")
    daemon.pass_repo(repo, "t")
    view = items.fold_item(repo, item_id)
    assert view.state == states.FIXING, "the worktree's broken code was tested and failed"
    (run,) = kit.events(repo, item_id, "check_run")
    assert run["exit_code"] != 0 and "2 != 1" in run["output"]
    # the clean checkout of the commit the gates run in (core/gate_checkout.py), its src first
    assert run["env"]["PYTHONPATH"].split(os.pathsep)[0] == str(gate_checkout.location(view.worktree) / "src")
    log = Path(run["log"]).read_text()
    assert "imports from the main checkout" in log and "PYTHONPATH=" in log.splitlines()[1]
    assert not kit.events(repo, item_id, "verdict")  # no model ever saw it


def test_the_same_change_passes_when_it_is_right(editable, ready_item, scenario, kit):
    repo = editable
    scenario({"review": [kit.approve()]})
    item_id = ready_item({"src/pkg/__init__.py": "def value():\n    return 1  # same, reworded\n"}, title="fine")
    daemon.pass_repo(repo, "t")
    assert items.fold_item(repo, item_id).state == states.REVIEW
    (run,) = kit.events(repo, item_id, "check_run")
    assert run["exit_code"] == 0 and "PYTHONPATH" in run["env"]
    key = checks.cache_key(run["tree"], run["command"], [run["command"]])
    assert run["tree"] and checks.cached_pass(repo, key) is None  # the env is part of the cache key


def test_init_and_doctor_warn_about_the_editable_install(editable, hall):
    root = editable.root
    result = setup_repo.init(root)
    assert result["warnings"] and "imports from the main checkout" in result["warnings"][0]["text"]
    assert str(root / "src") in result["warnings"][0]["text"] and "PYTHONPATH" in result["warnings"][0]["text"]
    report = doctor.run(root)
    (check,) = [c for c in report["checks"] if c["check"] == "worktree_code"]
    assert check["ok"] is False and check["optional"] is True and str(root / "src") in check["detail"]


def test_no_warning_without_an_editable_install(loop_repo):
    assert setup_repo.init(loop_repo.root)["warnings"] == []
    (check,) = [c for c in doctor.run(loop_repo.root)["checks"] if c["check"] == "worktree_code"]
    assert check["ok"] is True


def test_a_gate_whose_output_names_main_checkout_files_says_so(loop_repo, ready_item, kit):
    kit.write_config(
        loop_repo.root,
        gates=[f"{sys.executable} -c \"import os; print(os.path.realpath('../{loop_repo.root.name}/app.py'))\""],
    )
    repo = kit.reopen(loop_repo)
    item_id = ready_item()
    daemon.pass_repo(repo, "t")
    (run,) = kit.events(repo, item_id, "check_run")
    assert run["foreign_paths"] == [str(Path(loop_repo.root).resolve() / "app.py")]
    assert "may have tested the main checkout's code" in Path(run["log"]).read_text()


def test_foreign_paths_tell_a_sibling_worktree_from_the_main_checkout(tmp_path):
    main, wt = tmp_path / "repo", tmp_path / "repo-H-0001"
    main.mkdir()
    wt.mkdir()
    out = f"{wt}/src/x.py:3: AssertionError\n{main}/src/x.py:3: in f\n'{main}/src/x.py'\n{main}/tests/t.py\n"
    count, shown = worktree_env.foreign_paths(out, main, wt)
    assert count == 2 and shown == [f"{main.resolve()}/src/x.py", f"{main.resolve()}/tests/t.py"]
    inside = main / ".worktrees" / "H-1"
    inside.mkdir(parents=True)
    assert worktree_env.foreign_paths(f"{inside}/a.py\n", main, inside) == (0, [])


def test_the_probe_reads_editable_finders_without_running_them(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    main = tmp_path / "main"
    (main / "flat").mkdir(parents=True)
    (site / "__editable___flat_0_1_finder.py").write_text(
        f"import sys\nraise SystemExit('never run')\nMAPPING: dict[str, str] = {{'flat': '{main / 'flat'}'}}\n"
    )
    (site / "__editable__.flat-0.1.pth").write_text(
        "import __editable___flat_0_1_finder; __editable___flat_0_1_finder.install()\n"
    )
    found = worktree_env.probe(str(venv / "bin" / "python"))
    assert [e[1:] for e in found] == [[str(main / "flat"), "flat"]]
    assert json.dumps(found)  # plain data
