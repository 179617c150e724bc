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
- The environment is the command's as bash gives it: what earlier commands exported, then its own
  prefixes; `--work-tree` is exported as GIT_WORK_TREE (as git does), a computed GIT_DIR or
  GIT_WORK_TREE is denied, and a subcommand word that is a pattern (`git pu?h`) is expanded first.
"""

from __future__ import annotations

import json
import os
import re

from . import git_config
from .git_hooks import probe_env
from .git_subs import git_sub
from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer, Context
    from .shell import Command

# the fallback when `git --list-cmds` cannot be asked: builtins and the scripts git ships
GIT_COMMANDS = frozenset(
    """
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
""".split()
)

GLOBAL_WITH_VALUE = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--attr-source",
        "--list-cmds",
    }
)


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
    proc = subprocess.run(
        ["git", *safe, "config", "--get", f"alias.{sub}"],
        cwd=run_in,
        env=probe_env(env),
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    )
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


class _Globals:
    """What git's global options say: where git runs, its directory, `-c` settings, the words."""

    __slots__ = ("cwd", "git_dir", "index", "inline", "words")

    def __init__(self, cwd: str | None, git_dir: str | None) -> None:
        self.cwd, self.git_dir = cwd, git_dir
        self.index = 0  # of the subcommand
        self.inline: list[tuple[str, str]] = []
        self.words: list[str] = []  # the global options as given, for `git config` lookups of aliases


def run_git(
    an: Analyzer,
    args: list[Word],
    cmd: Command,
    cwd: str | None,
    env: dict[str, str],
    alias_depth: int = 0,
    git_dir: str | None = None,
) -> None:
    for name in ("GIT_DIR", "GIT_WORK_TREE"):
        if env.get(name) == UNKNOWN:
            an.add(
                "strict", f"git with a computed {name} (the gate cannot know which repository)", cmd, cwd, always=True
            )
            return
    if env.get("GIT_DIR"):
        git_dir = _join(cwd, Word(env["GIT_DIR"]))
    for name in git_config.ENV_DENIED:
        if name in env:
            an.add("strict", f"git with {name} set (it points git at other state)", cmd, cwd, always=True)
            return
    found = _global_options(an, args, cmd, env, _Globals(cwd, git_dir))
    if found is None or found.index >= len(args):
        return
    i, git_cwd, git_dir = found.index, found.cwd, found.git_dir
    settings = found.inline + git_config.env_config(env)
    if not git_config.check_settings(an, settings, cmd, git_cwd, env):
        return
    sub = args[i].text
    rest = args[i + 1 :]
    if any(ch in sub for ch in "*?["):  # bash expands it against the files where the command runs
        from .globs import expand

        matches = expand(sub, cwd)
        if matches and matches[0] != sub:
            run_git(an, [*args[:i], *(Word(m) for m in matches), *rest], cmd, cwd, env, alias_depth + 1, git_dir)
            return
    if sub == "send-email":  # mails the commits as patches: code leaves like a push (installed or not)
        an.add("push", "git send-email", cmd, git_cwd, revs=None, git_dir=git_dir)
        return
    if sub in own_commands(an.ctx):
        git_sub(an, sub, rest, cmd, git_cwd, env, git_dir)
        return
    aliases = {**an.git_aliases, **{k.lower()[6:]: v for k, v in settings if k.lower().startswith("alias.")}}
    alias = aliases.get(sub.lower())
    if alias is None:
        program = on_path(sub, {**an.ctx.env, **env})
        if program:
            an.add("strict", f"git {sub} runs {program}, a program the gate cannot read", cmd, git_cwd, always=True)
            return
        try:
            alias = an.ctx.alias_lookup(git_cwd or an.ctx.cwd, sub, found.words, env)
        except Exception:  # noqa: BLE001 - an unreadable config is an unknown subcommand
            alias = None
    _run_alias(an, args, alias, cmd, env, alias_depth, found)


def _run_alias(
    an: Analyzer,
    args: list[Word],
    alias: str | None,
    cmd: Command,
    env: dict[str, str],
    alias_depth: int,
    found: _Globals,
) -> None:
    """`git <alias>`: a shell alias (`!…`) is read as shell code, a git alias is run as git again."""
    i, git_cwd = found.index, found.cwd
    sub, rest = args[i].text, args[i + 1 :]
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
    run_git(an, list(args[:i]) + [Word(w) for w in split] + rest, cmd, git_cwd, env, alias_depth + 1, found.git_dir)


def _global_options(
    an: Analyzer, args: list[Word], cmd: Command, env: dict[str, str], found: _Globals
) -> _Globals | None:
    """git's options before the subcommand; None when they end the analysis (denied, or --help and
    the like, which run nothing)."""
    i = 0
    while i < len(args):
        word = args[i]
        if not word.literal and (i == 0 or args[i - 1].text not in GLOBAL_WITH_VALUE):
            an.add("strict", f"git with a computed argument {word.text!r}", cmd, found.cwd, always=True)
            return None
        text = word.text
        if not text.startswith("-"):
            break
        name, eq, attached = text.partition("=")
        if text in GLOBAL_WITH_VALUE or (name in ("--git-dir", "--work-tree", "--config-env") and eq):
            value = Word(attached, word.literal) if eq else (args[i + 1] if i + 1 < len(args) else Word(""))
            if not value.literal:
                an.add("strict", f"git {name} with a computed value", cmd, found.cwd, always=True)
                return None
            _global_value(an, name, value, env, found)
            found.words += [name, value.text] if not eq else [text]
            i += 1 if eq else 2
            continue
        if name == "--exec-path" and eq:
            an.add("strict", "git --exec-path= runs git's commands from another directory", cmd, found.cwd, always=True)
            return None
        if text.startswith("-c") and len(text) > 2:
            key, _, val = text[2:].partition("=")
            found.inline.append((key, val))
        elif text.startswith("-C") and len(text) > 2:
            found.cwd = _join(found.cwd, Word(text[2:]))
        elif text in ("--help", "-h", "--version", "-v", "--html-path", "--man-path", "--info-path", "--exec-path"):
            return None
        found.words.append(text)
        i += 1
    found.index = i
    return found


def _global_value(an: Analyzer, name: str, value: Word, env: dict[str, str], found: _Globals) -> None:
    """One global option with a value: -C, -c, --config-env and --git-dir change what git reads."""
    if name == "-C":
        found.cwd = _join(found.cwd, value)
    elif name == "-c":
        key, _, val = value.text.partition("=")
        found.inline.append((key, val))
    elif name == "--config-env":
        key, _, var = value.text.partition("=")
        found.inline.append((key, env.get(var, an.ctx.env.get(var, UNKNOWN))))
    elif name == "--git-dir":
        found.git_dir = _join(found.cwd, value)
    elif name == "--work-tree":  # git exports it as GIT_WORK_TREE for the subcommand
        tree = _join(found.cwd, value)
        env["GIT_WORK_TREE"] = tree if tree is not None else UNKNOWN
