"""make: the Makefile grammar as far as the gate needs it (rules, pattern rules, variables, includes,
`define`, `!=`), make's expansion of a recipe line, and the plan of a `make` command: the recipes
of the targets it names (or the default goal) and their prerequisites, in order."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from .steps import Step, follow, join, mentions, read_capped, unreadable

MAKE_WITH_VALUE = frozenset(
    {
        "-f",
        "--file",
        "--makefile",
        "-C",
        "--directory",
        "-I",
        "--include-dir",
        "-o",
        "--old-file",
        "--assume-old",
        "-W",
        "--what-if",
        "--new-file",
        "--assume-new",
    }
)
_ASSIGN = re.compile(r"^\s*(?:(?:export|override|private)\s+)*([^:#=\s]+)\s*(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$", re.S)
_RULE = re.compile(r"^([^:=#]+?)\s*(::?)(?!=)\s*(.*)$", re.S)
_DIRECTIVES = ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport", ".RECIPEPREFIX")

ReadInclude = Callable[[str], "str | None"]


class Makefile:
    def __init__(self) -> None:
        self.rules: dict[str, list] = {}  # target -> [prerequisites, recipe lines]
        self.patterns: list[tuple[str, list[str], list[str]]] = []
        self.vars: dict[str, str] = {}
        self.default: str | None = None
        self.goal: str | None = None
        self.opaque: list[str] = []  # what we could not follow (includes, eval, defines, …)
        self.shell_snippets: list[str] = []  # `X != cmd` runs at parse time


def _strip_comment(line: str) -> str:
    out = []
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            out.append(line[i : i + 2])
            i += 2
            continue
        if ch == "#":
            break
        out.append(ch)
        i += 1
    return "".join(out)


def _parse_into(mk: Makefile, text: str, read_include: ReadInclude | None, depth: int) -> None:
    lines = text.replace("\r\n", "\n").split("\n")
    current: list[list[str]] | None = None  # the recipe lists the next tab lines belong to
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\t") and current is not None:
            cmd = line[1:]
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                nxt = lines[i]
                cmd += "\n" + (nxt[1:] if nxt.startswith("\t") else nxt)
            for recipe in current:
                recipe.append(cmd)
            i += 1
            continue
        logical = line
        while logical.endswith("\\") and i + 1 < len(lines):
            i += 1
            logical = logical[:-1] + " " + lines[i].lstrip()
        i += 1
        stripped = _strip_comment(logical).strip()
        if stripped:
            current, i = _statement(mk, stripped, lines, i, read_include, depth, current)


def _statement(
    mk: Makefile,
    stripped: str,
    lines: list[str],
    i: int,
    read_include: ReadInclude | None,
    depth: int,
    current: list[list[str]] | None,
) -> tuple[list[list[str]] | None, int]:
    """One logical line that is not a recipe line: (the recipe lists that follow it, the next line)."""
    word = stripped.split(None, 1)[0]
    if word == "define":
        name = stripped.split(None, 1)[1].split()[0] if len(stripped.split()) > 1 else ""
        body = []
        while i < len(lines) and lines[i].strip() != "endef":
            body.append(lines[i])
            i += 1
        mk.vars[name] = "\n".join(body)
        return None, i + 1
    if word in ("include", "-include", "sinclude"):
        for name in stripped.split()[1:]:
            included = read_include(name) if read_include and "$" not in name and depth < 5 else None
            if included is not None:
                _parse_into(mk, included, read_include, depth + 1)
            elif word == "include" or "$" in name:
                mk.opaque.append(f"include {name}")
        return None, i
    if word.startswith(_DIRECTIVES):
        if word.startswith(".RECIPEPREFIX"):
            mk.opaque.append(".RECIPEPREFIX")
        return current, i  # both branches of a conditional are taken: the careful reading
    assign = _ASSIGN.match(stripped)
    if assign:
        _assign(mk, *assign.groups())
        return None, i
    rule = _RULE.match(stripped)
    if rule and not stripped.startswith("$("):
        targets_text, _, rest = rule.groups()
        return _rule(mk, targets_text, rest), i
    mk.opaque.append(stripped[:60])
    return None, i


def _assign(mk: Makefile, name: str, op: str, value: str) -> None:
    if name == ".DEFAULT_GOAL":
        mk.goal = value.strip() or None
    elif op == "+=":
        mk.vars[name] = (mk.vars.get(name, "") + " " + value).strip()
    elif op == "?=":
        mk.vars.setdefault(name, value)
    elif op == "!=":
        mk.shell_snippets.append(value)
        mk.vars[name] = ""
    else:
        mk.vars[name] = value


def _rule(mk: Makefile, targets_text: str, rest: str) -> list[list[str]] | None:
    """`targets: prerequisites [; recipe]`: the recipe lists its tab lines go to (None for a
    target-specific variable, `t: VAR = value`)."""
    recipe_inline = None
    if ";" in rest:
        rest, recipe_inline = rest.split(";", 1)
    if _ASSIGN.match(rest):
        return None
    inline = recipe_inline.strip() if recipe_inline is not None else ""
    prereqs = rest.replace("|", " ").split()
    current: list[list[str]] = []
    for target in targets_text.split():
        if "%" in target:
            mk.patterns.append((target, prereqs, []))
            current.append(mk.patterns[-1][2])
            if inline:
                current[-1].append(inline)
            continue
        entry = mk.rules.setdefault(target, [[], []])
        current.append(entry[1])
        entry[0].extend(prereqs)
        if inline:
            entry[1].append(inline)
        if mk.default is None and not target.startswith(".") and "$" not in target:
            mk.default = target
    return current


def _balanced(text: str, start: int, close: str) -> int:
    """Index just past the reference opened at text[start] ('(' or '{'); -1 when unbalanced."""
    opener = text[start]
    level = 0
    for k in range(start, len(text)):
        if text[k] == opener:
            level += 1
        elif text[k] == close:
            level -= 1
            if level == 0:
                return k + 1
    return -1


def expand(text: str, mk: Makefile, auto: dict[str, str], unresolved: list[str], depth: int = 0) -> str:
    """Make's expansion of a recipe line, as far as the Makefile itself says (`$$` becomes `$`)."""
    if depth > 10:
        unresolved.append("variables nest too deeply")
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "$" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
            continue
        if nxt in "({":
            end = _balanced(text, i + 1, ")" if nxt == "(" else "}")
            if end < 0:
                unresolved.append("an unbalanced reference")
                out.append(text[i:])
                break
            inner = text[i + 2 : end - 1]
            out.append(_reference(inner, mk, auto, unresolved, depth))
            i = end
            continue
        out.append(auto.get(nxt, ""))
        i += 2
    return "".join(out)


