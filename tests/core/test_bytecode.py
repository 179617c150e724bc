"""The package's bytecode is compiled at set-up time (core/bytecode.py), so a hook under
PYTHONDONTWRITEBYTECODE=1 does not compile the package on every call.

Real folders, the real interpreter and the real `hall` (a private PYTHONPYCACHEPREFIX keeps the
checkout's own __pycache__ out of it); nothing mocked.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from hallmark.core import bytecode

BIN = Path(sys.executable).parent


def _package(root: Path) -> Path:
    pkg = root / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("X = 1\n")
    (pkg / "sub" / "mod.py").write_text("def f():\n    return 2\n")
    (pkg / "__snapshots__").mkdir()
    (pkg / "__snapshots__" / "skip.py").write_text("this is not python\n")
    return pkg


def test_compile_writes_checked_hash_pycs_that_stay_valid_across_a_touch(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pkg = _package(tmp_path)
    before = bytecode.look([pkg])
    assert before.current == 0 and len(before.stale) == 2  # __snapshots__ is not the package's code
    done = bytecode.compile_package([pkg])
    assert done.compiled == 2 and done.failed == [] and done.ok
    source = pkg / "sub" / "mod.py"
    header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
    assert int.from_bytes(header[4:8], "little") == 0b11  # hash-based, checked against the source
    os.utime(source, (1, 1))  # a checkout or a copy moves the mtime; the bytes are the same
    assert bytecode.is_current(source)
    assert bytecode.look([pkg]).stale == []
    assert bytecode.compile_package([pkg]).compiled == 0  # nothing to do


def test_an_edited_module_is_stale_and_compiled_again(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pkg = _package(tmp_path)
    bytecode.compile_package([pkg])
    source = pkg / "sub" / "mod.py"
    source.write_text("def f():\n    return 3\n")
    assert not bytecode.is_current(source)
    assert bytecode.look([pkg]).stale == [str(source)]
    assert bytecode.compile_package([pkg]).compiled == 1 and bytecode.is_current(source)


def test_a_timestamp_pyc_that_is_current_is_left_alone(tmp_path: Path, monkeypatch):
    import py_compile

    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pkg = _package(tmp_path)
    init = pkg / "__init__.py"
    py_compile.compile(str(init), invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP, doraise=True)
    assert bytecode.is_current(init)
    assert bytecode.compile_package([pkg]).compiled == 1  # only sub/mod.py


def test_a_module_that_does_not_compile_is_named_not_raised(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pkg = _package(tmp_path)
    (pkg / "broken.py").write_text("def (:\n")
    done = bytecode.compile_package([pkg])
    assert done.compiled == 2 and len(done.failed) == 1 and "broken.py" in done.failed[0] and not done.ok


def test_a_damaged_pyc_is_not_current(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    pkg = _package(tmp_path)
    bytecode.compile_package([pkg])
    init = pkg / "__init__.py"
    Path(importlib.util.cache_from_source(str(init))).write_bytes(b"\0" * 8)
    assert not bytecode.is_current(init)


def _env(prefix: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": "1", **extra})
    return env


def _look(env: dict[str, str]) -> dict:
    code = "import json\nfrom hallmark.core import bytecode\nprint(json.dumps(bytecode.look().to_dict()))\n"
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_hall_init_compiles_the_package_and_doctor_says_so(tmp_path: Path, git_repo: Path):
    """With PYTHONDONTWRITEBYTECODE=1 nothing else ever writes the package's bytecode: `hall init`
    does; `hall doctor` reports the modules without it (an optional check)."""
    env = _env(tmp_path / "prefix")
    assert _look(env)["current"] == 0
    doctor = subprocess.run(
        [str(BIN / "hall"), "doctor"], cwd=git_repo, env=env, capture_output=True, text=True, timeout=120
    )
    row = next(c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "bytecode")
    assert row["ok"] is False and row["optional"] is True and "no current bytecode" in row["detail"]
    proc = subprocess.run(
        [str(BIN / "hall"), "init"], cwd=git_repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = _look(env)
    assert found["stale"] == 0 and found["current"] > 100, found
    assert any(Path(f).name == "core" for f in found["folders"]) and any(
        Path(f).name == "hooks" for f in found["folders"]
    )
    doctor = subprocess.run(
        [str(BIN / "hall"), "doctor"], cwd=git_repo, env=env, capture_output=True, text=True, timeout=120
    )
    row = next(c for c in json.loads(doctor.stdout)["checks"] if c["check"] == "bytecode")
    assert row["ok"] is True and "modules compiled" in row["detail"]


def test_hall_setup_claude_compiles_the_package(tmp_path: Path, hall):
    env = _env(tmp_path / "prefix", PATH=f"{BIN}{os.pathsep}/usr/bin:/bin")  # no claude: the settings route
    result = hall("setup", "claude", cwd=tmp_path, env=env)
    assert result.code == 0, result.stdout + result.stderr
    assert _look(env)["stale"] == 0
    dry = _env(tmp_path / "dry", PATH=env["PATH"])
    assert hall("setup", "claude", "--dry-run", cwd=tmp_path, env=dry).code == 0
    assert _look(dry)["current"] == 0  # a dry run writes nothing
