"""What the app and its screens need of each other, declared as Protocols (posting's `Helpable`).

A screen or widget asks `isinstance(self.app, BuildingSource)` instead of probing with
`getattr(self.app, "building", None)`: the contract is written down, a type checker sees it, and a
screen hosted by another app (DiffScreen in a test or benchmark host) still knows what it may use.
The app asks the same of a screen (`isinstance(screen, ItemContext)`).

HallmarkApp satisfies HallmarkAppLike; screens never import the app (tui/app.py imports them).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from hallmark.core.building import Building
    from hallmark.core.repo import Repo
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from .messages import CoreDone
    from .settings import TuiSettings


# -- what screens and widgets need of the app ---------------------------------------------------


@runtime_checkable
class BuildingSource(Protocol):
    """An app that loads the Building (core.building) once per journal change for every screen."""

    building: Building | None
    journal_generation: int  # counts journal changes: a screen away meanwhile reloads on return

    def refresh_building(self, changed: frozenset[str] | None = ...) -> None: ...


@runtime_checkable
class WaitingCounter(Protocol):
    """An app that counts what waits for you (the footer shows it); None until loaded."""

    waiting_count: int | None


@runtime_checkable
class KeymapSource(Protocol):
    """An app with the person's TUI settings (the keymap the help screen shows)."""

    settings: TuiSettings


@runtime_checkable
class HallmarkAppLike(BuildingSource, WaitingCounter, KeymapSource, Protocol):
    """Everything a HallScreen and the triage actions (tui/triage.py) use of Hallmark's app: its own
    members, and the three of Textual's App the actions call."""

    repo: Repo | None

    def notify(
        self,
        message: str,
        *,
        title: str = ...,
        severity: SeverityLevel = ...,
        timeout: float | None = ...,
        markup: bool = ...,
    ) -> None: ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = ...) -> Any: ...

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool: ...

    def fresh_repo(self) -> AbstractContextManager[Repo]: ...

    def report_error(self, error: Exception) -> None: ...

    def core_call(
        self, label: str, fn: Callable[..., Any], *args: Any, item: str | None = None, **kwargs: Any
    ) -> None: ...

    def open_item(self, item_id: str) -> None: ...

    def open_trace(self, path: Path, item: str | None = None) -> None: ...

    async def show_runs(self, item_id: str | None) -> None: ...

    async def action_mode(self, mode: str) -> None: ...

    def run_external(
        self, command: list[str], cwd: str | None = None, env: dict[str, str] | None = None
    ) -> int | None: ...


# -- what the app (and the footer) asks of a screen ---------------------------------------------


@runtime_checkable
class DrawsBuilding(Protocol):
    """A screen drawn from the Building: told of each new one."""

    def building_changed(self, building: Building, changed: frozenset[str] | None) -> None: ...


@runtime_checkable
class ReloadsOnJournal(Protocol):
    """A screen with data of its own: told what the journal changed, reloads what it shows."""

    def journal_changed(self, changed: frozenset[str], *, in_front: bool) -> None: ...


@runtime_checkable
class ItemContext(Protocol):
    """A screen about one item at a time: `n` (the next waiting item) counts from it."""

    def current_item_id(self) -> str | None: ...


@runtime_checkable
class ShowsWaiting(Protocol):
    """A screen that can show a waiting item in place (the board selects its card): True if it did."""

    def show_waiting(self, item_id: str) -> bool: ...


@runtime_checkable
class OneItemScreen(Protocol):
    """item_screen True: one item's own screen, which `n` replaces with the next item's detail."""

    item_screen: bool


@runtime_checkable
class HearsCoreDone(Protocol):
    """A screen that acts on the result of a core call it started (CoreDone)."""

    def core_done(self, message: CoreDone) -> None: ...


@runtime_checkable
class FocusesItem(Protocol):
    """A screen that can bring one item's rows forward (the Runs view, from `t` on an item)."""

    def focus_item(self, item_id: str | None) -> None: ...


@runtime_checkable
class GreysKeys(Protocol):
    """A screen whose keys may run only to say why they cannot (the footer greys them)."""

    def greyed(self, action: str) -> bool: ...
