"""Samples of the set-up results (core/setup_results.py), for tests/cli/test_results.py: one of
each type, every optional key left out."""

from __future__ import annotations

from collections.abc import Callable

from hallmark.core import results, setup_results
from hallmark.core.memory import move_results

HOOK_DIR = setup_results.HookDir(
    dir="/r/.git/hooks", checkout="/r", hook="/r/.git/hooks/pre-push", state="missing", ok=False
)
SANDBOX = setup_results.SandboxProfile(
    settings="/h/.claude/settings.json",
    sandbox={"enabled": True},
    repos=["/r"],
    changed=True,
    dry_run=True,
    available={"ok": True, "detail": "bubblewrap works"},
)
SAMPLES: dict[type[results.Result], Callable[[], results.Result]] = {
    setup_results.HookDir: lambda: HOOK_DIR,
    setup_results.GitHooksInstalled: lambda: setup_results.GitHooksInstalled(ok=True, dirs=(HOOK_DIR,), dry_run=False),
    setup_results.RestoredHook: lambda: setup_results.RestoredHook(dir="/r/.git/hooks", restored=None),
    setup_results.GitHooksRemoved: lambda: setup_results.GitHooksRemoved(
        removed=(setup_results.RestoredHook(dir="/r/.git/hooks", restored=None),), dry_run=True
    ),
    setup_results.Check: lambda: setup_results.Check(check="git", ok=True, detail="/usr/bin/git"),
    setup_results.DoctorReport: lambda: setup_results.DoctorReport(
        ok=True, checks=(setup_results.Check(check="git", ok=True, detail="/usr/bin/git"),)
    ),
    setup_results.Reindexed: lambda: setup_results.Reindexed(events=3, items=1),
    setup_results.SetupWarning: lambda: setup_results.SetupWarning(kind="worktree_copy", text=".env is not ignored"),
    setup_results.PrePushInstall: lambda: setup_results.PrePushInstall(ok=True),
    setup_results.Initialized: lambda: setup_results.Initialized(
        repo="/r",
        state_dir="/r/.git/hallmark",
        config="/r/.hallmark.toml",
        config_written=True,
        gates=["pytest"],
        warnings=(),
        claude_md="created",
        initialized=True,
        project_identity=move_results.IdentityWritten(
            file="/r/.agentmemory-project", project="github.com/a/b", written=False
        ),
        pre_push=setup_results.PrePushInstall(ok=True),
        config_valid=True,
    ),
    setup_results.SandboxProfile: lambda: SANDBOX,
    setup_results.PluginInstalled: lambda: setup_results.PluginInstalled(
        dry_run=True,
        install_root="/h/.claude/hallmark",
        release="/tmp/x/20261201T000000Z",
        hook="/v/bin/hall-hook",
        files=["plugin/hooks/hooks.json"],
        previous=None,
        settings="/h/.claude/settings.json",
        route="settings",
        version="0.1.0",
    ),
}
