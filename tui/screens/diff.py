"""D: an item's change against the merge-base with its base branch, findings inline.

Left, the files with their +/- counts; right, the unified diff (the Line API `DiffView`).
] / [ step files, } / { step hunks, w toggles whitespace, ctrl+r reloads (the journal's own changes
reload it by themselves), enter in the file list jumps to the file. The diff is computed in a
worker thread; the widgets only show what it returns.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, ClassVar

from hallmark.core.diff import item_diff
from hallmark.core.diff_results import Diff
from hallmark.core.errors import HallError
from hallmark.tui.protocols import BuildingSource
from hallmark.tui.widgets.diff_view import DiffView
from hallmark.tui.widgets.footer import HallFooter
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option


class _IndexCloser:
    """Closes a worker's Repo's SQLite handle, if the diff opened one (the app's fresh_repo rule)."""

    def __init__(self, repo: Any) -> None:
        self.repo = repo

    def close(self) -> None:
        if "index" in self.repo.__dict__:
            self.repo.index.close()


class DiffScreen(Screen):
    """An item's diff: file list, unified diff, findings anchored at their lines."""

    DEFAULT_CSS = """
    DiffScreen #diff-title { height: 1; padding: 0 1; background: $panel; color: $text; }
    DiffScreen #diff-body { height: 1fr; }
    DiffScreen #diff-files { width: 38; max-width: 40%; height: 1fr; }
    DiffScreen DiffView { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_square_bracket", "file(1)", "Next file", key_display="]", id="diff.next_file"),
        Binding("left_square_bracket", "file(-1)", "Prev file", key_display="[", id="diff.prev_file"),
        Binding("right_curly_bracket", "hunk(1)", "Next hunk", key_display="}", id="diff.next_hunk"),
        Binding("left_curly_bracket", "hunk(-1)", "Prev hunk", key_display="{", id="diff.prev_hunk"),
        Binding("w", "whitespace", "Whitespace", id="diff.whitespace"),
        Binding("ctrl+r", "reload", "Reload", id="diff.reload"),
        Binding("tab", "switch_pane", "Files/diff", show=False, id="diff.switch"),
        Binding("escape", "close", "Back", id="diff.close"),
    ]

    item_screen = True  # `n` gives way to the next waiting item's detail

    def current_item_id(self) -> str:
        return self.item_id

    def __init__(self, repo: Any, item_id: str, *, ignore_whitespace: bool = False) -> None:
        super().__init__()
        self.repo = repo
        self.item_id = item_id
        self.ignore_whitespace = ignore_whitespace
        self.diff: Diff | None = None
        self.error: str | None = None
        self.load_seconds: float | None = None
        self._syncing = False
        self._seen_marked = False

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="⚒")
        yield Static(f"{self.item_id}: loading the diff…", id="diff-title")
        with Horizontal(id="diff-body"):
            yield OptionList(id="diff-files")
            yield DiffView(id="diff-view")
        yield HallFooter()

    def on_mount(self) -> None:
        self.sub_title = f"Diff of {self.item_id}"
        self.query_one(DiffView).focus()
        self.load()

    @work(thread=True, exclusive=True, group="diff")
    def load(self) -> None:
        """Compute the diff off the UI thread (git subprocesses), then hand it to `show`."""
        from hallmark.core.repo import Repo

        started = time.perf_counter()
        repo = Repo(self.repo.paths, self.repo.cwd)  # our own handles in this thread, closed below
        try:
            with contextlib.closing(_IndexCloser(repo)):
                diff = item_diff(repo, self.item_id, ignore_whitespace=self.ignore_whitespace)
                if not self._seen_marked:  # opening it is looking at it: once, not on every reload
                    self._seen_marked = True
                    try:
                        from hallmark.core import waiting

                        waiting.mark_seen(repo, self.item_id)
                    except Exception:  # noqa: BLE001 - seen marks are a convenience; never fail the diff for them
                        pass
        except HallError as exc:
            self.app.call_from_thread(self.show_error, exc.message)
            return
        self.app.call_from_thread(self.show, diff, time.perf_counter() - started)

    def show(self, diff: Diff, seconds: float) -> None:
        if self.diff is None and isinstance(self.app, BuildingSource):  # the seen mark changes its badge
            self.app.refresh_building(frozenset({self.item_id}))
        self.diff = diff
        self.error = None
        self.load_seconds = seconds
        files = self.query_one("#diff-files", OptionList)
        files.clear_options()
        files.add_options([Option(self._file_label(f), id=str(i)) for i, f in enumerate(diff.files)])
        self.query_one(DiffView).set_diff(diff)
        if diff.files:
            self._syncing = True
            files.highlighted = 0
            self._syncing = False
        self._title()

    @staticmethod
    def _file_label(changed: Any) -> Text:
        """The file's name first, its +/- counts after it on the same line (never wrapped apart)."""
        label = Text(no_wrap=True, overflow="ellipsis")
        label.append(str(changed.path))
        label.append(f"  +{changed.added} -{changed.removed}", style="dim")
        return label

    def show_error(self, message: str) -> None:
        self.error = message
        self.query_one("#diff-title", Static).update(f"{self.item_id}: {message}")

    def _title(self) -> None:
        d = self.diff
        if d is None:
            return
        findings = (
            sum(len(h.findings) for f in d.files for h in f.hunks)
            + sum(len(f.findings) for f in d.files)
            + len(d.unanchored_findings)
        )
        ws = " · whitespace ignored" if d.ignore_whitespace else ""
        self.query_one("#diff-title", Static).update(
            f"{d.item} against {d.base} (merge-base {d.merge_base[:7]}) · {len(d.files)} files · "
            f"+{d.added} -{d.removed} · {findings} open finding{'' if findings == 1 else 's'}{ws}"
        )

    # -- actions -------------------------------------------------------------------------------
    def action_file(self, direction: int) -> None:
        if not self.query_one(DiffView).next_file(direction):
            self.app.bell()

    def action_hunk(self, direction: int) -> None:
        if not self.query_one(DiffView).next_hunk(direction):
            self.app.bell()

    def action_whitespace(self) -> None:
        self.ignore_whitespace = not self.ignore_whitespace
        self.load()

    def action_reload(self) -> None:
        """The worktree moves on while an agent works in it: compute the diff again."""
        self.load()

    def journal_changed(self, changed: frozenset[str], *, in_front: bool = True) -> None:
        """Called by the app when journals change: new findings may have arrived for this item."""
        if self.item_id in changed and in_front:
            self.load()

    def action_switch_pane(self) -> None:
        view = self.query_one(DiffView)
        files = self.query_one("#diff-files", OptionList)
        (files if view.has_focus else view).focus()

    def action_close(self) -> None:
        self.dismiss()

    @on(OptionList.OptionSelected, "#diff-files")
    def _file_chosen(self, event: OptionList.OptionSelected) -> None:
        if self._syncing or event.option.id is None:
            return
        view = self.query_one(DiffView)
        view.show_file(int(event.option.id))
        view.focus()

    @on(DiffView.FileChanged)
    def _follow_file(self, event: DiffView.FileChanged) -> None:
        files = self.query_one("#diff-files", OptionList)
        if 0 <= event.index < files.option_count and files.highlighted != event.index:
            self._syncing = True
            files.highlighted = event.index
            self._syncing = False
