"""git, read the way git itself would run it: global options, aliases, what a push sends, the notes
refs, configuration that runs commands, and the hooks a subcommand runs.

- Which names are git's own commands is asked of this git (`git --list-cmds=builtins,main`, cached
  by the git binary), so an alias on a name this git does not ship is still followed; a
  `git-<name>` on PATH runs code the gate cannot read.
- A push names what it sends (`push_sources`): every refspec source, `--all`, `--tags`, the
  configured refspecs when none is given; decide.py checks each is hallmarked. What cannot be
  resolved is denied.
- `-c key=value`, `--config-env`, `GIT_CONFIG_*` and `GIT_*` variables that make git run a command
  are read as shell code (a literal `core.pager=cat` is harmless) or denied when computed;
  `core.hooksPath`, `--exec-path`, another config file and `protocol.*` are always denied.
- Writes to `refs/notes/` by any command (notes, update-ref, symbolic-ref, fetch and push
  refspecs, fast-import, replace, `notes.*` config) are "note" findings.
"""

from __future__ import annotations

import json
import os
import re

from . import git_config
from .git_hooks import git_hooks, probe_env
from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer, Context
    from .shell import Command

# the fallback when `git --list-cmds` cannot be asked: builtins and the scripts git ships
GIT_COMMANDS = frozenset("""
add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore
check-mailmap check-ref-format checkout checkout-index cherry cherry-pick clean clone column commit
commit-graph commit-tree config count-objects credential credential-cache credential-store describe
diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack
fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep
hash-object help hook index-pack init init-db interpret-trailers log ls-files ls-remote ls-tree
mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-ours merge-recursive
merge-subtree merge-tree mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant
pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase receive-pack reflog remote
repack replace rerere reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch
show-index show-ref sparse-checkout stage stash status stripspace submodule switch symbolic-ref tag
unpack-file unpack-objects update-index update-ref update-server-info upload-archive upload-pack var
verify-commit verify-pack verify-tag version whatchanged worktree write-tree
""".split())

NOTE_WRITES = frozenset({"add", "append", "edit", "copy", "remove", "merge", "prune"})
GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                               "--super-prefix", "--attr-source", "--list-cmds"})
HELP_FLAGS = frozenset({"-h", "--help"})
# subcommands that only read: they run no hook (every other one may, see githooks(5))
READ_ONLY = frozenset({"log", "show", "diff", "diff-files", "diff-index", "diff-tree", "blame", "annotate", "grep",
                       "ls-files", "ls-tree", "ls-remote", "rev-parse", "rev-list", "cat-file", "describe", "shortlog",
                       "show-ref", "for-each-ref", "help", "version", "var", "check-ignore", "check-attr",
                       "check-ref-format", "name-rev", "merge-base", "whatchanged", "show-branch", "cherry",
                       "count-objects", "verify-commit", "verify-tag", "format-patch", "range-diff", "patch-id",
                       "column", "stripspace", "interpret-trailers", "bugreport", "diagnose", "archive"})
# options whose value git runs as a command (for local and ssh transports)
COMMAND_OPTIONS = {"push": ("--receive-pack", "--exec"), "send-pack": ("--receive-pack", "--exec"),
                   "fetch": ("--upload-pack",), "pull": ("--upload-pack",), "clone": ("--upload-pack", "-u"),
                   "ls-remote": ("--upload-pack",), "archive": ("--exec",), "fetch-pack": ("--upload-pack",)}


# -- this git's own commands ---------------------------------------------------------------------


def own_commands(ctx: Context) -> frozenset[str]:
    """Builtins and the commands git ships (`git --list-cmds=builtins,main`), cached per git binary."""
    if ctx.git_commands is not None:
        return ctx.git_commands
    binary = _which("git", ctx.env.get("PATH") or os.environ.get("PATH") or "")
    try:
        st = os.stat(binary) if binary else None
    except OSError:
        st = None
    key = [binary, st.st_size, st.st_mtime_ns] if st else None
    cache = os.path.join(ctx.state_dir, "cache", "git-commands.json") if ctx.state_dir else None
    if cache and key:
        try:
            with open(cache, encoding="utf-8") as handle:
                data = json.load(handle)
            if data.get("key") == key:
                ctx.git_commands = frozenset(data["commands"])
                return ctx.git_commands
        except (OSError, ValueError, KeyError, TypeError):
            pass
    from .run import capture

    try:
        proc = capture(["git", "--list-cmds=builtins,main"], env=probe_env(ctx.env))
        names = frozenset(proc.stdout.decode().split()) if proc.returncode == 0 else frozenset()
    except OSError:
        names = frozenset()
    ctx.git_commands = names or GIT_COMMANDS
    if names and cache and key and os.path.isdir(ctx.state_dir or ""):  # never create the state dir itself
        try:
            os.makedirs(os.path.dirname(cache), exist_ok=True)
            tmp = f"{cache}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump({"key": key, "commands": sorted(names)}, handle)
            os.replace(tmp, cache)
        except OSError:
            pass
    return ctx.git_commands


