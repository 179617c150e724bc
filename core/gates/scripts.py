"""What a build runner would run: the recipe of a make target, a just recipe, a package.json script.

`make publish` runs whatever the Makefile says; a push hidden there is still a push. `plan(name,
args, cwd)` reads the runner's file from the directory the command runs in and returns Steps:
("run", label, text, cwd) for each shell text the runner would hand to a shell (push.py analyses
it like `sh -c`), and ("strict", detail) for what cannot be followed (an unreadable or unparsable
file; a body with computed parts, a non-shell shebang or an include we cannot see, when its text
mentions push or release). Imported only when the command word is a runner: the hook's common
path never loads it.

Over 500 lines on purpose: three small grammars (make, just, package.json scripts) share the Step
plan, the follow limits and the "mentions" rule; split, each would import the other two.
"""

from __future__ import annotations

import os
import re

RUNNERS = frozenset({"make", "gmake", "just", "npm", "pnpm", "yarn", "bun"})
FILE_LIMIT = 1_048_576
MENTION = r"(?i)(?<![a-z])(push|release)(?![a-z])"  # do_release and git-push count too
SHELL_NAMES = ("sh", "bash", "zsh", "dash", "ksh", "ash")
MAX_FOLLOW = 64  # targets/recipes/scripts followed for one command (prerequisites included)


class Step:
    __slots__ = ("cwd", "kind", "label", "text")

    def __init__(self, kind: str, label: str, text: str = "", cwd: str | None = None) -> None:
        self.kind = kind  # "run" or "strict"
        self.label = label  # "Makefile target publish" (run) or the reason (strict)
        self.text = text
        self.cwd = cwd

    def __repr__(self) -> str:
        return f"Step({self.kind!r}, {self.label!r})"


def plan(name: str, args: list[str | None], cwd: str | None) -> list[Step] | None:
    """Steps for this runner invocation; None when it is not a runner call we follow (a leaf)."""
    if name in ("make", "gmake"):
        return make_plan(args, cwd)
    if name == "just":
        return just_plan(args, cwd)
    return package_plan(name, args, cwd)


def _mentions(text: str) -> bool:
    return bool(re.search(MENTION, text))


def _read(path: str) -> str:
    with open(path, "rb") as handle:
        data = handle.read(FILE_LIMIT + 1)
    if len(data) > FILE_LIMIT:
        raise ValueError(f"over {FILE_LIMIT} bytes")
    return data.decode("utf-8", "replace")


def _join(cwd: str | None, path: str | None) -> str | None:
    if path is None:
        return None
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(cwd, path)) if cwd else None


def _unreadable(what: str, error: Exception) -> Step:
    return Step("strict", f"{what} cannot be read ({type(error).__name__}: {error})")


# -- make ------------------------------------------------------------------------------------

MAKE_WITH_VALUE = frozenset({"-f", "--file", "--makefile", "-C", "--directory", "-I", "--include-dir", "-o",
                             "--old-file", "--assume-old", "-W", "--what-if", "--new-file", "--assume-new"})
_ASSIGN = re.compile(r"^\s*(?:(?:export|override|private)\s+)*([^:#=\s]+)\s*(:::=|::=|:=|\?=|\+=|!=|=)\s*(.*)$", re.S)
_RULE = re.compile(r"^([^:=#]+?)\s*(::?)(?!=)\s*(.*)$", re.S)
_DIRECTIVES = ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport", ".RECIPEPREFIX")


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
            out.append(line[i:i + 2])
            i += 2
            continue
        if ch == "#":
            break
        out.append(ch)
        i += 1
    return "".join(out)


