"""The sandbox wall: the profile `hall setup claude --sandbox` and `hall new --open` write, and proof
with the real sandbox runtime (`@anthropic-ai/sandbox-runtime`, the library Claude Code's sandbox is
built on; bubblewrap on Linux) that inside it the record and the keys are out of reach while the
work goes on. The runtime tests skip, saying why, where the runtime or bubblewrap cannot run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gatehelp import commit_file, git, hallmark_commit
from hallmark.core import sandbox_profile
from hallmark.core.paths import discover

PROJECT = Path(__file__).resolve().parents[2]
DOCUMENTED = {
    "enabled",
    "allowUnsandboxedCommands",
    "failIfUnavailable",
    "excludedCommands",
    "filesystem",
    "credentials",
}
DOCUMENTED_FS = {"allowWrite", "denyWrite", "denyRead"}


def runtime_config(block: dict[str, Any], *, cwd: str, tmp: str = "/tmp") -> dict[str, Any]:
    """The sandbox profile in the sandbox runtime's own settings format (what Claude Code hands
    `@anthropic-ai/sandbox-runtime`): absolute paths, the session's directory and the temp dir
    writable as Claude Code makes them, no network."""

    def plain(entries: list[str]) -> list[str]:
        return ["/" + e[2:] if e.startswith("//") else e for e in entries]

    fs = block["filesystem"]
    return {
        "filesystem": {
            "denyRead": plain(fs["denyRead"]),
            "allowWrite": [cwd, tmp, *plain(fs["allowWrite"])],
            "denyWrite": plain(fs["denyWrite"]),
        },
        "network": {"allowedDomains": [], "deniedDomains": []},
        "credentials": block.get("credentials", {}),
    }


@pytest.fixture
def repo(env_repo):
    return env_repo


def test_the_profile_uses_only_documented_keys_and_notation(repo):
    block = sandbox_profile.profile([discover(repo.main)])
    assert set(block) <= DOCUMENTED and set(block["filesystem"]) <= DOCUMENTED_FS
    assert set(block["credentials"]) == {"envVars"}
    assert all(set(e) == {"name", "mode"} and e["mode"] == "deny" for e in block["credentials"]["envVars"])
    assert block["enabled"] is True and block["allowUnsandboxedCommands"] is False
    for entry in block["filesystem"]["allowWrite"] + block["filesystem"]["denyWrite"]:
        assert entry.startswith("//"), entry  # absolute: `/x` would be relative to the settings file
    assert all(entry.startswith("~/") for entry in block["filesystem"]["denyRead"])


def test_the_profile_closes_the_record_and_the_keys(repo):
    paths = discover(repo.main)
    block = sandbox_profile.profile([paths])
    deny = set(block["filesystem"]["denyWrite"])
    common = os.path.realpath(paths.common_dir)
    for inside in ("hallmark", "refs/notes", "refs/replace", "hooks", "config", "packed-refs"):
        assert "//" + os.path.join(common, inside).lstrip("/") in deny, inside
    assert f"//{str(repo.main).lstrip('/')}/.hallmark.toml" in deny
    assert f"//{str(repo.wt).lstrip('/')}/.claude/settings.local.json" in deny
    assert f"//{str(repo.wt).lstrip('/')}/.git" in deny  # a worktree's gitfile
    assert block["filesystem"]["allowWrite"] == ["//" + common.lstrip("/")]  # objects, refs/heads …
    for store in ("~/.ssh", "~/.config/gh", "~/.git-credentials", "~/.netrc", "~/.npmrc", "~/.pypirc", "~/.aws"):
        assert store in block["filesystem"]["denyRead"]
    names = {e["name"] for e in block["credentials"]["envVars"]}
    assert {"GH_TOKEN", "GITHUB_TOKEN", "GITLAB_TOKEN", "NPM_TOKEN", "TWINE_PASSWORD", "SSH_AUTH_SOCK"} <= names
    assert block["excludedCommands"] == ["hall"]  # the agent's verbs write the journal; the CLI refuses the rest


def test_setup_claude_sandbox_dry_run_shows_and_writes_nothing_then_writes_and_keeps_yours(repo, hall):
    settings = Path(repo.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"theme": "dark", "sandbox": {"filesystem": {"denyRead": ["~/secret"]}}}))
    before = settings.read_text()
    shown = hall("setup", "claude", "--sandbox", "--dry-run", cwd=repo.main, env=repo.env)
    assert shown.code == 0, shown.stdout
    block = shown.json["sandbox"]["sandbox"]
    assert block["enabled"] is True and shown.json["sandbox"]["dry_run"] is True
    assert settings.read_text() == before
    done = hall("setup", "claude", "--sandbox", cwd=repo.main, env=repo.env)
    assert done.code == 0, done.stdout
    data = json.loads(settings.read_text())
    assert data["theme"] == "dark" and "~/secret" in data["sandbox"]["filesystem"]["denyRead"]
    assert "~/.ssh" in data["sandbox"]["filesystem"]["denyRead"]
    again = hall("setup", "claude", "--sandbox", cwd=repo.main, env=repo.env)
    assert again.json["sandbox"]["changed"] is False  # idempotent
    assert hall("setup", "claude", "--sandbox", cwd=repo.main, env={**repo.env, "CLAUDECODE": "1"}).code == 5


def test_hall_new_open_passes_the_profile(repo, monkeypatch, tmp_path):
    from hallmark.core.open_session import open_command
    from hallmark.core.repo import open_repo

    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HALL_CLAUDE", str(fake))
    plan = open_command(open_repo(repo.main), repo.item)
    if sandbox_profile.availability()["ok"]:
        index = plan["command"].index("--settings")
        written = json.loads(Path(plan["command"][index + 1]).read_text())
        assert written["sandbox"]["enabled"] is True and plan["sandbox"]["enabled"] is True
        assert Path(plan["command"][index + 1]).is_relative_to(discover(repo.main).state_dir)
    else:
        assert "--settings" not in plan["command"] and plan["sandbox"]["enabled"] is False


def test_doctor_says_whether_the_sandbox_can_run(repo, hall):
    doctor = hall("doctor", cwd=repo.main, env=repo.env).json
    check = next(c for c in doctor["checks"] if c["check"] == "sandbox profile")
    assert check["available"] == sandbox_profile.availability()["ok"] and check["optional"] is True
    assert check["installed"] is False and check["fix"]


# -- the real sandbox runtime ------------------------------------------------------------------------


def _runtime() -> str:
    for candidate in (
        os.environ.get("HALL_SANDBOX_RUNTIME"),
        shutil.which("srt"),
        str(PROJECT / ".ci" / "sandbox-runtime" / "node_modules" / ".bin" / "srt"),
    ):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip(
        "the sandbox runtime (npm @anthropic-ai/sandbox-runtime, `srt`) is not installed here; .ci/run "
        "installs it into .ci/sandbox-runtime"
    )


@pytest.fixture
def srt():
    if not sys.platform.startswith("linux") and sys.platform != "darwin":
        pytest.skip(f"Claude Code's sandbox does not run on {sys.platform}")
    available = sandbox_profile.availability()
    if not available["ok"]:
        pytest.skip(f"the sandbox cannot run here: {available['detail']}")
    return _runtime()


def _probe(srt: str, r, config: dict, script: str, env: dict[str, str]) -> dict[str, str]:
    settings = r.wt.parent / "srt-settings.json"
    settings.write_text(json.dumps(config))
    proc = subprocess.run(
        [srt, "--settings", str(settings), "-c", script], cwd=r.wt, env=env, capture_output=True, text=True, timeout=180
    )
    found = {}
    for line in proc.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key.strip()] = value.strip()
    assert found, (proc.returncode, proc.stdout, proc.stderr)
    return found


def test_inside_the_sandbox_the_record_and_the_keys_are_out_of_reach_and_the_work_goes_on(repo, srt, tmp_path):
    paths = discover(repo.main)
    home = Path(repo.env["HOME"])
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / ".git-credentials").write_text("https://x:token@example.com\n")
    mirror = home / ".ssh" / "mirror.git"  # a remote reached over a credentialed path
    git(home, "init", "-q", "--bare", str(mirror), env=repo.env)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=repo.env)
    sha = commit_file(repo, "before.py")
    hallmark_commit(repo, sha)  # hallmarked: outside the sandbox the push is allowed, so the sandbox is the wall
    journal = paths.item_journal(repo.item)
    before = journal.read_bytes()
    sandbox_profile.prepare(paths)  # as `hall setup claude --sandbox` and `hall new --open` do
    config = runtime_config(sandbox_profile.profile([paths]), cwd=str(repo.wt))
    env = {**repo.env, "GH_TOKEN": "ghp_secret_token", "NPM_TOKEN": "npm_secret"}
    script = "\n".join(
        [
            'ok() { if "$@" >/dev/null 2>&1; then echo yes; else echo no; fi; }',
            "echo commit=$(ok sh -c 'echo x > inside.py && git add inside.py && git commit -q -m inside')",
            f"echo journal=$(ok sh -c 'echo forged >> {journal}')",
            "echo notes=$(ok git update-ref refs/notes/hallmark HEAD)",
            f"echo config=$(ok sh -c 'echo x >> {repo.main}/.hallmark.toml')",
            f"echo hooks=$(ok sh -c 'echo x > {paths.common_dir}/hooks/post-commit')",
            "echo gitconfig=$(ok git config core.hooksPath /tmp)",
            "echo claude=$(ok sh -c 'mkdir -p .claude && echo {} > .claude/settings.local.json')",
            f"echo key=$(ok cat {home}/.ssh/id_ed25519)",
            f"echo credentials=$(ok cat {home}/.git-credentials)",
            "echo token=${GH_TOKEN:-none}/${NPM_TOKEN:-none}",
            f"echo push_credentialed=$(ok git push -q {mirror} HEAD:refs/heads/x)",
            f"echo push_local=$(ok git push -q {bare} HEAD:refs/heads/x)",
        ]
    )
    found = _probe(srt, repo, config, script, env)
    assert found["commit"] == "yes", found  # the work goes on: a commit in the worktree
    for key in (
        "journal",
        "notes",
        "config",
        "hooks",
        "gitconfig",
        "claude",
        "key",
        "credentials",
        "push_credentialed",
        "push_local",
    ):
        assert found[key] == "no", (key, found)
    assert found["token"] == "none/none"
    assert journal.read_bytes() == before
    assert git(repo.wt, "log", "-1", "--format=%s", env=repo.env) == "inside"
    outside = subprocess.run(
        ["git", "push", "-q", str(bare), f"{sha}:refs/heads/x"],
        cwd=repo.wt,
        env=repo.env,
        capture_output=True,
        text=True,
    )
    assert outside.returncode == 0, outside.stderr  # the same push of hallmarked work, outside: it goes
