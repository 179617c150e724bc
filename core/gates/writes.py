"""Which files a Bash command writes, checked against the protected record (protected.py).

A write target is a redirection or the operand of a command that writes (`WRITERS`). A computed
target is evaluated when it can be (`$(git rev-parse --git-common-dir)`, `$HOME`, `$PWD`, a
variable assigned earlier in the same command, `$(mktemp)`); one that cannot is denied in strict
mode, and everywhere when its text names git's directory or Hallmark's files.
"""

from __future__ import annotations

import os
import re

from .protected import holds_protected, protected_reason, protected_roots  # noqa: F401 - re-exported
from .shell import UNKNOWN, UNKNOWN_TEMP, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer, Finding
    from .shell import Command

NAMES_STATE = r"\.git\b|git-(common-)?dir|hallmark|\.claude|\bhooks\b|refs/notes|packed-refs"
TEMP = UNKNOWN_TEMP


def check(
    an: Analyzer, target: Word, cwd: str | None, source: str, content: str | None = None, *, recursive: bool = False
) -> None:
    """A write to target: a "state" finding when it is protected (or, for a recursive removal or
    extraction, when it holds something protected); remembered for later steps."""
    ctx = an.ctx
    path = target.text if target.literal else evaluate(an, target.text, cwd)
    if path is None:
        always = bool(re.search(NAMES_STATE, target.text))
        an.findings.append(
            _finding(
                "state" if always else "strict", f"a write to a computed path {target.text!r}", source, cwd, always=True
            )
        )
        return
    if path == TEMP or path.startswith(TEMP) or (cwd or "").startswith(TEMP):
        return
    if cwd is None and not os.path.isabs(path):  # after a `cd` the gate could not follow
        an.findings.append(
            _finding(
                "strict", f"a write to {target.text!r} in a directory the gate cannot know", source, cwd, always=True
            )
        )
        return
    if not os.path.isabs(path):
        path = os.path.join(cwd or ctx.cwd, path)
    if "/proc/" in path or "/dev/" in path:
        from .self_paths import UNKNOWN_PROCESS, resolve

        resolved = resolve(path, cwd or ctx.cwd)
        if resolved is None:
            return  # a file descriptor: writing it writes whatever it already is
        if resolved == UNKNOWN_PROCESS:
            an.findings.append(
                _finding("strict", f"a write through another process's directory {path!r}", source, cwd, always=True)
            )
            return
        path = resolved
    try:
        real = os.path.realpath(path)
    except ValueError:  # a NUL in the name: nothing can be written there
        return
    an.written[real] = content
    why = protected_reason(ctx.paths, real)
    if why is None and recursive:
        why = holds_protected(ctx.paths, real)
    if why:
        an.findings.append(_finding("state", f"a write to {target.text} ({why})", source, cwd))


def _finding(kind: str, detail: str, source: str, cwd: str | None, always: bool = False) -> Finding:
    from .push import Finding

    return Finding(kind, detail, source, cwd, always=always)


# -- computed targets ------------------------------------------------------------------------------

_SUB = re.compile(
    r"\$\((?P<cmd>[^()`]*)\)|`(?P<tick>[^`]*)`|\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}|"
    r"\$(?P<plain>[A-Za-z_][A-Za-z0-9_]*)"
)
_REV_PARSE = re.compile(r"^\s*git\s+(?:-C\s+(?P<dir>\S+)\s+)?rev-parse\s+(?P<args>(?:--[a-z-]+(?:\s+[\w./-]+)?\s*)+)$")


