"""The base of every full screen: draw the app's Building, load a screen's own data in a worker.

Two sources, one rule each:

- The Building (core.building, loaded once per journal change by the app) is what the floor, the
  boards, the triage list and every count draw from. `draw(building)` runs on the UI thread and
  is quick; a screen behind another is drawn when it comes back.
- A screen's own data (an item's journal, the inbox's notices, a run list, usage) comes from
  `load(repo)` in a worker thread and reaches `show(data)` through a DataLoaded message; an answer
  to an older load is dropped, and reloads happen only when the journal changed something the
  screen shows.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any, cast

from hallmark.core.errors import HallError
from hallmark.tui.messages import DataLoaded
from hallmark.tui.protocols import BuildingSource, HallmarkAppLike
from hallmark.tui.widgets.footer import HallFooter
from textual import on, work
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from hallmark.core.building import Building
    from hallmark.core.repo import Repo


class HallScreen(Screen):
    """A screen over the repo's data."""

    OWN_DATA = True  # False: the screen draws only the Building (no load of its own)
    loaded: bool = False  # drawn once from real data
    item_screen: bool = False  # one item's own screen: `n` replaces it with the next item's detail

    def __init__(self) -> None:
        super().__init__()
        # Textual reparses every stylesheet and restyles the whole screen when a mode's screen first
        # shows, and again on its next visit (it marks a screen up to date only while mounted):
        # 100-400 ms a time at 1,000 items. A screen built now is styled with the current theme, so
        # it starts up to date; a later theme change still marks it stale as before.
        with contextlib.suppress(Exception):  # no running app (built outside one): Textual's own default
            self._css_update_count = self.app._css_update_count
        self._generation = 0
        self._building_stale = False
        self._data_stale = False
        self._last_load = 0.0
        self._reload_timer = False
        self._drawn: Building | None = None  # the Building drawn last
        self._journal_seen = 0  # the app's journal_generation when this screen's data was loaded

    @property
    def hall(self) -> HallmarkAppLike:
        """The app, as what a HallScreen needs of it (tui/protocols.py); HallmarkApp is one."""
        return cast("HallmarkAppLike", self.app)

    @property
    def repo(self) -> Repo:
        repo = self.hall.repo
        assert repo is not None
        return repo

    @property
    def building(self) -> Building | None:
        app = self.app
        return app.building if isinstance(app, BuildingSource) else None

    def _journal_generation(self) -> int:
        app = self.app
        return app.journal_generation if isinstance(app, BuildingSource) else 0

    def compose_header(self):
        yield Header(show_clock=False, icon="⚒")

    def compose_footer(self):
        yield HallFooter()

    def on_mount(self) -> None:
        if self.building is not None:
            self._draw(self.building)
        if self.OWN_DATA:
            self.reload()

    def on_screen_resume(self) -> None:
        """Back in front: draw the Building if it changed while this screen was away (a screen of
        another view is not told of each change), and reload its own data if the journal moved."""
        building = self.building
        if building is not None and (self._building_stale or building is not self._drawn):
            self._draw(building)
        journal_moved = self._journal_generation() != self._journal_seen
        if self.OWN_DATA and (self._data_stale or (journal_moved and self.loaded)):
            self.reload()
        self.refresh_bindings()

    # -- the Building --------------------------------------------------------------------------
    def building_changed(self, building: Building, changed: frozenset[str] | None) -> None:
        """The app has a new Building: draw it now if this screen is in front, else on resume."""
        if self.is_current:
            self._draw(building)
        else:
            self._building_stale = True

    def _draw(self, building: Building) -> None:
        self._building_stale = False
        self._drawn = building
        try:
            self.draw(building)
        except Exception as exc:  # noqa: BLE001 - a screen that cannot draw says so; the app stays up
            self._drawing_failed(exc)
        if not self.OWN_DATA:
            self.loaded = True
        self.refresh_bindings()

    def draw(self, building: Building) -> None:
        """Show the Building (UI thread; no I/O here)."""

    # -- own data --------------------------------------------------------------------------------
    def journal_changed(self, changed: frozenset[str], *, in_front: bool) -> None:
        """The journal moved: reload this screen's own data if it shows any of `changed`."""
        if not self.OWN_DATA or not self.wants_reload(changed):
            return
        if in_front:
            self.reload()
        else:
            self._data_stale = True

    def wants_reload(self, changed: frozenset[str]) -> bool:
        """Does a change to these items (or "(repo)") touch what this screen loaded? Default: yes."""
        return True

    RELOAD_MIN_S = 0.5  # a busy journal reloads a screen at most this often (the last change is never lost)

    def reload(self) -> None:
        """Load this screen's own data again, at most once per RELOAD_MIN_S: a burst of changes
        becomes one load at the end of the window."""
        self._data_stale = False
        self._journal_seen = self._journal_generation()
        now = time.monotonic()
        wait = self._last_load + self.RELOAD_MIN_S - now
        if wait > 0 and self._last_load:
            if not self._reload_timer:
                self._reload_timer = True
                self.set_timer(wait, self._timed_reload)
            return
        self._last_load = now
        self._generation += 1
        self._load_in_thread(self._generation)

    def _timed_reload(self) -> None:
        self._reload_timer = False
        self._last_load = 0.0
        self.reload()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load_in_thread(self, generation: int) -> None:
        worker = get_current_worker()
        try:
            with self.hall.fresh_repo() as repo:
                data = self.load(repo)
        except HallError as exc:
            if not worker.is_cancelled:
                self.post_message(DataLoaded(type(self).__name__, None, exc, generation))
            return
        except Exception as exc:  # noqa: BLE001 - a screen that cannot load says so; the app stays up
            if not worker.is_cancelled:
                self.post_message(DataLoaded(type(self).__name__, None, exc, generation))
            return
        if not worker.is_cancelled:
            self.post_message(DataLoaded(type(self).__name__, data, None, generation))

    @on(DataLoaded)
    def _on_loaded(self, message: DataLoaded) -> None:
        message.stop()
        if message.generation and message.generation != self._generation:
            return  # an older load finished after a newer one began
        self.loaded = True
        if message.error is not None:
            self.show_error(message.error)
            return
        try:
            with self.app.batch_update():
                self.show(message.data)
        except Exception as exc:  # noqa: BLE001 - as in _draw: never a traceback instead of the app
            self._drawing_failed(exc)
        self.refresh_bindings()

    def _drawing_failed(self, error: Exception) -> None:
        import traceback

        self.log.error("".join(traceback.format_exception(error)))
        self.notify(
            f"{type(self).__name__} could not draw: {type(error).__name__}: {error}",
            title="internal error",
            severity="error",
            timeout=10,
            markup=False,
        )

    # -- to override -------------------------------------------------------------------
    def load(self, repo: Repo) -> Any:
        """Runs in a worker thread with its own Repo (SQLite handles stay in their thread)."""
        return None

    def show(self, data: Any) -> None:
        """Runs on the UI thread with what load() returned."""

    def show_error(self, error: Exception) -> None:
        self.hall.report_error(error)
