"""Checks that test the worktree: the item's own code first, whatever the environment was set up for.

The usual Python set-up is `pip install -e .` in the main checkout. It puts the main checkout's
source (`<main>/src`, or the package itself through an editable finder) on every interpreter's
path, so plain `pytest` in an item's worktree imports the MAIN checkout's package and tests the
wrong code. Before the gates run, Hallmark asks each interpreter the gates may use (python3 and
python on PATH, and the interpreter in the shebang of each gate's program) which `.pth` entries
and editable finders point into the main checkout, and runs the gates with the worktree's
counterparts first on `PYTHONPATH`. It says so at the top of the check log.

Language-neutral part: after a gate ran, `foreign_paths` finds the files of the main checkout its
output names (tracebacks, "rootdir:", compiler paths), which says the gate looked outside the
worktree, whatever the tool.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .paths import is_within

# Run by the interpreter under inspection with -I -S: reads the site dirs' .pth files and the
# editable finders' MAPPING as text (never executes them) and prints what they point at.
_PROBE = r"""
import json, os, re, site, sys
dirs = []
prefixes = [sys.prefix, sys.exec_prefix]
venv = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
cfg = os.path.join(venv, "pyvenv.cfg")
if os.path.isfile(cfg):  # -S skips site's venv set-up: find it ourselves
    text = open(cfg, encoding="utf-8", errors="replace").read().lower().replace(" ", "")
    prefixes = [venv] + (prefixes if "include-system-site-packages=true" in text else [])
try:
    dirs += site.getsitepackages(list(dict.fromkeys(prefixes)))
except Exception:
    pass
try:
    dirs.append(site.getusersitepackages())
except Exception:
    pass
found = []
for d in dict.fromkeys(dirs):
    try:
        names = sorted(os.listdir(d))
    except OSError:
        continue
    for name in names:
        path = os.path.join(d, name)
        if name.endswith(".pth"):
            try:
                lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
            except OSError:
                continue
            for line in lines:
                line = line.strip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    found.append([path, os.path.join(d, line) if not os.path.isabs(line) else line, ""])
        elif name.startswith("__editable__") and name.endswith("_finder.py"):
            try:
                text = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            m = re.search(r"^MAPPING\s*(?::[^=]*)?=\s*(\{.*?\})\s*$", text, re.M | re.S)
            if m:
                for pkg, target in re.findall(r"'([^']+)':\s*'([^']+)'", m.group(1)):
                    found.append([path, target, pkg])
print(json.dumps({"python": sys.executable, "entries": found}))
"""

_PY_SHEBANG = re.compile(rb"^#!\s*(\S*python[\d.]*)\b")


@dataclass
class GateEnv:
    """What the gates need so they test the worktree: extra environment and what to say about it."""

    extra: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    outside: list[dict[str, str]] = field(default_factory=list)  # {python, via, path, package}
    key: str = ""  # what of it changes a gate's result, for the checks cache (worktree-relative)


def _first_program(command: str) -> str | None:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            continue
        if word in ("env", "exec", "time", "nice", "command"):
            continue
        return word
    return None


def interpreters(commands: list[str], path_env: str | None = None) -> list[str]:
    """The Python interpreters these commands may start: python3/python on PATH, and the one in
    the shebang of each command's program (pytest, mypy, …). Real paths, no duplicates."""
    found: list[str] = []
    words = ["python3", "python"] + [w for w in (_first_program(c) for c in commands) if w]
    for word in words:
        where = shutil.which(word, path=path_env)
        if not where:
            continue
        candidate = where
        if not re.search(r"python[\d.]*$", Path(where).name):
            try:
                with open(where, "rb") as handle:
                    match = _PY_SHEBANG.match(handle.read(256))
            except OSError:
                match = None
            if not match:
                continue
            candidate = match.group(1).decode("utf-8", "replace")
            if candidate.endswith("/env"):
                continue
        if os.path.isfile(candidate) and candidate not in found:
            found.append(candidate)
    return found


_PROBE_CACHE: dict[tuple[str, float], list[list[str]]] = {}


def _site_stamp(python: str) -> float:
    """A change marker for an interpreter's environment: the newest mtime of its prefix's lib dirs."""
    prefix = Path(python).resolve().parent.parent
    stamps = []
    for lib in (prefix / "lib", prefix / "Lib"):
        try:
            stamps.append(lib.stat().st_mtime)
            stamps += [p.stat().st_mtime for p in lib.glob("python*/site-packages")]
        except OSError:
            continue
    return max(stamps or [0.0])


def probe(python: str) -> list[list[str]]:
    """[.pth or finder file, the path it puts first, package] for one interpreter (cached per process)."""
    key = (python, _site_stamp(python))
    if key in _PROBE_CACHE:
        return _PROBE_CACHE[key]
    try:
        proc = subprocess.run(
            [python, "-I", "-S", "-c", _PROBE], capture_output=True, text=True, timeout=20, check=False
        )
        entries = json.loads(proc.stdout).get("entries", []) if proc.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError):
        entries = []
    _PROBE_CACHE[key] = entries
    return entries


