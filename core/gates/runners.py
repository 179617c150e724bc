"""Shells, scripts, interpreters and build runners: code the command runs that is not on its line.

- A shell reads code from `-c`, a script file, stdin (a heredoc, a pipe, `< file`, `-s`,
  `/dev/stdin`), `BASH_ENV`/`ENV` and `--rcfile`; all of it is parsed like the command itself.
  `bash -n` only checks syntax and runs nothing.
- A script written by the same command (`printf … > p.sh && sh p.sh`, a Makefile, a Python file)
  is read from what was written; when that is unknown, or the script does not exist yet, the
  gate cannot follow it.
- Interpreters (`python -c`, `python -m`, `node -e`, `perl -e`, `awk`, `sed`'s `e`…) are read for
  what they name: Hallmark's own code or state is denied everywhere, a publishing command
  anywhere, and code that runs other programs in strict mode.
- make, just and package.json scripts are followed into their recipes (scripts.py); task, rake,
  invoke and friends are read for what their files mention.
- The configured ship command is a push however it is spelled: by its leading words, or by the
  script file it runs.
"""

from __future__ import annotations

import os
import re

from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

SCRIPT_LIMIT = 262_144
MENTION = r"(?i)\b(push|release|publish)\b"
INLINE_FLAGS = frozenset({"-c", "-e", "--eval", "-E", "-r", "--command", "-p", "--print", "-Command", "-x"})
RUNNER_FILES = {
    "make": ("GNUmakefile", "makefile", "Makefile"),
    "gmake": ("GNUmakefile", "makefile", "Makefile"),
    "just": ("justfile", "Justfile", ".justfile"),
    "npm": ("package.json",),
    "pnpm": ("package.json",),
    "yarn": ("package.json",),
    "bun": ("package.json",),
}
# runners whose files are read only for what they mention (their grammars are not followed)
OPAQUE_RUNNERS = {
    "task": ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "Taskfile.dist.yml"),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb"),
    "invoke": ("tasks.py",),
    "inv": ("tasks.py",),
    "fab": ("fabfile.py",),
    "nox": ("noxfile.py",),
    "tox": ("tox.ini",),
    "mage": ("magefile.go",),
    "gulp": ("gulpfile.js",),
    "grunt": ("Gruntfile.js",),
    "cake": ("Cakefile",),
    "earthly": ("Earthfile",),
    "pants": ("BUILD",),
    "bazel": (),
    "ninja": ("build.ninja",),
    "cargo-make": ("Makefile.toml",),
    "makers": ("Makefile.toml",),
    "doit": ("dodo.py",),
    "poe": ("pyproject.toml",),
    "scons": ("SConstruct",),
    "waf": ("wscript",),
}
HALLMARK_CODE = r"\bhallmark\b"
NAMES_STATE = r"\.git/|\.git['\"]|git-common-dir|git-dir|\.hallmark\.toml|refs/notes|\.claude/settings|hall-hook"
RUNS_PROGRAMS = (
    r"\b(subprocess|os\.system|os\.exec|os\.spawn|popen|pty\.spawn|child_process|execSync|spawnSync|"
    r"execFile|Deno\.run|Deno\.Command|Bun\.spawn|Runtime\.getRuntime|ProcessBuilder|shell_exec|"
    r"passthru|proc_open|IO\.popen|Open3|Process\.Start|Start-Process|Invoke-Expression|do shell script)"
    r"\b|\bsystem\s*\(|\bexec\s*\(|`[^`]+`|\bqx\b"
)

# what inline code needs to run (or build) a command: code naming a publishing command without any of
# these only prints it (`python3 -c "print('git push origin HEAD')"`); deciding more is undecidable
CAN_RUN = (
    RUNS_PROGRAMS + r"|\b(import|require|use|getattr|__import__|eval|exec|compile|open|load|system|spawn|"
    r"fork|call|run|ctypes|os|sys|IO|Kernel|Process|Command|globals|locals|vars|builtins|__\w+__)\b|[`$]"
)

# -- shells ---------------------------------------------------------------------------------------


