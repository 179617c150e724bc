"""What a finished Bash command did, as the PostToolUse hook records it: the `hall` verbs it ran
(`hall new`, `hall adopt` and `hall ask` bind the session to their item) and the directories where it
committed, read with the push gate's own parser (shell.py, push.py), so the gate and the record
never read one command two ways. Stdlib (tree-sitter only for what the plain-word path cannot split).
"""

from __future__ import annotations

import os


def what_ran(command: str, cwd: str) -> tuple[set[str], list[str]]:
    """The hall verbs it runs and the directories where it commits (via the push-gate parser)."""
    from . import push, shell

    verbs: set[str] = set()

    def on_command(cmd: shell.Command) -> None:
        words = cmd.words
        while words and words[0].literal and shell._ASSIGNMENT.match(words[0].text):
            words = words[1:]
        if not words or not words[0].literal or os.path.basename(words[0].text) != "hall":
            return
        rest = [w.text for w in words[1:] if w.literal]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] == "-C" else rest[1:]
        if rest:
            verbs.add(rest[0])

    shell.Walker(on_command, lambda problem: None).source(command, cwd)
    findings = push.analyze(command, push.Context(cwd, alias_lookup=lambda *a: None))
    dirs = []
    for finding in findings:
        if finding.kind == "commit":
            directory = finding.cwd or cwd
            if directory not in dirs:
                dirs.append(directory)
    return verbs, dirs
