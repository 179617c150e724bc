"""Benchmark: the secret scanner's rates and its cost on the hook path.

Run by hand: `python benchmarks/secrets.py [--runs N]`. It prints:

- rates on tests/memory/secret_corpus.py: real-shaped credentials caught, look-alikes refused;
- scan time per text, in-process, for a short prompt, a 4 KB prompt of prose and code, and the
  whole corpus, against a baseline measured in the same run (`str.lower()` over the same text,
  the cheapest pass any scanner makes);
- the import cost of hallmark.core.secrets against a bare `python -c pass`, and the wall time of
  `hall-hook user-prompt-submit` with a plain prompt and with one holding a key (which is
  redacted), each as a ratio of the bare interpreter's start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BIN = Path(sys.executable).parent


def rates() -> None:
    from hallmark.core import secrets

    from tests.memory.secret_corpus import CREDENTIALS, LOOK_ALIKES

    caught = [kind for kind, text in CREDENTIALS if secrets.scan_text(text)]
    flagged = [text for text in LOOK_ALIKES if secrets.scan_text(text)]
    print(
        f"caught {len(caught)} of {len(CREDENTIALS)} real-shaped credentials "
        f"({len(caught) / len(CREDENTIALS):.1%}); false refusals {len(flagged)} of {len(LOOK_ALIKES)} look-alikes "
        f"({len(flagged) / len(LOOK_ALIKES):.1%})"
    )
    for kind, text in CREDENTIALS:
        if not secrets.scan_text(text):
            print(f"  missed: {kind}")
    for text in flagged:
        print(f"  false refusal: {text[:80]!r}")


def _time(func, text: str, runs: int) -> float:
    best = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(runs):
            func(text)
        best.append((time.perf_counter() - start) / runs)
    return min(best)


def scan_speed(runs: int) -> None:
    from hallmark.core import secrets

    from tests.memory.secret_corpus import CREDENTIALS, LOOK_ALIKES

    short = "Please make the drain's Accept all skip automations, and add a test for it."
    long_text = ((ROOT / "README.md").read_text() + (ROOT / "core" / "journal.py").read_text())[:4000]
    corpus = "\n".join([t for _, t in CREDENTIALS] + LOOK_ALIKES)
    for name, text in (("short prompt", short), ("4 KB prose+code", long_text), ("whole corpus", corpus)):
        secrets.scan_text(text)  # compile what this text needs, as the first call in a hook does
        base = _time(str.lower, text, runs)
        took = _time(secrets.scan_text, text, max(1, runs // 10))
        print(f"scan {name:<16} {len(text):>6} chars: {took * 1e3:7.3f} ms  ({took / base:,.0f}x str.lower)")


def _wall(cmd: list[str], runs: int, env: dict[str, str], stdin: bytes = b"", cwd: Path | None = None) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def hook_cost(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@hallmark.invalid\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "HALL_", "GIT_"))}
        env.update(
            {
                "HOME": str(home),
                "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
                "GIT_CONFIG_NOSYSTEM": "1",
                "HALLMARK_DATA_DIR": str(home / "data"),
                "PYTHONPYCACHEPREFIX": str(base / "pycache"),
            }
        )
        repo = base / "repo"
        repo.mkdir()
        for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "i"]):
            subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
        subprocess.run([str(BIN / "hall"), "init"], cwd=repo, env=env, check=True, capture_output=True)
        bare = _wall([sys.executable, "-c", "pass"], runs, env)
        imported = _wall([sys.executable, "-c", "import hallmark.core.secrets"], runs, env)
        plain = json.dumps({"session_id": "b", "cwd": str(repo), "prompt": "refactor the drain, add a test"}).encode()
        keyed = json.dumps(
            {
                "session_id": "b",
                "cwd": str(repo),
                "prompt": "deploy with ghp_" + "Ab3De5Gh7Jk9Lm1Np3Qr5St7Vw9Xy1Za3Cd5" + " please",
            }
        ).encode()
        hook = [str(BIN / "hall-hook"), "user-prompt-submit"]
        plain_t = _wall(hook, runs, env, plain, repo)
        keyed_t = _wall(hook, runs, env, keyed, repo)
        print(f"python -c pass               {bare * 1e3:7.1f} ms  (baseline)")
        print(f"import hallmark.core.secrets {imported * 1e3:7.1f} ms  ({imported / bare:.2f}x)")
        print(f"user-prompt-submit, plain    {plain_t * 1e3:7.1f} ms  ({plain_t / bare:.2f}x)")
        print(f"user-prompt-submit, a key    {keyed_t * 1e3:7.1f} ms  ({keyed_t / bare:.2f}x, redacted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    rates()
    scan_speed(args.runs * 10)
    hook_cost(args.runs)


if __name__ == "__main__":
    main()
