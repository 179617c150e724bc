"""The plugin copy headless runs load with `--plugin-dir`: rendered, so its hooks find hall-hook.

`--plugin-dir` overrides an installed plugin of the same name, and the package's own plugin/ has
bare `hall-hook …` commands, so a daemon started without the venv on PATH ran its fixer with no
gates (every hook exit 127, failing open). Each run therefore gets a copy whose hooks.json names
the absolute hall-hook beside this interpreter. Copies live under the state dir, one per content
hash (package files + hook binary), written into a temporary folder and renamed into place, so
concurrent runs share one and a half-written copy is never used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

COPIES = "plugin-copies"
KEEP = 3


def _fingerprint(source: Path, binary: str) -> str:
    digest = hashlib.sha256(binary.encode())
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(source)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def headless_plugin(state_dir: Path) -> Path:
    """The rendered copy for this package and this hall-hook (made on first use)."""
    from hallmark.core.plugin_install import hook_binary, package_plugin_dir, render_hooks

    source = package_plugin_dir()
    binary = hook_binary()
    root = Path(state_dir) / COPIES
    target = root / _fingerprint(source, binary)
    if (target / "hooks" / "hooks.json").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=root))  # one per caller, threads too
    tmp = scratch / "plugin"
    shutil.copytree(source, tmp, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "__init__.py"))
    hooks = tmp / "hooks" / "hooks.json"
    hooks.write_text(
        json.dumps(render_hooks(json.loads(hooks.read_text(encoding="utf-8")), binary), indent=2) + "\n",
        encoding="utf-8",
    )
    with contextlib.suppress(OSError):  # another run renamed its copy first: same content, use that one
        os.rename(tmp, target)
    shutil.rmtree(scratch, ignore_errors=True)
    _prune(root, target)
    return target


def _prune(root: Path, keep: Path) -> None:
    copies = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.stat().st_mtime
    )
    for old in copies[:-KEEP]:
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)
