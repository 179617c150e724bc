"""`hall setup claude`: install the Claude Code plugin for this user, atomically.

Claude Code loads user-level plugins from a registered marketplace, so Hallmark installs a
one-plugin local marketplace under `<CLAUDE_CONFIG_DIR or ~/.claude>/hallmark/`:

    hallmark/releases/<stamp>/.claude-plugin/marketplace.json   {"name": "hallmark-local", …}
    hallmark/releases/<stamp>/plugin/…                          the plugin, hooks.json with the
                                                                absolute path of hall-hook
    hallmark/current -> releases/<stamp>                         swapped in one rename

Where the real `claude` is on PATH it then takes the documented route (core/plugin_cli.py):
`claude plugin marketplace add <root>/current`, `claude plugin install hallmark@hallmark-local`
(or `plugin update` on a re-run: Claude Code keeps the version it installed until then), and
confirms with `claude plugin list --json`. Without it, the fallback registers the marketplace once in
the user's `settings.json` (`extraKnownMarketplaces["hallmark-local"]` pointing at
`hallmark/current`, `enabledPlugins["hallmark@hallmark-local"] = true`), which Claude Code also
loads (tried with 2.1.332: the init line lists the plugin) but `claude plugin list` does not show.

A new release is staged and every file validated before the symlink swap; a failure leaves the
previous release active. Stdlib only except the schema generation (pydantic), which runs at
install time, never on the hook path.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from . import atomic, clock
from .claude_code import find_claude
from .errors import HallError
from .setup_results import PluginInstalled, StatusLineSet

MARKETPLACE = "hallmark-local"
PLUGIN = "hallmark"
PLUGIN_ID = f"{PLUGIN}@{MARKETPLACE}"
KEEP_RELEASES = 3
HOOK_EVENTS = (
    "session-start",
    "user-prompt-submit",
    "pre-tool-use",
    "post-tool-use",
    "post-tool-use-failure",
    "stop",
    "notification",
)


def claude_config_dir() -> Path:
    override = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(override).expanduser() if override else Path.home() / ".claude"


def install_root() -> Path:
    return claude_config_dir() / "hallmark"


def settings_path() -> Path:
    return claude_config_dir() / "settings.json"


def package_plugin_dir() -> Path:
    import hallmark.plugin

    for entry in hallmark.plugin.__path__:
        path = Path(entry)
        if (path / ".claude-plugin" / "plugin.json").is_file():
            return path
    raise HallError("INTERNAL", "The plugin files are missing from the installed package.", ["reinstall hallmark"])


def hook_binary() -> str:
    """The absolute path of hall-hook: beside this interpreter, else on PATH."""
    name = "hall-hook.exe" if sys.platform == "win32" else "hall-hook"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which("hall-hook")
    if found:
        return str(Path(found).absolute())
    raise HallError("INTERNAL", "hall-hook is not installed beside hall.", ["pip install --force-reinstall hallmark"])


def _quote(path: str) -> str:
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"' if re.search(r"[^\w@%+=:,./-]", path) else path


# -- schemas --------------------------------------------------------------------------------


def schemas() -> dict[str, dict[str, Any]]:
    """Draft-07 JSON Schema generated from the pydantic models (error, event, config, hallmark note, verdict)."""
    from .config import Config
    from .draft7 import to_draft7
    from .events import ErrorReply, event_schema
    from .loop.verdict import schema as verdict_schema

    error = ErrorReply.model_json_schema()
    return {
        name: to_draft7(schema)
        for name, schema in {
            "error.json": error,
            "event.json": event_schema(),
            "config.json": Config.model_json_schema(),
            "hallmark-note.json": hallmark_note_schema(),
            "verdict.json": verdict_schema(),
        }.items()
    }


def hallmark_note_schema() -> dict[str, Any]:
    from pydantic import BaseModel, ConfigDict, Field

    class HallmarkNote(BaseModel):
        """The note under refs/notes/hallmark on an approved commit (version 1)."""

        model_config = ConfigDict(extra="allow")
        v: int = Field(1, description="always 1")
        item: str = Field(description="the item, H-0042")
        sha: str = Field(description="the approved commit: HEAD itself when the push gate checks it")
        round: int = Field(description="the review round that approved it")
        model: str = Field(description="the reviewer's model")
        open_findings: list[Any] = Field(default_factory=list, description="findings still open (minor ones)")
        actor: str = Field("assayer", description="assayer, or you for a person's verdict (hall verdict)")
        run: str | None = Field(None, description="the review run whose verdict struck it (None for a person's)")
        standin: bool = Field(False, description="the stand-in model ran that review: no model reviewed it")

    return HallmarkNote.model_json_schema()


def write_schemas(directory: Path) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        atomic.write_json(directory / name, schema)
        written.append(name)
    return written


# -- staging and validation -------------------------------------------------------------------


def render_hooks(template: dict[str, Any], binary: str) -> dict[str, Any]:
    """hooks.json with every `hall-hook <event>` command pointing at the absolute binary."""
    data = json.loads(json.dumps(template))
    for groups in data.get("hooks", {}).values():
        for group in groups:
            for handler in group.get("hooks", []):
                command = handler.get("command", "")
                if command.startswith("hall-hook "):
                    handler["command"] = f"{_quote(binary)} {command.split(' ', 1)[1]}"
    return data


def stage(release: Path, binary: str, stamp: str) -> list[str]:
    """Write a complete marketplace + plugin into release; returns the files written."""
    source = package_plugin_dir()
    plugin = release / "plugin"
    shutil.copytree(source, plugin, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "__init__.py"))
    hooks_file = plugin / "hooks" / "hooks.json"
    hooks_file.write_text(
        json.dumps(render_hooks(json.loads(hooks_file.read_text(encoding="utf-8")), binary), indent=2) + "\n",
        encoding="utf-8",
    )
    manifest_file = plugin / ".claude-plugin" / "plugin.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    manifest["version"] = f"{manifest.get('version', '0.0.0')}+{stamp}"
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    write_schemas(plugin / "schemas")
    market = {
        "name": MARKETPLACE,
        "owner": {"name": "Hallmark (local install by hall setup claude)"},
        "plugins": [{"name": PLUGIN, "source": "./plugin", "description": manifest.get("description", "")}],
    }
    (release / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (release / ".claude-plugin" / "marketplace.json").write_text(json.dumps(market, indent=2) + "\n", encoding="utf-8")
    return sorted(str(p.relative_to(release)) for p in release.rglob("*") if p.is_file())


def validate(release: Path) -> list[str]:
    """Every problem with a staged release (empty when it is good to swap in)."""
    problems: list[str] = []
    for path in sorted(release.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(release)
        if path.suffix == ".json":
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                problems.append(f"{rel}: not valid JSON ({exc})")
        elif path.suffix == ".md" and ("skills" in rel.parts or "agents" in rel.parts):
            text = path.read_text(encoding="utf-8", errors="replace")
            if not text.startswith("---\n") or "\n---" not in text[4:]:
                problems.append(f"{rel}: no YAML frontmatter")
            elif "skills" in rel.parts and "description:" not in text.split("\n---", 2)[0]:
                problems.append(f"{rel}: the skill has no description")
    market = release / ".claude-plugin" / "marketplace.json"
    manifest = release / "plugin" / ".claude-plugin" / "plugin.json"
    hooks_file = release / "plugin" / "hooks" / "hooks.json"
    needed = (market, manifest, hooks_file, release / "plugin" / "skills" / "hallmark" / "SKILL.md")
    problems += [f"{path.relative_to(release)}: missing" for path in needed if not path.is_file()]
    if problems:
        return problems
    if json.loads(manifest.read_text(encoding="utf-8")).get("name") != PLUGIN:
        problems.append("plugin.json: name is not hallmark")
    problems += hooks_problems(json.loads(hooks_file.read_text(encoding="utf-8")))
    return problems


def hooks_problems(data: dict[str, Any]) -> list[str]:
    problems = []
    events = set()
    for event_name, groups in (data.get("hooks") or {}).items():
        for group in groups:
            for handler in group.get("hooks", []):
                command = handler.get("command", "")
                binary, _, rest = _split_command(command)
                events.add(rest.strip())
                if not os.path.isabs(binary):
                    problems.append(f"hooks.json {event_name}: {binary!r} is not an absolute path")
                elif not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
                    problems.append(f"hooks.json {event_name}: {binary} is not an executable file")
    problems += [
        f"hooks.json: no {needed} hook" for needed in ("pre-tool-use", "session-start") if needed not in events
    ]
    return problems


def _split_command(command: str) -> tuple[str, str, str]:
    if command.startswith('"'):
        end = 1
        while end < len(command) and command[end] != '"':
            end += 2 if command[end] == "\\" else 1
        binary = command[1:end].replace('\\"', '"').replace("\\\\", "\\")
        return binary, " ", command[end + 1 :]
    return command.partition(" ")


# -- install ----------------------------------------------------------------------------------


def _swap(root: Path, release: Path) -> None:
    link = root / "current"
    tmp = root / f".current.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(os.path.relpath(release, root), tmp)
    os.replace(tmp, link)


def _register(settings: Path, marketplace_path: Path, *, write: bool = True) -> bool:
    """Add the marketplace and enable the plugin in settings.json; True when it changed.

    With write=False it only checks the file can be updated (called before the swap, so a bad
    settings.json leaves the previous release in place)."""
    try:
        text = settings.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise HallError(
            "COMMAND_FAILED",
            f"{settings} is not valid JSON ({exc}); nothing was changed.",
            [f"fix {settings}", "hall setup claude"],
        ) from exc
    if not isinstance(data, dict):
        raise HallError("COMMAND_FAILED", f"{settings} is not a JSON object; nothing was changed.", [f"fix {settings}"])
    wanted_market = {"source": {"source": "directory", "path": str(marketplace_path)}}
    markets = data.setdefault("extraKnownMarketplaces", {})
    enabled = data.setdefault("enabledPlugins", {})
    if not isinstance(markets, dict) or not isinstance(enabled, dict):
        raise HallError(
            "COMMAND_FAILED", f"{settings}: extraKnownMarketplaces/enabledPlugins are not objects.", [f"fix {settings}"]
        )
    if markets.get(MARKETPLACE) == wanted_market and enabled.get(PLUGIN_ID) is True:
        return False
    if not write:
        return True
    markets[MARKETPLACE] = wanted_market
    enabled[PLUGIN_ID] = True
    atomic.write_text(settings, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return True


def _prune(root: Path, keep: Path) -> None:
    releases = sorted((root / "releases").iterdir()) if (root / "releases").is_dir() else []
    for old in releases[:-KEEP_RELEASES]:
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)


def install(*, dry_run: bool = False, sandbox_at: Path | None = None, statusline: bool = False) -> PluginInstalled:
    """`hall setup claude`: stage, validate and (unless a dry run) make current the plugin release;
    with sandbox_at, then write the sandbox profile for the repos (core/sandbox_profile.py); with
    statusline, Hallmark's status line where the user has none."""
    fields = _install_plugin(dry_run)
    if not dry_run:
        from .bytecode import setup_step

        setup_step()  # the package's bytecode, for hooks under PYTHONDONTWRITEBYTECODE
    if sandbox_at is not None:
        from . import sandbox_profile

        fields["sandbox"] = sandbox_profile.install(sandbox_at, dry_run=dry_run)
    if statusline:
        fields["statusline"] = install_statusline(dry_run=dry_run)
    return PluginInstalled(**fields)