def _parse_into(mk: Makefile, text: str, read_include, depth: int) -> None:
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
        if not stripped:
            continue
        word = stripped.split(None, 1)[0]
        if word == "define":
            name = stripped.split(None, 1)[1].split()[0] if len(stripped.split()) > 1 else ""
            body = []
            while i < len(lines) and lines[i].strip() != "endef":
                body.append(lines[i])
                i += 1
            i += 1
            mk.vars[name] = "\n".join(body)
            current = None
            continue
        if word in ("include", "-include", "sinclude"):
            for name in stripped.split()[1:]:
                included = read_include(name) if read_include and "$" not in name and depth < 5 else None
                if included is None:
                    if word == "include" or "$" in name:
                        mk.opaque.append(f"include {name}")
                    continue
                _parse_into(mk, included, read_include, depth + 1)
            current = None
            continue
        if word.startswith(_DIRECTIVES):
            if word.startswith(".RECIPEPREFIX"):
                mk.opaque.append(".RECIPEPREFIX")
            continue  # both branches of a conditional are taken: the careful reading
        assign = _ASSIGN.match(stripped)
        if assign:
            name, op, value = assign.groups()
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
            current = None
            continue
        rule = _RULE.match(stripped)
        if rule and not stripped.startswith("$("):
            targets_text, _, rest = rule.groups()
            recipe_inline = None
            if ";" in rest:
                rest, recipe_inline = rest.split(";", 1)
            if _ASSIGN.match(rest):  # a target-specific variable: `t: VAR = value`
                current = None
                continue
            prereqs = [p for p in rest.replace("|", " ").split()]
            targets = targets_text.split()
            current = []
            for target in targets:
                if "%" in target:
                    mk.patterns.append((target, prereqs, []))
                    current.append(mk.patterns[-1][2])
                    if recipe_inline is not None and recipe_inline.strip():
                        current[-1].append(recipe_inline.strip())
                    continue
                entry = mk.rules.setdefault(target, [[], []])
                current.append(entry[1])
                entry[0].extend(prereqs)
                if recipe_inline is not None and recipe_inline.strip():
                    entry[1].append(recipe_inline.strip())
                if mk.default is None and not target.startswith(".") and "$" not in target:
                    mk.default = target
            continue
        mk.opaque.append(stripped[:60])
        current = None


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
            inner = text[i + 2:end - 1]
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


