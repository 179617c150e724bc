"""The footer on every screen: the keys that apply, and how many items wait for you (docked right).

The count is the app's `waiting_count` (core.waiting.waiting_items, refreshed by the journal
watcher); the key beside it is whatever `app.next_waiting` is bound to here. Where that key means
something else (a trace's search), the count shows without a key.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

WAITING_SYMBOL = "◆"


class WaitingKey(FooterKey):
    """The count; a click jumps like the key does (when a key is bound here)."""

    def on_mouse_down(self) -> None:
        if self.key:
            self.app.simulate_key(self.key)


class HallFooter(Footer):
    DEFAULT_CSS = """
    HallFooter .footer-right {
        dock: right;
        width: auto;
        height: 1;
    }
    HallFooter .footer-right FooterKey.-waiting {
        padding-right: 1;
        border-left: vkey $foreground 20%;
        text-style: bold;
    }
    HallFooter .footer-right FooterKey.-command-palette {
        dock: none;
    }
    """

    def on_mount(self) -> None:
        super().on_mount()
        if hasattr(self.app, "waiting_count"):
            self.watch(self.app, "waiting_count", self._count_changed, init=False)

    def _count_changed(self, _count: int | None) -> None:
        if self.is_attached:
            self.call_after_refresh(self.recompose)

    def waiting_text(self) -> str | None:
        count = getattr(self.app, "waiting_count", None)
        if count is None:
            return None
        return f"{WAITING_SYMBOL} {count} waiting"

    def compose(self) -> ComposeResult:
        """Footer's keys, then the count and the palette key side by side on the right (two docked
        widgets would overlap)."""
        right = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.has_class("-command-palette"):
                right.append(widget)
            else:
                yield widget
        waiting = self._waiting_key()
        if waiting is not None:
            right.insert(0, waiting)
        if right:
            with HorizontalGroup(classes="footer-right"):
                yield from right

    def _waiting_key(self) -> FooterKey | None:
        text = self.waiting_text()
        if not self._bindings_ready or text is None:
            return None
        key = None
        for bound, active in self.screen.active_bindings.items():
            if active.binding.action.endswith("next_waiting") and active.enabled:
                key = (bound, self.app.get_key_display(active.binding))
                break
        if key is None:
            return WaitingKey("", "", text, "", classes="-waiting", tooltip="items waiting for you")
        return WaitingKey(key[0], key[1], text, "app.next_waiting", classes="-waiting",
                          tooltip="jump to the next item waiting for you, oldest first")
