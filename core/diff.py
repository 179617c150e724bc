"""An item's change against the merge-base with its base branch: files, hunks, findings anchored.

Committed work on the branch plus what is uncommitted in the worktree (untracked files included),
so what you review is what the loop would see once you commit. Stdlib and git only.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from . import git, items
from .diff_results import Diff, DiffLine, FileDiff, Hunk
from .errors import HallError

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")


class _FileDraft:
    """A file as the parser reads it: its header lines change its path and status, its hunk lines
    its counts; `done()` freezes it into a FileDiff."""

    __slots__ = ("added", "binary", "hunks", "old_path", "path", "removed", "status")

    def __init__(self, path: str, old_path: str, status: str) -> None:
        self.path, self.old_path, self.status = path, old_path, status
        self.added = self.removed = 0
        self.binary = False
        self.hunks: list[Hunk] = []

    def done(self) -> FileDiff:
        return FileDiff(
            path=self.path,
            old_path=self.old_path,
            status=self.status,
            added=self.added,
            removed=self.removed,
            binary=self.binary,
            hunks=self.hunks,
            findings=[],
        )


# -- parsing ----------------------------------------------------------------------------------


def _unquote(path: str) -> str:
    """Git C-quotes odd paths ("a/t\\303\\251st"); undo that."""
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        body = path[1:-1]
        raw = body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        return raw.decode("utf-8", "replace")
    return path


def _strip_prefix(path: str) -> str:
    path = _unquote(path.strip())
    if path == "/dev/null":
        return ""
    return path[2:] if path[:2] in ("a/", "b/") else path


def parse_unified(text: str) -> list[FileDiff]:
    """Parse `git diff` output (no colour, a/ b/ prefixes) into files and hunks."""
    files: list[_FileDraft] = []
    current: _FileDraft | None = None
    hunk: Hunk | None = None
    old_no = new_no = 0
    for raw in text.split("\n"):
        if raw.startswith("diff --git "):
            rest = raw[len("diff --git ") :]
            a, b = _split_git_header(rest)
            current = _FileDraft(b, a, "modified")
            files.append(current)
            hunk = None
            continue
        if current is None:
            continue
        if hunk is not None and raw[:1] in (" ", "+", "-") and _in_hunk(hunk, old_no, new_no):
            kind, body = raw[:1], raw[1:]
            if kind == "+":
                hunk.lines.append(DiffLine.of("+", body, None, new_no))
                new_no += 1
                current.added += 1
            elif kind == "-":
                hunk.lines.append(DiffLine.of("-", body, old_no, None))
                old_no += 1
                current.removed += 1
            else:
                hunk.lines.append(DiffLine.of(" ", body, old_no, new_no))
                old_no += 1
                new_no += 1
            continue
        if hunk is not None and raw.startswith("\\"):
            hunk.lines.append(DiffLine.of("\\", raw[1:].strip(), None, None))
            continue
        match = _HUNK.match(raw)
        if match:
            o_start, o_count, n_start, n_count, section = match.groups()
            hunk = Hunk(
                header=raw,
                old_start=int(o_start),
                old_count=int(o_count or 1),
                new_start=int(n_start),
                new_count=int(n_count or 1),
                section=section.strip(),
                lines=[],
                findings=[],
            )
            current.hunks.append(hunk)
            old_no, new_no = int(o_start), int(n_start)
            continue
        _file_header(current, raw)
    return [draft.done() for draft in files]


def _file_header(current: _FileDraft, raw: str) -> None:
    """A line of a file's extended header (---/+++, modes, renames, binary) noted on the file."""
    if raw.startswith("--- "):
        old = _strip_prefix(raw[4:])
        if not old:
            current.status = "added"
        else:
            current.old_path = old
    elif raw.startswith("+++ "):
        new = _strip_prefix(raw[4:])
        if not new:
            current.status = "deleted"
            current.path = current.old_path
        else:
            current.path = new
    elif raw.startswith("new file mode"):
        current.status = "added"
    elif raw.startswith("deleted file mode"):
        current.status = "deleted"
    elif raw.startswith("rename from "):
        current.old_path = _unquote(raw[len("rename from ") :])
        current.status = "renamed"
    elif raw.startswith("rename to "):
        current.path = _unquote(raw[len("rename to ") :])
        current.status = "renamed"
    elif raw.startswith(("Binary files ", "GIT binary patch")):
        current.binary = True


def _in_hunk(hunk: Hunk, old_no: int, new_no: int) -> bool:
    """Whether the hunk still expects lines (so a removed '-- x' line is not taken for a header)."""
    return old_no < hunk.old_start + hunk.old_count or new_no < hunk.new_start + hunk.new_count


def _split_git_header(rest: str) -> tuple[str, str]:
    """`a/X b/Y` (the paths; renames are corrected by the rename lines that follow)."""
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
    half = len(rest) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[2:half] == rest[half + 3 :]:
        return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])
    a, _, b = rest.partition(" b/")
    return _strip_prefix(a), b


# -- the item's diff --------------------------------------------------------------------------


