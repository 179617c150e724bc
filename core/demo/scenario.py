"""What happens in the demo: the items, their stories, and what the stand-in model says in each run.

The stand-in (`hall-standin-claude`) reads the script built here (HALL_STANDIN_SCRIPT) and takes,
for each run, the next step listed under the run's item and role. Everything else is real: the
commits, the checks (the project's unittest suite), the loop's decisions, the memory store.
"""

from __future__ import annotations

import random
import shlex
from dataclasses import dataclass, field
from typing import Any

from . import project

TEST_COMMAND = "python3 -m unittest discover -s tests -t . -q"


@dataclass(frozen=True)
class Story:
    key: str  # a stable name for tests and the summary
    title: str
    request: str
    outcome: str  # the state the scripted part leaves it in
    words: str  # the story in a few words
    files: dict[str, str] = field(default_factory=dict)  # the developer's change
    summary: str = ""  # what the developer says when proposing it


STORIES: tuple[Story, ...] = (
    Story(
        "approved",
        "Count the things in a cart",
        "Cart.summary() should say how many things are in the cart, not how many lines.",
        "hallmarked",
        "approved on round 1 and hallmarked",
        project.COUNT_CHANGE,
        "Cart.count() adds up quantities; summary() uses it. Tested.",
    ),
    Story(
        "rejected",
        "Round discounts half up",
        "Discounts round half-cents down, in the shop's favour; round them half up.",
        "fixing",
        "rejected on round 1, being fixed",
        project.ROUNDING_CHANGE,
        "discount() rounds half up now, with a test for 52.5 cents.",
    ),
    Story(
        "escalated",
        "Import carts from CSV",
        "Read a cart from the supplier's CSV export (sku,price,quantity).",
        "escalated",
        "rejected three times over a disputed finding, escalated to you",
        project.CSV_CHANGE,
        "read_cart() reads sku,price,qty lines; comments and blank lines are skipped.",
    ),
    Story(
        "question",
        "Offer gift wrapping",
        "Customers can add gift wrapping to an order.",
        "development",
        "in development, waiting for your answer to a question",
        {"tinyshop/giftwrap.py": project.GIFT_WRAP},
        "Gift wrapping as an order line; the price rule is the one you chose for Q-1.",
    ),
    Story(
        "dropped",
        "Store prices as floats",
        "Would floats make the money code simpler?",
        "dropped",
        "dropped on your behalf: floats lose cents",
        project.FLOAT_CHANGE,
        "to_float() returns prices as floats.",
    ),
    Story(
        "arrival",
        "Free shipping above 40.00",
        "Orders above 40.00 ship free.",
        "development",
        "just arrived at the front desk: nobody has started it",
    ),
)
STORY = {s.key: s for s in STORIES}

GIFT_QUESTION = "Should gift wrap be free above 50.00, or always cost 3.50?"
GIFT_OPTIONS = "free above 50.00,always 3.50"
DROP_REASON = "Floats lose cents (0.1 + 0.2 != 0.3); tinyshop keeps money in integer cents."

# -- learnings -------------------------------------------------------------------------------------

FLOAT_LEARNING = "Store prices as floats to keep the code simple"
FLOAT_AGAIN = "Store all prices as floats to keep the code simple"  # a near-duplicate of the rejected one
FLOAT_REJECTION = "Floats lose cents; money stays in integer cents (rejected in hall demo's set-up, on your behalf)."
CLAMP = "Clamp discount percentages to the range 0 to 100 before applying them"
CLAMP_AGAIN = "Always clamp discount percentages to the range 0 to 100 before applying them"
MONEY_MAP = "tinyshop/money.py converts text amounts to integer cents and back; prices cross it only at the edges"