def evaluate(an: Analyzer, text: str, cwd: str | None) -> str | None:
    """The value of a computed word when the gate can know it, else None."""
    if text.startswith('"') and text.endswith('"') and len(text) >= 2:
        text = text[1:-1]
    unknown = False

    def one(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group("braced") or match.group("plain")
        if name:
            value = an.vars.get(name)
            if value is None and name in ("HOME", "PWD", "TMPDIR", "USER", "OLDPWD"):
                value = (
                    (cwd or an.ctx.cwd) if name == "PWD" else os.environ.get(name, "/tmp" if name == "TMPDIR" else "")
                )
                value = TEMP if name == "TMPDIR" else value
            if value is None or value == UNKNOWN:
                unknown = True
                return ""
            return value
        inner = (match.group("cmd") if match.group("cmd") is not None else match.group("tick")).strip()
        value = _command_value(an, inner, cwd)
        if value is None:
            unknown = True
            return ""
        return value

    value = _SUB.sub(one, text)
    if unknown or "$" in value or "`" in value or '"' in value or "'" in value:
        return None
    if TEMP in value:
        return TEMP
    return value


def _command_value(an: Analyzer, inner: str, cwd: str | None) -> str | None:
    if inner in ("pwd", "pwd -P", "pwd -L"):
        return cwd or an.ctx.cwd
    if inner.startswith("mktemp"):
        args = inner.split()[1:]
        if any(a in ("-p", "--tmpdir") or a.startswith(("-p", "--tmpdir=")) or "/" in a for a in args):
            return None
        return TEMP
    match = _REV_PARSE.match(inner)
    if match:
        from .run import capture

        where = cwd or an.ctx.cwd
        if match.group("dir"):
            where = os.path.join(where, match.group("dir"))
        proc = capture(["git", "-C", where, "rev-parse", *match.group("args").split()])
        out = proc.stdout.decode("utf-8", "replace").strip()
        if proc.returncode != 0 or "\n" in out:
            return None
        return out if os.path.isabs(out) else os.path.normpath(os.path.join(where, out))
    return None


# -- commands that write the files they name -------------------------------------------------------

VALUE_OPTIONS = {
    "cp": "tS",
    "mv": "tS",
    "install": "tmogS",
    "ln": "tS",
    "link": "",
    "rsync": "efT",
    "tee": "",
    "rm": "",
    "touch": "drt",
    "truncate": "sr",
    "shred": "ns",
    "chmod": "",
    "chown": "",
    "chgrp": "",
    "setfacl": "mMxX",
    "mkdir": "m",
    "sed": "efl",
    "perl": "eEIlmM",
    "dd": "",
    "sort": "okStT",
    "curl": "oDcdHXuFTe",
    "wget": "OPoaeU",
    "tar": "fCTXbgKNV",
    "unzip": "dxP",
    "zip": "bxi",
    "patch": "dioprBDFsVYz",
    "mktemp": "p",
    "split": "abln",
    "ed": "p",
    "ex": "cs",
    "vim": "cSsuiTw",
    "vi": "cSsuiTw",
    "nvim": "cSsuiw",
    "sqlite3": "",
    "chattr": "pv",
}
LONG_VALUE = frozenset(
    {
        "--target-directory",
        "--suffix",
        "--mode",
        "--owner",
        "--group",
        "--reference",
        "--size",
        "--date",
        "--output",
        "--output-document",
        "--directory-prefix",
        "--directory",
        "--file",
        "--output-dir",
        "--dump-header",
        "--cookie-jar",
        "--tmpdir",
        "--expression",
        "--output-file",
        "--exclude",
    }
)


def _operands(name: str, args: list[Word]) -> tuple[list[Word], dict[str, Word]]:
    """(operands, {option: value}) as getopt would read the command's arguments."""
    short = VALUE_OPTIONS.get(name, "")
    operands: list[Word] = []
    values: dict[str, Word] = {}
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if word.literal and text == "--":
            operands += args[i + 1 :]
            break
        if word.literal and text.startswith("--"):
            key, eq, value = text.partition("=")
            if key in LONG_VALUE and not eq and i + 1 < len(args):
                values[key] = args[i + 1]
                i += 2
                continue
            if eq:
                values[key] = Word(value, word.literal)
            else:
                values[key] = Word("")
            i += 1
            continue
        if (
            word.literal
            and text.startswith("-")
            and len(text) > 1
            and not (name == "chmod" and re.fullmatch(r"-[rwxXstugo]+", text))
        ):
            letters = text[1:]
            for index, letter in enumerate(letters):
                if letter in short:
                    attached = letters[index + 1 :]
                    if attached:
                        values["-" + letter] = Word(attached, True)
                        i += 1
                    else:
                        values["-" + letter] = args[i + 1] if i + 1 < len(args) else Word("")
                        i += 2
                    break
                values["-" + letter] = Word("")
            else:
                i += 1
            continue
        operands.append(word)
        i += 1
    return operands, values


def writes(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None, stdin: str | None) -> None:
    """The files this command writes, checked like redirections; content kept when it is known."""
    if name not in VALUE_OPTIONS and name not in ("sponge", "install"):
        return
    operands, values = _operands(name, args)
    targets, content = _targets(an, name, args, operands, values, cwd, stdin)
    linking = name in ("ln", "link") or (
        name == "cp" and any(k in values for k in ("-s", "-l", "--symbolic-link", "--link"))
    )
    if linking:
        sources = operands if (values.get("-t") or values.get("--target-directory")) is not None else operands[:-1]
        sources = operands[:1] if name == "link" else sources
        for source in sources:
            link_source(an, source, cwd, cmd.source)
    recursive = (
        (name == "rm" and any(k in values for k in ("-r", "-R", "--recursive")))
        or name in ("tar", "unzip", "rsync")
        or (name in ("chmod", "chown", "chgrp") and any(k in values for k in ("-R", "--recursive")))
    )
    for target in targets:
        if recursive:
            check(an, target, cwd, cmd.source, recursive=True)
        else:
            an.write(target, cwd, cmd.source, content if len(targets) == 1 else None)


def _targets(  # noqa: C901 - one table: where each command names the files it writes
    an: Analyzer,
    name: str,
    args: list[Word],
    operands: list[Word],
    values: dict[str, Word],
    cwd: str | None,
    stdin: str | None,
) -> tuple[list[Word], str | None]:
    """The files this command writes, and their content when it is known (tee's stdin, cp's source)."""
    targets: list[Word] = []
    content: str | None = None
    if name in ("tee", "sponge"):
        targets = operands
        content = stdin if stdin not in (None, UNKNOWN) else None
    elif name in (
        "rm",
        "touch",
        "shred",
        "unlink",
        "rmdir",
        "mkdir",
        "chattr",
        "sqlite3",
        "ed",
        "ex",
        "vim",
        "vi",
        "nvim",
    ):
        targets = operands[:1] if name == "sqlite3" else operands
    elif name == "truncate":
        targets = operands
    elif name in ("chmod", "chown", "chgrp", "setfacl"):
        targets = operands if ("--reference" in values or name == "setfacl") else operands[1:]
    elif name in ("cp", "mv", "install", "ln", "rsync", "scp"):
        directory = values.get("-t") or values.get("--target-directory")
        if directory is not None:
            targets = [directory]
        elif operands:
            targets = operands[-1:]
        if name == "mv":
            targets += operands[:-1] if directory is None else operands
        if name == "cp" and len(operands) == 2 and operands[0].literal:
            copied = (
                operands[0].text
                if os.path.isabs(operands[0].text)
                else os.path.join(cwd or an.ctx.cwd, operands[0].text)
            )
            content = _read(copied)
    elif name in ("sed", "perl"):
        if any(k.startswith("-i") for k in values) or "--in-place" in values:
            script_given = any(k in values for k in ("-e", "--expression", "-f", "-E"))
            targets = operands if script_given else operands[1:]
    elif name == "dd":
        targets = [Word(w.text[3:], w.literal) for w in args if w.text.startswith("of=")]
    elif name == "sort":
        targets = [v for k, v in values.items() if k in ("-o", "--output")]
    elif name == "curl":
        targets = [v for k, v in values.items() if k in ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar")]
        if "--output-dir" in values:
            targets.append(values["--output-dir"])
    elif name == "wget":
        targets = [
            v
            for k, v in values.items()
            if k in ("-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file", "-a")
        ]
    elif name == "tar":
        letters = "".join(w.text for w in args[:1] if w.literal and not w.text.startswith("-"))
        extracting = "x" in letters or any(k in values for k in ("-x", "--extract", "--get"))
        creating = "c" in letters or "r" in letters or any(k in values for k in ("-c", "--create", "-r", "--append"))
        if extracting:
            targets = [values.get("-C") or values.get("--directory") or Word(cwd or an.ctx.cwd)]
        if creating and ("-f" in values or "--file" in values):
            targets.append(values.get("-f") or values["--file"])
    elif name == "unzip":
        targets = [values.get("-d") or Word(cwd or an.ctx.cwd)]
    elif name == "zip":
        targets = operands[:1]
    elif name == "patch":
        targets = (
            [values[k] for k in ("-o", "--output", "-d", "--directory") if k in values]
            or operands[:1]
            or [Word(cwd or an.ctx.cwd)]
        )
    elif name == "mktemp":
        targets = [v for k, v in values.items() if k in ("-p", "--tmpdir")]
    elif name in ("split", "link"):  # split IN PREFIX; link FILE1 FILE2 (FILE2 a new name for FILE1)
        targets = operands[1:2]
    return targets, content


def link_source(an: Analyzer, source: Word, cwd: str | None, text: str) -> None:
    """A link made to the record (`ln -s .git/hallmark st`, `cp -l events.jsonl x`) is a write to
    it: what is written through the link lands in the protected file, under a name the gate never
    sees as protected."""
    path = source.text if source.literal else evaluate(an, source.text, cwd)
    if path is None:
        if re.search(NAMES_STATE, source.text):
            an.findings.append(_finding("state", f"a link to a computed path {source.text!r}", text, cwd))
        return
    if not os.path.isabs(path):
        path = os.path.join(cwd or an.ctx.cwd, path)
    if "/proc/" in path or "/dev/" in path:
        from .self_paths import resolve

        path = resolve(path, cwd or an.ctx.cwd) or path
    try:
        real = os.path.realpath(path)
    except ValueError:
        return
    why = protected_reason(an.ctx.paths, real) or holds_protected(an.ctx.paths, real)
    if why:
        an.findings.append(_finding("state", f"a link to {source.text} ({why})", text, cwd))


def _read(path: str, limit: int = 262_144) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", "replace") if len(data) <= limit else None