def make_plan(args: list[str | None], cwd: str | None) -> list[Step]:
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
            i += 2
            continue
        if arg in ("-C", "--directory"):
            directory = _join(directory, value) if directory or (value and os.path.isabs(value)) else None
            i += 2
            continue
        if arg in MAKE_WITH_VALUE:
            i += 2
            continue
        if arg.startswith(("--file=", "--makefile=")):
            files.append(arg.split("=", 1)[1])
        elif arg.startswith("--directory="):
            directory = _join(directory, arg.split("=", 1)[1])
        elif arg.startswith("-f") and len(arg) > 2 and not arg.startswith("--"):
            files.append(arg[2:])
        elif arg.startswith("-C") and len(arg) > 2 and not arg.startswith("--"):
            directory = _join(directory, arg[2:])
        elif arg.startswith("--eval"):
            targets.append(None)  # a rule given on the command line: not followed
        elif arg in ("-j", "-l", "--jobs", "--load-average") and value is not None and value.isdigit():
            i += 2
            continue
        elif arg.startswith("-"):
            pass
        elif "=" in arg:
            pass  # VAR=value overrides a variable
        else:
            targets.append(arg)
        i += 1
    if directory is None:
        return [Step("strict", "make runs in a directory we cannot compute")]
    if not files:
        for candidate in ("GNUmakefile", "makefile", "Makefile"):
            if os.path.isfile(os.path.join(directory, candidate)):
                files.append(candidate)
                break
        else:
            return []  # no makefile: make runs nothing (built-in rules only compile)
    steps: list[Step] = []
    mk = Makefile()
    names = []
    for file in files:
        if file is None or file == "-":
            return [Step("strict", "make reads a computed makefile (or one from stdin)")]
        path = _join(directory, file)
        names.append(file)
        try:
            text = _read(path)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as error:
            return [_unreadable(f"the makefile {file}", error)]

        def include(name: str, base: str = directory) -> str | None:
            try:
                return _read(_join(base, name))
            except (OSError, ValueError):
                return None

        _parse_into(mk, text, include, 0)
    label_file = names[0] if len(names) == 1 else ", ".join(names)
    auto_base = {"CURDIR": directory}
    steps += [Step("run", f"{label_file} (a != assignment)", expand(snippet, mk, auto_base, []), directory)
              for snippet in mk.shell_snippets]
    for name, value in mk.vars.items():  # `X := $(shell …)` runs whenever make reads the file
        if "$(shell" in value or "${shell" in value:
            for match in re.finditer(r"\$[({]shell\s", value):
                end = _balanced(value, match.start() + 1, ")" if value[match.start() + 1] == "(" else "}")
                if end > 0:
                    snippet = expand(value[match.end():end - 1], mk, auto_base, [])
                    steps.append(Step("run", f"{label_file} (variable {name})", snippet, directory))
    if not targets:
        goal = mk.goal or mk.default
        if goal is None:
            if mk.opaque and _mentions(" ".join(mk.opaque) + " ".join(mk.vars.values())):
                steps.append(Step("strict", f"{label_file} has no default target we can see, and mentions "
                                            "push or release"))
            return steps
        targets = [goal]
    seen: set[str] = set()
    queue = list(targets)
    while queue:
        target = queue.pop(0)
        if target is None:
            if _mentions(text_of(mk)):
                steps.append(Step("strict", f"make with a computed target, and {label_file} mentions push or "
                                            "release"))
            continue
        if target in seen:
            continue
        seen.add(target)
        if len(seen) > MAX_FOLLOW:
            steps.append(Step("strict", f"{label_file}: too many targets to follow"))
            break
        rule = mk.rules.get(target)
        stem = ""
        if rule is None or not rule[1]:
            for pattern, prereqs, recipe in mk.patterns:
                head, _, tail = pattern.partition("%")
                if target.startswith(head) and target.endswith(tail) and len(target) >= len(head) + len(tail):
                    stem = target[len(head):len(target) - len(tail)]
                    rule = [list(rule[0]) if rule else [], recipe]
                    rule[0] += [p.replace("%", stem) for p in prereqs]
                    break
        if rule is None:
            if mk.opaque and (_mentions(target) or _mentions(" ".join(mk.opaque))):
                steps.append(Step("strict", f"{label_file}: target {target} is not in the file we can read "
                                            f"({mk.opaque[0]}), and it mentions push or release"))
            continue
        prereqs, recipe = rule
        label = f"{label_file} target {target}"
        auto = {"@": target, "<": prereqs[0] if prereqs else "", "^": " ".join(prereqs), "+": " ".join(prereqs),
                "?": " ".join(prereqs), "*": stem, "CURDIR": directory}
        for prereq in prereqs:
            unresolved: list[str] = []
            name = expand(prereq, mk, auto, unresolved)
            if unresolved:
                queue.append(None)
            queue.extend(name.split())
        unresolved = []
        body = [expand(line.lstrip(" @-+").lstrip(), mk, auto, unresolved) for line in recipe]
        raw = "\n".join(recipe)
        if unresolved and _mentions(raw + " " + " ".join(mk.vars.values())):
            steps.append(Step("strict", f"{label} cannot be followed ({unresolved[0]}), and it mentions push or "
                                        "release"))
        for line in body:
            if line.strip():
                steps.append(Step("run", label, line, directory))
    return steps


def text_of(mk: Makefile) -> str:
    parts = [" ".join(mk.vars.values())]
    for name, (prereqs, recipe) in mk.rules.items():
        parts.append(name + " " + " ".join(prereqs) + " " + "\n".join(recipe))
    return "\n".join(parts + mk.opaque)


# -- just ------------------------------------------------------------------------------------

JUST_NAMES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[^:]*?)?)\s*:(?![=])\s*(.*)$")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=\s*([A-Za-z_][A-Za-z0-9_-]*)\s*$")


def _find_up(start: str, names: tuple[str, ...]) -> str | None:
    directory = start
    while True:
        for name in names:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def parse_justfile(text: str) -> tuple[dict[str, tuple[bool, list[str], list[str]]], str | None, dict[str, str], list[str]]:
    """recipes: name -> (takes parameters, dependencies, body lines); the first recipe; aliases; opaque."""
    recipes: dict[str, tuple[bool, list[str], list[str]]] = {}
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


