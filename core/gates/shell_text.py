"""Shell text the walk needs rewritten or evaluated without a parse: the keywords tree-sitter-bash
misreads, and what `printf` prints. Stdlib only."""

from __future__ import annotations

import re

UNKNOWN = "\x00dynamic"  # stdin or a value the shell computes at run time
UNKNOWN_TEMP = "\x00temp"  # a fresh path under the temporary directory ($(mktemp), $TMPDIR)

# `time`, `coproc` and `!` are keywords bash reads before a command; tree-sitter-bash takes `time`
# and `coproc` for command names (so `time { git push; }` would hide its braces) and reads `! {`
# badly. They change nothing the gates decide on, so they are blanked out before parsing.
_KEYWORD = (
    r"(^|[;&|(){}\n]|\b(?:then|do|else|elif|if|while|until)\b)(\s*)"
    r"(time(?:\s+-p)?(?:\s+--)?|coproc(?:\s+[A-Za-z_][A-Za-z0-9_]*(?=\s*[{(]))?|!)(?=\s)"
)


def unkeyword(text: str) -> str:
    if "time" not in text and "coproc" not in text and "!" not in text:
        return text
    return re.sub(_KEYWORD, lambda m: m.group(1) + m.group(2) + " " * len(m.group(3)), text)


_PRINTF_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "\\": "\\",
    "r": "\r",
    "a": "\a",
    "v": "\v",
    "f": "\f",
    "e": "\x1b",
    "'": "'",
    '"': '"',
}


def printf_output(args: list[str]) -> str | None:
    """What `printf FORMAT ARGS…` prints when the format holds only %s, %%, %b and simple escapes
    (the format is reused while arguments remain, as printf does); None for anything else."""
    fmt, rest = args[0], list(args[1:])
    out: list[str] = []
    while True:
        i = 0
        used = False
        while i < len(fmt):
            ch = fmt[i]
            if ch == "\\" and i + 1 < len(fmt):
                nxt = fmt[i + 1]
                if nxt not in _PRINTF_ESCAPES:
                    return None
                out.append(_PRINTF_ESCAPES[nxt])
                i += 2
                continue
            if ch == "%" and i + 1 < len(fmt):
                nxt = fmt[i + 1]
                if nxt == "%":
                    out.append("%")
                elif nxt in "sb":
                    out.append(rest.pop(0) if rest else "")
                    used = True
                else:
                    return None
                i += 2
                continue
            out.append(ch)
            i += 1
        if not rest or not used:
            break
    return "".join(out)
