"""No module of the product over about 500 lines without a reason written at its top.

A long module is allowed when its docstring says why (a sentence naming its "500 lines"); anything
else is split along its data seams. Counts every .py file under core/, hooks/ and tui/.
"""

from __future__ import annotations

import ast
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
LIMIT = 500


def test_every_module_over_500_lines_says_why_at_its_top():
    unexplained = []
    for top in ("core", "hooks", "tui"):
        for path in sorted((PROJECT / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            lines = text.count("\n") + (not text.endswith("\n"))
            if lines <= LIMIT:
                continue
            docstring = ast.get_docstring(ast.parse(text)) or ""
            if "500 lines" not in docstring:
                unexplained.append(f"{path.relative_to(PROJECT)} ({lines} lines)")
    assert unexplained == [], "split these along their data seams, or say why at the top: " + ", ".join(unexplained)
