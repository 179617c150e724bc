"""The package's bytecode, compiled at set-up time, so that `PYTHONDONTWRITEBYTECODE` costs nothing.

With that variable set (containers and CI set it), Python never writes bytecode, and nothing else
does for an editable install: every hook call then recompiled the package (an Edit's hook 2.0 times a
`python -c pass` instead of 1.3). `hall init` and `hall setup claude` compile it here, where the
interpreter will look for it (`importlib.util.cache_from_source`: each package folder's
`__pycache__`, the checkout's own for an editable install, or `PYTHONPYCACHEPREFIX`).

The files are *checked-hash* pycs (PEP 552): valid while the source's bytes are the same, whatever
its mtime (a `git checkout`, a copy or a `touch` keeps them valid; timestamp pycs would go stale),
and never used for a changed source (an edited module is compiled again, never run stale). A
current pyc of either kind is left alone. `hall doctor` reports modules without current bytecode.
Best effort: a folder that cannot be written is named, never an error.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

# the package folders (an editable install maps each to the checkout: hallmark.core -> core/ ...)
PACKAGES = ("hallmark.core", "hallmark.hooks", "hallmark.tui", "hallmark.themes", "hallmark.plugin")
SKIP_DIRS = frozenset({"__pycache__", "__snapshots__"})
MAX_SOURCE_BYTES = 4 * 1024 * 1024


class Bytecode:
    """What a look at the package's bytecode found (and, after compile(), did)."""

    __slots__ = ("compiled", "current", "failed", "folders", "stale")

    def __init__(self, folders: list[str]) -> None:
        self.folders = folders
        self.current = 0  # modules whose pyc matches their source
        self.stale: list[str] = []  # modules without a current pyc (before compiling)
        self.compiled = 0  # modules compiled now
        self.failed: list[str] = []  # "<module path>: why" for each one that could not be

    @property
    def ok(self) -> bool:
        """Every module has current bytecode now (compiled here, or already)."""
        return not self.failed and self.compiled == len(self.stale)

    def to_dict(self) -> dict[str, object]:
        return {
            "folders": self.folders,
            "current": self.current,
            "stale": len(self.stale),
            "compiled": self.compiled,
            "failed": self.failed,
        }


def package_folders() -> list[Path]:
    """The folder of each of the package's parts, as the running interpreter imports them."""
    import importlib

    found: list[Path] = []
    for name in PACKAGES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for entry in getattr(module, "__path__", []):
            path = Path(entry)
            if path.is_dir() and path not in found:
                found.append(path)
    return found


def _sources(folder: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        out.extend(Path(root, name) for name in sorted(files) if name.endswith(".py"))
    return out


def is_current(source: Path) -> bool:
    """The pyc the interpreter would use for source exists and is valid for its bytes or its stat."""
    try:
        cached = importlib.util.cache_from_source(str(source))
        with open(cached, "rb") as handle:
            header = handle.read(16)
    except (OSError, NotImplementedError, ValueError):
        return False
    if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(header[4:8], "little")
    try:
        if flags & 0b1:  # hash-based (PEP 552)
            if not flags & 0b10:
                return True  # unchecked: the interpreter uses it whatever the source says
            data = source.read_bytes()
            return len(data) <= MAX_SOURCE_BYTES and importlib.util.source_hash(data) == header[8:16]
        st = source.stat()
    except OSError:
        return False
    return (
        flags == 0
        and int.from_bytes(header[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(header[12:16], "little") == st.st_size & 0xFFFFFFFF
    )


def look(folders: list[Path] | None = None) -> Bytecode:
    """Which modules have current bytecode (nothing is written)."""
    folders = package_folders() if folders is None else folders
    found = Bytecode([str(f) for f in folders])
    for folder in folders:
        for source in _sources(folder):
            if is_current(source):
                found.current += 1
            else:
                found.stale.append(str(source))
    return found


def compile_package(folders: list[Path] | None = None) -> Bytecode:
    """Compile every module without current bytecode (checked-hash pycs); never raises."""
    import py_compile

    found = look(folders)
    for source in found.stale:
        try:
            py_compile.compile(
                source,
                cfile=importlib.util.cache_from_source(source),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
            )
        except (py_compile.PyCompileError, OSError, ValueError) as exc:
            found.failed.append(f"{source}: {str(exc).strip().splitlines()[-1] if str(exc).strip() else exc}")
            continue
        found.compiled += 1
    return found


def setup_step() -> Bytecode | None:
    """`hall init` / `hall setup claude`: compile the package, never failing the verb that asks."""
    try:
        return compile_package()
    except Exception:  # noqa: BLE001 - a speed-up: the verb goes on without it, `hall doctor` names it
        return None


def doctor_row() -> tuple[bool, str]:
    """(ok, detail) for `hall doctor`'s bytecode check."""
    found = look()
    total = found.current + len(found.stale)
    if not found.stale:
        return True, f"all {total} modules compiled"
    dont = (
        " (PYTHONDONTWRITEBYTECODE is set here: each process compiles them again)"
        if os.environ.get("PYTHONDONTWRITEBYTECODE")
        else ""
    )
    return False, (
        f"{len(found.stale)} of {total} modules have no current bytecode{dont}; with PYTHONDONTWRITEBYTECODE set, "
        f"every hook call compiles them again. First: {found.stale[0]}"
    )
