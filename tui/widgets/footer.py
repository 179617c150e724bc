"""The footer on every screen: the keys that apply here, and on the right how many things wait for
you and `? Keys`, which never drop out.

One widget that draws one line. Textual's own Footer recomposes a widget per key whenever the
bindings change (every cursor move, every reload, every new trace line), which took a third to
two thirds of the app's time under load; this one recomputes a list and repaints in place. When
the line is too narrow, whole keys drop from the end (least specific first: the screen's own keys
come first, the views' keys after); nothing is cut mid-word, and `…` says keys were left out.
A click on a key presses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hallmark.tui.protocols import GreysKeys, WaitingCounter
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.widget import Widget

WAITING_SYMBOL = "◆"
HELP_ACTIONS = ("help", "app.help")
NEXT_WAITING = ("next_waiting", "app.next_waiting")


@dataclass(frozen=True)
class FooterEntry:
    key: str  # the key as Textual names it ("question_mark"), what a click presses
    display: str  # as shown ("?")
    description: str
    action: str
    enabled: bool


class HallFooter(Widget):
    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer--key", "footer--description", "footer--waiting", "footer--more"}
    DEFAULT_CSS = """
    HallFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $footer-background;
        color: $footer-foreground;
    }
    HallFooter > .footer--key {
        color: $footer-key-foreground;
        background: $footer-key-background;
        text-style: bold;
    }
    HallFooter > .footer--description {
        color: $footer-description-foreground;
    }
    HallFooter > .footer--waiting {
        text-style: bold;
        color: $footer-key-foreground;
    }
    HallFooter > .footer--more {
        color: $text-muted;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[FooterEntry] = []
        self.spans: list[tuple[int, int, FooterEntry]] = []  # (start, end, entry) as last drawn
        self.shown: list[FooterEntry] = []  # the left-hand keys that fit last time
        self._dirty = False

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        if isinstance(self.app, WaitingCounter):
            self.watch(self.app, "waiting_count", self._count_changed, init=False)
        self._collect()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        """Many changes in one frame become one recount and one repaint."""
        if not self._dirty:
            self._dirty = True
            self.call_after_refresh(self._collect)

    def _count_changed(self, _count: int | None) -> None:
        self.refresh()

    def _collect(self) -> None:
        self._dirty = False
        if not self.is_attached:
            return
        seen: set[str] = set()
        entries: list[FooterEntry] = []
        screen = self.screen
        greys = screen if isinstance(screen, GreysKeys) else None  # keys that run but only to say why they can't
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            enabled = active.enabled and not (greys is not None and greys.greyed(binding.action))
            entries.append(
                FooterEntry(key, self.app.get_key_display(binding), binding.description, binding.action, enabled)
            )
        if entries != self.entries:
            self.entries = entries
            self.refresh()

    # -- drawing -------------------------------------------------------------------------------
    def waiting_text(self) -> str | None:
        count = self.app.waiting_count if isinstance(self.app, WaitingCounter) else None
        if count is None:
            return None
        return f"{WAITING_SYMBOL} {count} waiting"

    def next_waiting_key(self) -> FooterEntry | None:
        """The key that jumps to the next waiting item here (n), when it is enabled."""
        for key, active in self.screen.active_bindings.items():
            if active.binding.action in NEXT_WAITING and active.enabled:
                return FooterEntry(key, self.app.get_key_display(active.binding), "", active.binding.action, True)
        return None

    def render(self) -> RenderResult:
        width = self.size.width
        key_style = self.get_component_rich_style("footer--key")
        desc_style = self.get_component_rich_style("footer--description")
        more_style = self.get_component_rich_style("footer--more")
        dim = Style(dim=True)
        right: list[tuple[Text, FooterEntry | None]] = []
        waiting = self.waiting_text()
        if waiting is not None:
            jump = self.next_waiting_key()
            piece = Text()
            if jump is not None:
                piece.append(f" {jump.display} ", key_style)
            piece.append(f"{waiting} ", self.get_component_rich_style("footer--waiting"))
            right.append((piece, jump))
        helper = next((e for e in self.entries if e.action in HELP_ACTIONS), None)
        if helper is not None:
            right.append((self._piece(helper, key_style, desc_style, dim), helper))
        left = [e for e in self.entries if e.action not in HELP_ACTIONS]
        right_width = sum(p.cell_len for p, _ in right) + (1 if right else 0)
        room = max(0, width - right_width)
        pieces: list[tuple[Text, FooterEntry]] = []
        used = 0
        dropped = False
        for entry in left:
            piece = self._piece(entry, key_style, desc_style, dim)
            if used + piece.cell_len > room - (0 if entry is left[-1] else 2):
                dropped = True
                break
            pieces.append((piece, entry))
            used += piece.cell_len
        out = Text(no_wrap=True, overflow="crop")
        spans: list[tuple[int, int, FooterEntry]] = []
        for piece, entry in pieces:
            spans.append((out.cell_len, out.cell_len + piece.cell_len, entry))
            out.append_text(piece)
        if dropped:
            out.append(" …", more_style)
        self.shown = [entry for _, entry in pieces]
        gap = width - out.cell_len - right_width
        if right:
            out.append(" " * max(1, gap))
            out.append("▏", more_style)
            for piece, right_entry in right:
                if right_entry is not None:
                    spans.append((out.cell_len, out.cell_len + piece.cell_len, right_entry))
                out.append_text(piece)
        self.spans = spans
        return out

    @staticmethod
    def _piece(entry: FooterEntry, key_style: Style, desc_style: Style, dim: Style) -> Text:
        piece = Text()
        piece.append(f" {entry.display} ", key_style + dim if not entry.enabled else key_style)
        piece.append(f"{entry.description} ", desc_style + dim if not entry.enabled else desc_style)
        return piece

    def text(self) -> str:
        """What the footer says now (tests read it)."""
        return self.render().plain  # type: ignore[union-attr]

    def on_click(self, event: events.Click) -> None:
        for start, end, entry in self.spans:
            if start <= event.x < end:
                self.app.simulate_key(entry.key)  # a greyed key still says why it cannot act
                return
