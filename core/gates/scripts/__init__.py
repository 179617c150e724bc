"""What a build runner would run: the recipe of a make target, a just recipe, a package.json script.

`make publish` runs whatever the Makefile says; a push hidden there is still a push. `plan(name,
args, cwd)` reads the runner's file from the directory the command runs in and returns Steps:
("run", label, text, cwd) for each shell text the runner would hand to a shell (push.py analyses
it like `sh -c`), and ("strict", detail) for what cannot be followed (an unreadable or unparsable
file; a body with computed parts, a non-shell shebang or an include we cannot see, when its text
mentions push or release). Imported only when the command word is a runner: the hook's common
path never loads it, and each grammar (make.py, just.py, package.py) loads only when its runner
is called. What they share, the Step plan, the follow limit and the "mentions" rule, is steps.py.
"""

from __future__ import annotations

from .steps import MAX_FOLLOW, MENTION, RUNNERS, Step

__all__ = ["MAX_FOLLOW", "MENTION", "RUNNERS", "Step", "plan"]


def plan(name: str, args: list[str | None], cwd: str | None) -> list[Step] | None:
    """Steps for this runner invocation; None when it is not a runner call we follow (a leaf)."""
    if name in ("make", "gmake"):
        from .make import make_plan

        return make_plan(args, cwd)
    if name == "just":
        from .just import just_plan

        return just_plan(args, cwd)
    from .package import package_plan

    return package_plan(name, args, cwd)