def _shell_options(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None
) -> tuple[int, bool, bool, bool] | None:
    """A shell's options: (the index of its first operand, -c, -s, -n or noexec); an --rcfile is
    followed on the way. None when -c is given a computed string (recorded in an)."""
    i = 0
    string_next = from_stdin = noexec = False
    while i < len(args):
        word = args[i]
        if not word.literal:
            if string_next:
                an.add("strict", f"{name} -c runs a computed string", cmd, cwd, always=True)
                return None
            break
        text = word.text
        if text == "--":
            i += 1
            break
        if text in ("-O", "+O", "-o", "+o"):
            noexec = noexec or (i + 1 < len(args) and args[i + 1].text == "noexec" and text == "-o")
            i += 2
            continue
        if text in ("--rcfile", "--init-file") and i + 1 < len(args):
            run_script(an, args[i + 1], cmd, cwd, as_shell=True)
            i += 2
            continue
        if (text.startswith("-") and not text.startswith("--") and len(text) > 1) or (
            text.startswith("+") and len(text) > 1
        ):
            letters = text[1:]
            string_next = string_next or "c" in letters
            from_stdin = from_stdin or "s" in letters
            noexec = noexec or ("n" in letters and text.startswith("-"))
            i += 1 + letters.count("o") + letters.count("O")
            continue
        if text.startswith("--"):
            noexec = noexec or text == "--noexec"
            i += 1
            continue
        break
    return i, string_next, from_stdin, noexec


def run_shell(
    an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str], stdin: str | None
) -> None:
    options = _shell_options(an, name, args, cmd, cwd)
    if options is None:
        return
    i, string_next, from_stdin, noexec = options
    if noexec:
        return  # `bash -n`: a syntax check; nothing runs
    if name == "busybox":
        if i < len(args) and args[i].text in ("sh", "ash", "bash", "hush"):
            run_shell(an, "sh", args[i + 1 :], cmd, cwd, env, stdin)
        return
    for variable in ("BASH_ENV", "ENV"):
        if variable in env:
            run_script(an, Word(env[variable], env[variable] != UNKNOWN), cmd, cwd, as_shell=True)
    if string_next:
        if i < len(args):
            an.shell_string(args[i], cmd, cwd)
        return
    if i < len(args) and not from_stdin:
        target = args[i]
        if target.literal and target.text in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"):
            from_stdin = True
        else:
            run_script(an, target, cmd, cwd, as_shell=True)
            return
    if stdin == UNKNOWN:
        an.add("strict", f"{name} reads commands from a pipe the gate cannot read", cmd, cwd, always=True)
    elif stdin:
        an.nested(stdin, cmd, cwd)


def script_text(an: Analyzer, word: Word, cwd: str | None) -> tuple[str | None, str]:
    """(the script's text or None, why not): what this command wrote there, else the file on disk."""
    if not word.literal:
        return None, f"a computed script {word.text!r}"
    path = word.text if os.path.isabs(word.text) else os.path.join(cwd or an.ctx.cwd, word.text)
    try:
        real = os.path.realpath(path)
    except ValueError:
        return None, "a script name the gate cannot read"
    if real in an.written:
        content = an.written[real]
        return content, "" if content is not None else f"the script {word.text}, which this command writes"
    try:
        with open(path, "rb") as handle:
            data = handle.read(SCRIPT_LIMIT + 1)
    except FileNotFoundError:
        return None, f"the script {word.text}, which does not exist yet"
    except (OSError, ValueError):
        return None, f"a script that cannot be read: {word.text}"
    if len(data) > SCRIPT_LIMIT:
        return None, f"the script {word.text} is over {SCRIPT_LIMIT} bytes"
    return data.decode("utf-8", "replace"), ""


def run_script(an: Analyzer, word: Word, cmd: Command, cwd: str | None, *, as_shell: bool | None) -> None:
    """Follow a script file: parse it when a shell runs it; else read it for what it names."""
    if ship_script(an, word, cwd):
        an.add("push", f"the configured ship command (it runs {word.text})", cmd, cwd)
        return
    an.moves_refs()
    text, why = script_text(an, word, cwd)
    if text is None:
        if "does not exist yet" in why and an.seen <= 1:
            return  # nothing before it could make it: the shell fails on its own
        always = not word.literal or "writes" in why or "does not exist" in why
        an.add("strict", why, cmd, cwd, always=always)
        return
    if as_shell is None:
        first = text.split("\n", 1)[0]
        as_shell = not first.startswith("#!") or any(s in first for s in ("sh", "bash", "zsh"))
        as_shell = as_shell and "\x00" not in text[:1024]
    if as_shell:
        an.nested(text, cmd, cwd)
    else:
        code_names(an, f"the script {word.text}", text, cmd, cwd, inline=False)


def ship_script(an: Analyzer, word: Word, cwd: str | None) -> bool:
    """Does this script run the configured ship command's script (compared by place in the checkout)?"""
    if not word.literal or not an.ctx.ship_scripts:
        return False
    from hallmark.core.item_lookup import checkout_of

    path = word.text if os.path.isabs(word.text) else os.path.join(cwd or an.ctx.cwd, word.text)
    real = os.path.realpath(path)
    root = checkout_of(an.ctx.paths, real) if an.ctx.paths is not None else None
    rel = os.path.relpath(real, root) if root else None
    return rel is not None and rel in an.ctx.ship_scripts


# -- interpreters ---------------------------------------------------------------------------------


