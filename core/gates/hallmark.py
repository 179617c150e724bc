"""Is a commit hallmarked? The one check the push gate, the pre-push hook and `hall verify` share.

Anyone with git can write a note, and anyone who can write a file can append a journal line, so a
note is a hallmark only when the whole chain holds:

1. the note parses as the hallmark's JSON, version 2 (core/hallmark_note.py owns the format);
2. its `sha` is the commit itself and its `tree` that commit's tree (a copied note does not count);
3. it is signed by a key the base trusts (core/signers.py: `.hallmark/allowed_signers` on the
   remote's base, else this repo's local list): an agent that cannot read the key cannot make one;
4. where the loop's journal is here, the journal of the item it names records `hallmarked` at that
   commit, folded through the transition table (a later pull-back or reopen takes it away), written
   by the loop: by the assayer for a `verdict` it recorded (approve, same commit) from a run it
   launched (`run_started` for that run), or by a person's `hall verdict` override, and carried to
   this commit only by clean rebases the shipper recorded; in a clone without the journal (CI) the
   signature alone speaks, and the answer says so;
5. a hallmark struck by Hallmark's stand-in model (no model ran) counts only in a repository
   whose configuration runs the stand-in, which is how `hall demo` marks the repos it makes.

A denial says which link failed. Stdlib only: the hook path and the pre-push hook import this.
"""

from __future__ import annotations

import os

from hallmark.core import item_lookup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hallmark.core.paths import RepoPaths
    from hallmark.core.signers import Trusted
    from hallmark.core.states import ItemView

    from .run import Result

NOTES_REF = "refs/notes/hallmark"
STANDIN_MODEL = "hallmark-standin"  # what the stand-in reports as its model (runner/spawn.py agrees)
STANDIN_COMMANDS = ("hall-standin-claude", "hallmark.core.runner.standin")
STANDIN_LABEL = " (stand-in)"  # the runner's actor suffix for a stand-in run
ASSAYER = "assayer"
PERSON_ACTORS = frozenset({"you", "you (demo)"})  # `hall verdict`: a person's override
_ITEM = r"H-\d{1,9}"
_SHA = r"[0-9a-f]{7,64}"
_FULL_SHA = r"[0-9a-f]{40}|[0-9a-f]{64}"


class Verdict:
    """ok, and why; signed: the note's signature verified (journal: "checked", "unavailable" in a
    clone without Hallmark's journal, where the signature alone decides, or "" when not reached)."""

    __slots__ = ("head", "item", "journal", "ok", "reason", "signed", "standin")

    def __init__(
        self,
        ok: bool,
        reason: str,
        head: str = "",
        item: str = "",
        standin: bool = False,
        *,
        signed: bool = False,
        journal: str = "",
    ) -> None:
        self.ok = ok
        self.reason = reason
        self.head = head
        self.item = item
        self.standin = standin
        self.signed = signed
        self.journal = journal

    def __repr__(self) -> str:
        return f"Verdict({self.ok}, {self.reason!r})"


# -- reading notes: one git call for any number of commits -----------------------------------------


