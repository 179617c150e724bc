"""List prices per million tokens, by model family, for the cost shown beside every run.

Costs are list prices (what the API would charge), an estimate for plan users. The stand-in
model costs nothing. Update the table when prices change; unknown models fall back to what
Claude Code itself reported (`costUSD`), else 0.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Price:
    input: float  # USD per million input tokens
    output: float
    cache_write: float  # 5-minute cache writes
    cache_read: float


# Matched by the first substring found in the model id, most specific first.
TABLE: tuple[tuple[str, Price], ...] = (
    ("hallmark-standin", Price(0.0, 0.0, 0.0, 0.0)),
    ("opus-4-5", Price(5.0, 25.0, 6.25, 0.50)),
    ("opus-4-6", Price(5.0, 25.0, 6.25, 0.50)),
    ("opus-4-1", Price(15.0, 75.0, 18.75, 1.50)),
    ("opus-4", Price(15.0, 75.0, 18.75, 1.50)),
    ("opus", Price(5.0, 25.0, 6.25, 0.50)),
    ("sonnet", Price(3.0, 15.0, 3.75, 0.30)),
    ("haiku-4-5", Price(1.0, 5.0, 1.25, 0.10)),
    ("haiku-3-5", Price(0.80, 4.0, 1.0, 0.08)),
    ("3-5-haiku", Price(0.80, 4.0, 1.0, 0.08)),
    ("haiku", Price(1.0, 5.0, 1.25, 0.10)),
)


def price_of(model: str) -> Price | None:
    name = (model or "").lower()
    for needle, price in TABLE:
        if needle in name:
            return price
    return None


def cost(
    model: str,
    input_tokens: int = 0,
    output_tokens: int = 0,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    reported: float | None = None,
) -> float:
    """List-price cost in USD, rounded to a millionth."""
    price = price_of(model)
    if price is None:
        return round(float(reported or 0.0), 6)
    total = (
        input_tokens * price.input
        + output_tokens * price.output
        + cache_read_tokens * price.cache_read
        + cache_write_tokens * price.cache_write
    ) / 1_000_000
    return round(total, 6)
