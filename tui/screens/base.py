"""The base of every full screen: load data in a worker thread, show it in a handler.

Workers never touch widgets: `load()` runs in a thread and returns plain data; the
`DataLoaded` handler on the UI thread calls `show(data)`. A screen reloads when it is
mounted, when it comes back to the front, and when the journal changes under it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hallmark.core.errors import HallError
from textual import on, work
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import get_current_worker

from ..messages import DataLoaded
from ..widgets.footer import HallFooter

if TYPE_CHECKING:
    from hallmark.core.repo import Repo

    from ..app import HallmarkApp


class HallScreen(Screen):
    """A screen over the repo's data."""

    loaded: bool = False
    item_screen: bool = False  # one item's own screen: `n` replaces it with the next item's detail
    n_is_search: bool = False  # `n` steps search hits here instead of jumping to a waiting item

    @property
    def hall(self) -> HallmarkApp:
        return self.app  # type: ignore[return-value]

    @property
    def repo(self) -> Repo:
        repo = self.hall.repo
        assert repo is not None
        return repo

    def compose_header(self):
        yield Header(show_clock=False, icon="⚒")

    def compose_footer(self):
        yield HallFooter()

    def on_mount(self) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        if self.loaded:
            self.reload()

    def journal_changed(self, items: list[str]) -> None:
        """The journal moved under us: reload (screens may narrow this to their items)."""
        self.reload()

    def reload(self) -> None:
        self._load_in_thread()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load_in_thread(self) -> None:
        worker = get_current_worker()
        try:
            with self.hall.fresh_repo() as repo:
                data = self.load(repo)
        except HallError as exc:
            if not worker.is_cancelled:
                self.post_message(DataLoaded(type(self).__name__, None, exc))
            return
        if not worker.is_cancelled:
            self.post_message(DataLoaded(type(self).__name__, data))

    @on(DataLoaded)
    def _on_loaded(self, message: DataLoaded) -> None:
        message.stop()
        self.loaded = True
        if message.error is not None:
            self.show_error(message.error)
            return
        self.show(message.data)
        self.refresh_bindings()

    # -- to override -------------------------------------------------------------------
    def load(self, repo: Repo) -> Any:
        """Runs in a worker thread with its own Repo (SQLite handles stay in their thread)."""
        return None

    def show(self, data: Any) -> None:
        """Runs on the UI thread with what load() returned."""

    def show_error(self, error: Exception) -> None:
        self.hall.report_error(error)
