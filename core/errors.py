"""Typed errors that every face renders the same way: code, message, next.

Stdlib only: the hook path imports this.
"""

from __future__ import annotations

EXIT_CODES: dict[str, int] = {
    "INTERNAL": 1,
    "COMMAND_FAILED": 1,
    "GH_UNAVAILABLE": 1,
    "RUN_FAILED": 1,
    "USAGE": 2,
    "INVALID_VERDICT": 2,
    "INVALID_CONFIG": 2,
    "SECRET_REFUSED": 2,
    "CONFIRMATION_NEEDED": 2,
    "NOT_A_REPO": 3,
    "NOT_INITIALIZED": 3,
    "ITEM_NOT_FOUND": 3,
    "NO_ITEM": 3,
    "QUESTION_NOT_FOUND": 3,
    "RUN_NOT_FOUND": 3,
    "LEARNING_NOT_FOUND": 3,
    "WRONG_STATE": 4,
    "ITEM_IN_REVIEW": 4,
    "DIRTY_WORKTREE": 4,
    "ALREADY_ANSWERED": 4,
    "CHILDREN_OPEN": 4,
    "MERGE_CONFLICT": 4,
    "BUDGET_EXCEEDED": 4,
    "GATE_DENIED": 5,
    "SIGNING_UNAVAILABLE": 5,
    "CHECKS_FAILED": 6,
    "CLAIMED": 7,
}


class HallError(Exception):
    """An error that is data: a stable code, a human message and the commands that help."""

    def __init__(self, code: str, message: str, next: list[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.next = list(next or [])

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.code, 1)

    def to_dict(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "next": self.next}}

    def to_json(self) -> str:
        """The error body as one JSON text (a gate's reason, a hook's denial)."""
        import json

        return json.dumps(self.to_dict(), ensure_ascii=False)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"HallError({self.code!r}, {self.message!r})"
