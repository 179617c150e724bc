"""just: the justfile grammar as far as the gate needs it (recipes, dependencies, aliases, what it
cannot follow) and the plan of a `just` command."""

from __future__ import annotations

import os
import re

from .steps import SHELL_NAMES, Step, find_up, follow, join, mentions, read_capped, unreadable

JUST_NAMES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[^:]*?)?)\s*:(?![=])\s*(.*)$")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*([A-Za-z_][A-Za-z0-9_-]*)\s*$")
# options and how many words each takes with it (itself included)
_SKIP = {
    "--set": 3,
    **dict.fromkeys(
        (
            "--shell",
            "--shell-arg",
            "--dotenv-filename",
            "--dotenv-path",
            "-E",
            "--color",
            "--chooser",
            "--list-heading",
            "--list-prefix",
            "--unstable",
            "--timestamp-format",
        ),
        2,
    ),
}
# options that make just list, show or edit instead of running a recipe
_RUNS_NOTHING = frozenset(
    {
        "-l",
        "--list",
        "--summary",
        "--show",
        "-s",
        "--evaluate",
        "--dump",
        "--variables",
        "--help",
        "-h",
        "--version",
        "-V",
        "--fmt",
        "--init",
        "--edit",
        "--completions",
        "--groups",
        "--changelog",
    }
)

Recipes = dict[str, tuple[bool, list[str], list[str]]]


def parse_justfile(text: str) -> tuple[Recipes, str | None, dict[str, str], list[str]]:
    """recipes: name -> (takes parameters, dependencies, body lines); the first recipe; aliases; opaque."""
    recipes: Recipes = {}
    aliases: dict[str, str] = {}
    opaque: list[str] = []
    first = None
    default_attr = False
    current: list[str] | None = None
    for line in text.replace("\r\n", "\n").split("\n"):
        if line[:1] in (" ", "\t") and current is not None:
            current.append(line.strip())
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if current is not None and not stripped:
                current.append("")
            continue
        current = None
        if stripped.startswith("["):
            default_attr = default_attr or "default" in stripped
            if re.search(r"\bscript\b", stripped):
                opaque.append(stripped)
            continue
        alias = _JUST_ALIAS.match(stripped)
        if alias:
            aliases[alias.group(1)] = alias.group(2)
            continue
        if stripped.split(None, 1)[0] in ("import", "mod", "import?", "mod?"):
            opaque.append(stripped)
            continue
        recipe = _JUST_RECIPE.match(stripped)
        if recipe and not stripped.startswith(("set ", "export ")):
            name, params, rest = recipe.groups()
            deps = [d for d in re.sub(r"[()]", " ", rest.replace("&&", " ")).split() if re.fullmatch(r"[\w-]+", d)]
            body: list[str] = []
            recipes[name] = (bool(params.strip()), deps, body)
            if first is None or default_attr:
                first = name
            default_attr = False
            current = body
    return recipes, first, aliases, opaque


def _just_args(args: list[str | None], cwd: str) -> tuple[str | None, str | None, list[str | None]] | list[Step]:
    """(--justfile, --working-directory, the recipe words) of a just command, or the plan when the
    options alone decide it (a computed justfile: strict; a listing: nothing runs)."""
    file: str | None = None
    workdir: str | None = None
    wanted: list[str | None] = []
    i = 0
    while i < len(args):
        arg = args[i]
        value = args[i + 1] if i + 1 < len(args) else None
        if arg in ("-f", "--justfile"):
            if value is None:
                return [Step("strict", "just reads a computed justfile")]
            file = join(cwd, value) if value else None
            i += 2
            continue
        if arg in ("-d", "--working-directory"):
            workdir = join(cwd, value) if value else None
            i += 2
            continue
        if arg in _SKIP:
            i += _SKIP[arg]
            continue
        if arg in _RUNS_NOTHING:
            return []
        if arg is not None and arg.startswith(("--justfile=", "--working-directory=")):
            key, _, val = arg.partition("=")
            if key == "--justfile":
                file = join(cwd, val)
            else:
                workdir = join(cwd, val)
        elif (arg is None or not arg.startswith("-")) and not (arg is not None and "=" in arg and not wanted):
            wanted.append(arg)  # (a leading var=value overrides a variable)
        i += 1
    return file, workdir, wanted