def statusline_command() -> str:
    """`<hall-hook> statusline`: the same line as `hall statusline`, without the CLI's imports."""
    return f"{_quote(hook_binary())} statusline"


def install_statusline(*, dry_run: bool = False) -> StatusLineSet:
    """Set statusLine in the user's settings.json to Hallmark's, unless one is set (never replaced:
    the reply names it, and the person decides)."""
    settings = settings_path()
    try:
        text = settings.read_text(encoding="utf-8")
        data = json.loads(text) if text.strip() else {}
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError) as exc:
        raise HallError(
            "COMMAND_FAILED", f"{settings} is not valid JSON ({exc}); nothing was changed.", [f"fix {settings}"]
        ) from exc
    if not isinstance(data, dict):
        raise HallError("COMMAND_FAILED", f"{settings} is not a JSON object; nothing was changed.", [f"fix {settings}"])
    command = statusline_command()
    current = data.get("statusLine")
    existing = current.get("command") if isinstance(current, dict) else current
    if current is not None and existing != command:
        return StatusLineSet(
            settings=str(settings), command=command, installed=False, existing=str(existing), dry_run=dry_run
        )
    if current is None and not dry_run:
        data["statusLine"] = {"type": "command", "command": command, "padding": 0}
        settings.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(settings, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return StatusLineSet(
        settings=str(settings),
        command=command,
        installed=current is None and not dry_run,
        existing=None,
        dry_run=dry_run,
    )


def _install_plugin(dry_run: bool) -> dict[str, Any]:
    root = install_root()
    binary = hook_binary()
    stamp = clock.now().strftime("%Y%m%dT%H%M%S%fZ")
    staging_parent = root / "releases" if not dry_run else Path(_tempdir())
    staging_parent.mkdir(parents=True, exist_ok=True)
    release = staging_parent / stamp
    previous = _current_release(root)
    try:
        try:
            files = stage(release, binary, stamp)
        except (OSError, ValueError) as exc:
            raise HallError(
                "COMMAND_FAILED",
                f"Staging the plugin failed; the installed one is unchanged: {exc}",
                ["hall doctor", "reinstall hallmark"],
            ) from exc
        problems = validate(release)
        if problems:
            raise HallError(
                "COMMAND_FAILED",
                "The staged plugin is invalid; the installed one is unchanged: " + "; ".join(problems[:10]),
                ["hall doctor", "reinstall hallmark"],
            )
        result: dict[str, Any] = {
            "dry_run": dry_run,
            "install_root": str(root),
            "release": str(release),
            "hook": binary,
            "files": files,
            "previous": str(previous) if previous else None,
            "settings": str(settings_path()),
        }
        claude = find_claude()
        version = json.loads((release / "plugin" / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))[
            "version"
        ]
        result["route"] = "claude" if claude else "settings"
        result["version"] = version
        if claude:
            from .plugin_cli import plan, run_claude

            checked = run_claude(claude, "plugin", "validate", str(release / "plugin"))
            if checked["exit_code"] != 0:
                raise HallError(
                    "COMMAND_FAILED",
                    "Claude Code refuses the staged plugin; the installed one is "
                    f"unchanged: {checked['output'][-800:]}",
                    ["hall doctor", "reinstall hallmark"],
                )
            steps = plan(claude, root / "current", MARKETPLACE, PLUGIN_ID)
            result["claude"] = claude[0]
            result["would_run" if dry_run else "ran"] = [[*claude, *s] for s in steps]
        if dry_run:
            if not claude:
                result["would_register"] = _would_register(settings_path(), root / "current")
            return result
        if not claude:
            _register(settings_path(), root / "current", write=False)
        _swap(root, release)
        if claude:
            from .plugin_cli import apply

            try:
                result["ran"] = apply(claude, steps, PLUGIN_ID, version)
            except HallError:
                if previous is not None:  # Claude Code did not take it: the previous release stays active
                    _swap(root, previous)
                else:
                    (root / "current").unlink(missing_ok=True)
                raise
        else:
            result["settings_changed"] = _register(settings_path(), root / "current")
        _prune(root, release)
        return result
    except BaseException:
        if not dry_run:
            shutil.rmtree(release, ignore_errors=True)
        raise
    finally:
        if dry_run:
            shutil.rmtree(staging_parent, ignore_errors=True)


def _tempdir() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="hallmark-plugin-")


