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
from hallmark.core import sandbox_profile, sandbox_wall
from hallmark.core.paths import discover, user_data_dir

PROJECT = Path(__file__).resolve().parents[2]
DOCUMENTED = {
    "enabled",
    "autoAllowBashIfSandboxed",
    "allowUnsandboxedCommands",
    "failIfUnavailable",
    "network",
    "filesystem",
    "credentials",
}
DOCUMENTED_FS = {"allowWrite", "denyWrite", "denyRead", "allowRead"}
DOCUMENTED_NET = {"allowedDomains", "allowUnixSockets", "allowLocalBinding"}


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


def _abs(path: Any) -> str:
    return "//" + os.path.realpath(path).lstrip("/")


def _item_wall(repo, channel: Path | None = None) -> dict[str, Any]:
    paths = discover(repo.main)
    sandbox_wall.prepare(paths)
    return sandbox_wall.block(sandbox_wall.Scope(paths=paths, cwd=repo.wt, worktree=repo.wt, channel=channel))


def test_the_profile_uses_only_documented_keys_and_notation(repo):
    for block in (sandbox_profile.profile([discover(repo.main)]), _item_wall(repo)):
        assert set(block) <= DOCUMENTED and set(block["filesystem"]) <= DOCUMENTED_FS
        assert set(block["network"]) <= DOCUMENTED_NET and block["network"]["allowUnixSockets"] == []
        assert set(block["credentials"]) == {"envVars"}
        assert all(set(e) == {"name", "mode"} and e["mode"] == "deny" for e in block["credentials"]["envVars"])
        assert block["enabled"] is True and block["allowUnsandboxedCommands"] is False
        assert "excludedCommands" not in block  # `hall` runs inside too; its agent verbs use the channel
        for entry in block["filesystem"]["allowWrite"] + block["filesystem"]["denyWrite"]:
            assert entry.startswith("//"), entry  # absolute: `/x` would be relative to the settings file
        assert all(e.startswith(("~/", "//")) for e in block["filesystem"]["denyRead"])


def test_the_profile_closes_the_record_and_the_keys(repo):
    paths = discover(repo.main)
    block = sandbox_profile.profile([paths])
    deny = set(block["filesystem"]["denyWrite"])
    common = os.path.realpath(paths.common_dir)
    for inside in ("hallmark", "refs/notes", "refs/replace", "hooks", "config", "packed-refs", "refs/heads/main"):
        assert _abs(os.path.join(common, inside)) in deny, inside
    assert f"//{str(repo.main).lstrip('/')}/.hallmark.toml" in deny
    assert f"//{str(repo.wt).lstrip('/')}/.claude/settings.local.json" in deny
    assert f"//{str(repo.wt).lstrip('/')}/.git" in deny  # a worktree's gitfile
    assert _abs(user_data_dir()) in deny and _abs(Path(repo.env["HOME"]) / ".gitconfig") in deny
    assert _abs(common) not in block["filesystem"]["allowWrite"]  # its own entries only: objects, refs/heads …
    assert _abs(os.path.join(common, "objects")) in block["filesystem"]["allowWrite"]
    for store in ("~/.ssh", "~/.config/gh", "~/.git-credentials", "~/.netrc", "~/.npmrc", "~/.pypirc", "~/.aws"):
        assert store in block["filesystem"]["denyRead"]
    assert _abs(user_data_dir() / "keys") in block["filesystem"]["denyRead"]
    names = {e["name"] for e in block["credentials"]["envVars"]}
    assert names == set(sandbox_wall.CREDENTIAL_ENV)


def test_an_items_wall_writes_only_its_worktree_and_its_own_git_entries(repo, tmp_path):
    from hallmark.core import items
    from hallmark.core.repo import open_repo

    other = Path(items.new(open_repo(repo.main), title="another item")["worktree"])
    block = _item_wall(repo, channel=tmp_path / "spool")
    paths = discover(repo.main)
    common = os.path.realpath(paths.common_dir)
    allow, deny = block["filesystem"]["allowWrite"], set(block["filesystem"]["denyWrite"])
    own_admin = sandbox_wall.admin_dir(repo.wt)
    assert allow[0] == _abs(repo.wt) and _abs(own_admin) in allow and _abs(tmp_path / "spool") in allow
    assert _abs(sandbox_wall.admin_dir(other)) in deny and _abs(other) in deny  # another item's worktree
    other_branch = git(other, "symbolic-ref", "--short", "HEAD", env=repo.env)
    assert _abs(os.path.join(common, "refs", "heads", other_branch)) in deny  # another item's branch
    assert _abs(os.path.join(common, "refs", "heads", "main")) in deny  # the base
    assert _abs(repo.main) not in deny  # it holds the git dir; it is simply not writable
    reader = sandbox_wall.block(
        sandbox_wall.Scope(paths=paths, cwd=repo.wt, worktree=repo.wt, editing=False, fail_if_unavailable=True)
    )
    assert reader["filesystem"]["allowWrite"] == [] and _abs(repo.wt) in reader["filesystem"]["denyWrite"]
    assert reader["failIfUnavailable"] is True


