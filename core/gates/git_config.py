"""git's configuration as the push gate reads it: values that make git run a command, keys it denies.

`-c key=value`, `--config-env`, `GIT_CONFIG_*` and the `GIT_*`/`EDITOR` variables whose value git
runs are read as shell code when literal (a `core.pager=cat` is harmless) and denied when computed;
`core.hooksPath`, another config file, other transports and where a push goes by default are
denied outright; `notes.*` moves the hallmark notes. `git config` that writes such a key is read
the same way.
"""

from __future__ import annotations

import re

from .shell import UNKNOWN, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

# configuration whose value git runs as a command (read as shell code when literal)
RUNS_COMMAND = re.compile(
    r"(?i)^(core\.(editor|pager|sshcommand|askpass|fsmonitor|gitproxy)|sequence\.editor|"
    r"pager\..+|gpg(\..+)?\.program|credential(\..+)?\.helper|diff\.external|"
    r"(diff|merge)\..+\.(textconv|command|driver|cmd)|filter\..+\.(clean|smudge|process)|"
    r"remote\..+\.(receivepack|uploadpack|vcs)|uploadpack\.packobjectshook|"
    r"sendemail\..*(smtpserver|tocmd|cccmd|validate)|(difftool|mergetool)\..+\.cmd|"
    r"web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path)|alias\..+|"
    r"trailer\..+\.(cmd|command)|tar\..+\.command|gpg\.ssh\.defaultkeycommand|interactive\.difffilter|"
    r"core\.alternaterefscommand|imap\.tunnel|submodule\..+\.update|(difftool|mergetool)\..+\.path)$"
)
# configuration the gate denies outright: another hooks dir, another config file, other transports,
# git's own programs elsewhere, where a push goes or what it sends by default
DENIED_CONFIG = re.compile(
    r"(?i)^(core\.hookspath|include\.path|includeif\..+|protocol\..+|"
    r"remote\..+\.(push|pushurl|mirror)|push\.(default|pushoption)|"
    r"core\.worktree|core\.bare|extensions\..+|safe\.directory|init\.templatedir|hook\..+)$"
)
# a plain git alias (not `!shell`) to one of these subcommands is denied: it publishes, writes the
# record or changes the configuration the gate reads (an alias to `status` or `checkout` is fine)
ALIAS_DENIED = frozenset(
    {
        "push",
        "send-pack",
        "http-push",
        "send-email",
        "notes",
        "update-ref",
        "symbolic-ref",
        "fast-import",
        "replace",
        "filter-branch",
        "config",
        "remote",
        "subtree",
        "svn",
        "p4",
        "lfs",
        "fetch",
        "pull",
        "init",
        "clone",
    }
)
NOTES_CONFIG = re.compile(r"(?i)^(notes\..+|core\.notesref)$")
BOOLISH = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})
# environment variables git reads a command from; and those that redirect git wholesale
ENV_COMMANDS = (
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "EDITOR",
    "VISUAL",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_PAGER",
    "PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
)
ENV_DENIED = (
    "GIT_EXEC_PATH",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_TEMPLATE_DIR",
    "GIT_CONFIG_PARAMETERS",
    "GIT_NOTES_REF",
    "GIT_NOTES_DISPLAY_REF",
    "GIT_NOTES_REWRITE_REF",
    "GIT_NOTES_REWRITE_MODE",
    "GIT_REPLACE_REF_BASE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
)


def env_config(env: dict[str, str]) -> list[tuple[str, str]]:
    """(key, value) given through GIT_CONFIG_COUNT/KEY_n/VALUE_n in the command's own assignments."""
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or 0)
    except ValueError:
        return [("GIT_CONFIG_COUNT", UNKNOWN)]
    return [(env.get(f"GIT_CONFIG_KEY_{n}", ""), env.get(f"GIT_CONFIG_VALUE_{n}", "")) for n in range(min(count, 100))]


def check_settings(
    an: Analyzer, settings: list[tuple[str, str]], cmd: Command, cwd: str | None, env: dict[str, str]
) -> bool:
    """Check `-c`, `--config-env`, GIT_CONFIG_* and the command-running variables; False when denied."""
    for key, value in settings:
        if key == "GIT_CONFIG_COUNT":
            an.add("strict", "GIT_CONFIG_COUNT is computed", cmd, cwd, always=True)
            return False
        if NOTES_CONFIG.match(key):
            an.add("note", f"git -c {key} (moves hallmark notes)", cmd, cwd)
            return False
        if DENIED_CONFIG.match(key):
            an.add("strict", f"git -c {key}=… (the gate denies overriding it)", cmd, cwd, always=True)
            return False
        if (
            RUNS_COMMAND.match(key)
            and not key.lower().startswith("alias.")
            and not _command_value(an, key, value, cmd, cwd)
        ):
            return False
    return all(name not in env or _command_value(an, name, env[name], cmd, cwd) for name in ENV_COMMANDS)