def code_names(an: Analyzer, what: str, code: str | None, cmd: Command, cwd: str | None, *, inline: bool) -> None:
    """Read code an interpreter runs for what it names (we do not parse Python, JavaScript …)."""
    from .git_hooks import mentions_publish

    if code is None:
        an.add("strict", f"{what}: code the gate cannot read", cmd, cwd, always=True)
        return
    if re.search(HALLMARK_CODE, code) and re.search(r"\b(import|from|require|-m)\b|hallmark\.", code):
        an.add("person", f"{what} runs Hallmark's own code (a person's decisions are taken through `hall`)", cmd, cwd)
        return
    if re.search(NAMES_STATE, code):
        an.add("state", f"{what} names git's directory or Hallmark's files", cmd, cwd)
        return
    if mentions_publish(code) and (not inline or re.search(CAN_RUN, code)):
        an.add("strict", f"{what} may publish", cmd, cwd, always=True)
        return
    if inline and re.search(RUNS_PROGRAMS, code):
        an.add("strict", f"{what} runs programs the gate cannot follow", cmd, cwd)
        return
    if not inline and re.search(MENTION, code):
        an.add("strict", f"{what} mentions push, release or publish", cmd, cwd)


def interpreter(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, stdin: str | None) -> None:
    an.moves_refs()
    if name in ("awk", "gawk", "mawk", "nawk", "busybox-awk"):
        _awk(an, name, args, cmd, cwd)
        return
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text if word.literal else ""
        if text in INLINE_FLAGS or (name.startswith("python") and text.startswith("-c") and len(text) > 2):
            code = args[i + 1] if text in INLINE_FLAGS and i + 1 < len(args) else Word(text[2:], word.literal)
            code_names(an, f"{name} {text[:2]}", code.text if code.literal else None, cmd, cwd, inline=True)
            return
        if (text == "-m" and i + 1 < len(args)) or (text.startswith("-m") and len(text) > 2 and name.startswith("py")):
            module = args[i + 1] if text == "-m" else Word(text[2:], word.literal)
            _module(an, name, module, args[i + 2 if text == "-m" else i + 1 :], cmd, cwd)
            return
        if word.literal and text.startswith("-"):
            i += 1
            continue
        if word.literal and text in ("-",):
            break
        if word.literal and (text in ("/dev/stdin", "/dev/fd/0")):
            break
        run_script(an, word, cmd, cwd, as_shell=False)
        for given in args[i + 1 :]:  # an interpreter given a protected path may write it: checked as a write
            if given.literal and not given.text.startswith("-") and ("/" in given.text or given.text.startswith(".")):
                an.write(given, cwd, cmd.source)
        return
    if stdin is not None:
        code_names(an, f"{name} reading stdin", None if stdin == UNKNOWN else stdin, cmd, cwd, inline=True)


def _module(an: Analyzer, name: str, module: Word, rest: list[Word], cmd: Command, cwd: str | None) -> None:
    if not module.literal:
        an.add("strict", f"{name} -m with a computed module", cmd, cwd, always=True)
        return
    top = module.text.split(".", 1)[0]
    if top == "hallmark":
        an.add("person", f"{name} -m {module.text} runs Hallmark's own code", cmd, cwd)
        return
    from .forges import registry

    if registry(an, top, rest, cmd, cwd):
        return
    base = cwd or an.ctx.cwd
    relative = module.text.replace(".", os.sep)
    for candidate in (relative + ".py", os.path.join(relative, "__main__.py")):
        path = os.path.join(base, candidate)
        if os.path.isfile(path) or os.path.realpath(path) in an.written:
            run_script(an, Word(path), cmd, cwd, as_shell=False)
            return