def test_one_credential_list_for_the_sandbox_and_the_runner(repo, monkeypatch):
    """Headless runs removed 9 names while interactive sessions denied 38: a daemon-launched run
    inherited GH_ENTERPRISE_TOKEN, GITLAB_TOKEN, CARGO_REGISTRY_TOKEN…"""
    from hallmark.core.repo import open_repo
    from hallmark.core.runner import command, isolation

    assert isolation.REMOVE_ENV is sandbox_wall.CREDENTIAL_ENV is sandbox_profile.CREDENTIAL_ENV
    for name in ("GH_ENTERPRISE_TOKEN", "GITLAB_TOKEN", "CARGO_REGISTRY_TOKEN", "SSH_AUTH_SOCK", "GH_TOKEN"):
        monkeypatch.setenv(name, "secret")
    env = command.launch_environment(open_repo(repo.main), repo.item, "fixer")
    assert not any(name in env for name in sandbox_wall.CREDENTIAL_ENV)
    settings = isolation.confinement_settings("fix", repo.wt, repo.wt, [], isolated=False, paths=discover(repo.main))
    assert set(settings["env"]) == set(sandbox_wall.CREDENTIAL_ENV)


def test_the_file_tools_are_confined_like_the_commands(repo, tmp_path):
    """A bare `Read`/`Edit`/`Write` allowed every path: the fixer wrote outside the repository and
    the reviewer read another repository and ~/.gitconfig."""
    from hallmark.core.repo import open_repo
    from hallmark.core.runner import command, isolation

    paths = discover(repo.main)
    fixer = isolation.confinement_settings("fix", repo.wt, tmp_path, [paths.common_dir], isolated=False, paths=paths)
    allow = fixer["permissions"]["allow"]
    assert f"Write({_abs(repo.wt)}/**)" in allow and f"Edit({_abs(repo.wt)}/**)" in allow
    assert not {"Read", "Edit", "Write"} & set(allow)
    assert _abs(paths.common_dir) not in fixer["sandbox"]["filesystem"]["allowWrite"]  # not the git dir whole
    reviewer = isolation.confinement_settings("review", repo.wt, tmp_path, [], isolated=True, paths=paths)
    assert {"Edit", "Write"} <= set(reviewer["permissions"]["deny"])
    assert all(r.startswith("Read(") for r in reviewer["permissions"]["allow"])
    assert f"Read({_abs(user_data_dir() / 'keys')}/**)" in reviewer["permissions"]["deny"]
    spec = command.RunSpec(role="fix", prompt="fix", cwd=repo.wt, allowed_tools=["Read", "Write", "Bash(git add:*)"])
    os.environ["HALL_CLAUDE"] = "hall-standin-claude"
    try:
        args = command.build_command(open_repo(repo.main), spec, tmp_path / "s.json", prompt_in_argv=True)
    finally:
        del os.environ["HALL_CLAUDE"]
    assert args[args.index("--allowedTools") + 1] == "Bash(git add:*)"


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


def test_setup_removes_the_excluded_hall_an_older_profile_wrote_and_keeps_yours(repo, hall):
    """An older Hallmark put `hall` in excludedCommands: every `hall …` ran outside the sandbox, so a
    sandboxed agent could run a person's verb with the variables removed."""
    settings = Path(repo.env["CLAUDE_CONFIG_DIR"]) / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"sandbox": {"enabled": True, "excludedCommands": ["hall", "docker"]}}))
    state = Path(repo.env["HALLMARK_DATA_DIR"]) / sandbox_profile.STATE_FILE
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps({"sandbox": {"enabled": True, "excludedCommands": ["hall"]}}))
    assert hall("setup", "claude", "--sandbox", cwd=repo.main, env=repo.env).code == 0
    block = json.loads(settings.read_text())["sandbox"]
    assert block["excludedCommands"] == ["docker"] and block["enabled"] is True


