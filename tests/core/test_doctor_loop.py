"""`hall doctor` checks the programs the ship command and the gates start; `hall init` detects linters
and type checkers as gates and warns about copied files git does not ignore."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hallmark.core import doctor, setup_repo
from hallmark.core.doctor_loop import programs_of


def _checks(result: dict) -> dict[str, dict]:
    return {c["check"]: c for c in result["checks"]}


@pytest.fixture
def bare_path(tmp_path, monkeypatch) -> Path:
    """A PATH holding git and sh only (no gh, no pytest, no mypy)."""
    bin_dir = tmp_path / "only-git"
    bin_dir.mkdir()
    for tool in ("git", "sh"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def test_the_default_ship_without_gh_is_a_failed_check(hall_repo, bare_path):
    subprocess.run(["git", "remote", "add", "origin", "https://example.invalid/x.git"], cwd=hall_repo.root, check=True)
    report = doctor.run(hall_repo.root)
    found = _checks(report)
    assert found["ship_programs"]["ok"] is False and "gh" in found["ship_programs"]["detail"]
    assert not found["ship_programs"].get("optional") and report["ok"] is False
    assert "install gh" in found["ship_programs"]["fix"] and found["ship_programs"]["fix"] in report.fixes
    (bare_path / "gh").write_text("#!/bin/sh\nexit 0\n")
    (bare_path / "gh").chmod(0o755)
    assert _checks(doctor.run(hall_repo.root))["ship_programs"]["ok"] is True


def test_gates_that_start_a_missing_program_fail_the_doctor(hall_repo, bare_path):
    (hall_repo.root / ".hallmark.toml").write_text(
        'gates = ["PYTHONPATH=src pytest -q", "test ! -e BROKEN", "./ci.sh"]\nship = "git push -u origin {branch}"\n'
    )
    (hall_repo.root / "ci.sh").write_text("#!/bin/sh\nexit 0\n")
    (hall_repo.root / "ci.sh").chmod(0o755)
    check = _checks(doctor.run(hall_repo.root))["gate_programs"]
    assert check["ok"] is False
    assert (
        check["detail"]
        == "not on PATH: `PYTHONPATH=src pytest -q` starts pytest; those checks would fail on every item"
    )


@pytest.mark.parametrize(
    ("command", "programs"),
    [
        ("git push -u origin {branch} && gh pr create --base {base} --head {branch}", ["git", "gh"]),
        ("PYTHONPATH=src pytest -q", ["pytest"]),
        ("test ! -e BROKEN", []),
        ("env FOO=1 make test || ./ci.sh; cd x && npm test | tee log", ["make", "./ci.sh", "npm", "tee"]),
        ("echo 'unbalanced", ["echo"][:0]),
    ],
)
def test_programs_of_reads_each_simple_command(command, programs):
    assert programs_of(command) == programs


def test_init_detects_linters_and_type_checkers(git_repo):
    (git_repo / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n[tool.ruff]\nline-length = 100\n[tool.mypy]\nstrict = true\n"
        "[tool.pytest.ini_options]\ntestpaths = ['tests']\n"
    )
    (git_repo / "src").mkdir()
    assert setup_repo.detect_gates(git_repo) == ["ruff check .", "mypy src", "pytest"]
    (git_repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.6.0\n    hooks:\n"
        "      - id: ruff\n      - id: ruff-format\n"
    )
    # pre-commit runs ruff already: not twice; mypy is not among its hooks
    assert setup_repo.detect_gates(git_repo) == ["pre-commit run --all-files", "mypy src", "pytest"]


def test_init_detects_flake8_black_pyright_and_the_mypy_files_setting(git_repo):
    (git_repo / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n[mypy]\nfiles = pkg\n")
    (git_repo / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n[tool.pyright]\n")
    assert setup_repo.detect_gates(git_repo) == ["black --check .", "flake8", "mypy", "pyright"]


def test_init_and_doctor_warn_when_a_copied_file_is_not_ignored(git_repo):
    (git_repo / ".hallmark.toml").write_text('[worktree]\ncopy = [".env", "local.cfg"]\n')
    (git_repo / ".gitignore").write_text("local.cfg\n")
    result = setup_repo.init(git_repo)
    (warning,) = [w for w in result["warnings"] if w["kind"] == "worktree_copy"]
    assert warning["text"].startswith(".env is copied") and ".gitignore" in warning["text"]
    check = _checks(doctor.run(git_repo))["worktree_copy"]
    assert check["ok"] is False and check["optional"] is True and check["fix"] == "add .env to .gitignore"
    (git_repo / ".gitignore").write_text("local.cfg\n.env\n")
    assert _checks(doctor.run(git_repo))["worktree_copy"]["ok"] is True