def _reference(inner: str, mk: Makefile, auto: dict[str, str], unresolved: list[str], depth: int) -> str:
    name = inner.strip()
    if name in ("MAKE", "MAKE_COMMAND"):
        return "make"
    if name == "CURDIR":
        return auto.get("CURDIR", ".")
    if name in auto:
        return auto[name]
    if name.startswith("shell "):
        return "$(" + expand(name[6:], mk, auto, unresolved, depth + 1) + ")"
    if re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        if name in mk.vars:
            return expand(mk.vars[name], mk, auto, unresolved, depth + 1)
        return "${" + name.replace(".", "_").replace("-", "_") + "}"  # from the environment: computed
    unresolved.append(f"$({name[:30]})")
    return "${__make_function}"


def _make_args(args: list[str | None], cwd: str | None) -> tuple[list[str | None], str | None, list[str | None]]:
    """(the -f makefiles, the -C directory, the targets: None for one we cannot know) of a make command."""
    files: list[str | None] = []
    directory = cwd
    targets: list[str | None] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg is None:
            targets.append(None)
            i += 1
            continue
        value = args[i + 1] if i + 1 < len(args) else None
        if arg in ("-f", "--file", "--makefile"):
            files.append(value)
        elif arg in ("-C", "--directory"):
            directory = join(directory, value) if directory or (value and os.path.isabs(value)) else None
        elif not (
            arg in MAKE_WITH_VALUE
            or (arg in ("-j", "-l", "--jobs", "--load-average") and value is not None and value.isdigit())
        ):
            directory = _one_word(arg, directory, files, targets)
            i += 1
            continue
        i += 2
    return files, directory, targets


