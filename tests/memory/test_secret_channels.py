"""Issue 22 item 3: the tuning half of the corpus through every persisted channel, then a grep.

Every credential is refused or fully redacted in every channel (prompt, prompt cut at 4,000,
turn summary, commit subject, subject cut at 300, title and branch, question, answer, checkpoint,
note, learning), no 12-character window of any raw value is left under `.git` (but git's own
objects and reflogs), the worktrees' paths or the data directory, and no look-alike is flagged.
The held-out half (benchmarks/secrets_heldout.py) is measured by hand, never here.
"""

from __future__ import annotations

from pathlib import Path

from hallmark.core import secrets

from .secret_channels import CHANNELS, through_channels, windows
from .secret_families import CREDENTIALS, LOOK_ALIKES


def test_the_tuning_half_is_big_enough_and_unlike_the_old_corpus():
    from .secret_corpus import CREDENTIALS as OLD

    assert len(CREDENTIALS) >= 45 and len(LOOK_ALIKES) == 40
    old_texts = {text for _, text in OLD}
    assert not old_texts.intersection(text for _, text, _ in CREDENTIALS)
    families = {family for family, _, _ in CREDENTIALS}
    assert families == {"key block", "config", "connection", "command line", "split", "token"}
    for _, text, raw in CREDENTIALS:
        assert raw and all(value in text for value in raw)


def test_no_credential_of_the_tuning_half_is_kept_in_any_channel(tmp_path: Path):
    outcomes = through_channels(tmp_path, CREDENTIALS)
    assert set(outcomes) == set(CHANNELS)
    kept = {channel: outcome.kept for channel, outcome in outcomes.items() if outcome.kept}
    assert kept == {}, f"raw values left on disk: {kept}"
    for channel, outcome in outcomes.items():
        assert outcome.total == len(CREDENTIALS), channel
    assert outcomes["checkpoint"].refused == len(CREDENTIALS)  # memory writes refuse, never redact


def test_look_alikes_are_neither_refused_nor_redacted():
    flagged = [(text, secrets.scan_text(text)) for text in LOOK_ALIKES if secrets.scan_text(text)]
    assert flagged == []
    assert all(secrets.redact(text) == text for text in LOOK_ALIKES)


def test_redaction_leaves_no_window_of_any_raw_value():
    """The scanner itself, without the channels: the redacted text holds no piece of a raw value."""
    for family, text, raw in CREDENTIALS:
        redacted = secrets.redact(text).lower()
        left = [w for value in raw for w in windows(value) if w in redacted]
        assert not left, f"{family}: {text[:50]!r} kept {left[:2]}"