def _would_register(settings: Path, target: Path) -> bool:
    try:
        data = json.loads(settings.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    market = (data.get("extraKnownMarketplaces") or {}).get(MARKETPLACE) if isinstance(data, dict) else None
    enabled = (data.get("enabledPlugins") or {}).get(PLUGIN_ID) if isinstance(data, dict) else None
    return not (market == {"source": {"source": "directory", "path": str(target)}} and enabled is True)


def _current_release(root: Path) -> Path | None:
    link = root / "current"
    if not link.exists():
        return None
    return Path(os.path.realpath(link))


def installed_status() -> dict[str, Any]:
    """For `hall doctor`: is the plugin installed, registered, and are its hooks runnable?"""
    root = install_root()
    current = _current_release(root)
    if current is None:
        return {"ok": False, "detail": f"the Claude Code plugin is not installed ({root / 'current'} is missing)"}
    hooks_file = current / "plugin" / "hooks" / "hooks.json"
    try:
        problems = hooks_problems(json.loads(hooks_file.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        return {"ok": False, "detail": f"{hooks_file} cannot be read: {exc}"}
    if problems:
        return {"ok": False, "detail": "; ".join(problems[:5])}
    settings = settings_path()
    if _would_register(settings, root / "current"):
        return {"ok": False, "detail": f"the plugin is installed but not enabled in {settings}"}
    return {
        "ok": True,
        "detail": f"{PLUGIN_ID} installed at {current}, hooks run {_split_command(_first_command(hooks_file))[0]}",
    }


def _first_command(hooks_file: Path) -> str:
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    for groups in data.get("hooks", {}).values():
        for group in groups:
            for handler in group.get("hooks", []):
                return handler.get("command", "")
    return ""


if __name__ == "__main__":  # regenerate plugin/schemas/ after a model changes
    print(write_schemas(package_plugin_dir() / "schemas"))