def probe_env() -> dict[str, str]:
    """The environment for our own git reads: nothing a caller set may redirect them (another notes
    ref, another repository, replacement objects, `-c` values a push passed down to its hooks)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    return env


def _git(where: str, args: list[str], git_dir: str | None = None) -> Result:
    from .run import capture

    base = ["git", "--no-replace-objects"]
    base += ["--git-dir", git_dir] if git_dir else ["-C", where]
    return capture(base + args, env=probe_env())


def read_notes(where: str, revs: list[str], git_dir: str | None = None) -> dict[str, str | None]:
    """{commit sha: its hallmark note or None} for the commits the revs name (peeled), one git call.

    Raises LookupError naming the first rev that does not resolve to a commit.
    """
    return {sha: note for sha, (_tree, note) in read_commits(where, revs, git_dir).items()}


def read_commits(where: str, revs: list[str], git_dir: str | None = None) -> dict[str, tuple[str, str | None]]:
    """{commit sha: (its tree, its hallmark note or None)}: read_notes with each commit's tree."""
    if not revs:
        return {}
    for rev in revs:
        if not rev or rev.startswith(("-", "^")) or any(c in rev for c in " \t\n\x00:") or ".." in rev:
            raise LookupError(rev)
    specs = [rev if rev.endswith("^{commit}") else f"{rev}^{{commit}}" for rev in revs]
    proc = _git(
        where,
        [
            "log",
            "--no-walk=unsorted",
            "--no-show-signature",
            "--no-notes",
            f"--notes={NOTES_REF}",
            "--format=%H%x00%T%x00%N%x1e",
            "--end-of-options",
            *specs,
            "--",
        ],
        git_dir,
    )
    if proc.returncode != 0:
        for rev, spec in zip(revs, specs, strict=True):  # the failure path only: name the culprit
            one = _git(where, ["rev-parse", "--verify", "-q", "--end-of-options", spec], git_dir)
            if one.returncode != 0:
                raise LookupError(rev)
        raise LookupError(f"{' '.join(revs)} ({proc.stderr.decode('utf-8', 'replace').strip()[:200]})")
    found: dict[str, tuple[str, str | None]] = {}
    for record in proc.stdout.decode("utf-8", "replace").split("\x1e"):
        record = record.strip("\n")
        if not record.strip():
            continue
        sha, _, rest = record.partition("\x00")
        tree, _, note = rest.partition("\x00")
        note = note.strip()
        found[sha.strip()] = (tree.strip(), note or None)
    return found


def read_head_and_note(where: str) -> tuple[str, str | None]:
    """HEAD's sha and its note under refs/notes/hallmark (None when there is none), in one git call."""
    head, _tree, note = read_head(where)
    return head, note


def read_head(where: str) -> tuple[str, str, str | None]:
    """HEAD's sha, its tree and its note (None when there is none), in one git call."""
    try:
        found = read_commits(where, ["HEAD"])
    except LookupError as exc:
        raise RuntimeError(f"git log HEAD failed in {where}: {exc}") from None
    ((head, (tree, note)),) = found.items()
    return head, tree, note


# -- the chain ---------------------------------------------------------------------------------------


def _same(sha: str, head: str) -> bool:
    return bool(sha) and len(sha) >= 7 and head.startswith(sha.lower())


def run_was_standin(events: list[dict[str, Any]], run: str) -> bool:
    """Did the runner record this run as the stand-in's (its actor label or its model)?"""
    for event in events:
        if event.get("event") == "run_started" and event.get("run") == run:
            actor = str(event.get("actor") or "")
            if actor.endswith(STANDIN_LABEL) or event.get("model") == STANDIN_MODEL:
                return True
    return False


def _struck_by_the_loop(
    events: list[dict[str, Any]], index: int, sha: str, paths: RepoPaths | None = None
) -> tuple[str | None, bool]:
    """(why the `hallmarked` at index is not the loop's, or None; whether the stand-in struck it)."""
    event = events[index]
    actor = event.get("actor")
    run = event.get("run")
    earlier = events[:index]
    if actor in PERSON_ACTORS:
        from hallmark.core import person_cap

        override = [
            e
            for e in earlier
            if e.get("event") == "verdict"
            and e.get("actor") == actor
            and e.get("human_override") is True
            and e.get("decision") == "approve"
            and _same(str(e.get("sha") or ""), sha)
            and person_cap.counts(e, paths)  # signed by this machine's key: a copied chain is not
        ]
        if not override:
            return "its hallmarked line names a person but no verdict of theirs approves it", False
        return None, False
    if actor != ASSAYER:
        return f"its hallmarked line was written by {actor!r}, not by the assayer", False
    if not isinstance(run, str) or not run:
        return "its hallmarked line names no review run", False
    verdicts = [e for e in earlier if e.get("event") == "verdict" and e.get("run") == run]
    if not any(
        e.get("actor") == ASSAYER and e.get("decision") == "approve" and _same(str(e.get("sha") or ""), sha)
        for e in verdicts
    ):
        return f"no approving verdict from its review run {run} is recorded", False
    if not any(e.get("event") == "run_started" and e.get("run") == run for e in earlier):
        return f"its review run {run} was never started by Hallmark's runner", False
    standin = (
        bool(event.get("standin")) or any(bool(e.get("standin")) for e in verdicts) or run_was_standin(earlier, run)
    )
    return None, standin


