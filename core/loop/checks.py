"""The Assay Office's test bench: run the repo's own gates on the frozen commit, in order.

Each gate runs through the platform shell in the item's worktree. Every run is recorded as a
`check_run` event (command, exit code, duration, failing output) and its full log is kept on
disk; the fixer reads the condensed text. A pass on the same tree, command, gate list and OS
is served from `checks-cache/<key>.jsonl` (recorded as `cached`), except for `gates_no_cache`.
This module does not change the item's state: the loop records checks_passed/checks_failed.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hallmark.core import clock, gate_checkout, git, journal, worktree_env
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo
from hallmark.core.runner import lifecycle

from . import condense as _condense

TIMEOUT_EXIT = 124  # what `timeout(1)` reports; a gate that ran out of time
REWROTE_EXIT = 1  # a gate that exited 0 but changed the commit's files: what `git diff --exit-code` says
# The condensed text of each failing gate is kept whole in its `check_run` event: condense.py keeps it
# within its budget (condense.BUDGET characters) by dropping whole blocks, never by cutting.
ACTOR = "assayer"


@dataclass
class GateResult:
    command: str
    exit_code: int
    duration_ms: int
    cached: bool
    log_path: str
    condensed: str  # empty for a pass
    family: str = "verbatim"
    timed_out: bool = False
    cache_key: str | None = None
    measure: dict[str, Any] | None = None  # bytes/lines in and out of the condensing, for a failure
    env: dict[str, str] = field(default_factory=dict)  # what Hallmark added to the gate's environment
    foreign_paths: list[str] = field(default_factory=list)  # main-checkout files the output names
    gate_exit: int | None = None  # the gate's own exit code, when Hallmark's verdict differs (it rewrote files)
    rewrote: list[str] = field(default_factory=list)  # tracked files the gate changed (put back after it)
    wrote: list[str] = field(default_factory=list)  # untracked files it left in the checkout (never the worktree's)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["passed"] = self.passed
        return data


@dataclass
class ChecksOutcome:
    sha: str
    tree: str | None
    results: list[GateResult] = field(default_factory=list)
    cacheable: bool = True  # false when the commit has no tree (nothing to key a pass on)
    checkout: str = ""  # the clean checkout of the commit the gates ran in (core/gate_checkout.py)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def failed(self) -> list[GateResult]:
        return [r for r in self.results if not r.passed]

    @property
    def condensed(self) -> str:
        """What the fixer reads: each failing gate's condensed output, passes as one line each."""
        if not self.results:
            return "No gates are configured (`gates` in .hallmark.toml), so there was nothing to check."
        parts: list[str] = []
        for r in self.results:
            tag = " (cached)" if r.cached else ""
            if r.passed:
                parts.append(f"ok   {r.command}{tag} ({r.duration_ms} ms)")
            else:
                why = "timed out" if r.timed_out else f"exit {r.exit_code}"
                parts.append(f"FAIL {r.command} ({why}, {r.duration_ms} ms); full log: {r.log_path}")
        for r in self.failed:
            parts.append("")
            if r.family in ("verbatim", "evidence"):  # small output comes as it was: give it its heading
                why = "timed out" if r.timed_out else f"exit {r.exit_code}"
                parts.append(f"$ {r.command}  ({why}; full log: {r.log_path})")
            parts.append(r.condensed.rstrip("\n"))
        return "\n".join(parts) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "sha": self.sha,
            "tree": self.tree,
            "passed": self.passed,
            "cacheable": self.cacheable,
            "checkout": self.checkout,
            "results": [r.to_dict() for r in self.results],
            "condensed": self.condensed,
        }


# -- cache ------------------------------------------------------------------------------


def os_tag() -> str:
    return f"{sys.platform}-{platform.machine() or 'unknown'}"