def into_main(
    main: Path, worktree: Path | None, commands: list[str], path_env: str | None = None
) -> list[dict[str, str]]:
    """Every place an interpreter the gates may use imports from the main checkout (and, when the
    worktree lies inside the main checkout, not from the worktree)."""
    main = Path(os.path.realpath(main))
    out: list[dict[str, str]] = []
    for python in interpreters(commands, path_env):
        for via, target, package in probe(python):
            real = Path(os.path.realpath(target))
            if package:  # an editable finder maps the package itself: its parent goes on the path
                real = real.parent
            if not is_within(real, main):
                continue
            if worktree is not None and is_within(real, Path(os.path.realpath(worktree))):
                continue
            out.append({"python": python, "via": via, "path": str(real), "package": package})
    return out


def gate_environment(repo: Any, worktree: Path | str, commands: list[str] | None = None) -> GateEnv:
    """The extra environment that puts the worktree's own code first, and the notes that say so."""
    worktree = Path(os.path.realpath(worktree))
    main = Path(os.path.realpath(repo.root))
    env = GateEnv()
    if worktree == main:
        return env
    gates = list(repo.config.gates if commands is None else commands)
    outside = into_main(main, worktree, gates)
    if not outside:
        remember(main, [])  # (an editable install removed since: the sessions' hint goes too)
        return env
    env.outside = outside
    first: list[str] = []
    relative: list[str] = []
    for entry in outside:
        rel = Path(entry["path"]).relative_to(main)
        mapped = worktree / rel
        if mapped.is_dir() and str(mapped) not in first:
            first.append(str(mapped))
            relative.append(str(rel))
    if not first:
        env.notes.append(
            f"hall: the environment imports from the main checkout ({outside[0]['path']}, via "
            f"{outside[0]['via']}), and this worktree has no counterpart to put first"
        )
        return env
    existing = os.environ.get("PYTHONPATH", "")
    env.extra["PYTHONPATH"] = os.pathsep.join(first + ([existing] if existing else []))
    env.key = "PYTHONPATH=" + os.pathsep.join(relative)
    remember(main, outside)
    what = ", ".join(sorted({f"{e['path']} (via {Path(e['via']).name})" for e in outside}))
    env.notes.append(f"hall: {outside[0]['python']} imports from the main checkout: {what}")
    env.notes.append(f"hall: so this gate runs with PYTHONPATH={env.extra['PYTHONPATH']}, to test this worktree's code")
    return env


def foreign_paths(output: str, main: Path | str, worktree: Path | str, limit: int = 5) -> tuple[int, list[str]]:
    """(how many, the first few) distinct files of the main checkout named in a gate's output."""
    main_s = os.path.realpath(main).rstrip(os.sep)
    wt_s = os.path.realpath(worktree).rstrip(os.sep)
    if main_s == wt_s:
        return 0, []
    pattern = re.compile(re.escape(main_s + os.sep) + r"[^\s'\"():,]+")
    found: dict[str, None] = {}
    for match in pattern.finditer(output):
        path = match.group(0).rstrip(".")
        if path == wt_s or path.startswith(wt_s + os.sep):
            continue
        found.setdefault(path)
    names = list(found)
    return len(names), names[:limit]


def init_warnings(main: Path, gates: list[str]) -> list[dict[str, str]]:
    """For `hall init` and `hall doctor`: environments that import the package from the main
    checkout, so that tests in an item's worktree would test the main checkout's code."""
    warnings = []
    seen: set[tuple[str, str]] = set()
    found = into_main(main, None, gates)
    remember(main, found)
    for entry in found:
        key = (entry["python"], entry["path"])
        if key in seen:
            continue
        seen.add(key)
        what = f"the package {entry['package']} from {entry['path']}" if entry["package"] else entry["path"]
        warnings.append(
            {
                "python": entry["python"],
                "path": entry["path"],
                "via": entry["via"],
                "text": (
                    f"{entry['python']} imports from the main checkout: {what} (via {Path(entry['via']).name}, an "
                    "editable install). Tests run with it in an item's worktree would test the main checkout's "
                    "code. Hallmark's checks put the worktree's source first (PYTHONPATH); do the same when you "
                    "run tests by hand in a worktree."
                ),
            }
        )
    return warnings


def remember(main: Path | str, outside: list[dict[str, str]]) -> None:
    """Keep what was found for the SessionStart hook, which must stay light (it never probes an
    interpreter): the main checkout's folders the environment imports, worktree-relative."""
    from . import atomic
    from .orientation import SESSION_NOTE
    from .paths import discover

    paths = discover(main, required=False)
    if paths is None or not paths.state_dir.is_dir():
        return
    real_main = Path(os.path.realpath(main))
    relative = sorted(
        {str(Path(e["path"]).relative_to(real_main)) for e in outside if is_within(Path(e["path"]), real_main)}
    )
    note = paths.state_dir / SESSION_NOTE
    data = {"paths": relative, "via": sorted({Path(e["via"]).name for e in outside})}
    if atomic.read_json(note, None) != data:
        atomic.write_json(note, data)