def chain(
    view: ItemView, events: list[dict[str, Any]], sha: str, paths: RepoPaths | None = None
) -> tuple[str | None, bool]:
    """Follow the current hallmark back to the run that struck it: (failure or None, stand-in?)."""
    links = view.hallmark_chain
    if not links:
        return "no hallmarked line stands behind it", False
    first = events[links[0]]
    struck_at = str(first.get("sha") or view.sha or "")
    why, standin = _struck_by_the_loop(events, links[0], struck_at, paths)
    if why:
        return why, standin
    previous = struck_at
    for index in links[1:]:
        rebased = events[index]
        if rebased.get("actor") != "shipper":
            return f"its approval was carried by {rebased.get('actor')!r}, not by the shipper", standin
        if not _same(str(rebased.get("previous") or ""), previous):
            return "its approval was carried from a commit that was not the hallmarked one", standin
        previous = str(rebased.get("sha") or "")
    if not _same(previous, sha):
        return "the chain of its approval ends at another commit", standin
    return None, standin


def demo_repo(paths: RepoPaths) -> bool:
    """Does this repository run the stand-in model (`[runner] claude`, as `hall demo` writes it)?"""
    from . import settings

    try:
        runner = settings.load(paths).get("runner") or {}
    except Exception:  # noqa: BLE001 - an unreadable config is not a demo's
        return False
    command = str(runner.get("claude") or "").strip() if isinstance(runner, dict) else ""
    first = command.split()[0] if command.split() else ""
    return os.path.basename(first) in STANDIN_COMMANDS or (
        len(command.split()) > 2 and command.split()[1] == "-m" and command.split()[2] in STANDIN_COMMANDS
    )


def check_commit(
    sha: str,
    note: str | None,
    paths: RepoPaths,
    *,
    label: str = "",
    tree: str | None = None,
    trusted: Trusted | None = None,
) -> Verdict:
    """Is commit sha (with its note text, None for none; tree, its tree when the caller read it) a
    hallmarked commit in the repo at paths, signed by a key trusted (default: signers.trusted)?"""
    from hallmark.core import hallmark_note

    short = sha[:7]
    what = label or short
    if note is None:
        return Verdict(False, f"{what} has no hallmark (no note under {NOTES_REF})", sha)
    data = hallmark_note.parse(note)
    if data is None:
        return Verdict(False, f"the note on {what} is not a hallmark: it is not JSON", sha)
    if data.get("v") == 1:
        return Verdict(
            False,
            f"the note on {what} is an unsigned version-1 hallmark, which no longer counts (`hall setup git` "
            "re-signs the ones the journal proves the loop struck)",
            sha,
        )
    if data.get("v") != hallmark_note.VERSION:
        return Verdict(False, f"the note on {what} is not a version-{hallmark_note.VERSION} hallmark", sha)
    noted = data.get("sha")
    if not isinstance(noted, str) or not hallmark_note.SHA.fullmatch(noted):
        return Verdict(False, f"the note on {what} names no commit", sha)
    if noted != sha:
        return Verdict(False, f"its note is for {noted[:7]}, not {short}", sha)
    item = data.get("item")
    if not isinstance(item, str) or not hallmark_note.ITEM.fullmatch(item):
        return Verdict(False, f"the note on {what} names no item", sha)
    tree = tree if tree is not None else _tree_of(str(paths.toplevel), sha)
    if not tree or data.get("tree") != tree:
        return Verdict(False, f"the note on {what} is for another tree than this commit's", sha, item)
    if trusted is None:
        from hallmark.core import signers

        trusted = signers.trusted(str(paths.toplevel), paths)
    unsigned = hallmark_note.signature_problem(data, trusted)
    if unsigned:
        return Verdict(False, f"the note on {what} is no hallmark: {unsigned}", sha, item)
    standin = bool(data.get("standin"))
    if standin and not demo_repo(paths):
        return _standin_elsewhere(item, sha)
    if not paths.initialized:
        return Verdict(
            True,
            f"{short} carries a hallmark for {item} signed by {data.get('signer')} ({trusted.source}); "
            "no Hallmark journal is here to follow",
            sha,
            item,
            standin,
            signed=True,
            journal="unavailable",
        )
    return _journal_agrees(sha, data, paths, item, standin)