def cache_key(tree: str, command: str, gates: list[str], env_key: str = "") -> str:
    """The tree, the command, the gate list and the OS; plus what Hallmark changed in the gates'
    environment (`PYTHONPATH=src`), when it did."""
    data: dict[str, Any] = {"tree": tree, "command": command, "gates": list(gates), "os": os_tag()}
    if env_key:
        data["env"] = env_key
    material = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:32]


def cache_path(repo: Repo, key: str) -> Path:
    return repo.state_dir / "checks-cache" / f"{key}.jsonl"


def cached_pass(repo: Repo, key: str) -> dict[str, Any] | None:
    """The latest recorded pass under this key, if any."""
    path = cache_path(repo, key)
    best = None
    for record in _read_jsonl(path):
        if record.get("exit_code") == 0:
            best = record
    return best


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    out = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _append_cache(repo: Repo, key: str, record: dict[str, Any]) -> None:
    path = cache_path(repo, key)
    with journal.locked(path):
        journal.append_unlocked(path, record)


# -- running ----------------------------------------------------------------------------


def _slug(command: str) -> str:
    return (re.sub(r"[^A-Za-z0-9]+", "-", command).strip("-") or "gate")[:40]


def run_gate(
    command: str,
    cwd: Path,
    log_path: Path,
    timeout_s: float | None,
    *,
    env: dict[str, str] | None = None,
    header: list[str] | None = None,
) -> tuple[int, int, bool]:
    """Run one gate through the platform shell, stdout and stderr interleaved into log_path.

    Returns (exit_code, duration_ms, timed_out). The gate runs under the run guard in a session of
    its own: a timeout, a stopping daemon or a daemon that dies ends its whole process group.
    `env` is added to the environment; `header` lines open the log (what Hallmark changed and why).
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    full_env = None
    if env:
        full_env = dict(os.environ)
        full_env.update(env)
    with open(log_path, "wb") as log:
        for line in header or []:
            log.write((line.rstrip("\n") + "\n").encode("utf-8"))
        log.flush()
        code, timed_out = lifecycle.run_guarded(
            ["sh", "-c", command], cwd=cwd, env=full_env, timeout_s=timeout_s, stdout=log, stderr=subprocess.STDOUT
        )
    duration_ms = int((time.monotonic() - started) * 1000)
    if timed_out:
        code = TIMEOUT_EXIT
        with open(log_path, "ab") as log:
            log.write(f"\nhall: the gate ran past its timeout of {timeout_s:g} s and was killed\n".encode())
    return code, duration_ms, timed_out


def _fresh(path: Path) -> Path:
    """path, or path with -2, -3… when a run in the same millisecond already wrote it."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


LOG_READ_CAP = 16 * 1024 * 1024  # condensing reads at most this much of a log: its head and its tail


