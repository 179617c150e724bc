"""Benchmark: what checking a hallmark's signature costs on the push path.

Run by hand: `python benchmarks/signing.py [--runs N]`. Builds a throwaway repo (benchmarks/hooks.py's
build), then times, interleaved in the same run, each against a bare `python -c pass` (the venv's)
and `python -I -S -c pass`:

- push-no-note: a Bash `git push origin HEAD` payload, HEAD without a note (denied before any
  signature is read)
- push-forged: HEAD with an unsigned version-2 note and a full forged journal chain (denied after the
  signature check fails: one ssh-keygen -Y verify)
- push-signed: HEAD with the loop's signed note (let through: signature and journal checked)
- pre-push: git's pre-push hook deciding a push of the signed commit
- verify: `hall verify HEAD` in a fresh clone with the base's allowed_signers and no journal

Acceptance (issue 21): the signature check adds no more than 5 ms to a denied push
(push-forged minus push-no-note).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from hooks import BIN, HOOK, _git, build, payload, sign_head, timed

RUN = "20261201T120000000Z-review.jsonl"


def forge_chain(main: Path, item: str, sha: str) -> None:
    from hallmark.core import journal
    from hallmark.core.paths import discover

    path = discover(main).item_journal(item)
    journal.append(path, "ready", item=item, actor="you", sha=sha, round=1)
    journal.append(path, "checks_passed", item=item, actor="assayer", sha=sha)
    journal.append(path, "run_started", item=item, actor="assayer", run=RUN, role="review", model="bench")
    journal.append(path, "verdict", item=item, actor="assayer", sha=sha, decision="approve", run=RUN, standin=False)
    journal.append(path, "hallmarked", item=item, actor="assayer", sha=sha, round=1, run=RUN, standin=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hall-bench-sign-") as tmp:
        env, main_dir, wt, item = build(Path(tmp))
        bare = Path(tmp) / "remote.git"
        _git(Path(tmp), env, "init", "-q", "--bare", str(bare))
        _git(main_dir, env, "remote", "add", "origin", str(bare))
        _git(main_dir, env, "push", "-q", "--no-verify", "origin", "main")
        (wt / "feature.py").write_text("y = 2\n")
        _git(wt, env, "add", "feature.py")
        _git(wt, env, "commit", "-q", "-m", "feature")
        sha = _git(wt, env, "rev-parse", "HEAD")
        push = ([HOOK, "pre-tool-use"], payload("Bash", wt, command="git push origin HEAD"))
        base = ([sys.executable, "-c", "pass"], None)
        bare_py = ([sys.executable, "-I", "-S", "-c", "pass"], None)
        samples: dict[str, list[float]] = {k: [] for k in ("baseline", "bare", "push-no-note", "push-forged")}
        for _ in range(3):
            timed(*push, env)
        for _ in range(args.runs):
            samples["baseline"].append(timed(*base, env)[0])
            samples["bare"].append(timed(*bare_py, env)[0])
            samples["push-no-note"].append(timed(*push, env)[0])
        forge_chain(main_dir, item, sha)
        tree = _git(wt, env, "rev-parse", "HEAD^{tree}")
        unsigned = {
            "v": 2,
            "item": item,
            "sha": sha,
            "tree": tree,
            "round": 1,
            "model": "bench",
            "open_findings": [],
            "actor": "assayer",
            "run": RUN,
            "standin": False,
        }
        _git(wt, env, "notes", "--ref=hallmark", "add", "-f", "-m", json.dumps(unsigned), "HEAD")
        _, out = timed(*push, env)
        if b"no SSH signature" not in out:
            raise SystemExit(f"push-forged: expected a denial naming the signature, got {out[:300]!r}")
        for _ in range(args.runs):
            samples["push-forged"].append(timed(*push, env)[0])
        sign_head(env, wt, item, sha, RUN)
        _, out = timed(*push, env)
        if out.strip():
            raise SystemExit(f"push-signed: expected no answer, got {out[:300]!r}")
        line = f"refs/heads/x {sha} refs/heads/x {'0' * 40}\n".encode()
        pre_push = ([HOOK, "git-pre-push", str(wt / ".git-hooks-pre-push"), "origin", str(bare)], line)
        branch = _git(wt, env, "branch", "--show-current")
        _git(wt, env, "push", "-q", "origin", f"HEAD:refs/heads/{branch}", "refs/notes/hallmark")
        clone = Path(tmp) / "ci"
        _git(Path(tmp), env, "clone", "-q", str(bare), str(clone))
        _git(clone, env, "fetch", "-q", "origin", "+refs/notes/hallmark:refs/notes/hallmark")
        _git(clone, env, "checkout", "-q", sha)
        verify = ([str(BIN / "hall"), "verify", "HEAD"], None)
        proc = subprocess.run(verify[0], cwd=clone, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"verify: the clone does not verify: {proc.stdout[:300]} {proc.stderr[:300]}")
        for key in ("push-signed", "pre-push", "verify", "baseline2", "bare2"):
            samples[key] = []
        for _ in range(args.runs):
            samples["push-signed"].append(timed(*push, env)[0])
            samples["pre-push"].append(timed(*pre_push, env, wt)[0])
            samples["verify"].append(timed(verify[0], None, env, clone)[0])
            samples["baseline2"].append(timed(*base, env)[0])
            samples["bare2"].append(timed(*bare_py, env)[0])
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"{args.runs} runs each, interleaved; median wall ms (ratio to python -c pass | to python -I -S -c pass)")
    for name in ("push-no-note", "push-forged", "push-signed", "pre-push", "verify"):
        first = name in ("push-no-note", "push-forged")
        ref, ref_bare = (med["baseline"], med["bare"]) if first else (med["baseline2"], med["bare2"])
        print(f"  {name:14s} {med[name] * 1000:7.1f} ms  {med[name] / ref:5.2f}x | {med[name] / ref_bare:5.2f}x")
    added = (med["push-forged"] - med["push-no-note"]) * 1000
    print(f"  the signature check adds {added:.1f} ms to a denied push (budget 5 ms): {'ok' if added <= 5 else 'OVER'}")
    return 0 if added <= 5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