def _which(name: str, path: str) -> str | None:
    """shutil.which without importing shutil (~5 ms the hook does not need)."""
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def on_path(name: str, env: dict[str, str]) -> str | None:
    """A `git-<name>` executable on PATH: git runs it for `git <name>`."""
    return _which(f"git-{name}", env.get("PATH") or os.environ.get("PATH") or "")


# -- splitting and aliases -------------------------------------------------------------------------


def shell_split(text: str) -> list[str] | None:
    """Split like git's split_cmdline / env -S: quotes and backslashes, no expansions."""
    words: list[str] = []
    current: list[str] = []
    have = False
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"' and i + 1 < len(text):
                i += 1
                current.append(text[i])
            else:
                current.append(ch)
        elif ch in "'\"":
            quote = ch
            have = True
        elif ch == "\\" and i + 1 < len(text):
            i += 1
            current.append(text[i])
            have = True
        elif ch in " \t\n":
            if current or have:
                words.append("".join(current))
                current, have = [], False
        else:
            current.append(ch)
        i += 1
    if quote:
        return None
    if current or have:
        words.append("".join(current))
    return words


def quote(text: str) -> str:
    if text and re.fullmatch(r"[A-Za-z0-9_./:=@%+,-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def config_alias(where: str, sub: str, globals_: list[str], env: dict[str, str]) -> str | None:
    """Ask git itself (includes, global and worktree config, -c and GIT_CONFIG_* all honoured)."""
    import subprocess

    safe: list[str] = []
    i = 0
    while i < len(globals_):
        flag = globals_[i]
        if flag in ("-c", "--config-env", "--git-dir", "--work-tree") and i + 1 < len(globals_):
            safe += [flag, globals_[i + 1]]
            i += 2
            continue
        if flag.startswith(("--git-dir=", "--work-tree=", "--config-env=")):
            safe.append(flag)
        i += 1
    run_in = where if where and os.path.isdir(where) else None
    proc = subprocess.run(["git", *safe, "config", "--get", f"alias.{sub}"], cwd=run_in, env=probe_env(env),
                          capture_output=True, text=True, timeout=5, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.rstrip("\n")


def _join(cwd: str | None, word: Word) -> str | None:
    if not word.literal:
        return None
    if os.path.isabs(word.text):
        return os.path.normpath(word.text)
    return os.path.normpath(os.path.join(cwd, word.text)) if cwd else None


# -- git -------------------------------------------------------------------------------------------


def run_git(an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
            alias_depth: int = 0, git_dir: str | None = None) -> None:
    inline: list[tuple[str, str]] = []
    globals_: list[str] = []
    i = 0
    git_cwd = cwd
    if env.get("GIT_DIR") and env["GIT_DIR"] != UNKNOWN:
        git_dir = _join(cwd, Word(env["GIT_DIR"]))
    for name in git_config.ENV_DENIED:
        if name in env:
            an.add("strict", f"git with {name} set (it points git at other state)", cmd, cwd, always=True)
            return
    while i < len(args):
        word = args[i]
        if not word.literal and (i == 0 or args[i - 1].text not in GLOBAL_WITH_VALUE):
            an.add("strict", f"git with a computed argument {word.text!r}", cmd, git_cwd, always=True)
            return
        text = word.text
        if not text.startswith("-"):
            break
        name, eq, attached = text.partition("=")
        if text in GLOBAL_WITH_VALUE or (name in ("--git-dir", "--work-tree", "--config-env") and eq):
            value = Word(attached, word.literal) if eq else (args[i + 1] if i + 1 < len(args) else Word(""))
            step = 1 if eq else 2
            if not value.literal:
                an.add("strict", f"git {name} with a computed value", cmd, git_cwd, always=True)
                return
            if name == "-C":
                git_cwd = _join(git_cwd, value)
            elif name == "-c":
                key, _, val = value.text.partition("=")
                inline.append((key, val))
            elif name == "--config-env":
                key, _, var = value.text.partition("=")
                inline.append((key, env.get(var, an.ctx.env.get(var, UNKNOWN))))
            elif name == "--git-dir":
                git_dir = _join(git_cwd, value)
            globals_ += [name, value.text] if not eq else [text]
            i += step
            continue
        if name == "--exec-path" and eq:
            an.add("strict", "git --exec-path= runs git's commands from another directory", cmd, git_cwd, always=True)
            return
        if text.startswith("-c") and len(text) > 2:
            key, _, val = text[2:].partition("=")
            inline.append((key, val))
        elif text.startswith("-C") and len(text) > 2:
            git_cwd = _join(git_cwd, Word(text[2:]))
        elif text in ("--help", "-h", "--version", "-v", "--html-path", "--man-path", "--info-path", "--exec-path"):
            return
        globals_.append(text)
        i += 1
    if i >= len(args):
        return
    settings = inline + git_config.env_config(env)
    if not git_config.check_settings(an, settings, cmd, git_cwd, env):
        return
    sub = args[i].text
    rest = args[i + 1:]
    aliases = {k.lower()[6:]: v for k, v in settings if k.lower().startswith("alias.")}
    if sub == "send-email":  # mails the commits as patches: code leaves like a push (installed or not)
        an.add("push", "git send-email", cmd, git_cwd, revs=None, git_dir=git_dir)
        return
    if sub not in own_commands(an.ctx):
        alias = aliases.get(sub.lower())
        if alias is None:
            found = on_path(sub, {**an.ctx.env, **env})
            if found:
                an.add("strict", f"git {sub} runs {found}, a program the gate cannot read", cmd, git_cwd, always=True)
                return
            try:
                alias = an.ctx.alias_lookup(git_cwd or an.ctx.cwd, sub, globals_, env)
            except Exception:  # noqa: BLE001 - an unreadable config is an unknown subcommand
                alias = None
        if alias is None or alias == UNKNOWN:
            an.add("strict", f"unknown git subcommand {sub!r}", cmd, git_cwd, always=alias == UNKNOWN)
            return
        if alias_depth > 10:
            an.add("strict", f"git alias {sub!r} nests too deeply", cmd, git_cwd, always=True)
            return
        if alias.startswith("!"):
            extra = " ".join(quote(w.text) for w in rest) if all(w.literal for w in rest) else ""
            an.nested(alias[1:] + (" " + extra if extra else ""), cmd, git_cwd)
            return
        split = shell_split(alias)
        if not split:
            an.add("strict", f"git alias {sub!r} cannot be read", cmd, git_cwd, always=True)
            return
        run_git(an, list(args[:i]) + [Word(w) for w in split] + rest, cmd, git_cwd, env, alias_depth + 1, git_dir)
        return
    git_sub(an, sub, rest, cmd, git_cwd, env, git_dir)


def git_sub(an: Analyzer, sub: str, rest: list[Word], cmd: Command, cwd: str | None, env: dict[str, str],
            git_dir: str | None = None) -> None:
    lits = [w.text for w in rest]
    positional = [w.text for w in rest if not w.text.startswith("-")]
    if lits[:1] and lits[0] in HELP_FLAGS:
        return
    if any(not w.literal for w in rest) and sub in ("push", "send-pack", "http-push", "fetch", "pull", "update-ref",
                                                    "symbolic-ref", "notes", "replace", "config"):
        pass  # each handler below decides what a computed word means for it
    for option in COMMAND_OPTIONS.get(sub, ()):
        for index, word in enumerate(rest):
            if word.text == option and index + 1 < len(rest):
                an.shell_string(rest[index + 1], cmd, cwd)
            elif word.text.startswith(option + "="):
                an.shell_string(Word(word.text.split("=", 1)[1], word.literal), cmd, cwd)
    if sub not in READ_ONLY:
        git_hooks(an, sub, lits, cmd, cwd)
        if sub not in ("push", "send-pack", "http-push", "status", "config", "remote", "help", "notes", "stash")\
                or (sub == "stash" and positional[:1] in (["pop"], ["apply"])):
            an.moves_refs()
    if sub in ("push", "send-pack", "http-push"):
        from .refspecs import push_finding

        push_finding(an, sub, rest, cmd, cwd, env, git_dir)
    elif sub == "subtree":
        first = first_positional(rest, {"-P", "--prefix", "-m", "--message", "--onto", "-b", "--branch", "--annotate"})
        if first == "push":
            an.add("push", "git subtree push", cmd, cwd, revs=None, git_dir=git_dir)
    elif (sub == "svn" and positional[:1] == ["dcommit"]) or (sub == "p4" and positional[:1] == ["submit"]):
        an.add("push", f"git {sub} {positional[0]}", cmd, cwd, git_dir=git_dir)
    elif sub == "lfs" and positional[:1] == ["push"]:
        an.add("push", "git lfs push", cmd, cwd, git_dir=git_dir)
    elif sub in ("fetch", "pull"):
        from .refspecs import fetch_into_notes

        fetch_into_notes(an, sub, rest, cmd, cwd, env)
    elif sub == "notes":
        action = first_positional(rest, {"--ref"})
        if action in NOTE_WRITES or any(not w.literal for w in rest):
            an.add("note", f"git notes {action or '(computed)'}", cmd, cwd)
    elif sub == "update-ref":
        if "--stdin" in lits:
            an.add("note", "git update-ref --stdin (cannot see which refs)", cmd, cwd)
        elif any(not w.literal for w in rest):
            an.add("note", "git update-ref on a computed ref", cmd, cwd)
        else:
            ref = first_positional(rest, {"-m"})
            if ref and "notes" in ref:
                an.add("note", f"git update-ref {ref}", cmd, cwd)
    elif sub == "symbolic-ref":
        if any(not w.literal for w in rest) or any("notes" in text for text in positional):
            an.add("note", "git symbolic-ref to a notes ref", cmd, cwd)
    elif sub in ("fast-import", "replace") and not (sub == "replace" and set(lits) & {"-l", "--list", "--format"}
                                                     and not set(lits) & {"-f", "--edit", "-e", "--graft", "-d"}):
        an.add("note", f"git {sub} (writes any ref or object it is given)", cmd, cwd)
    elif sub == "filter-branch":
        if "--all" in lits or any("notes" in text for text in lits):
            an.add("note", "git filter-branch over the notes refs", cmd, cwd)
        for index, word in enumerate(rest):
            if word.text.endswith("-filter") and word.text.startswith("--") and index + 1 < len(rest):
                an.shell_string(rest[index + 1], cmd, cwd)
    elif sub == "config":
        git_config.config_write(an, rest, cmd, cwd)
    elif sub == "commit":
        an.add("commit", "git commit", cmd, cwd, args=lits)
    elif sub in ("add", "rm", "mv", "stage"):
        an.add("stage", f"git {sub}", cmd, cwd, args=lits if all(w.literal for w in rest) else ["-A"])
    elif sub in ("clone", "init", "worktree"):
        targets = positional[1:] if sub == "clone" or (sub == "worktree" and positional[:1] == ["add"]) else positional
        if sub == "worktree" and positional[:1] == ["add"]:
            targets = positional[1:2]
        for target in targets[-1:] if sub != "worktree" else targets:
            an.write(Word(target), cwd, cmd.source)
        for index, word in enumerate(rest):
            if word.text in ("--separate-git-dir", "--template") and index + 1 < len(rest):
                an.write(rest[index + 1], cwd, cmd.source)
    if sub == "rebase":
        for index, word in enumerate(rest):
            if word.text in ("-x", "--exec") and index + 1 < len(rest):
                an.shell_string(rest[index + 1], cmd, cwd)
            elif word.text.startswith("--exec="):
                an.shell_string(Word(word.text.split("=", 1)[1], word.literal), cmd, cwd)
            elif word.text.startswith("-x") and len(word.text) > 2:
                an.shell_string(Word(word.text[2:], word.literal), cmd, cwd)
    elif sub == "bisect" and positional[:1] == ["run"]:
        index = next(k for k, w in enumerate(rest) if w.text == "run")
        if index + 1 < len(rest):
            an.exec(list(rest[index + 1:]), cmd, cwd, dict(env), None)
    elif sub == "submodule":
        words = [w for w in rest]
        while words and words[0].text.startswith("-"):
            words = words[1:]
        if words and words[0].text == "foreach":
            words = [w for w in words[1:]]
            while words and words[0].text.startswith("-"):
                words = words[1:]
            if words:
                if all(w.literal for w in words):
                    an.nested(" ".join(w.text for w in words), cmd, cwd)
                else:
                    an.add("strict", "submodule foreach with a computed command", cmd, cwd, always=True)
    elif sub in ("difftool", "mergetool"):
        for index, word in enumerate(rest):
            if word.text in ("-x", "--extcmd", "-t", "--tool") and index + 1 < len(rest) and word.text in ("-x", "--extcmd"):
                an.shell_string(rest[index + 1], cmd, cwd)
            elif word.text.startswith("--extcmd="):
                an.shell_string(Word(word.text.split("=", 1)[1], word.literal), cmd, cwd)


def first_positional(words: list[Word], with_value: set[str]) -> str | None:
    i = 0
    while i < len(words):
        text = words[i].text
        if text in with_value:
            i += 2
            continue
        if text == "--":
            return words[i + 1].text if i + 1 < len(words) else None
        if not text.startswith("-"):
            return text
        i += 1
    return None