def _read_log(path: Path, cap: int = LOG_READ_CAP) -> str:
    """The log as text; a giant one is read as its first and last halves of cap, the gap marked."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            if size <= cap:
                return handle.read().decode("utf-8", "replace")
            head = handle.read(cap // 2)
            handle.seek(size - cap // 2)
            tail = handle.read()
    except OSError:
        return ""
    gap = size - len(head) - len(tail)
    marker = f"\n… {gap} bytes of the {size}-byte log not read here (see the full log) …\n"
    return head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace")


def _note_foreign_paths(repo: Repo, worktree: Path, log_path: Path) -> list[str]:
    """The main checkout's files a gate's output names (it looked outside the worktree): written at
    the end of the log, where the fixer and a person read it, and returned for the journal."""
    count, shown = worktree_env.foreign_paths(_read_log(log_path), repo.root, worktree)
    if not count:
        return []
    with open(log_path, "ab") as log:
        log.write(
            (
                f"\nhall: this output names {count} file(s) in the main checkout ({repo.root}), not in this "
                f"worktree ({worktree}), e.g. {shown[0]}: the gate may have tested the main checkout's code\n"
            ).encode()
        )
    return shown


def tree_of(worktree: Path, sha: str) -> str | None:
    proc = git.run(["rev-parse", "--verify", "-q", f"{sha}^{{tree}}"], worktree, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.strip() or None


def default_timeout(repo: Repo) -> float | None:
    try:
        return clock.parse_duration(repo.config.runner.timeout)
    except (ValueError, AttributeError):
        return None


def run_checks(
    repo: Repo,
    item_id: str | None,
    sha: str,
    worktree: Path | str,
    *,
    gates: list[str] | None = None,
    timeout_s: float | None = None,
    actor: str = ACTOR,
) -> ChecksOutcome:
    """Run every configured gate in order on the frozen commit and record each run.

    The gates run in the item's clean checkout of sha (core/gate_checkout.py), never in its
    worktree: whatever they build, write or rewrite is theirs, and never the agent's dirt. All gates
    run (a fixer wants every failure at once). A gate listed in `gates_no_cache` is always rerun;
    any other gate whose pass is cached for this tree is served as `cached`, and when every gate
    is, the checkout is not even touched. A failing `[worktree] setup` raises SetupFailed before
    any gate runs (the caller holds the item: not the change's failure).
    """
    worktree = Path(worktree)
    if not worktree.is_dir():
        where = f" of {item_id}" if item_id else ""
        raise HallError(
            "COMMAND_FAILED",
            f"The worktree{where} is missing: {worktree}. The checks run on its commit.",
            [f"hall status {item_id}" if item_id else "hall status", "git worktree list"],
        )
    config = repo.config
    gate_list = list(config.gates if gates is None else gates)
    no_cache = set(config.gates_no_cache)
    timeout_s = default_timeout(repo) if timeout_s is None else timeout_s
    tree = tree_of(worktree, sha)
    outcome = ChecksOutcome(sha=sha, tree=tree, cacheable=tree is not None)
    moment = clock.now()
    stamp = moment.strftime("%Y%m%dT%H%M%S") + f"{moment.microsecond // 1000:03d}Z"
    logs_dir = (repo.paths.item_dir(item_id) / "checks") if item_id else (repo.state_dir / "checks")
    # the key's part of the environment is worktree-relative (PYTHONPATH=src): the same for the
    # worktree and the checkout of its commit, so it is known before the checkout is touched
    env_key = worktree_env.gate_environment(repo, worktree, gate_list).key
    keys = [cache_key(tree, command, gate_list, env_key) if tree else None for command in gate_list]
    hits = [
        cached_pass(repo, key) if (key and command not in no_cache) else None
        for key, command in zip(keys, gate_list, strict=True)
    ]
    checkout, gate_env = None, worktree_env.GateEnv()
    if any(hit is None for hit in hits):
        checkout = gate_checkout.prepare(repo, worktree, sha, item_id=item_id, timeout_s=timeout_s)
        outcome.checkout = str(checkout.path)
        gate_env = worktree_env.gate_environment(repo, checkout.path, gate_list)
    for number, (command, key, hit) in enumerate(zip(gate_list, keys, hits, strict=True), start=1):
        if hit is None and checkout is not None:  # (prepared above whenever some gate is not cached)
            result = _run_one(
                repo,
                checkout,
                worktree,
                command,
                number,
                logs_dir / f"{stamp}-{number}-{_slug(command)}.log",
                timeout_s,
                gate_env,
            )
            result.cache_key = key
            if key and result.passed:
                _append_cache(
                    repo,
                    key,
                    journal.make_event(
                        "check_run",
                        item_id,
                        actor,
                        {
                            "command": command,
                            "exit_code": result.exit_code,
                            "duration_ms": result.duration_ms,
                            "tree": tree,
                            "sha": sha,
                            "gates": gate_list,
                            "os": os_tag(),
                            "log": result.log_path,
                        },
                    ),
                )
        else:
            result = _cached_result(command, key, hit or {})
        outcome.results.append(result)
        _record(repo, item_id, actor, outcome, result, number, len(gate_list))
    return outcome


def _cached_result(command: str, key: str | None, hit: dict[str, Any]) -> GateResult:
    return GateResult(
        command=command,
        exit_code=0,
        duration_ms=0,
        cached=True,
        log_path=str(hit.get("log", "")),
        condensed="",
        cache_key=key,
        measure={"original_duration_ms": int(hit.get("duration_ms") or 0), "original_t": hit.get("t")},
    )


def _run_one(
    repo: Repo,
    checkout: gate_checkout.GateCheckout,
    worktree: Path,
    command: str,
    number: int,
    log_path: Path,
    timeout_s: float | None,
    gate_env: worktree_env.GateEnv,
) -> GateResult:
    """One gate in the clean checkout: its log, what it rewrote (a failure: the commit is not what it
    accepts), its condensed failure with the checkout's paths written as the worktree's."""
    log_path = _fresh(log_path)
    code, duration_ms, timed_out = run_gate(
        command, checkout.path, log_path, timeout_s, env=gate_env.extra, header=gate_env.notes
    )
    left = gate_checkout.after_gate(checkout)
    gate_exit = code
    if left.rewrote:
        with open(log_path, "ab") as log:
            log.write(("\n" + left.report(command)).encode("utf-8"))
        if code == 0:
            code = REWROTE_EXIT
    foreign = _note_foreign_paths(repo, checkout.path, log_path)
    text, family, measure = "", "verbatim", None
    if code != 0:
        squeezed = _condense.condense(command, _read_log(log_path), code, str(log_path))
        text, family = checkout.to_worktree(squeezed.text, worktree), squeezed.family
        if left.rewrote and left.report(command) not in squeezed.text:
            text = text.rstrip("\n") + "\n\n" + checkout.to_worktree(left.report(command), worktree)
        measure = {
            k: v
            for k, v in squeezed.to_dict().items()
            if k in ("bytes_in", "bytes_out", "lines_in", "lines_out", "tokens_saved_estimate")
        }
    return GateResult(
        command=command,
        exit_code=code,
        duration_ms=duration_ms,
        cached=False,
        log_path=str(log_path),
        condensed=text,
        family=family,
        timed_out=timed_out,
        measure=measure,
        env=dict(gate_env.extra),
        foreign_paths=foreign,
        gate_exit=gate_exit,
        rewrote=left.rewrote,
        wrote=left.wrote,
    )


def _record(
    repo: Repo, item_id: str | None, actor: str, outcome: ChecksOutcome, result: GateResult, number: int, total: int
) -> None:
    fields: dict[str, Any] = {
        "command": result.command,
        "exit_code": result.exit_code,
        "duration_ms": result.duration_ms,
        "cached": result.cached,
        "sha": outcome.sha,
        "tree": outcome.tree,
        "gate": number,
        "gates": total,
        "log": result.log_path,
    }
    if result.timed_out:
        fields["timed_out"] = True
    if result.env:
        fields["env"] = result.env
    if result.foreign_paths:
        fields["foreign_paths"] = result.foreign_paths
    if outcome.checkout and not result.cached:
        fields["ran_in"] = outcome.checkout  # the clean checkout of sha (core/gate_checkout.py)
    if result.rewrote:
        fields["rewrote"] = result.rewrote[:50]
        fields["gate_exit"] = result.gate_exit
    if result.wrote:
        fields["wrote"] = result.wrote[:20]  # by-products, left in the gate checkout
    if result.cached and result.measure:
        fields["original_duration_ms"] = result.measure.get("original_duration_ms")
        fields["original_t"] = result.measure.get("original_t")
    if not result.passed:
        fields["output"] = result.condensed
        fields["family"] = result.family
        if result.measure:
            fields["condensed"] = result.measure
    path = repo.paths.item_journal(item_id) if item_id else repo.paths.repo_journal
    journal.append(path, "check_run", item=item_id, actor=actor, **fields)