def _recipe_names(
    wanted: list[str | None], recipes: Recipes, aliases: dict[str, str], opaque: list[str], label_file: str
) -> list[str | None] | Step:
    """The recipes the command names (None: one we cannot follow), or a strict Step when the first is
    not in the file we can read and the unreadable part mentions push or release."""
    names: list[str | None] = []
    for index, word in enumerate(wanted):
        if word is None:
            names.append(None)
            break
        name = aliases.get(word, word)
        if name not in recipes:
            if index == 0 and "/" in name:
                names.append(None)  # `just sub/recipe`: a module we do not follow
            elif index == 0 and opaque and (mentions(name) or mentions(" ".join(opaque))):
                return Step(
                    "strict",
                    f"{label_file}: recipe {name} is not in the file we can read "
                    f"({opaque[0]}), and it mentions push or release",
                )
            break  # arguments of the recipe before it
        names.append(name)
        if recipes[name][0]:
            break  # the rest are its arguments
    return names


def just_plan(args: list[str | None], cwd: str | None) -> list[Step]:
    if cwd is None:
        return [Step("strict", "just runs in a directory we cannot compute")]
    parsed = _just_args(args, cwd)
    if isinstance(parsed, list):
        return parsed
    file, workdir, wanted = parsed
    path = file or find_up(cwd, JUST_NAMES)
    if path is None:
        return []
    label_file = os.path.basename(path)
    try:
        text = read_capped(path)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        return [unreadable(f"the justfile {label_file}", error)]
    recipes, first, aliases, opaque = parse_justfile(text)
    names = _recipe_names(wanted, recipes, aliases, opaque, label_file)
    if isinstance(names, Step):
        return [names]
    if not wanted:
        if first is None:
            return []
        names = [first]
    return _follow(names, recipes, aliases, text, label_file, workdir or os.path.dirname(path))


def _follow(
    names: list[str | None], recipes: Recipes, aliases: dict[str, str], text: str, label_file: str, run_in: str
) -> list[Step]:
    """The recipes and their dependencies, breadth first, each followed once."""

    def unknown() -> Step | None:
        if not mentions(text):
            return None
        return Step("strict", f"just with a recipe we cannot follow, and {label_file} mentions push or release")

    def resolve(name: str) -> str | None:
        name = aliases.get(name, name)
        return name if name in recipes else None

    def visit(name: str, queue: list[str | None]) -> list[Step]:
        _, deps, body = recipes[name]
        queue.extend(deps)
        steps: list[Step] = []
        _recipe_steps(f"{label_file} recipe {name}", body, steps, text, run_in)
        return steps

    return follow(names, visit, unknown, f"{label_file}: too many recipes to follow", resolve)


def _recipe_steps(label: str, body: list[str], steps: list[Step], text: str, run_in: str) -> None:
    """One recipe's body: a shell shebang runs as one script, another interpreter is strict when it
    mentions push or release, and otherwise each line runs on its own."""
    lines = list(body)
    while lines and not lines[-1]:
        lines.pop()
    if lines and lines[0].startswith("#!"):
        shebang = lines[0]
        if any(re.search(rf"(^|[/ ]){s}(\s|$)", shebang[2:]) for s in SHELL_NAMES):
            steps.append(Step("run", label, _interpolate("\n".join(lines[1:]), label, steps, text), run_in))
        elif mentions("\n".join(lines)):
            steps.append(Step("strict", f"{label} runs {shebang[2:].strip()} code that mentions push or release"))
        return
    for line in lines:
        if line:
            steps.append(Step("run", label, _interpolate(line.lstrip("@-").lstrip("@"), label, steps, text), run_in))


def _interpolate(line: str, label: str, steps: list[Step], whole: str) -> str:
    """`{{ … }}` is computed by just: left as a shell expansion, and a strict step when it mentions push."""
    if "{{" not in line:
        return line
    if mentions(line) and not any(s.kind == "strict" and s.label.startswith(label) for s in steps):
        steps.append(
            Step("strict", f"{label} cannot be followed (a {{{{ }}}} interpolation), and it mentions push or release")
        )
    return re.sub(r"\{\{.*?\}\}", "${__just_value}", line.replace("{{{{", "{{"))