def _journal_agrees(sha: str, data: dict[str, Any], paths: RepoPaths, item: str, standin: bool) -> Verdict:
    """The signed note's item journal, where the loop ran: it must still stand behind the hallmark."""
    short = sha[:7]
    found = item_lookup.fold_item_events(paths, item)
    if found is None:
        return Verdict(False, f"its note names {item}, which has no journal here", sha, item, signed=True)
    view, events = found
    if not _same(view.hallmark_sha, sha):
        return Verdict(
            False,
            f"the journal of {item} records no hallmarked at {short}"
            + (f" (it is {view.state})" if view.state != "hallmarked" else ""),
            sha,
            item,
            signed=True,
        )
    why, journal_standin = chain(view, events, sha, paths)
    standin = standin or journal_standin
    if why:
        return Verdict(
            False, f"the hallmark of {item} on {short} is not the loop's: {why}", sha, item, standin, signed=True
        )
    struck = events[view.hallmark_chain[0]]
    if data.get("run") != struck.get("run") and struck.get("actor") == ASSAYER:
        return Verdict(
            False,
            f"the note on {short} names run {data.get('run')!r}, the journal {struck.get('run')!r}",
            sha,
            item,
            standin,
            signed=True,
        )
    if standin and not demo_repo(paths):
        return _standin_elsewhere(item, sha)
    return Verdict(True, f"{short} is hallmarked for {item}", sha, item, standin, signed=True, journal="checked")


def _standin_elsewhere(item: str, sha: str) -> Verdict:
    return Verdict(
        False,
        f"the hallmark of {item} on {sha[:7]} was struck by Hallmark's stand-in model (no model "
        "reviewed it); it opens no gate outside a repository made by `hall demo`",
        sha,
        item,
        True,
        signed=True,
    )


def _tree_of(where: str, sha: str) -> str:
    proc = _git(where, ["rev-parse", "--verify", "-q", "--end-of-options", f"{sha}^{{tree}}"])
    return proc.stdout.decode("ascii", "replace").strip() if proc.returncode == 0 else ""


def check(where: str, fallback: RepoPaths) -> Verdict:
    """Check HEAD of the checkout at where; journals come from that repo (or fallback's)."""
    head, tree, note = read_head(where)
    return check_commit(head, note, _paths_for(where, fallback), label=f"HEAD {head[:7]}", tree=tree)


def check_revs(where: str, revs: list[str], fallback: RepoPaths, git_dir: str | None = None) -> Verdict:
    """Every commit the revs name must be hallmarked; the first that is not decides (one git read)."""
    try:
        commits = read_commits(where, revs, git_dir)
    except LookupError as exc:
        return Verdict(False, f"{exc.args[0]!r} does not name a commit the gate can check")
    paths = _paths_for(where, fallback)
    trusted = None
    last = Verdict(True, "nothing to send")
    for sha, (tree, note) in commits.items():
        if note is not None and trusted is None:
            from hallmark.core import signers

            trusted = signers.trusted(where, paths, git_dir)
        last = check_commit(sha, note, paths, tree=tree, trusted=trusted)
        if not last.ok:
            return last
    return last


def _paths_for(where: str, fallback: RepoPaths) -> RepoPaths:
    from hallmark.core.paths import discover

    paths = discover(where, required=False) if where and os.path.isdir(where) else None
    if paths is None or not paths.initialized:
        return fallback
    return paths
