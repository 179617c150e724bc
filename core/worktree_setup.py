"""A worktree's project set-up (`[worktree] setup`, e.g. `npm ci`): run once per checkout, before the
gates run there (the clean gate checkout) and before the fixer works there (the item's worktree).

A new `git worktree` has no `node_modules` (nor a `.venv` from `uv sync`): without it every first
check fails (`jest: not found`) and the fixer is sent after a failure that is nobody's. `hall init`
writes the command it detects from the lockfile. The set-up runs again only when its command or a
manifest or lockfile at the checked commit changed (the key is kept in the checkout's own git dir,
never in its files). Its output is the item's log (`setup/<stamp>.log`, a `setup_run` event); a
failure raises SetupFailed, which the loop turns into a `setup_failed` hold ("set-up failed", not
"checks failed"), and `hall retry` runs the set-up and the checks again, not the fixer.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import clock, git
from .errors import HallError

# lockfiles first: each one says how the project installs (the first found wins)
LOCKFILES: list[tuple[str, str]] = [
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
    ("bun.lock", "bun install --frozen-lockfile"),
    ("bun.lockb", "bun install --frozen-lockfile"),
    ("package-lock.json", "npm ci --no-audit --no-fund"),
    ("npm-shrinkwrap.json", "npm ci --no-audit --no-fund"),
    ("uv.lock", "uv sync --frozen"),
]
# what a change to re-runs the set-up (the manifests as well as the lockfiles)
MANIFESTS = ["package.json", "pyproject.toml", "yarn.lock", ".yarnrc.yml", *(name for name, _ in LOCKFILES)]
MARKER = "hallmark-setup"  # in the checkout's git dir (.git/worktrees/<name>/), never in its files


def detect(root: Path) -> str:
    """The set-up command a checkout of this repository needs, from its lockfile; "" for none."""
    if (root / "yarn.lock").is_file():  # yarn 2+ (berry) has a .yarnrc.yml; 1.x has not
        return "yarn install --immutable" if (root / ".yarnrc.yml").is_file() else "yarn install --frozen-lockfile"
    for name, command in LOCKFILES:
        if (root / name).is_file():
            return command
    return ""


class SetupFailed(HallError):
    """The set-up command failed in a checkout: the item is held `setup_failed`, never sent to the fixer."""

    def __init__(self, run: SetupRun) -> None:
        self.run = run
        why = "timed out" if run.timed_out else f"exited {run.exit_code}"
        super().__init__(
            "COMMAND_FAILED",
            f"set-up failed: `{run.command}` {why} in {run.where}; its output: {run.log}. Fix the project's "
            "set-up (`[worktree] setup` in .hallmark.toml, or what the command needs), then hall retry",
            ["hall doctor", f"sh -c {run.command!r}  # in {run.where}"],
        )


@dataclass
class SetupRun:
    command: str
    where: str
    exit_code: int
    duration_ms: int
    timed_out: bool
    log: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def _key(command: str, checkout: Path) -> str:
    """The command and the blob of every manifest and lockfile in HEAD: what the set-up depends on."""
    listing = git.run(["ls-tree", "HEAD", "--", *MANIFESTS], checkout, check=False).stdout
    return hashlib.sha256((command + "\n" + listing).encode("utf-8")).hexdigest()


def _marker(checkout: Path) -> Path | None:
    out = git.run(["rev-parse", "--absolute-git-dir"], checkout, check=False).stdout.strip()
    return Path(out) / MARKER if out else None


def ensure(repo: Any, item_id: str | None, checkout: Path | str, timeout_s: float | None) -> SetupRun | None:
    """Run `[worktree] setup` in checkout unless it already ran there for the same command and
    manifests. None when there is nothing to do; the run when it ran; SetupFailed when it failed."""
    from .journal import append
    from .runner import lifecycle

    command = (repo.config.worktree_setup or "").strip()
    if not command:
        return None
    checkout = Path(checkout)
    key = _key(command, checkout)
    marker = _marker(checkout)
    try:
        if marker is not None and marker.read_text(encoding="utf-8").strip() == key:
            return None
    except OSError:
        pass
    folder = (repo.paths.item_dir(item_id) if item_id else repo.state_dir) / "setup"
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{clock.now().strftime('%Y%m%dT%H%M%S%f')}.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        out.write(f"hall: set-up `{command}` in {checkout}\n".encode())
        out.flush()
        code, timed_out = lifecycle.run_guarded(
            ["sh", "-c", command],
            cwd=checkout,
            env=dict(os.environ),
            timeout_s=timeout_s,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    run = SetupRun(command, str(checkout), code, int((time.monotonic() - started) * 1000), timed_out, str(log))
    journal_path = repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal
    append(
        journal_path,
        "setup_run",
        item=item_id,
        actor="assayer",
        command=command,
        where=run.where,
        exit_code=code,
        duration_ms=run.duration_ms,
        timed_out=timed_out,
        log=run.log,
    )
    if not run.ok:
        raise SetupFailed(run)
    if marker is not None:
        marker.write_text(key + "\n", encoding="utf-8")
    return run


def hold(repo: Any, item_id: str, failed: SetupFailed, *, actor: str = "assayer") -> dict[str, Any]:
    """Hold the item `setup_failed` (an inbox entry naming the command and its log); the loop's reply."""
    from .items import record

    run = failed.run
    steps = [f"less {run.log}", f'hall retry {item_id} --reason "set-up fixed"']
    record(
        repo,
        item_id,
        "held",
        actor=actor,
        kind="setup_failed",
        reason=failed.message,
        command=run.command,
        where=run.where,
        log=run.log,
        next=steps,
    )
    return {"item": item_id, "outcome": "held", "hold": "setup_failed", "reason": failed.message, "log": run.log}
