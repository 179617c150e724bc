"""Measure one half of a secret corpus: every persisted channel, the look-alikes, the scan time.

Imported by benchmarks/secrets_heldout.py; the channels themselves are tests/memory/secret_channels.py.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Entry = tuple[str, str, list[str]]


def _isolate(base: Path) -> None:
    """A throwaway home, git identity and data directory, so nothing touches the person's own."""
    home = base / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@hallmark.invalid\n")
    for name in [k for k in os.environ if k.startswith(("CLAUDE", "HALL_", "GIT_"))]:
        del os.environ[name]
    os.environ.update(
        {
            "HOME": str(home),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "HALLMARK_DATA_DIR": str(home / "data"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        }
    )


def prompt_4k(entries: list[Entry]) -> str:
    """A 4 KB prompt of prose and code with the corpus's texts in it (the dense case)."""
    prose = (ROOT / "README.md").read_text(encoding="utf-8")[:1500] + (ROOT / "core" / "journal.py").read_text()[:1000]
    dense = "\n".join(text for _, text, _ in entries)
    text = prose + "\n" + dense
    while len(text) < 4096:
        text += "\n" + prose
    return text[:4096]


def time_scan(text: str, runs: int) -> tuple[float, float, float]:
    """(median CPU, 95th-percentile CPU, median wall) seconds of one redact() of text. CPU time is
    the scanner's own cost; wall time on a shared machine also holds the waits for a core."""
    from hallmark.core import secrets

    secrets.redact(text)  # compile what this text needs, as the first call in a hook does
    cpu, wall = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        secrets.redact(text)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    cpu.sort()
    return statistics.median(cpu), cpu[int(len(cpu) * 0.95) - 1], statistics.median(wall)


def measure(name: str, credentials: list[Entry], look_alikes: list[str], runs: int) -> None:
    from hallmark.core import secrets

    from tests.memory.secret_channels import through_channels

    print(f"== {name} half: {len(credentials)} credentials, {len(look_alikes)} look-alikes")
    missed = [(family, text) for family, text, _ in credentials if not secrets.scan_text(text)]
    print(f"scanner finds something in {len(credentials) - len(missed)}/{len(credentials)}")
    for family, text in missed:
        print(f"  missed ({family}): {text[:70]!r}")
    flagged = [text for text in look_alikes if secrets.scan_text(text)]
    print(f"false refusals/redactions: {len(flagged)}/{len(look_alikes)}")
    for text in flagged:
        print(f"  flagged: {text[:70]!r} -> {secrets.scan_text(text)}")
    with tempfile.TemporaryDirectory() as tmp:
        _isolate(Path(tmp))
        outcomes = through_channels(Path(tmp) / "repos", credentials)
    worst = 1.0
    for channel, outcome in outcomes.items():
        safe = outcome.refused + outcome.redacted
        worst = min(worst, safe / outcome.total)
        print(
            f"  {channel:<26} {safe:>3}/{outcome.total} refused or fully redacted ({safe / outcome.total:.1%}): "
            f"refused {outcome.refused}, redacted {outcome.redacted}, kept {len(outcome.kept)} {outcome.kept}"
        )
    print(f"worst channel: {worst:.1%}")
    for label, text in (("4 KB prose+code+corpus", prompt_4k(credentials)), ("4 KB prose", prompt_4k([]))):
        median, p95, wall = time_scan(text, runs)
        print(
            f"scan+redact {label:<24} {len(text)} chars: CPU median {median * 1e3:.3f} ms, "
            f"p95 {p95 * 1e3:.3f} ms; wall median {wall * 1e3:.3f} ms"
        )