def _one_word(arg: str, directory: str | None, files: list[str | None], targets: list[str | None]) -> str | None:
    """An argument that takes no value of its own (`--file=x`, `-fx`, `-Cdir`, `--eval=…`, `VAR=value`,
    a target): noted in files or targets; the directory it leaves make in."""
    if arg.startswith(("--file=", "--makefile=")):
        files.append(arg.split("=", 1)[1])
    elif arg.startswith("--directory="):
        directory = join(directory, arg.split("=", 1)[1])
    elif arg.startswith("-f") and len(arg) > 2 and not arg.startswith("--"):
        files.append(arg[2:])
    elif arg.startswith("-C") and len(arg) > 2 and not arg.startswith("--"):
        directory = join(directory, arg[2:])
    elif arg.startswith("--eval"):
        targets.append(None)  # a rule given on the command line: not followed
    elif not arg.startswith("-") and "=" not in arg:  # (VAR=value overrides a variable)
        targets.append(arg)
    return directory


def _load(files: list[str | None], directory: str) -> tuple[Makefile, str] | list[Step]:
    """The makefiles read into one Makefile and their names for labels, or the plan when they decide
    it (none: make runs nothing; computed or unreadable: strict)."""
    if not files:
        found = next(
            (c for c in ("GNUmakefile", "makefile", "Makefile") if os.path.isfile(os.path.join(directory, c))), None
        )
        if found is None:
            return []  # no makefile: make runs nothing (built-in rules only compile)
        files = [found]

    def include(name: str) -> str | None:
        try:
            return read_capped(os.path.normpath(os.path.join(directory, name)))
        except (OSError, ValueError):
            return None

    mk = Makefile()
    names = []
    for file in files:
        if file is None or file == "-":
            return [Step("strict", "make reads a computed makefile (or one from stdin)")]
        names.append(file)
        try:
            text = read_capped(os.path.normpath(os.path.join(directory, file)))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as error:
            return [unreadable(f"the makefile {file}", error)]
        _parse_into(mk, text, include, 0)
    return mk, names[0] if len(names) == 1 else ", ".join(names)


def _parse_time_steps(mk: Makefile, label_file: str, directory: str) -> list[Step]:
    """What runs whenever make reads the file: `X != cmd` and `X := $(shell …)`."""
    auto_base = {"CURDIR": directory}
    steps = [
        Step("run", f"{label_file} (a != assignment)", expand(snippet, mk, auto_base, []), directory)
        for snippet in mk.shell_snippets
    ]
    for name, value in mk.vars.items():
        for match in re.finditer(r"\$[({]shell\s", value):
            end = _balanced(value, match.start() + 1, ")" if value[match.start() + 1] == "(" else "}")
            if end > 0:
                snippet = expand(value[match.end() : end - 1], mk, auto_base, [])
                steps.append(Step("run", f"{label_file} (variable {name})", snippet, directory))
    return steps


def make_plan(args: list[str | None], cwd: str | None) -> list[Step]:
    files, directory, targets = _make_args(args, cwd)
    if directory is None:
        return [Step("strict", "make runs in a directory we cannot compute")]
    loaded = _load(files, directory)
    if isinstance(loaded, list):
        return loaded
    mk, label_file = loaded
    steps = _parse_time_steps(mk, label_file, directory)  # `$(shell …)` runs even under -n
    dry = dry_run(args)
    if not targets:
        goal = mk.goal or mk.default
        if goal is None:
            if mk.opaque and mentions(" ".join(mk.opaque) + " ".join(mk.vars.values())):
                steps.append(
                    Step("strict", f"{label_file} has no default target we can see, and mentions push or release")
                )
            return steps
        targets = [goal]
    return steps + _follow(mk, targets, label_file, directory, dry)


_MAKE_SHORT_WITH_VALUE = "CfIjloWO"


