"""$: tokens and cost by item, role, model and day; a 14-day bar chart; today against budgets.

The numbers come from hallmark.core.loop.usage and .budget.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import ClassVar

from hallmark.core import clock
from hallmark.core.loop import budget, usage
from hallmark.core.loop.budget_results import BudgetStatus
from hallmark.core.repo import Repo
from hallmark.core.run_results import UsageReport
from hallmark.tui import labels
from hallmark.tui.widgets.lists import VimTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from .base import HallScreen

GROUPS = ("item", "role", "model", "day")
LABEL_MAX = 48  # a longer label folds onto more lines rather than pushing the numbers off
DAYS = 14


@dataclass
class UsageData:
    reports: dict[str, UsageReport] = field(default_factory=dict)
    days: list[tuple[str, int, float]] = field(default_factory=list)  # (YYYY-MM-DD, tokens, cost)
    budget: BudgetStatus | None = None  # none until loaded


def wrap(text: str, width: int) -> Text:
    """A label folded onto as many lines as its column needs (a stand-in note must not be cut off)."""
    out = Text(text)
    if width <= 0 or len(text) <= width:
        return out
    lines = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return Text("\n".join(lines))


def human(n: float) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1_000)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return str(int(n))


def bar_chart(days: list[tuple[str, int, float]], width: int) -> Text:
    """One row a day: date, a bar scaled to the busiest day, tokens and cost (readable without colour)."""
    peak = max((t for _, t, _ in days), default=0) or 1
    label_w = 6 + 1 + 8 + 9
    bar_w = max(5, width - label_w - 4)
    out = Text()
    for i, (day, tokens, cost) in enumerate(days):
        filled = round(bar_w * tokens / peak)
        out.append(f"{day[5:]} ", style="dim")
        out.append("█" * filled, style="bold")
        out.append("·" * (bar_w - filled), style="dim")
        out.append(f" {human(tokens):>7} ${cost:>7.2f}")
        if i < len(days) - 1:
            out.append("\n")
    return out


def budget_lines(status: BudgetStatus) -> list[str]:
    """core.loop.budget.status() in words: the day, each room, and items near their cap."""
    lines = []
    daily = status.daily
    if daily.limit:
        pct = 100 * daily.used / daily.limit
        lines.append(
            f"daily: {human(daily.used)} of {human(daily.limit)} tokens ({pct:.0f}%) · ${daily.cost_usd:.2f}"
            + (" · ⏸ paused: the daily budget is spent" if daily.paused else "")
        )
    else:
        lines.append(f"daily: {human(daily.used)} tokens · ${daily.cost_usd:.2f} · no cap")
    if daily.granted:
        lines.append(f"  granted today: {human(daily.granted)}")
    for role, room in status.rooms.by_room().items():
        if not room.used and not room.daily:
            continue
        text = f"{role}: {human(room.used)}" + (f" of {human(room.daily)}" if room.daily else "")
        if room.closed:
            text += " · ✗ closed for today"
        lines.append(text)
    cap = status.per_item.cap
    if cap:
        rows = status.per_item.items
        near = [row for row in rows if row.allowance and row.tokens >= 0.8 * row.allowance]
        held = [row for row in rows if row.held]
        lines.append(f"per item: {human(cap)} tokens · {len(near)} near or over · {len(held)} held for budget")
    return lines


class UsageScreen(HallScreen):
    AUTO_FOCUS = "#usage-item"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "next_tab", "Next table", id="usage.tab")]

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with VerticalScroll(id="usage-body"):
            yield Static("", id="usage-budget")
            yield Static("", id="usage-chart")
            with TabbedContent(id="usage-tabs"):
                for group in GROUPS:
                    with TabPane(f"by {group}", id=f"tab-{group}"):
                        yield VimTable(id=f"usage-{group}")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self.sub_title = "Usage"
        for group in GROUPS:
            self._columns(group, 20)
        super().on_mount()

    def _columns(self, group: str, label_width: int) -> None:
        """The label as wide as its longest (at most LABEL_MAX), the numbers right after it."""
        self.query_one(f"#usage-{group}", VimTable).add_fixed_columns(
            (group, label_width),
            ("runs", 5),
            ("input", 7),
            ("output", 7),
            ("cache rd", 8),
            ("cache wr", 8),
            ("cost $", 7),
        )

    def load(self, repo: Repo) -> UsageData:
        data = UsageData()
        for group in GROUPS:
            data.reports[group] = usage.report(repo, by=group)
        today = clock.now().date()
        since = clock.stamp(clock.now() - timedelta(days=DAYS - 1)).split("T")[0]
        rows = {r.key[:10]: r for r in usage.report(repo, by="day", since=since).rows}
        for back in range(DAYS - 1, -1, -1):
            day = (today - timedelta(days=back)).isoformat()
            row = rows.get(day)
            data.days.append((day, row.tokens, row.cost_usd) if row else (day, 0, 0.0))
        data.budget = budget.status(repo)
        return data

    def show(self, data: UsageData) -> None:
        budget_box = self.query_one("#usage-budget", Static)
        chart = self.query_one("#usage-chart", Static)
        text = "Today against each budget\n" + "\n".join(
            f"  {line}" for line in (budget_lines(data.budget) if data.budget else [])
        )
        by_model = data.reports.get("model")
        standin = sum(r.standin_runs for r in by_model.rows) if by_model else 0
        if by_model and standin:
            text += (
                f"\n{standin} of {by_model.total.runs} runs were the demo's stand-in "
                f"({labels.STANDIN_MODEL}): no model ran, they cost nothing"
            )
        budget_box.update(text)
        width = max(40, self.size.width - 4)
        chart.update(Text(f"Last {DAYS} days (tokens)\n") + bar_chart(data.days, width))
        for group in GROUPS:
            table = self.query_one(f"#usage-{group}", VimTable)
            table.clear()
            report = data.reports.get(group)
            rows = report.rows if report else ()
            names = [labels.usage_key(group, row) for row in rows]
            key_width = max(10, min(LABEL_MAX, max((len(n) for n in names), default=10)))
            self._columns(group, key_width)
            for row in rows:
                label = wrap(labels.usage_key(group, row), key_width)
                table.add_row(
                    label,
                    str(row.runs),
                    human(row.input_tokens),
                    human(row.output_tokens),
                    human(row.cache_read_tokens),
                    human(row.cache_write_tokens),
                    f"{row.cost_usd:.2f}",
                    height=len(label.plain.splitlines()) or 1,
                )
            if report:
                total = report.total
                table.add_row(
                    "total",
                    str(total.runs),
                    human(total.input_tokens),
                    human(total.output_tokens),
                    human(total.cache_read_tokens),
                    human(total.cache_write_tokens),
                    f"{total.cost_usd:.2f}",
                )
            if not rows:
                table.add_row("no runs yet", "", "", "", "", "", "")
        self.call_after_refresh(self._to_top)

    def _to_top(self) -> None:
        """Open at the page's top: focusing the first table scrolled the budgets and the chart away."""
        self.query_one("#usage-body", VerticalScroll).scroll_home(animate=False)

    def action_next_tab(self) -> None:
        tabs = self.query_one(TabbedContent)
        ids = [f"tab-{g}" for g in GROUPS]
        tabs.active = ids[(ids.index(tabs.active) + 1) % len(ids)] if tabs.active in ids else ids[0]
