"""Where a demo lives and the project it builds: the base directory and its layout (`Demo`), the
demo's own environment, `tinyshop`'s first commit with a local bare origin, `hall init` with the
demo's config, and the stand-in's scenario file. Split from driver.py, which plays the scenes on it.

Layout of a demo (a fresh temporary directory, or `--dir PATH`):

    <base>/tinyshop/            the main checkout (a real git repo with `hall init` done)
    <base>/tinyshop-H-0001/     each item's worktree (the default `worktree` template)
    <base>/remote.git/          a local bare "origin", so shipping is a real push
    <base>/data/                HALLMARK_DATA_DIR for the demo: its repo registry and daemon state
    <base>/standin-scenario.json  what the stand-in model says in each run
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hallmark.core import atomic, git
from hallmark.core.config_raw import DEFAULTS
from hallmark.core.errors import HallError
from hallmark.core.repo import Repo, open_repo
from hallmark.core.setup_results import Initialized

from . import project, scenario

PROJECT = "tinyshop"
STANDIN = "hall-standin-claude"
SCRUB = (
    "HALL_CLAUDE",
    "HALL_ACTOR",
    "HALL_ITEM",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "HALL_STANDIN_PACE",
    "HALLMARK_FIXED_NOW",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "CLAUDE_PROJECT_DIR",
    "AGENTMEMORY_PROJECT_NAME",
)


@dataclass
class Demo:
    base: Path
    created_base: bool
    ids: dict[str, str] = field(default_factory=dict)  # story key -> item id
    own_config: Path | None = None  # the person's TUI config (theme, keymap), copied into the demo
    started: float = field(default_factory=time.monotonic)

    @property
    def root(self) -> Path:
        return self.base / PROJECT

    @property
    def data_dir(self) -> Path:
        return self.base / "data"

    @property
    def remote(self) -> Path:
        return self.base / "remote.git"

    @property
    def script_path(self) -> Path:
        return self.base / "standin-scenario.json"

    def repo(self) -> Repo:
        return open_repo(self.root)


# -- where ---------------------------------------------------------------------------------------


def create(where: str | os.PathLike[str] | None = None) -> Demo:
    """A fresh base directory: a new temporary one, or PATH (which must be absent or empty)."""
    if shutil.which("git") is None:
        raise HallError("COMMAND_FAILED", "The demo needs git on PATH.", ["install git, then: hall demo"])
    from hallmark.core.paths import user_data_dir

    own = user_data_dir() / "config.toml"
    own_config = own if own.is_file() else None
    if where is None:
        return Demo(Path(tempfile.mkdtemp(prefix="hallmark-demo-")).resolve(), created_base=True, own_config=own_config)
    base = Path(where).expanduser().resolve()
    if base.exists() and not base.is_dir():
        raise HallError(
            "USAGE", f"--dir {base} is a file; give a new or empty directory.", ["hall demo --dir <new dir>"]
        )
    if base.is_dir() and any(base.iterdir()):
        raise HallError(
            "USAGE",
            f"--dir {base} is not empty; the demo writes a whole repository there.",
            ["hall demo --dir <new dir>", "hall demo (a temporary directory)"],
        )
    created = not base.exists()
    base.mkdir(parents=True, exist_ok=True)
    return Demo(base, created_base=created, own_config=own_config)


def remove(demo: Demo) -> None:
    """Remove what the demo wrote (the base itself when the demo made it)."""
    if demo.created_base:
        shutil.rmtree(demo.base, ignore_errors=True)
        return
    for child in list(demo.base.iterdir()):
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def tool_dirs() -> list[str]:
    """Where `hall` and `hall-standin-claude` live: beside this Python first, then PATH."""
    dirs = [str(Path(sys.executable).parent)]
    for name in ("hall", STANDIN):
        found = shutil.which(name)
        if found and str(Path(found).parent) not in dirs:
            dirs.append(str(Path(found).parent))
    return dirs


def standin_path() -> str:
    for folder in tool_dirs():
        candidate = Path(folder) / STANDIN
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise HallError(
        "RUN_FAILED",
        f"The stand-in model `{STANDIN}` is not installed beside `hall`.",
        ["pip install -e .", f"which {STANDIN}"],
    )


@contextlib.contextmanager
def demo_env(demo: Demo) -> Iterator[None]:
    """The process environment of a demo: its own data dir and scenario, `hall` on PATH, and nothing
    of a Claude Code session or a pinned clock leaking in. Restored afterwards."""
    saved = dict(os.environ)
    try:
        for name in SCRUB:
            os.environ.pop(name, None)
        os.environ["HALLMARK_DATA_DIR"] = str(demo.data_dir)
        os.environ["HALL_STANDIN_SCRIPT"] = str(demo.script_path)
        os.environ["PATH"] = os.pathsep.join([*tool_dirs(), saved.get("PATH", "")])
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _git(cwd: Path, *args: str) -> str:
    return git.run(list(args), cwd).stdout.strip()


# -- the project ---------------------------------------------------------------------------------


def write_project(demo: Demo) -> None:
    """The project's first commit, a local bare origin, and the person's own user config copied in."""
    root = demo.root
    root.mkdir(parents=True)
    demo.data_dir.mkdir(parents=True, exist_ok=True)
    hooks = demo.base / "data" / "no-git-hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q")
    _git(root, "symbolic-ref", "HEAD", "refs/heads/main")
    for key, value in (
        ("user.name", "hall demo"),
        ("user.email", "demo@hallmark.invalid"),
        ("commit.gpgsign", "false"),
        ("tag.gpgsign", "false"),
        ("core.hooksPath", str(hooks)),
    ):
        _git(root, "config", key, value)
    for rel, text in project.files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "tinyshop: a cart that prices in integer cents")
    _git(demo.base, "init", "-q", "--bare", str(demo.remote))
    _git(root, "remote", "add", "origin", str(demo.remote))
    _git(root, "push", "-q", "-u", "origin", "main")
    if demo.own_config is not None:  # the person's theme and keymap apply in the demo's app too
        with contextlib.suppress(OSError):
            shutil.copyfile(demo.own_config, demo.data_dir / "config.toml")


def config_text(standin: str) -> str:
    return (
        "# Written by `hall demo`: a throwaway repository. Its review loop runs Hallmark's stand-in model\n"
        f"# ({STANDIN}): no Claude runs here and nothing costs anything. Nothing outside this demo uses it.\n"
        'base = "main"\n'
        f"gates = {json.dumps([scenario.TEST_COMMAND])}\n"
        f"max_rejects = {DEFAULTS['max_rejects']}\n"
        f"max_check_failures = {DEFAULTS['max_check_failures']}\n"
        "# origin is a local bare repository beside this one, so shipping is a real push with no PR.\n"
        'ship = "git push -q -u origin {branch}"\n'
        "\n[capture]\n"
        f"mode = {json.dumps(DEFAULTS['capture']['mode'])}\n"
        f"free = {json.dumps(DEFAULTS['capture']['free'])}\n"
        f"push_guard = {json.dumps(DEFAULTS['capture']['push_guard'])}\n"
        "\n[runner]\n"
        f"claude = {json.dumps(standin)}\n"
        'timeout = "5m"\n'
        "\n# your config.toml is copied in for the app's theme and keys; its notifications stay off here\n"
        "[notify]\nenabled = false\n"
    )


def init_repo(demo: Demo) -> Initialized:
    """`hall init` (the core call), the demo's config, committed and pushed like a person would."""
    from hallmark.core import setup_repo

    result = setup_repo.init(demo.root)
    atomic.write_text(demo.root / ".hallmark.toml", config_text(standin_path()))
    _git(demo.root, "add", "-A")
    _git(demo.root, "commit", "-q", "-m", "hall init (the stand-in model runs the demo's loop)")
    # the person publishes the base themselves: main is not an item's hallmarked work, so Hallmark's
    # pre-push hook (installed by init just now) would refuse it; --no-verify is the person's override
    _git(demo.root, "push", "-q", "--no-verify", "origin", "main")
    return result


def write_script(demo: Demo, pace: float) -> None:
    atomic.write_json(demo.script_path, scenario.script(demo.ids, pace))


def set_pace(demo: Demo, pace: float) -> None:
    """How fast the stand-in streams from its next run on (the scenario file is read per run)."""
    data = atomic.read_json(demo.script_path, {}) or {}
    data["pace"] = pace
    atomic.write_json(demo.script_path, data)
