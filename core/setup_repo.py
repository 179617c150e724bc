"""`hall init`: the state directory, a detected .hallmark.toml, the CLAUDE.md section, registration."""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import atomic, clock, git, journal
from .config_raw import CONFIG_NAME, DEFAULTS
from .errors import HallError
from .paths import RepoPaths, discover, user_data_dir
from .setup_results import Initialized, PrePushInstall, SetupWarning, SigningSetup

CLAUDE_START = "<!-- hallmark:start -->"
CLAUDE_END = "<!-- hallmark:end -->"

CLAUDE_SECTION = f"""{CLAUDE_START}
## Hallmark

This repository uses Hallmark. Every piece of work is an item with its own branch and worktree.

- Start work: `hall new --title "…"` (or `hall adopt` on an existing branch), then work in the worktree it prints.
- When the work is done and committed: `hall propose-ready --summary "…"` (a person confirms) or `hall ready`.
- Where things stand: `hall status`, `hall inbox`, `hall log`.
- Edits outside an item's worktree and pushes without a hallmark are denied by the gates; never work around them.
- Every `hall` command prints JSON with a `next` list; follow it.
{CLAUDE_END}
"""


def detect_gates(root: Path) -> list[str]:
    gates: list[str] = []
    package = root / "package.json"
    if package.is_file():
        try:
            scripts = json.loads(package.read_text(encoding="utf-8")).get("scripts", {}) or {}
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            scripts = {}
        runner = "npm run"
        if (root / "pnpm-lock.yaml").exists():
            runner = "pnpm run"
        elif (root / "yarn.lock").exists():
            runner = "yarn"
        elif (root / "bun.lockb").exists() or (root / "bun.lock").exists():
            runner = "bun run"
        gates += [
            "npm test" if (name == "test" and runner == "npm run") else f"{runner} {name}"
            for name in ("lint", "typecheck", "build", "test")
            if name in scripts
        ]
    if (root / "Cargo.toml").is_file():
        gates += ["cargo test", "cargo clippy"]
        if (root / "rustfmt.toml").is_file() or (root / ".rustfmt.toml").is_file():
            gates.append("cargo fmt --check")
    if (root / "go.mod").is_file():
        gates += ["go test ./...", "go vet ./..."]
        if any(
            (root / name).is_file() for name in (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
        ):
            gates.append("golangci-lint run")
    gates += python_checkers(root)
    if _uses_pytest(root):
        gates.append("pytest")
    makefile = next((p for p in (root / "GNUmakefile", root / "Makefile", root / "makefile") if p.is_file()), None)
    if makefile:
        targets = re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", _read(makefile), re.M)
        gates += [f"make {t}" for t in _ordered_checks(targets)]
    justfile = next((p for p in (root / "justfile", root / "Justfile", root / ".justfile") if p.is_file()), None)
    if justfile:
        recipes = re.findall(r"^@?([A-Za-z][\w-]*)(?:\s+[^:=\n]*)?:(?!=)", _read(justfile), re.M)
        gates += [f"just {r}" for r in _ordered_checks(recipes)]
    return gates


def python_checkers(root: Path) -> list[str]:
    """Linters, formatters and type checkers the project configures: pre-commit (and then only
    what its hooks do not already run), ruff, black, flake8, mypy, pyright."""
    pyproject = _read(root / "pyproject.toml")
    setup_cfg = _read(root / "setup.cfg")
    tox_ini = _read(root / "tox.ini")
    precommit = next(
        (p for p in (root / ".pre-commit-config.yaml", root / ".pre-commit-config.yml") if p.is_file()), None
    )
    hooks = set(re.findall(r"^\s*-?\s*id:\s*([\w.-]+)", _read(precommit), re.M)) if precommit else set()
    found: list[str] = ["pre-commit run --all-files"] if precommit else []

    def add(command: str, *hook_ids: str) -> None:
        if not hooks.intersection(hook_ids):
            found.append(command)

    if "[tool.ruff" in pyproject or (root / "ruff.toml").is_file() or (root / ".ruff.toml").is_file():
        add("ruff check .", "ruff", "ruff-check")
    if "[tool.black]" in pyproject:
        add("black --check .", "black")
    if (root / ".flake8").is_file() or "[flake8]" in setup_cfg or "[flake8]" in tox_ini:
        add("flake8", "flake8")
    mypy_files = re.search(
        r"^\s*files\s*=",
        _section(pyproject, "[tool.mypy]")
        + _section(setup_cfg, "[mypy]")
        + _read(root / "mypy.ini")
        + _read(root / ".mypy.ini"),
        re.M,
    )
    if (
        "[tool.mypy]" in pyproject
        or "[mypy]" in setup_cfg
        or (root / "mypy.ini").is_file()
        or (root / ".mypy.ini").is_file()
    ):
        add("mypy" if mypy_files else ("mypy src" if (root / "src").is_dir() else "mypy ."), "mypy")
    if "[tool.pyright]" in pyproject or (root / "pyrightconfig.json").is_file():
        add("pyright", "pyright")
    return found


def _section(text: str, header: str) -> str:
    """The body of one [section] of an INI or TOML text, up to the next header."""
    start = text.find(header)
    if start == -1:
        return ""
    rest = text[start + len(header) :]
    end = re.search(r"^\[", rest, re.M)
    return rest[: end.start()] if end else rest


# Makefile targets and just recipes that check the code (never install, deploy, clean, release…).
CHECK_TARGETS = ("lint", "typecheck", "type-check", "vet", "check", "build", "test", "tests")


def _ordered_checks(names: list[str]) -> list[str]:
    seen = dict.fromkeys(n for n in names if n in CHECK_TARGETS)
    return sorted(seen, key=CHECK_TARGETS.index)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _uses_pytest(root: Path) -> bool:
    """pytest is configured, declared, or there are test_*.py files where pytest looks for them."""
    if (root / "pytest.ini").is_file() or (root / "conftest.py").is_file():
        return True
    if "[tool:pytest]" in _read(root / "setup.cfg") or "[pytest]" in _read(root / "tox.ini"):
        return True
    pyproject = _read(root / "pyproject.toml")
    if re.search(r"\[tool\.pytest|[\"']pytest\b", pyproject):
        return True
    tests = root / "tests"
    return (root / "pyproject.toml").is_file() and tests.is_dir() and any(tests.glob("test_*.py"))


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def render_config(base: str, gates: list[str], capture: str, setup: str = "") -> str:
    worktree = (
        "\n[worktree]\n# the project's install, run once in each checkout the gates or the fixer use "
        f"(detected from its lockfile)\nsetup = {json.dumps(setup)}\n"
        if setup
        else ""
    )
    return (
        "# Hallmark's configuration. Every key has a default; see `hall schema config`.\n"
        "# Read from the main checkout only, so an item cannot loosen its own gates.\n"
        f"base = {json.dumps(base)}\n"
        f"gates = {_toml_list(gates)}\n"
        f"max_rejects = {DEFAULTS['max_rejects']}\n"
        f"max_check_failures = {DEFAULTS['max_check_failures']}\n"
        "\n[capture]\n"
        f"mode = {json.dumps(capture)}\n"
        f"free = {_toml_list(DEFAULTS['capture']['free'])}\n"
        f"push_guard = {json.dumps(DEFAULTS['capture']['push_guard'])}\n" + worktree
    )


def write_claude_section(root: Path) -> str:
    """Insert or replace only the marked section of CLAUDE.md. Returns what it did."""
    from .bounded_read import PERSON_FILE_LIMIT, Refused, read_text

    path = root / "CLAUDE.md"
    try:
        text = read_text(path, PERSON_FILE_LIMIT)  # a regular file only: never a FIFO or /dev/zero
    except FileNotFoundError:
        atomic.write_text(path, CLAUDE_SECTION)
        return "created"
    except Refused as exc:
        raise HallError(
            "WRONG_STATE", f"{path} {exc.reason}; nothing was written to it.", ["hall init --no-claude-md"]
        ) from None
    start, end = text.find(CLAUDE_START), text.find(CLAUDE_END)
    if start != -1 and end != -1 and end > start:
        updated = text[:start] + CLAUDE_SECTION.rstrip("\n") + text[end + len(CLAUDE_END) :]
        if updated == text:
            return "unchanged"
        atomic.write_text(path, updated)
        return "replaced"
    sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    atomic.write_text(path, text + sep + CLAUDE_SECTION)
    return "appended"


def registry_path() -> Path:
    return user_data_dir() / "repos.json"


def register(root: Path) -> None:
    path = registry_path()
    with journal.locked(path):
        data = atomic.read_json(path, {}) or {}
        repos = data.setdefault("repos", {})
        repos[str(root)] = {"registered": repos.get(str(root), {}).get("registered", clock.stamp())}
        atomic.write_json(path, data)


def registered_repos() -> list[Path]:
    data = atomic.read_json(registry_path(), {}) or {}
    return [Path(p) for p in (data.get("repos") or {})]


def init(start: Path, *, capture: str = "gate", base: str | None = None, claude_md: bool = True) -> Initialized:
    paths: RepoPaths = discover(start)  # type: ignore[assignment]
    root = paths.main_checkout
    state = paths.state_dir
    created_state = not state.is_dir()
    for sub in ("items", "runs", "sessions", "queue", "checks-cache", "library"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    config_file = root / CONFIG_NAME
    gates = detect_gates(root)
    wrote_config = False
    if not config_file.exists():
        from .worktree_setup import detect as detect_setup

        atomic.write_text(
            config_file, render_config(base or git.default_base(root), gates, capture, detect_setup(root))
        )
        wrote_config = True
    claude = write_claude_section(root) if claude_md else "skipped"
    register(root)
    pre_push = install_pre_push(paths)
    compile_bytecode()
    if created_state:
        journal.append(paths.repo_journal, "initialized", item=None, actor="you", gates=gates)
    from .memory import identity as memory_identity

    project = memory_identity.write_proposal(paths)  # proposes .agentmemory-project; the person commits it
    return Initialized(
        signing=_signing(paths),
        repo=str(root),
        state_dir=str(state),
        config=str(config_file),
        config_written=wrote_config,
        gates=gates,
        warnings=tuple(setup_warnings(root)),
        claude_md=claude,
        initialized=created_state,
        project_identity=project,
        pre_push=pre_push,
        config_valid=_check_config(root),
    )


def _signing(paths: RepoPaths) -> SigningSetup | None:
    """This machine's hallmark key and its trust here (core/stamp_key.py); None where ssh-keygen
    cannot make one (`hall doctor` says so, and no hallmark can be struck until it can)."""
    from . import signing, stamp_key

    try:
        return stamp_key.set_up(paths)
    except (signing.SigningError, OSError):
        return None


def compile_bytecode() -> None:
    """The package's bytecode, so a hook under PYTHONDONTWRITEBYTECODE does not compile it on every
    call (core/bytecode.py); best effort, `hall doctor` names what is missing."""
    from .bytecode import setup_step

    setup_step()


def install_pre_push(paths: RepoPaths) -> PrePushInstall:
    """Git's own wall (core/githooks.py); init never fails over it: doctor names what is missing."""
    from . import githooks

    try:
        done = githooks.install(paths)
    except Exception as exc:  # noqa: BLE001 - reported, and `hall doctor` / `hall setup git` repair it
        return PrePushInstall(ok=False, detail=f"the pre-push hook was not installed: {exc}", next=["hall setup git"])
    return PrePushInstall(ok=done.ok, dirs=[d.dir for d in done.dirs], detail=done.detail)


def setup_warnings(root: Path) -> list[SetupWarning]:
    """What would make the loop test or treat the wrong files, found at init: an environment that
    imports the package from the main checkout (an editable install), and `[worktree] copy` paths
    git does not ignore."""
    from .worktree_copy import not_ignored
    from .worktree_env import init_warnings

    out: list[SetupWarning] = []
    try:
        from .config import load

        config = load(root)
    except Exception:  # noqa: BLE001 - a broken config is reported by the config check
        return out
    out += [
        SetupWarning(kind="worktree_code", text=warning["text"]) for warning in init_warnings(root, list(config.gates))
    ]
    for path in not_ignored(root, config.worktree_copy):
        out.append(
            SetupWarning(
                kind="worktree_copy",
                text=(
                    f"{path} is copied into every item's worktree ([worktree] copy) but git does not ignore it: add it to "
                    ".gitignore. Hallmark leaves the unchanged copy out of every dirtiness check and never commits it, "
                    "but your own git commands would see it."
                ),
            )
        )
    return out


def _check_config(root: Path) -> bool:
    """Validate the config once now (a full load remembers it), so read-only commands need not; a
    broken one is left for `hall doctor` and the commands that need it to name."""
    from .errors import HallError
    from .repo import open_repo

    try:
        open_repo(root).config  # noqa: B018 - loading it is the check
    except HallError:
        return False
    return True