def dry_run(args: list[str | None]) -> bool:
    """`make -n` (`--dry-run`, `--just-print`, `--recon`, `n` in a cluster of short options): make
    prints the recipes instead of running them, except lines marked `+` or naming $(MAKE)."""
    for arg in args:
        if arg is None or arg == "--":
            break
        if arg in ("--dry-run", "--just-print", "--recon"):
            return True
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters = arg[1:]
            for letter in letters:
                if letter == "n":
                    return True
                if letter in _MAKE_SHORT_WITH_VALUE:
                    break
    return False


def _follow(mk: Makefile, targets: list[str | None], label_file: str, directory: str, dry: bool = False) -> list[Step]:
    """The targets' recipes and their prerequisites', breadth first, each target once."""

    def unknown() -> Step | None:
        if not mentions(text_of(mk)):
            return None
        return Step("strict", f"make with a computed target, and {label_file} mentions push or release")

    def visit(target: str, queue: list[str | None]) -> list[Step]:
        rule, stem = _rule_for(mk, target)
        if rule is not None:
            return _target_steps(mk, target, rule, stem, f"{label_file} target {target}", directory, queue, dry)
        if mk.opaque and (mentions(target) or mentions(" ".join(mk.opaque))):
            return [
                Step(
                    "strict",
                    f"{label_file}: target {target} is not in the file we can read "
                    f"({mk.opaque[0]}), and it mentions push or release",
                )
            ]
        return []

    return follow(targets, visit, unknown, f"{label_file}: too many targets to follow")


def _rule_for(mk: Makefile, target: str) -> tuple[list | None, str]:
    """The target's [prerequisites, recipe] and the stem, from its rule or the first pattern rule
    that matches when the rule has no recipe."""
    rule = mk.rules.get(target)
    if rule is not None and rule[1]:
        return rule, ""
    for pattern, prereqs, recipe in mk.patterns:
        head, _, tail = pattern.partition("%")
        if target.startswith(head) and target.endswith(tail) and len(target) >= len(head) + len(tail):
            stem = target[len(head) : len(target) - len(tail)]
            return [(list(rule[0]) if rule else []) + [p.replace("%", stem) for p in prereqs], recipe], stem
    return rule, ""


def _target_steps(
    mk: Makefile,
    target: str,
    rule: list,
    stem: str,
    label: str,
    directory: str,
    queue: list[str | None],
    dry: bool = False,
) -> list[Step]:
    """One target's recipe lines, expanded with its automatic variables; its prerequisites join the
    queue (None for one that cannot be expanded)."""
    prereqs, recipe = rule
    auto = {
        "@": target,
        "<": prereqs[0] if prereqs else "",
        "^": " ".join(prereqs),
        "+": " ".join(prereqs),
        "?": " ".join(prereqs),
        "*": stem,
        "CURDIR": directory,
    }
    for prereq in prereqs:
        unresolved: list[str] = []
        name = expand(prereq, mk, auto, unresolved)
        if unresolved:
            queue.append(None)
        queue.extend(name.split())
    unresolved = []
    if dry:  # under -n only `+` lines and lines naming $(MAKE) run
        recipe = [line for line in recipe if "+" in _prefix(line) or re.search(r"\$[({]MAKE[)}]", line)]
    body = [expand(line.lstrip(" @-+").lstrip(), mk, auto, unresolved) for line in recipe]
    steps = []
    if unresolved and mentions("\n".join(recipe) + " " + " ".join(mk.vars.values())):
        steps.append(Step("strict", f"{label} cannot be followed ({unresolved[0]}), and it mentions push or release"))
    steps += [Step("run", label, line, directory) for line in body if line.strip()]
    return steps


def _prefix(line: str) -> str:
    """A recipe line's prefix characters (`@`, `-`, `+`, blanks)."""
    stripped = line.lstrip(" \t@-+")
    return line[: len(line) - len(stripped)]


def text_of(mk: Makefile) -> str:
    parts = [" ".join(mk.vars.values())]
    parts += [name + " " + " ".join(prereqs) + " " + "\n".join(recipe) for name, (prereqs, recipe) in mk.rules.items()]
    return "\n".join(parts + mk.opaque)