def _awk(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    i = 0
    program: Word | None = None
    while i < len(args):
        text = args[i].text
        if args[i].literal and text in ("-f", "--file") and i + 1 < len(args):
            content, _ = script_text(an, args[i + 1], cwd)
            code_names(an, f"{name} -f", content, cmd, cwd, inline=True)
            return
        if args[i].literal and text in ("-v", "-F", "--assign", "--field-separator") and i + 1 < len(args):
            i += 2
            continue
        if args[i].literal and text.startswith("-") and text != "-":
            i += 1
            continue
        program = args[i]
        break
    if program is None:
        return
    if not program.literal:
        an.add("strict", f"{name} runs a computed program", cmd, cwd, always=True)
        return
    code_names(
        an, name, program.text.replace("system(", "system (").replace("| getline", "|getline"), cmd, cwd, inline=True
    )
    if re.search(r"\bsystem\s*\(|\|\s*getline|print[^;}]*\|", program.text):
        an.add("strict", f"{name} runs commands from its program", cmd, cwd)


def sed_program(an: Analyzer, args: list[Word], cmd: Command, cwd: str | None) -> None:
    """GNU sed runs commands: the `e` command and the `e` flag of `s///`."""
    scripts = [args[i + 1] for i, w in enumerate(args) if w.text in ("-e", "--expression") and i + 1 < len(args)]
    if not scripts:
        operands = [w for w in args if not (w.literal and w.text.startswith("-"))]
        scripts = operands[:1]
    for script in scripts:
        if not script.literal:
            an.add("strict", "sed with a computed script", cmd, cwd)
            continue
        if re.search(r"(^|[;\n{}]\s*|\d\s*|/\s*)e(\s|$|;)|s(.).*\2.*\2[gpiImM0-9]*e", script.text):
            an.add("strict", "sed runs commands (its e command)", cmd, cwd, always=True)
            from .git_hooks import mentions_publish

            if mentions_publish(script.text):
                an.add("push", "sed runs a publishing command", cmd, cwd)


# -- build runners --------------------------------------------------------------------------------


def _unseen_file(an: Analyzer, name: str, texts: list[str | None], base: str, env: dict[str, str]) -> str | None:
    """Why the runner would read a file the gate cannot see as it will be (one this same command
    writes, stdin, or makefiles named by the environment); None when it can."""
    for real in an.written:
        if os.path.dirname(real) == os.path.realpath(base) and os.path.basename(real) in RUNNER_FILES.get(name, ()):
            return f"{name} runs {os.path.basename(real)}, which this command writes"
    if name not in ("make", "gmake"):
        return None
    if "MAKEFILES" in env or "MAKEFLAGS" in env:
        return f"{name} with MAKEFILES or MAKEFLAGS set reads makefiles the gate cannot see"
    for index, text in enumerate(texts):
        if text in ("-f", "--file", "--makefile") and index + 1 < len(texts):
            given = texts[index + 1]
            if given in ("-", "/dev/stdin") or given is None:
                return f"{name} reads a makefile the gate cannot see"
            if os.path.realpath(os.path.join(base, given)) in an.written:
                return f"{name} -f {given}, which this command writes"
    return None


def runner(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str]) -> bool:
    """make/just/npm/pnpm/yarn/bun: follow the target, recipe or script into the shell text it runs.

    A push found there is a push (named with its file and target); what cannot be followed is
    strict. False when this is not a runner call we follow (`bun file.ts`: the interpreter path).
    """
    from . import scripts

    an.moves_refs()
    base = cwd or an.ctx.cwd
    texts = [w.text if w.literal else None for w in args]
    unseen = _unseen_file(an, name, texts, base, env)
    if unseen:
        an.add("strict", unseen, cmd, cwd, always=True)
        return True
    key = (name, tuple(texts), base)
    if key in an.followed:
        return True  # already analysed in this command (a target that calls itself, say)
    an.followed.add(key)
    if len(an.followed) > scripts.MAX_FOLLOW:
        an.add("strict", f"{name}: too many nested runner calls to follow", cmd, cwd)
        return True
    try:
        steps = scripts.plan(name, texts, base)
    except Exception as error:  # noqa: BLE001 - a file we cannot parse is not followed: strict
        an.add("strict", f"{name}: its file cannot be parsed ({type(error).__name__})", cmd, cwd)
        return True
    if steps is None:
        return False
    for step in steps:
        if step.kind == "strict":
            an.add("strict", f"{name}: {step.label}", cmd, cwd)
            continue
        before = len(an.findings)
        an.walker.source(step.text, step.cwd, cmd.depth + 1)
        if not re.search(scripts.MENTION, step.text):  # `$(PYTEST) -q`: a computed word that says nothing of pushing
            an.findings[before:] = [
                f
                for f in an.findings[before:]
                if not (f.kind == "strict" and f.detail.startswith("computed command word"))
            ]
        for finding in an.findings[before:]:
            if finding.kind in ("push", "strict", "note", "state", "person") and " (in " not in finding.detail:
                finding.detail += f" (in {step.label}, run by {name})"
    return True


def opaque_runner(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    """task, rake, invoke …: their files are not followed; one that mentions publishing is strict."""
    base = cwd or an.ctx.cwd
    for filename in OPAQUE_RUNNERS[name]:
        path = os.path.join(base, filename)
        text, _ = script_text(an, Word(path), base)
        if os.path.realpath(path) in an.written:
            an.add("strict", f"{name} runs {filename}, which this command writes", cmd, cwd, always=True)
            return
        if text is None:
            continue
        from .git_hooks import mentions_publish

        if mentions_publish(text):
            an.add("strict", f"{name}: {filename} has a task that publishes", cmd, cwd, always=True)
        elif re.search(MENTION, text):
            an.add("strict", f"{name}: {filename} mentions push, release or publish", cmd, cwd)
        return
