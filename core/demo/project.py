"""The demo's small real project, written as text: `tinyshop`, a cart that prices in integer cents.

Its unittest suite passes on main (so the checks are real and green), and it has two bugs the
scenario's items run into: a discount rounds half-cents down in the shop's favour, and a discount
above 100 % makes a negative total. Each item's change is a real commit on its own branch.
Stdlib only; the suite runs with `python -m unittest` (no pytest needed on a fresh machine).
"""

from __future__ import annotations

README = """# tinyshop

A tiny shopping cart that prices in integer cents (floats lose cents: 0.1 + 0.2 != 0.3).

    python -m unittest discover -s tests -t .

This repository was written by `hall demo`: Hallmark's items, journal and review loop run on it
with a stand-in model (no Claude runs, nothing costs anything).
"""

CLAUDE_MD = """# tinyshop rules

- Money is integer cents everywhere; `tinyshop/money.py` converts at the edges.
- Every public function has a test in `tests/`.
"""

GITIGNORE = "__pycache__/\n*.pyc\n"

MONEY = '''"""Money as integer cents: text amounts in, cents inside, text out."""


def to_cents(amount: str) -> int:
    """'12.34' -> 1234, '-0.5' -> -50."""
    text = amount.strip()
    sign = -1 if text.startswith("-") else 1
    whole, _, frac = text.lstrip("+-").partition(".")
    if not (whole or frac) or not (whole or "0").isdigit() or (frac and not frac.isdigit()):
        raise ValueError(f"not an amount: {amount!r}")
    return sign * (int(whole or "0") * 100 + int((frac + "00")[:2]))


def format_cents(cents: int) -> str:
    """1234 -> '12.34', -50 -> '-0.50'."""
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"
'''

CART = '''"""A cart: lines of (sku, unit price in cents, quantity), a subtotal and a discounted total."""

from .money import format_cents


def discount(cents: int, percent: int) -> int:
    """The discount on an amount, in cents."""
    return cents * percent // 100


class Cart:
    def __init__(self) -> None:
        self.lines: list[tuple[str, int, int]] = []

    def add(self, sku: str, unit_cents: int, qty: int = 1) -> None:
        if qty <= 0:
            raise ValueError("quantity must be positive")
        self.lines.append((sku, unit_cents, qty))

    def subtotal(self) -> int:
        return sum(unit * qty for _, unit, qty in self.lines)

    def total(self, discount_percent: int = 0) -> int:
        subtotal = self.subtotal()
        return subtotal - discount(subtotal, discount_percent)

    def summary(self) -> str:
        return f"{len(self.lines)} lines, total {format_cents(self.total())}"
'''

INIT = '"""tinyshop: a cart that prices in integer cents."""\n'

TEST_MONEY = """import unittest

from tinyshop.money import format_cents, to_cents


class MoneyTest(unittest.TestCase):
    def test_to_cents(self):
        self.assertEqual(to_cents("12.34"), 1234)
        self.assertEqual(to_cents("-0.5"), -50)
        self.assertEqual(to_cents("7"), 700)

    def test_to_cents_refuses_text(self):
        with self.assertRaises(ValueError):
            to_cents("twelve")

    def test_format_cents(self):
        self.assertEqual(format_cents(1234), "12.34")
        self.assertEqual(format_cents(-50), "-0.50")
"""

TEST_CART = """import unittest

from tinyshop.cart import Cart, discount


class CartTest(unittest.TestCase):
    def test_subtotal_and_total(self):
        cart = Cart()
        cart.add("tea", 450, 2)
        cart.add("mug", 1200)
        self.assertEqual(cart.subtotal(), 2100)
        self.assertEqual(cart.total(10), 1890)

    def test_quantity_must_be_positive(self):
        with self.assertRaises(ValueError):
            Cart().add("tea", 450, 0)

    def test_discount(self):
        self.assertEqual(discount(1000, 25), 250)
"""