def _command_value(an: Analyzer, key: str, value: str, cmd: Command, cwd: str | None) -> bool:
    if value == UNKNOWN:
        an.add("strict", f"{key} is computed, and git runs it", cmd, cwd, always=True)
        return False
    if value.strip().lower() in BOOLISH:
        return True
    an.nested(value[1:] if value.startswith("!") else value, cmd, cwd)
    return True


def may_write_notes(value: str) -> bool:
    """A configured refspec (or URL rewrite) whose destination names or can match refs/notes/."""
    from .refspecs import dest_may_be_notes

    return "notes" in value or dest_may_be_notes(value.lstrip("+").partition(":")[2])


def plain_alias(an: Analyzer, name: str, value: str) -> bool:
    """`git config alias.co checkout`: a plain git alias runs git again with those words, read when
    it is used (and at once, when this same command uses it). True when it is one the gate lets be
    written: not `!shell`, and not to a subcommand that publishes or writes the record."""
    from .git_cmds import shell_split

    if value.startswith("!"):
        return False
    words = shell_split(value)
    if not words or words[0].startswith("-") or words[0].lower() in ALIAS_DENIED:
        return False
    an.git_aliases[name.lower()] = value
    return True


def _config_operands(lits: list[str]) -> list[str]:
    """`git config`'s key and value words: options and their values left out, and the verb of the
    newer syntax (`git config set key value`) too."""
    with_value = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}
    words: list[str] = []
    skip = False
    for text in lits:
        if skip:
            skip = False
            continue
        if text in with_value:
            skip = True
            continue
        if not text.startswith("-"):
            words.append(text)
    if words[:1] in (["set"], ["unset"], ["rename-section"], ["remove-section"]):
        words = words[1:]
    return words


def config_write(an: Analyzer, rest: list[Word], cmd: Command, cwd: str | None) -> None:
    """`git config` that sets a key which runs commands, moves notes, or is denied as an override."""
    lits = [w.text for w in rest]
    if any(not w.literal for w in rest):
        an.add("strict", "git config with computed words", cmd, cwd, always=True)
        return
    if set(lits) & {"-e", "--edit"} or (lits[:1] == ["edit"]):
        an.add("strict", "git config --edit rewrites git's configuration by hand", cmd, cwd, always=True)
        return
    reads = {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "-l",
        "--list",
        "--show-origin",
        "--name-only",
        "--get-color",
        "--get-colorbool",
    }
    if set(lits) & reads or lits[:1] in (["get"], ["list"]):
        return
    for index, flag in enumerate(lits):
        if flag in ("-f", "--file", "--blob") and index + 1 < len(rest):
            an.write(rest[index + 1], cwd, cmd.source)
        elif flag.startswith("--file="):
            an.write(Word(flag.split("=", 1)[1]), cwd, cmd.source)
    words = _config_operands(lits)
    if len(words) < 2 and not set(lits) & {
        "--unset",
        "--unset-all",
        "--rename-section",
        "--remove-section",
        "--add",
        "--replace-all",
    }:
        return  # `git config key`: a read
    key = words[0] if words else ""
    value = words[1] if len(words) > 1 else ""
    if key.lower().startswith("alias.") and len(words) > 1 and plain_alias(an, key[6:], value):
        return
    if NOTES_CONFIG.match(key):
        an.add("note", f"git config {key} (moves hallmark notes)", cmd, cwd)
    elif DENIED_CONFIG.match(key) or (RUNS_COMMAND.match(key) and value.strip().lower() not in BOOLISH):
        an.add(
            "strict", f"git config {key} … (configuration that runs commands or moves the gates)", cmd, cwd, always=True
        )
    elif (
        key.lower().startswith(("remote.", "url."))
        and key.lower().endswith(("fetch", "insteadof", "pushinsteadof"))
        and (may_write_notes(value) or key.lower().endswith("pushinsteadof"))
    ):
        an.add("note", f"git config {key} {value}", cmd, cwd)
