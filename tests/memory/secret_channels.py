"""Send a secret corpus through every channel Hallmark persists, then grep the disk for it.

Used by tests/memory/test_secret_channels.py (the tuning half, asserted) and by
benchmarks/secrets_heldout.py (both halves, printed). The channels are the real code paths, in
process: the UserPromptSubmit and Stop hooks (hooks.main.run, as `hall-hook` runs them), the
PostToolUse commit record (a real commit), `hall new --title`, `hall ask`, `hall answer`,
`hall checkpoint set`, `hall note add` and `hall library propose`. A prompt and a commit subject
are also sent padded so that the cut (4,000 and 300 characters) falls inside the secret.

"Kept" means any 12-character window of a raw value (or the whole value when shorter) is found,
case-insensitively, in a file's contents or path under the state directory, the rest of `.git`
but its objects (refs name branches), the worktrees' paths, or the data directory.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from hallmark.core import items, questions
from hallmark.core.errors import HallError
from hallmark.core.memory import api, checkpoint, notes
from hallmark.core.repo import Repo
from hallmark.hooks.main import run as run_hook

Entry = tuple[str, str, list[str]]
PROMPT_LIMIT = 4000
SUBJECT_LIMIT = 300
CHANNELS = (
    "prompt",
    "prompt at the cut",
    "turn summary",
    "commit subject",
    "commit subject at the cut",
    "title",
    "question",
    "answer",
    "checkpoint",
    "note",
    "learning",
)


def windows(value: str, width: int = 12) -> list[str]:
    """The pieces of a raw value that must not survive: the whole, or every 12-character window."""
    if len(value) <= width:
        return [value.lower()]
    starts = list(range(0, len(value) - width + 1, 3))
    if starts[-1] != len(value) - width:
        starts.append(len(value) - width)
    return [value[i : i + width].lower() for i in starts]


def on_disk(repo: Repo) -> str:
    """Every persisted byte Hallmark could have written, lower-cased: contents and paths."""
    roots = [repo.root / ".git", Path(os.environ["HALLMARK_DATA_DIR"])]
    parts: list[str] = []
    for root in roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            rel = str(path)
            parts.append(rel)
            if _gits_own(rel) or _hallmarks_own_key(path) or not path.is_file() or path.is_symlink():
                continue
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    worktrees = subprocess.run(
        ["git", "worktree", "list", "--porcelain"], cwd=repo.root, capture_output=True, text=True, check=False
    ).stdout
    parts.append(worktrees)
    return "\n".join(parts).lower()


def _hallmarks_own_key(path: Path) -> bool:
    """This machine's hallmark key (core/signing.py) and the lists of public keys it is trusted by:
    Hallmark's own, made by ssh-keygen, not a credential that passed through a channel (every OpenSSH
    key shares its first base64 bytes with the corpus's OpenSSH entry)."""
    from hallmark.core import signing

    return path.parent == signing.key_dir() or path.name == "allowed_signers"


def _gits_own(path: str) -> bool:
    """git's own record of a commit (its objects, reflogs, last message) holds what the person wrote."""
    return "/objects/" in path or "/logs/" in path or path.endswith(("COMMIT_EDITMSG", "ORIG_HEAD"))


def kept(haystack: str, raw: list[str]) -> bool:
    return any(w in haystack for value in raw for w in windows(value))


def _padded(text: str, raw: list[str], limit: int) -> str:
    """The text padded in front so that the cut at `limit` falls in the middle of its first raw value."""
    at = text.find(raw[0])
    middle = at + max(1, len(raw[0]) // 2)
    pad = max(0, limit - middle)
    return ("lorem ipsum " * (pad // 12 + 1))[:pad] + text


@dataclass
class Outcome:
    refused: int = 0
    redacted: int = 0
    kept: list[str] = field(default_factory=list)  # the families whose raw value stayed on disk

    @property
    def total(self) -> int:
        return self.refused + self.redacted + len(self.kept)


def _hook(event: str, repo: Repo, **payload: object) -> None:
    body = {"session_id": "corpus", "cwd": str(repo.root), **payload}
    run_hook(event, json.dumps(body).encode())


def _send(channel: str, repo: Repo, entry: Entry, n: int) -> bool:
    """Send one entry; True when the channel refused it (nothing stored)."""
    _, text, raw = entry
    try:
        if channel == "prompt":
            _hook("user-prompt-submit", repo, prompt=text, hook_event_name="UserPromptSubmit")
        elif channel == "prompt at the cut":
            _hook("user-prompt-submit", repo, prompt=_padded(text, raw, PROMPT_LIMIT))
        elif channel == "turn summary":
            _hook("stop", repo, last_assistant_message=text, hook_event_name="Stop")
        elif channel.startswith("commit subject"):
            subject = _padded(text, raw, SUBJECT_LIMIT) if channel.endswith("cut") else text
            subprocess.run(
                ["git", "commit", "-q", "--allow-empty", "--no-verify", "-m", subject],
                cwd=repo.root,
                check=True,
                capture_output=True,
            )
            _hook(
                "post-tool-use",
                repo,
                tool_name="Bash",
                tool_input={"command": "git commit -m wip"},
                tool_response={"stdout": ""},
            )
        elif channel == "title":
            items.new(repo, title=text)
        elif channel == "question":
            questions.ask(repo, text)
        elif channel == "answer":
            asked = questions.ask(repo, f"corpus question {n}?")
            questions.answer(repo, asked.qid, text)
        elif channel == "checkpoint":
            checkpoint.set_checkpoint(repo.paths, {"Phase": "corpus", "Active work": f"entry {n}", "Next step": text})
        elif channel == "note":
            notes.add(repo.paths, fact=f"corpus {n}: {text}", facet="gotcha", slug=f"corpus-{n}")
        elif channel == "learning":
            api.propose(
                repo,
                kind="convention",
                pattern=f"Corpus entry {n}: {text}",
                evidence={"source": "user_statement", "quote": text},
            )
        else:
            raise ValueError(channel)
    except HallError:
        return True
    return False


def make_repo(root: Path) -> Repo:
    """A real repository with one commit, after `hall init` (as the tests' hall_repo fixture makes it)."""
    from hallmark.core import setup_repo
    from hallmark.core.repo import open_repo

    root.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    setup_repo.init(root)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "hall init"], cwd=root, check=True, capture_output=True)
    return open_repo(root)


def through_channels(base: Path, entries: list[Entry], channels: tuple[str, ...] = CHANNELS) -> dict[str, Outcome]:
    """Every entry through every channel, each channel in its own fresh repository under base;
    per channel, what was refused, redacted or kept."""
    outcomes: dict[str, Outcome] = {}
    for c, channel in enumerate(channels):
        repo = make_repo(base / f"channel-{c}")
        before = on_disk(repo)
        assert not any(kept(before, raw) for _, _, raw in entries), "the corpus is on disk before any channel ran"
        outcome = outcomes[channel] = Outcome()
        refused = [_send(channel, repo, entry, n) for n, entry in enumerate(entries)]
        haystack = on_disk(repo)
        for n, (family, _, raw) in enumerate(entries):
            if kept(haystack, raw):
                outcome.kept.append(f"{n}:{family}")
            elif refused[n]:
                outcome.refused += 1
            else:
                outcome.redacted += 1
    return outcomes