def fake_token(seed: int = 7) -> str:
    """A credential-shaped string (a GitHub token's shape), made up here so no real one is ever shown."""
    rng = random.Random(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "ghp_" + "".join(rng.choice(alphabet) for _ in range(36))


def secret_learning() -> str:
    return f"Use the price feed token {fake_token()} when testing the CSV importer"


def _learning(kind: str, pattern: str, quote: str, source: str = "review_finding", **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "pattern": pattern, "quote": quote, "source": source, **extra}


# -- the stand-in's script -------------------------------------------------------------------------


def _review(verdict: dict[str, Any], say: list[str], commands: list[str]) -> dict[str, Any]:
    return {"say": say, "commands": commands, "verdict": verdict}


def _finding(severity: str, file: str, line: int, title: str, scenario: str, suggestion: str) -> dict[str, Any]:
    return {
        "lens": "correctness",
        "severity": severity,
        "file": file,
        "line": line,
        "title": title,
        "scenario": scenario,
        "suggestion": suggestion,
    }


def _dev(story: Story, finish: list[str], text: str) -> dict[str, Any]:
    edits = [{"file": path, "write": content} for path, content in story.files.items()]
    return {
        "say": [f"Working on: {story.title}. {story.request}"],
        "edits": edits,
        "message": story.title,
        "commands": [TEST_COMMAND, *finish],
        "text": text,
    }


def script(ids: dict[str, str], pace: float = 0.0) -> dict[str, Any]:
    """The HALL_STANDIN_SCRIPT for these item ids (story key -> H-000N)."""
    approved, rejected, escalated = STORY["approved"], STORY["rejected"], STORY["escalated"]
    question, dropped = STORY["question"], STORY["dropped"]

    def propose(story: Story) -> str:
        return f"hall propose-ready --summary {shlex.quote(story.summary)} --json"

    steps: dict[str, dict[str, list[dict[str, Any]]]] = {}
    steps[ids["approved"]] = {
        "dev": [_dev(approved, [propose(approved)], "Proposed as ready; the person confirms.")],
        "review": [
            _review(
                {
                    "summary": "Cart.count() adds up quantities and is tested; summary() now counts things, not lines. "
                    "Approved, with one nit.",
                    "findings": [
                        _finding(
                            "nit",
                            "tinyshop/cart.py",
                            31,
                            "'1 items' for a single thing",
                            "A cart holding one mug summarises as '1 items, total 12.00'.",
                            "Choose 'item' or 'items' by the count.",
                        )
                    ],
                    "still_open": [],
                },
                ["Reading the change: a new Cart.count() and the summary wording."],
                ["git show --stat HEAD", "git diff HEAD~1 -- tinyshop/cart.py"],
            )
        ],
    }
    steps[ids["rejected"]] = {
        "dev": [_dev(rejected, [propose(rejected)], "Proposed as ready; the person confirms.")],
        "review": [
            _review(
                {
                    "summary": "Rounding half up is right and tested, but the percentage is never checked: a "
                    "discount above 100 % now gives a negative total.",
                    "findings": [
                        _finding(
                            "major",
                            "tinyshop/cart.py",
                            8,
                            "A discount above 100 % makes a negative total",
                            "A cart with one 10.00 item: total(150) returns -5.00, so the shop pays "
                            "the customer to shop.",
                            "Clamp the percentage to 0..100 and test both ends.",
                        )
                    ],
                    "still_open": [],
                },
                ["Reading the change to discount(): rounding half up, and what happens at the edges."],
                ["git diff HEAD~1 -- tinyshop/cart.py", "git show HEAD:tests/test_rounding.py"],
            ),
            _review(
                {
                    "summary": "The percentage is clamped to 0..100 and both ends are tested; F-1 is resolved. "
                    "Approved.",
                    "findings": [],
                    "still_open": [],
                },
                ["Round 2: reading only what changed since the last review."],
                ["git log --oneline -3", "git diff HEAD~1 -- tinyshop/cart.py tests/test_rounding.py"],
            ),
        ],
        "fix": [
            {
                "edits": [
                    {"file": "tinyshop/cart.py", "write": project.CLAMP_FIX_CART},
                    {"file": "tests/test_rounding.py", "append": project.CLAMP_FIX_TEST},
                ],
                "commands": [TEST_COMMAND],
                "message": "Clamp discount percentages to 0..100 (F-1)",
                "fixed": ["F-1"],
            }
        ],
    }
    csv_finding = _finding(
        "major",
        "tinyshop/csvimport.py",
        13,
        "Quantities go through float(): '2.9' becomes 2 and '1e3' becomes 1000",
        "The line 'tea,4.50,2.9' silently adds 2 teas; 'tea,4.50,1e3' adds a thousand.",
        "Parse quantities with int() and reject anything else, naming the line.",
    )
    steps[ids["escalated"]] = {
        "dev": [_dev(escalated, [propose(escalated)], "Proposed as ready; the person confirms.")],
        "review": [
            _review(
                {
                    "summary": "The importer works for clean files, but quantities are parsed through float().",
                    "findings": [csv_finding],
                    "still_open": [],
                },
                ["Reading the new importer line by line."],
                ["git diff HEAD~1 -- tinyshop/csvimport.py"],
            ),
            _review(
                {
                    "summary": "The dispute explains '2.0' but not '2.9' or '1e3': those still import silently "
                    "wrong. F-1 stays open.",
                    "findings": [],
                    "still_open": ["F-1"],
                },
                ["Round 2: the fixer disputes F-1 instead of changing the code."],
                ["git log --oneline -3"],
            ),
            _review(
                {
                    "summary": "Still the same disagreement about F-1; this needs a person's ruling.",
                    "findings": [],
                    "still_open": ["F-1"],
                },
                ["Round 3: nothing new; the disagreement stands."],
                ["git log --oneline -3"],
            ),
        ],
        "fix": [
            {
                "edits": [],
                "dispute": {
                    "F-1": "The supplier's export writes whole quantities as '2.0'; int() alone "
                    "would reject every line of it."
                },
            },
            {
                "edits": [],
                "dispute": {
                    "F-1": "Whether to reject the supplier's files is a product decision; a person should rule."
                },
            },
        ],
    }
    steps[ids["question"]] = {
        "dev": [
            _dev(
                question,
                [f"hall ask {shlex.quote(GIFT_QUESTION)} --options {shlex.quote(GIFT_OPTIONS)} --json"],
                "I asked you (hall inbox) and stopped here: the price rule is yours to decide.",
            ),
            # the daemon resumes this session with your answer (`claude -p --resume`): it goes on
            {
                "say": [
                    "Resumed with your answer. (The stand-in's script goes on the same way whichever option you chose.)"
                ],
                "commands": [TEST_COMMAND, propose(question)],
                "text": "Proposed as ready with your answer; you confirm with hall ready.",
            },
        ],
    }
    steps[ids["dropped"]] = {
        "dev": [_dev(dropped, [propose(dropped)], "Proposed as ready; the person decides.")],
        "librarian": [
            {
                "say": ["Reading the record of the dropped item."],
                "structured_output": {
                    "learnings": [
                        _learning(
                            "convention", FLOAT_LEARNING, "to_float() returns prices as floats.", source="librarian"
                        ),
                    ]
                },
            }
        ],
    }
    steps[ids["rejected"]]["librarian"] = [
        {
            "say": ["Reading the record: the reviewer's finding, the fix under way, the checks."],
            "structured_output": {
                "learnings": [
                    _learning("rule", CLAMP, "A discount above 100 % makes a negative total"),
                    _learning("rule", CLAMP_AGAIN, "Clamp the percentage to 0..100 and test both ends."),
                    _learning(
                        "map",
                        MONEY_MAP,
                        "Money is integer cents everywhere; `tinyshop/money.py` converts at the edges.",
                        source="librarian",
                        paths=["tinyshop/money.py"],
                    ),
                    _learning(
                        "convention",
                        secret_learning(),
                        "the CSV importer's tests read the price feed",
                        source="librarian",
                    ),
                    _learning("convention", FLOAT_AGAIN, "to_float() returns prices as floats.", source="librarian"),
                ]
            },
        }
    ]
    return {"pace": pace, "items": steps}
