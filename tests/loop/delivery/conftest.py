"""The scripted GitHub behind the real `gh`: a private network namespace, a test CA, TLS on :443.

`github` (the fixture) points loop_repo's origin at https://localhost/acme/remote.git (push URL:
the local bare repository), makes a CA and a `localhost` certificate with openssl, moves this test's
thread into a fresh network namespace with `lo` up, serves the scripted GitHub there, and sets the
environment `gh` reads (GH_HOST, GH_ENTERPRISE_TOKEN, a temporary GH_CONFIG_DIR, SSL_CERT_FILE).
Without root, `gh`, `openssl` or `ip`, the tests skip and say why.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent


def _load() -> ModuleType:
    name = "hallmark_tests_scripted_github"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "scripted_github.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def gh_version() -> str:
    proc = subprocess.run(["gh", "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.split("\n", 1)[0]


@pytest.fixture
def sg() -> ModuleType:
    """The scripted_github module (World, PullRequest, Thread, …)."""
    return _load()


@pytest.fixture
def github(loop_repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sg: ModuleType) -> Iterator[object]:
    for tool in ("gh", "openssl", "ip"):
        if shutil.which(tool) is None:
            pytest.skip(f"`{tool}` is not installed (.ci/run installs gh); the scripted GitHub tests skip")
    problem = sg.namespace_problem()
    if problem:
        pytest.skip(problem)
    ca, cert, key = sg.certificates(tmp_path / "tls")
    root = loop_repo.root
    subprocess.run(["git", "remote", "set-url", "origin", "https://localhost/acme/remote.git"], cwd=root, check=True)
    subprocess.run(["git", "remote", "set-url", "--push", "origin", str(loop_repo.bare)], cwd=root, check=True)
    config = tmp_path / "gh-config"
    config.mkdir()
    (tmp_path / "gh-tmp").mkdir()  # gh caches run logs in the temp dir, keyed by run id: one per test
    for name, value in {
        "SSL_CERT_FILE": str(ca),
        "GIT_SSL_CAINFO": str(ca),
        "GH_HOST": "localhost",
        "GH_ENTERPRISE_TOKEN": "scripted-token",
        "GH_CONFIG_DIR": str(config),
        "GH_PROMPT_DISABLED": "1",
        "GH_NO_UPDATE_NOTIFIER": "1",
        "GH_PAGER": "cat",
        "NO_COLOR": "1",
        "TMPDIR": str(tmp_path / "gh-tmp"),
        "XDG_CACHE_HOME": str(tmp_path / "gh-cache"),
    }.items():
        monkeypatch.setenv(name, value)
    try:
        net = sg.PrivateNetwork()
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot make a private network namespace: {exc}")
    world = sg.World(owner="acme", name="remote", bare=Path(loop_repo.bare))
    try:
        server = sg.ScriptedGitHub(world, cert, key)
    except BaseException:
        net.close()
        raise
    try:
        yield world
    finally:
        server.close()
        net.close()
        log = os.environ.get("HALL_SCRIPTED_GITHUB_LOG")  # every endpoint gh called, for the record
        if log:
            with open(log, "a", encoding="utf-8") as out:
                out.writelines(f"{r['method']} {r['path']} {r['op']}\n" for r in world.requests)