def test_hall_new_open_passes_the_items_wall(repo, monkeypatch, tmp_path):
    from hallmark.core.open_session import open_command
    from hallmark.core.repo import open_repo

    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HALL_CLAUDE", str(fake))
    plan = open_command(open_repo(repo.main), repo.item, channel=tmp_path / "spool")
    if sandbox_profile.availability()["ok"]:
        index = plan["command"].index("--settings")
        written = json.loads(Path(plan["command"][index + 1]).read_text())
        assert written["sandbox"]["enabled"] is True and plan["sandbox"]["enabled"] is True
        assert written["sandbox"]["filesystem"]["allowWrite"][0] == _abs(repo.wt)
        assert set(written["env"]) == set(sandbox_wall.CREDENTIAL_ENV)
        assert Path(plan["command"][index + 1]).is_relative_to(discover(repo.main).state_dir)
        assert plan["env"]["HALL_CHANNEL"] == str(tmp_path / "spool")
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
    if shutil.which("rg") is None:
        pytest.skip("the sandbox runtime's CLI needs ripgrep (rg), which is not installed here; .ci/run installs it")
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
    from hallmark.core import items
    from hallmark.core.agent_channel_server import serving
    from hallmark.core.repo import open_repo

    paths = discover(repo.main)
    home = Path(repo.env["HOME"])
    (home / ".ssh").mkdir(exist_ok=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n")
    (home / ".git-credentials").write_text("https://x:token@example.com\n")
    keys = user_data_dir() / "keys"
    keys.mkdir(parents=True, exist_ok=True)
    (keys / "canary-secret").write_text("SIGNING KEY\n")
    mirror = home / ".ssh" / "mirror.git"  # a remote reached over a credentialed path
    git(home, "init", "-q", "--bare", str(mirror), env=repo.env)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=repo.env)
    other = Path(items.new(open_repo(repo.main), title="another item")["worktree"])
    sha = commit_file(repo, "before.py")
    hallmark_commit(repo, sha)  # hallmarked: outside the sandbox the push is allowed, so the sandbox is the wall
    journal = paths.item_journal(repo.item)
    base_before = git(repo.main, "rev-parse", "main", env=repo.env)
    env = {**repo.env, "GH_TOKEN": "ghp_secret_token", "NPM_TOKEN": "npm_secret", "GITLAB_TOKEN": "glpat"}
    with serving(paths, env) as server:
        scratch = tmp_path / "claude-tmp"  # Claude Code's own temp dir; not the whole of /tmp, where the repo is
        scratch.mkdir()
        config = runtime_config(_item_wall(repo, channel=server.spool), cwd=str(repo.wt), tmp=str(scratch))
        before = journal.read_bytes()
        script = "\n".join(
            [
                'ok() { if "$@" >/dev/null 2>&1; then echo yes; else echo no; fi; }',
                "echo commit=$(ok sh -c 'echo x > inside.py && git add inside.py && git commit -q -m inside')",
                f"echo journal=$(ok sh -c 'echo forged >> {journal}')",
                "echo notes=$(ok git update-ref refs/notes/hallmark HEAD)",
                "echo base=$(ok git update-ref refs/heads/main HEAD)",
                f"echo config=$(ok sh -c 'echo x >> {repo.main}/.hallmark.toml')",
                f"echo main_checkout=$(ok sh -c 'echo x > {repo.main}/new.py')",
                f"echo other_worktree=$(ok sh -c 'echo x > {other}/new.py')",
                f"echo hooks=$(ok sh -c 'echo x > {paths.common_dir}/hooks/post-commit')",
                "echo gitconfig=$(ok git config core.hooksPath /tmp)",
                f"echo global_gitconfig=$(ok sh -c 'echo x >> {home}/.gitconfig')",
                f"echo data_dir=$(ok sh -c 'echo x > {user_data_dir()}/repos.json')",
                "echo claude=$(ok sh -c 'mkdir -p .claude && echo {} > .claude/settings.local.json')",
                f"echo key=$(ok cat {home}/.ssh/id_ed25519)",
                f"echo signing_key=$(ok cat {keys}/canary-secret)",
                f"echo credentials=$(ok cat {home}/.git-credentials)",
                "echo token=${GH_TOKEN:-none}/${NPM_TOKEN:-none}/${GITLAB_TOKEN:-none}",
                f"echo push_credentialed=$(ok git push -q {mirror} HEAD:refs/heads/x)",
                f"echo push_local=$(ok git push -q {bare} HEAD:refs/heads/x)",
                "echo agent_verb=$(ok hall checkpoint set --phase build --active-work 'from inside' --next-step 'go on')",
                "echo person_verb=$(ok hall ready)",
                f"echo status=$(ok hall status {repo.item})",
            ]
        )
        found = _probe(srt, repo, config, script, {**env, "HALL_CHANNEL": str(server.spool), "CLAUDECODE": "1"})
    assert found["commit"] == "yes", found  # the work goes on: a commit in the worktree
    assert found["agent_verb"] == "yes", found  # through the channel: the state dir itself stays read-only
    assert found["status"] == "yes", found  # reading the state needs no channel
    for key in (
        "journal",
        "notes",
        "base",
        "config",
        "main_checkout",
        "other_worktree",
        "hooks",
        "gitconfig",
        "global_gitconfig",
        "data_dir",
        "claude",
        "key",
        "signing_key",
        "credentials",
        "push_credentialed",
        "push_local",
        "person_verb",
    ):
        assert found[key] == "no", (key, found)
    assert found["token"] == "none/none/none"
    assert git(repo.main, "rev-parse", "main", env=repo.env) == base_before
    assert git(repo.wt, "log", "-1", "--format=%s", env=repo.env) == "inside"
    assert not (repo.main / "new.py").exists() and not (other / "new.py").exists()
    after = journal.read_bytes()
    assert after.startswith(before) and b"forged" not in after
    outside = subprocess.run(
        ["git", "push", "-q", str(bare), f"{sha}:refs/heads/x"],
        cwd=repo.wt,
        env=repo.env,
        capture_output=True,
        text=True,
    )
    assert outside.returncode == 0, outside.stderr  # the same push of hallmarked work, outside: it goes
