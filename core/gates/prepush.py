"""Git's own wall: what the `pre-push` hook decides for the refs a push would send.

Git hands the hook one line per ref (`<local ref> <local sha> <remote ref> <remote sha>`); every
local commit a push would send must carry a valid hallmark (gates/hallmark.py), whoever pushes: a
person, the agent's script, a Makefile, an alias no parser saw. The shipper's push passes because
the commit it sends is hallmarked, not because of who it is. Deleting a remote ref sends nothing
and passes. All commits are read in one `git log` call (one notes read per pushed ref).

Stdlib only, and no pydantic or GitPython: it runs on every push.
"""

from __future__ import annotations

import os
import re

from hallmark.core import item_lookup

from . import hallmark

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hallmark.core.paths import RepoPaths

ZERO = frozenset({"0" * 40, "0" * 64})


class Refusal:
    __slots__ = ("item", "reason", "ref", "sha")

    def __init__(self, ref: str, sha: str, reason: str, item: str = "") -> None:
        self.ref = ref
        self.sha = sha
        self.reason = reason
        self.item = item

    def message(self) -> str:
        name = self.ref.removeprefix("refs/heads/")
        head = f"Hallmark refuses to push {name} ({self.sha[:7]}): {self.reason}."
        if self.item:
            return (
                f"{head}\n  It is {self.item}'s work: only hallmarked work leaves this machine. Finish it and run "
                f"`hall ready {self.item}`; the review loop hallmarks it and the shipper pushes it."
            )
        return (
            f"{head}\n  Only hallmarked work leaves this machine: make it an item (`hall new` or `hall adopt`), "
            "then `hall ready`; the review loop hallmarks it and the shipper pushes it."
        )


def parse_lines(text: str) -> list[tuple[str, str, str, str]]:
    """The ref lines git gives pre-push on stdin; a line that is not four fields is kept as refused."""
    lines = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        parts = raw.split()
        if len(parts) != 4:
            lines.append((raw.strip(), "", "", ""))
            continue
        lines.append((parts[0], parts[1], parts[2], parts[3]))
    return lines


def _item_of(paths: RepoPaths, refs: tuple[str, str], where: str) -> str:
    """The item whose branch is pushed (by the local or the remote name), else whose worktree pushes."""
    entries = item_lookup.worktree_map(paths)
    for ref in refs:
        branch = ref.removeprefix("refs/heads/")
        for item, entry in entries.items():
            if entry.get("branch") == branch:
                return item
    view = item_lookup.item_for_path(paths, os.path.realpath(where))
    return view.id if view else ""


def check(
    paths: RepoPaths, where: str, lines: list[tuple[str, str, str, str]], git_dir: str | None = None
) -> list[Refusal]:
    """The refusals for a push of these ref lines (an empty list lets the push go)."""
    sending: list[tuple[str, str]] = []
    remote_of: dict[str, str] = {}
    refusals: list[Refusal] = []
    for local_ref, local_sha, remote_ref, remote_sha in lines:
        if not local_sha:
            refusals.append(Refusal(local_ref, "", "git gave the hook a line it cannot read"))
            continue
        if local_sha in ZERO or local_sha == remote_sha:
            continue  # a deletion, or nothing new on that ref
        if local_ref == remote_ref == hallmark.NOTES_REF and local_sha == _notes_tip(where, git_dir):
            if _only_notes(where, local_sha, git_dir):
                continue  # the record itself (the shipper pushes it with the branch): notes, no code
            refusals.append(Refusal(local_ref, local_sha, "its tree holds files that are not notes"))
            continue
        sending.append((local_ref, local_sha))
        remote_of[local_ref] = remote_ref
    if not sending:
        return refusals
    try:
        commits = hallmark.read_commits(where, [sha for _, sha in sending], git_dir)
    except LookupError as exc:
        ref = next((r for r, s in sending if s == exc.args[0]), sending[0][0])
        return [*refusals, Refusal(ref, str(exc.args[0]), "it is not a commit Hallmark can check")]
    from hallmark.core import signers

    noted = any(note is not None for _tree, note in commits.values())
    trusted = signers.trusted(where, paths, git_dir) if noted else None  # read once, and only when needed
    for ref, sha in sending:
        peeled = sha if sha in commits else _peel(where, sha, git_dir)  # an annotated tag: the commit it names
        tree, note = commits.get(peeled, ("", None))
        verdict = hallmark.check_commit(peeled, note, paths, label=peeled[:7], tree=tree, trusted=trusted)
        if not verdict.ok:
            item = verdict.item or _item_of(paths, (ref, remote_of.get(ref, "")), where)
            refusals.append(Refusal(ref, peeled or sha, verdict.reason, item))
    return refusals


def _notes_tip(where: str, git_dir: str | None) -> str:
    """The local refs/notes/hallmark commit: only that exact commit passes as the record's push (a
    code commit sent under the notes ref's name is checked like any other)."""
    proc = hallmark._git(where, ["rev-parse", "--verify", "-q", f"{hallmark.NOTES_REF}^{{commit}}"], git_dir)
    return proc.stdout.decode().strip() if proc.returncode == 0 else ""


_NOTE_PATH = re.compile(r"^(?:[0-9a-f]{2}/)*[0-9a-f]{2,64}$")


def _only_notes(where: str, sha: str, git_dir: str | None) -> bool:
    """Every path in the notes commit's tree names a commit (git's fan-out of hex names): the record
    cannot carry code to the remote under the notes ref's name."""
    proc = hallmark._git(where, ["ls-tree", "-r", "--name-only", "-z", sha], git_dir)
    if proc.returncode != 0:
        return False
    names = [n for n in proc.stdout.decode("utf-8", "replace").split("\x00") if n]
    return all(_NOTE_PATH.match(name) and len(name.replace("/", "")) in (40, 64) for name in names)


def _peel(where: str, sha: str, git_dir: str | None) -> str:
    proc = hallmark._git(where, ["rev-parse", "--verify", "-q", "--end-of-options", f"{sha}^{{commit}}"], git_dir)
    return proc.stdout.decode().strip() if proc.returncode == 0 else sha


def run(
    argv: list[str], stdin: bytes, cwd: str | None = None, environ: dict[str, str] | None = None
) -> tuple[int, str]:
    """The hook as a function: (exit code, what to print on stderr). Fails closed."""
    env = os.environ if environ is None else environ
    where = cwd or os.getcwd()
    git_dir = env.get("GIT_DIR") or None
    if git_dir and not os.path.isabs(git_dir):
        git_dir = os.path.join(where, git_dir)
    from hallmark.core.paths import discover

    paths = discover(git_dir or where, required=False)
    if paths is None or not paths.initialized:
        return 1, (
            "Hallmark's pre-push hook is installed here, but this repository has no Hallmark state "
            "(run `hall init`, or remove the hook with `hall setup git --remove`)."
        )
    lines = parse_lines(stdin.decode("utf-8", "replace"))
    refusals = check(paths, where, lines, git_dir)
    if refusals:
        return 1, "\n".join(r.message() for r in refusals)
    return 0, ""