def just_plan(args: list[str | None], cwd: str | None) -> list[Step]:
    if cwd is None:
        return [Step("strict", "just runs in a directory we cannot compute")]
    file: str | None = None
    workdir: str | None = None
    wanted: list[str | None] = []
    i = 0
    while i < len(args):
        arg = args[i]
        value = args[i + 1] if i + 1 < len(args) else None
        if arg in ("-f", "--justfile"):
            file = _join(cwd, value) if value else None
            if value is None:
                return [Step("strict", "just reads a computed justfile")]
            i += 2
            continue
        if arg in ("-d", "--working-directory"):
            workdir = _join(cwd, value) if value else None
            i += 2
            continue
        if arg in ("--set",):
            i += 3
            continue
        if arg in ("--shell", "--shell-arg", "--dotenv-filename", "--dotenv-path", "-E", "--color", "--chooser",
                   "--list-heading", "--list-prefix", "--unstable", "--timestamp-format"):
            i += 2
            continue
        if arg is not None and arg in ("-l", "--list", "--summary", "--show", "-s", "--evaluate", "--dump",
                                       "--variables", "--help", "-h", "--version", "-V", "--fmt", "--init",
                                       "--edit", "--completions", "--groups", "--changelog"):
            return []
        if arg is not None and arg.startswith(("--justfile=", "--working-directory=")):
            key, _, val = arg.partition("=")
            if key == "--justfile":
                file = _join(cwd, val)
            else:
                workdir = _join(cwd, val)
        elif arg is None or not arg.startswith("-"):
            if arg is not None and "=" in arg and not wanted:
                pass  # just var=value overrides
            else:
                wanted.append(arg)
        i += 1
    path = file or _find_up(cwd, JUST_NAMES)
    if path is None:
        return []
    label_file = os.path.basename(path)
    try:
        text = _read(path)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        return [_unreadable(f"the justfile {label_file}", error)]
    recipes, first, aliases, opaque = parse_justfile(text)
    run_in = workdir or os.path.dirname(path)
    names: list[str | None] = []
    for index, name in enumerate(wanted):
        if name is None:
            names.append(None)
            break
        name = aliases.get(name, name)
        if name not in recipes:
            if index == 0 and "/" in name:
                names.append(None)  # `just sub/recipe`: a module we do not follow
            elif index == 0 and opaque and (_mentions(name) or _mentions(" ".join(opaque))):
                return [Step("strict", f"{label_file}: recipe {name} is not in the file we can read "
                                       f"({opaque[0]}), and it mentions push or release")]
            break  # arguments of the recipe before it
        names.append(name)
        if recipes[name][0]:
            break  # the rest are its arguments
    if not wanted:
        if first is None:
            return []
        names = [first]
    steps: list[Step] = []
    seen: set[str] = set()
    queue = list(names)
    while queue:
        name = queue.pop(0)
        if name is None:
            if _mentions(text):
                steps.append(Step("strict", f"just with a recipe we cannot follow, and {label_file} mentions push "
                                            "or release"))
            continue
        name = aliases.get(name, name)
        if name in seen or name not in recipes:
            continue
        seen.add(name)
        if len(seen) > MAX_FOLLOW:
            steps.append(Step("strict", f"{label_file}: too many recipes to follow"))
            break
        _, deps, body = recipes[name]
        queue.extend(deps)
        label = f"{label_file} recipe {name}"
        lines = [line for line in body]
        while lines and not lines[-1]:
            lines.pop()
        if lines and lines[0].startswith("#!"):
            shebang = lines[0]
            if any(re.search(rf"(^|[/ ]){s}(\s|$)", shebang[2:]) for s in SHELL_NAMES):
                steps.append(Step("run", label, _interpolate("\n".join(lines[1:]), label, steps, text), run_in))
            elif _mentions("\n".join(lines)):
                steps.append(Step("strict", f"{label} runs {shebang[2:].strip()} code that mentions push or "
                                            "release"))
            continue
        for line in lines:
            if line:
                steps.append(Step("run", label, _interpolate(line.lstrip("@-").lstrip("@"), label, steps, text),
                                  run_in))
    return steps