def _resolve_base(cwd: Path, base: str) -> str:
    for ref in (base, f"origin/{base}", f"refs/remotes/origin/{base}"):
        if git.run(["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], cwd, check=False).returncode == 0:
            return ref
    raise HallError(
        "COMMAND_FAILED", f"The base branch {base!r} does not exist here.", ["git branch -a", "hall status <id>"]
    )


def _git_diff(cwd: Path, args: list[str]) -> str:
    proc = subprocess.run(
        [
            "git",
            "-c",
            "core.quotePath=false",
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            *args,
        ],
        cwd=str(cwd),
        capture_output=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise HallError(
            "COMMAND_FAILED", f"git diff failed: {detail[-1] if detail else proc.returncode}", ["hall doctor"]
        )
    return proc.stdout.decode("utf-8", "replace")


def _untracked(cwd: Path) -> list[str]:
    proc = subprocess.run(
        ["git", "-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard", "-z"],
        cwd=str(cwd),
        capture_output=True,
        check=False,
    )
    return [p for p in proc.stdout.decode("utf-8", "replace").split("\0") if p]


BINARY_SNIFF = 8000


def untracked_file(worktree: Path, rel: str) -> FileDiff:
    """An untracked file as an all-added FileDiff, read directly (no subprocess per file)."""
    entry = _FileDraft(rel, "", "untracked")
    try:
        data = (worktree / rel).read_bytes()
    except OSError:
        return entry.done()
    if b"\0" in data[:BINARY_SNIFF]:
        entry.binary = True
        return entry.done()
    lines = data.decode("utf-8", "replace").split("\n")
    ends_with_newline = lines[-1] == ""
    if ends_with_newline:
        lines.pop()
    if not lines:
        return entry.done()
    hunk_lines = [DiffLine.of("+", text, None, number) for number, text in enumerate(lines, start=1)]
    if not ends_with_newline:
        hunk_lines.append(DiffLine.of("\\", "No newline at end of file", None, None))
    header = f"@@ -0,0 +1,{len(lines)} @@"
    entry.hunks.append(
        Hunk(
            header=header,
            old_start=0,
            old_count=0,
            new_start=1,
            new_count=len(lines),
            section="",
            lines=hunk_lines,
            findings=[],
        )
    )
    entry.added = len(lines)
    return entry.done()


def load_findings(repo: Any, item_id: str) -> list[dict[str, Any]]:
    """The item's open findings from the review loop (none when its findings cannot be read)."""
    from .loop.findings import list_findings

    try:
        return [finding.to_dict() for finding in list_findings(repo, item_id, open_only=True)]
    except HallError:
        return []


def anchor_findings(files: list[FileDiff], findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Attach each finding to the diff line it names; returns the findings on files outside the change."""
    by_path = {f.path: f for f in files}
    by_path.update({f.old_path: f for f in files if f.old_path and f.old_path not in by_path})
    elsewhere: list[dict[str, Any]] = []
    for finding in findings:
        path = str(finding.get("file") or "").removeprefix("./")
        target = by_path.get(path)
        if target is None:
            elsewhere.append(dict(finding))
            continue
        try:
            line = int(finding.get("line") or 0)
        except (TypeError, ValueError):
            line = 0
        placed = False
        for hunk in target.hunks:
            for index, dl in enumerate(hunk.lines):
                if line and dl.new == line and dl.kind in ("+", " "):
                    hunk.findings.append({**finding, "line_index": index})
                    placed = True
                    break
            if placed:
                break
        if not placed:
            target.findings.append(dict(finding))
    return elsewhere


def item_diff(repo: Any, item_id: str, ignore_whitespace: bool = False) -> Diff:
    """The item's change against the merge-base with its base branch, findings anchored."""
    view = items.fold_item(repo, item_id)
    base = view.base or repo.config.base
    worktree = Path(view.worktree) if view.worktree and Path(view.worktree).is_dir() else None
    cwd = worktree or repo.root
    base_ref = _resolve_base(cwd, base)
    tip = "HEAD" if worktree else view.branch
    if not worktree and not (view.branch and git.branch_exists(repo.root, view.branch)):
        raise HallError(
            "WRONG_STATE", f"{item_id} has neither a worktree nor a branch to diff.", [f"hall status {item_id}"]
        )
    head = git.out(["rev-parse", tip], cwd)
    mb = git.merge_base(cwd, base_ref, tip)
    if mb is None:
        raise HallError(
            "COMMAND_FAILED", f"{view.branch or tip} shares no history with {base_ref}.", [f"hall status {item_id}"]
        )
    ws = ["-w"] if ignore_whitespace else []
    args = ["-M", *ws, mb] if worktree else ["-M", *ws, mb, tip]
    files = parse_unified(_git_diff(cwd, args))
    if worktree:
        files.extend(untracked_file(worktree, rel) for rel in _untracked(worktree))
    files.sort(key=lambda f: f.path)
    elsewhere = anchor_findings(files, load_findings(repo, item_id))
    return Diff(
        item=item_id,
        base=base_ref,
        merge_base=mb,
        head=head,
        worktree=str(worktree or ""),
        ignore_whitespace=ignore_whitespace,
        files=files,
        added=sum(f.added for f in files),
        removed=sum(f.removed for f in files),
        unanchored_findings=elsewhere,
    )
