"""npm, pnpm, yarn and bun: which package.json scripts a command runs (the named one with its pre
and post scripts, or a lifecycle's), read from the package the command runs in."""

from __future__ import annotations

import json
import os
from typing import Any

from .steps import Step, find_up, join, mentions, read_capped, unreadable

LIFECYCLE = {
    "test": ["pretest", "test", "posttest"],
    "t": ["pretest", "test", "posttest"],
    "tst": ["pretest", "test", "posttest"],
    "start": ["prestart", "start", "poststart"],
    "stop": ["prestop", "stop", "poststop"],
    "restart": ["prerestart", "restart", "postrestart"],
    "version": ["preversion", "version", "postversion"],
    "publish": ["prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"],
    "pack": ["prepack", "prepare", "postpack"],
    "install": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
    "i": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
    "ci": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
}
RUN_WORDS = frozenset({"run", "run-script", "rum", "urn"})
PM_WITH_VALUE = frozenset({"--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter", "-F"})


def _options(args: list[str | None], cwd: str | None) -> tuple[str | None, bool, list[str | None]]:
    """(the package's directory, whether an option named it, the words after the options)."""
    directory = cwd
    given = False  # --prefix/--dir/--cwd name the package's own directory: no search upwards
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None or not arg.startswith("-"):
            break
        if arg in ("--prefix", "-C", "--dir", "--cwd") and i + 1 < len(args):
            directory = join(directory, args[i + 1])
            given = True
            i += 2
            continue
        if arg.startswith(("--prefix=", "--dir=", "--cwd=")):
            directory = join(directory, arg.split("=", 1)[1])
            given = True
        elif arg in PM_WITH_VALUE:
            i += 1
        i += 1
    return directory, given, args[i:]


def _scripts(path: str) -> dict[str, Any]:
    """package.json's scripts; ValueError (or OSError) when the file or the field is not usable."""
    data = json.loads(read_capped(path))
    scripts = data.get("scripts", {}) if isinstance(data, dict) else None
    if scripts is None:
        return {}
    if not isinstance(scripts, dict):
        raise ValueError("its scripts field is not an object")
    return scripts


def _script_names(name: str, script: str, explicit: bool, scripts: dict[str, Any]) -> list[str] | None:
    """The scripts that run, in order; [] when the command runs none of ours, None for bun's
    interpreter path (`bun file.ts`, `bun run file.ts`)."""
    if explicit or (name != "npm" and script in scripts):
        if name == "bun" and explicit and script not in scripts:
            return None  # `bun run file.ts`
        return [f"pre{script}", script, f"post{script}"]
    if script in LIFECYCLE and name != "bun":
        return LIFECYCLE[script]
    if name == "bun":
        return None  # `bun file.ts`: the interpreter path
    return []  # a package-manager command that runs no script of ours


def package_plan(name: str, args: list[str | None], cwd: str | None) -> list[Step] | None:
    directory, given, rest = _options(args, cwd)
    if not rest:
        if name != "yarn":
            return []
        rest = ["install"]  # bare yarn installs
    sub = rest[0]
    explicit = sub in RUN_WORDS
    script = (rest[1] if len(rest) > 1 else "") if explicit else sub
    if explicit and script == "":
        return []  # `npm run` alone lists the scripts
    if directory is None:
        return [Step("strict", f"{name} runs in a directory we cannot compute")]
    path = find_up(directory, ("package.json",)) if not given else os.path.join(directory, "package.json")
    if path is None or not os.path.exists(path):
        return [] if name != "bun" else None
    label_file = os.path.relpath(path, directory) if path.startswith(directory) else path
    try:
        scripts = _scripts(path)
    except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
        if name == "bun" and not explicit and script not in LIFECYCLE:
            return None
        return [unreadable(label_file, error)]
    if script is None:
        if mentions(" ".join(str(v) for v in scripts.values())):
            return [Step("strict", f"{name} runs a computed script, and {label_file} mentions push or release")]
        return []
    names = _script_names(name, script, explicit, scripts)
    if names is None:
        return None
    run_in = os.path.dirname(path)
    steps = []
    for key in names:
        body = scripts.get(key)
        if body is None:
            continue
        if not isinstance(body, str):
            steps.append(Step("strict", f"{label_file} script {key} is not a string"))
            continue
        steps.append(Step("run", f"{label_file} script {key}", body, run_in))
    return steps