def _interpolate(line: str, label: str, steps: list[Step], whole: str) -> str:
    """`{{ … }}` is computed by just: left as a shell expansion, and a strict step when it mentions push."""
    if "{{" not in line:
        return line
    if _mentions(line) and not any(s.kind == "strict" and s.label.startswith(label) for s in steps):
        steps.append(Step("strict", f"{label} cannot be followed (a {{{{ }}}} interpolation), and it mentions push "
                                    "or release"))
    return re.sub(r"\{\{.*?\}\}", "${__just_value}", line.replace("{{{{", "{{"))


# -- npm, pnpm, yarn, bun ---------------------------------------------------------------------

LIFECYCLE = {
    "test": ["pretest", "test", "posttest"], "t": ["pretest", "test", "posttest"],
    "tst": ["pretest", "test", "posttest"], "start": ["prestart", "start", "poststart"],
    "stop": ["prestop", "stop", "poststop"], "restart": ["prerestart", "restart", "postrestart"],
    "version": ["preversion", "version", "postversion"],
    "publish": ["prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"],
    "pack": ["prepack", "prepare", "postpack"],
    "install": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
    "i": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
    "ci": ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare"],
}
RUN_WORDS = frozenset({"run", "run-script", "rum", "urn"})
PM_WITH_VALUE = frozenset({"--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter", "-F"})


def package_plan(name: str, args: list[str | None], cwd: str | None) -> list[Step] | None:
    directory = cwd
    given = False  # --prefix/--dir/--cwd name the package's own directory: no search upwards
    i = 0
    while i < len(args) and args[i] is not None and args[i].startswith("-"):
        arg = args[i]
        if arg in ("--prefix", "-C", "--dir", "--cwd") and i + 1 < len(args):
            directory = _join(directory, args[i + 1])
            given = True
            i += 2
            continue
        if arg.startswith(("--prefix=", "--dir=", "--cwd=")):
            directory = _join(directory, arg.split("=", 1)[1])
            given = True
        elif arg in PM_WITH_VALUE:
            i += 1
        i += 1
    rest = args[i:]
    if not rest:
        if name == "yarn":  # bare yarn installs
            rest = ["install"]
        else:
            return []
    sub = rest[0]
    explicit = sub in RUN_WORDS
    if sub is None:
        script = None
    elif explicit:
        script = rest[1] if len(rest) > 1 else ""
        if script == "":
            return []  # `npm run` alone lists the scripts
    else:
        script = sub
    if directory is None:
        return [Step("strict", f"{name} runs in a directory we cannot compute")]
    path = _find_up(directory, ("package.json",)) if not given else os.path.join(directory, "package.json")
    if path is not None and not os.path.exists(path):
        path = None
    if path is None:
        return [] if name != "bun" else None
    label_file = os.path.relpath(path, directory) if path.startswith(directory) else path
    try:
        text = _read(path)
        import json

        data = json.loads(text)
        scripts = data.get("scripts", {}) if isinstance(data, dict) else None
        if scripts is None:
            scripts = {}
        if not isinstance(scripts, dict):
            raise ValueError("its scripts field is not an object")
    except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
        if name == "bun" and not explicit and script not in LIFECYCLE:
            return None
        return [_unreadable(label_file, error)]
    if script is None:
        if _mentions(" ".join(str(v) for v in scripts.values())):
            return [Step("strict", f"{name} runs a computed script, and {label_file} mentions push or release")]
        return []
    if explicit or (name != "npm" and script in scripts):
        names = [f"pre{script}", script, f"post{script}"]
    elif script in LIFECYCLE and name != "bun":
        names = LIFECYCLE[script]
    elif name == "bun":
        return None  # `bun file.ts`: the interpreter path
    else:
        return []  # a package-manager command that runs no script of ours
    if name == "bun" and explicit and script not in scripts:
        return None  # `bun run file.ts`
    steps = []
    run_in = os.path.dirname(path)
    for key in names:
        body = scripts.get(key)
        if body is None:
            continue
        if not isinstance(body, str):
            steps.append(Step("strict", f"{label_file} script {key} is not a string"))
            continue
        steps.append(Step("run", f"{label_file} script {key}", body, run_in))
    return steps