def files() -> dict[str, str]:
    """The first commit on main: path -> text."""
    return {
        "README.md": README,
        "CLAUDE.md": CLAUDE_MD,
        ".gitignore": GITIGNORE,
        "tinyshop/__init__.py": INIT,
        "tinyshop/money.py": MONEY,
        "tinyshop/cart.py": CART,
        "tests/__init__.py": "",
        "tests/test_money.py": TEST_MONEY,
        "tests/test_cart.py": TEST_CART,
    }


# -- each item's own change (a real commit in its worktree) ------------------------------------

COUNT_CHANGE = {
    "tinyshop/cart.py": CART.replace(
        """    def summary(self) -> str:
        return f"{len(self.lines)} lines, total {format_cents(self.total())}"
""",
        '''    def count(self) -> int:
        """How many things are in the cart (quantities added up)."""
        return sum(qty for _, _, qty in self.lines)

    def summary(self) -> str:
        return f"{self.count()} items, total {format_cents(self.total())}"
''',
    ),
    "tests/test_count.py": """import unittest

from tinyshop.cart import Cart


class CountTest(unittest.TestCase):
    def test_count_adds_quantities(self):
        cart = Cart()
        cart.add("tea", 450, 2)
        cart.add("mug", 1200)
        self.assertEqual(cart.count(), 3)
        self.assertEqual(cart.summary(), "3 items, total 21.00")
""",
}

ROUNDING_CHANGE = {
    "tinyshop/cart.py": CART.replace(
        '''    """The discount on an amount, in cents."""
    return cents * percent // 100
''',
        '''    """The discount on an amount, in cents, rounded half up (not down in the shop's favour)."""
    return (cents * percent + 50) // 100
''',
    ),
    "tests/test_rounding.py": """import unittest

from tinyshop.cart import discount


class RoundingTest(unittest.TestCase):
    def test_half_cents_round_up(self):
        self.assertEqual(discount(1050, 5), 53)  # 52.5 cents
""",
}

# The fixer's commit for the rounding item: clamp the percentage (the reviewer's finding).
CLAMP_FIX_CART = ROUNDING_CHANGE["tinyshop/cart.py"].replace(
    """    return (cents * percent + 50) // 100
""",
    """    percent = max(0, min(100, percent))
    return (cents * percent + 50) // 100
""",
)
CLAMP_FIX_TEST = """

class ClampTest(unittest.TestCase):
    def test_percent_is_clamped_to_0_100(self):
        self.assertEqual(discount(1000, 150), 1000)
        self.assertEqual(discount(1000, -20), 0)
"""

CSV_CHANGE = {
    "tinyshop/csvimport.py": '''"""Read a cart from CSV lines: sku,price,quantity (price as text, e.g. 4.50)."""

from .cart import Cart
from .money import to_cents


def read_cart(lines: list[str]) -> Cart:
    cart = Cart()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        sku, price, qty = (part.strip() for part in line.split(","))
        cart.add(sku, to_cents(price), int(float(qty)))
    return cart
''',
    "tests/test_csvimport.py": """import unittest

from tinyshop.csvimport import read_cart


class CsvTest(unittest.TestCase):
    def test_reads_lines(self):
        cart = read_cart(["# sku,price,qty", "tea,4.50,2", "mug,12.00,1"])
        self.assertEqual(cart.subtotal(), 2100)
""",
}

GIFT_WRAP = '''"""Gift wrapping (first cut): the price rule waits for the person's answer (see hall inbox)."""

GIFT_WRAP_CENTS = 350


def gift_wrap_cents(subtotal_cents: int) -> int:
    return GIFT_WRAP_CENTS
'''

FLOAT_CHANGE = {
    "tinyshop/money.py": MONEY
    + '''

def to_float(cents: int) -> float:
    """Prices as floats, to keep the code simple."""
    return cents / 100
''',
}
