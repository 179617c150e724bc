"""The terminal app: the building's floor plan, boards, item detail, run traces, the reflect
drain, the inbox and usage, over the same core functions as the CLI.

Threading rule (harlequin's): core calls and file reads run in worker threads that post
messages; only message handlers touch widgets. Each worker opens its own Repo, so SQLite
handles never cross threads.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hallmark.core import waiting
from hallmark.core.errors import HallError
from hallmark.core.paths import RepoPaths, discover
from hallmark.core.repo import Repo
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from . import settings, theming, watch
from .messages import CoreDone, JournalChanged, WaitingCounted
from .screens.floor import FloorScreen
from .screens.setup import NotARepoScreen, NotInitialisedScreen

MODE_TITLES: dict[str, tuple[str, str]] = {
    "floor": ("Floor plan", "The building: rooms, their items and the watchman (f)"),
    "board": ("Boards", "Items in columns by state, with the triage keys (b)"),
    "inbox": ("Inbox", "Escalations oldest first, and notices (i)"),
    "usage": ("Usage", "Tokens and cost by item, role, model and day ($)"),
    "drain": ("Reflect drain", "Proposed learnings, one a screen (l / L)"),
    "runs": ("Runs", "Every headless run, newest first; enter opens its live trace (t)"),
}


def _screen(module: str, name: str) -> Screen:
    """Import a mode's screen when it is first shown: the floor paints without the others."""
    import importlib

    return getattr(importlib.import_module(f"hallmark.tui.screens.{module}"), name)()


class HallmarkApp(App[None]):
    """`hall tui`: one app per repository."""

    TITLE = "Hallmark"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = True
    MODES = {
        "floor": FloorScreen,
        "board": lambda: _screen("board", "BoardScreen"),
        "inbox": lambda: _screen("inbox", "InboxScreen"),
        "usage": lambda: _screen("usage", "UsageScreen"),
        "drain": lambda: _screen("drain", "DrainScreen"),
        "runs": lambda: _screen("runs", "RunsScreen"),
    }
    BINDINGS = [
        Binding("f", "mode('floor')", "Floor", id="mode.floor"),
        Binding("b", "mode('board')", "Boards", id="mode.board"),
        Binding("i", "mode('inbox')", "Inbox", id="mode.inbox"),
        # no key_display: where l moves right (floor, boards) the footer shows L
        Binding("l,L", "mode('drain')", "Drain", id="mode.drain"),
        Binding("t", "mode('runs')", "Runs", id="mode.runs"),
        Binding("dollar_sign", "mode('usage')", "Usage", key_display="$", id="mode.usage"),
        Binding("n", "next_waiting", "Next waiting", show=False, id="app.next_waiting"),
        Binding("question_mark", "help", "Keys", key_display="?", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, id="app.palette"),
    ]

    waiting_count: reactive[int | None] = reactive(None)
    """How many items wait for you (core.waiting); None until counted. The footer shows it."""

    def __init__(self, repo_path: str | os.PathLike[str] | None = None, *, watch_journal: bool = True,
                 theme: str | None = None, start_mode: str = "floor", persist_theme: bool | None = None) -> None:
        super().__init__()
        self.start_path = Path(repo_path) if repo_path is not None else Path.cwd()
        self.paths: RepoPaths | None = None
        self.repo: Repo | None = None
        self.watch_journal = watch_journal
        self.pinned_theme = theme
        self.persist_theme = (theme is None) if persist_theme is None else persist_theme
        self.start_mode = start_mode
        self.settings = settings.TuiSettings()
        self._theme_palette_open = False
        self._theme_before = ""
        self._open_repo()

    # -- repo ------------------------------------------------------------------------------
    def _open_repo(self) -> None:
        try:
            self.paths = discover(self.start_path)
        except HallError:
            self.paths = None
        if self.paths is not None and self.paths.initialized:
            self.repo = Repo(self.paths, self.start_path.resolve())
        self.settings = settings.load(self.paths.main_checkout if self.paths else None)

    @contextmanager
    def fresh_repo(self) -> Iterator[Repo]:
        """A Repo for one worker thread; its SQLite handle is closed when the block ends."""
        if self.paths is None or self.repo is None:
            raise HallError("NOT_INITIALIZED", "Hallmark is not set up here.", ["hall init"])
        repo = Repo(self.paths, self.repo.cwd)
        try:
            yield repo
        finally:
            if "index" in repo.__dict__:
                repo.index.close()

    # -- start -----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._install_themes()
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        for problem in self.settings.problems:
            self.notify(problem, title="config", severity="warning", timeout=8)
        if self.repo is not None:
            self.switch_mode(self.start_mode)
            self.start_watching()
            self.count_waiting()
        elif self.paths is None:
            self.push_screen(NotARepoScreen(self.start_path))
        else:
            self.push_screen(NotInitialisedScreen(self.paths.main_checkout))

    def _install_themes(self) -> None:
        for theme in theming.bundled_themes():
            self.register_theme(theme)
        wanted = self.pinned_theme or self.settings.theme or settings.DEFAULT_THEME
        if wanted not in self.available_themes:
            self.notify(f"unknown theme {wanted!r}; using {settings.DEFAULT_THEME}", severity="warning")
            wanted = settings.DEFAULT_THEME
        self._applying_theme = True
        self.theme = wanted
        self._applying_theme = False

    def start_watching(self) -> None:
        if self.watch_journal and self.paths is not None:
            self._watch_state(self.paths.state_dir)

    def repo_initialised(self) -> None:
        """`hall init` ran from the not-initialised screen: open the building."""
        self._open_repo()
        if self.repo is None:
            return
        self.switch_mode(self.start_mode)
        self.start_watching()
        self.count_waiting()

    # -- waiting for you -------------------------------------------------------------------
    def count_waiting(self) -> None:
        if self.repo is not None:
            self._count_worker()

    @work(thread=True, exclusive=True, group="waiting", exit_on_error=False)
    def _count_worker(self) -> None:
        try:
            with self.fresh_repo() as repo:
                count = len(waiting.waiting_items(repo))
        except HallError:
            return
        self.post_message(WaitingCounted(count))

    @on(WaitingCounted)
    def _on_waiting_counted(self, message: WaitingCounted) -> None:
        self.waiting_count = message.count

    def action_next_waiting(self) -> None:
        """n: the next item waiting for you, oldest first (core.waiting). A screen may show it in
        place (the board selects its card); otherwise its detail opens."""
        if self.repo is None:
            return
        screen = self.screen
        current = getattr(screen, "current_item_id", None)
        after = current() if callable(current) else None
        found = waiting.next_waiting(self.repo, after=after)
        if found is None or found.id == after:
            self.notify("Nothing else is waiting for you." if found else "Nothing is waiting for you.",
                        severity="information")
            return
        shown = getattr(screen, "show_waiting", None)
        if callable(shown) and shown(found.id):
            return
        # an item's own screens (its detail, its diff) give way to the next item's detail
        while len(self.screen_stack) > 1 and getattr(self.screen, "item_screen", False):
            self.pop_screen()
        self.open_item(found.id)

    # -- live refresh ----------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def _watch_state(self, state_dir: Path) -> None:
        worker = get_current_worker()
        before = watch.signature(state_dir)
        while not worker.is_cancelled:
            time.sleep(watch.POLL_SECONDS)
            after = watch.signature(state_dir)
            diff = watch.changed(before, after)
            if diff:
                before = after
                items = sorted({i for i in (watch.item_of(p) for p in diff) if i})
                self.post_message(JournalChanged(diff, items))

    @on(JournalChanged)
    def _on_journal_changed(self, message: JournalChanged) -> None:
        from .screens.base import HallScreen

        self.count_waiting()
        for screen in self.screen_stack:
            if isinstance(screen, HallScreen) and screen.loaded:
                if screen is self.screen:
                    screen.journal_changed(message.items)
                else:
                    screen.loaded = True  # reloads on resume

    # -- core calls from keys --------------------------------------------------------------
    def core_call(self, label: str, fn: Callable[..., Any], *args: Any, item: str | None = None,
                  **kwargs: Any) -> None:
        """Run fn(repo, *args, **kwargs) in a worker; CoreDone reports the result or the error."""
        self._core_worker(label, fn, args, kwargs, item)

    @work(thread=True, group="core", exit_on_error=False)
    def _core_worker(self, label: str, fn: Callable[..., Any], args: tuple, kwargs: dict, item: str | None) -> None:
        try:
            with self.fresh_repo() as repo:
                result = fn(repo, *args, **kwargs)
        except HallError as exc:
            self.post_message(CoreDone(label, None, exc, item))
            return
        self.post_message(CoreDone(label, result if isinstance(result, dict) else {"result": result}, None, item))

    @on(CoreDone)
    def _on_core_done(self, message: CoreDone) -> None:
        if message.error is not None:
            self.report_error(message.error)
        else:
            result = message.result or {}
            state = result.get("state")
            where = f"{message.item} → {state}" if message.item and state else (message.item or "")
            self.notify(f"{message.label} {where}".strip(), title="done", timeout=4)
        self.count_waiting()
        screen = self.screen
        handler = getattr(screen, "core_done", None)
        if callable(handler):
            handler(message)
        elif hasattr(screen, "reload"):
            screen.reload()

    def report_error(self, error: Exception) -> None:
        """A core error as a notification with its `next` commands."""
        if isinstance(error, HallError):
            text = error.message
            if error.next:
                text += "\nnext: " + "  ·  ".join(error.next)
            self.notify(text, title=error.code, severity="error", timeout=10, markup=False)
        else:
            self.notify(str(error), title="error", severity="error", timeout=10, markup=False)

    # -- outside programs ------------------------------------------------------------------
    def run_external(self, command: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> int:
        """Run a program in the terminal: suspend the app when the terminal allows, else run it
        detached from the screen (headless tests)."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        driver = self._driver
        if driver is not None and driver.can_suspend:
            with self.suspend():
                return subprocess.run(command, cwd=cwd, env=full_env, check=False).returncode
        return subprocess.run(command, cwd=cwd, env=full_env, check=False, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode

    # -- actions ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mode":
            return self.repo is not None
        if action == "next_waiting":
            # in a trace n steps through search hits (kept there); nothing waits without a repo
            return self.repo is not None and not getattr(self.screen, "n_is_search", False)
        return True

    async def action_mode(self, mode: str) -> None:
        if self.repo is None:
            return
        if self.current_mode == mode:
            # back to the mode's first screen (e.g. from an item detail)
            while len(self.screen_stack) > 1:
                self.pop_screen()
            return
        await self.switch_mode(mode)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def open_item(self, item_id: str) -> None:
        from .screens.item import ItemScreen

        self.push_screen(ItemScreen(item_id))

    def open_trace(self, path: Path, item: str | None = None) -> None:
        from .screens.trace import TraceScreen

        self.push_screen(TraceScreen(Path(path), item=item))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self.repo is None:
            return
        for mode, (title, help_text) in MODE_TITLES.items():
            yield SystemCommand(title, help_text, lambda m=mode: self.call_later(self.action_mode, m))
        yield SystemCommand("Keys", "Every key binding and its id (?)", self.action_help)

    # -- themes: preview in the palette, persist the choice --------------------------------
    def search_themes(self) -> None:
        self._theme_palette_open = True
        self._theme_before = self.theme
        super().search_themes()

    @on(CommandPalette.OptionHighlighted)
    def _preview_theme(self, message: CommandPalette.OptionHighlighted) -> None:
        if not self._theme_palette_open:
            return
        prompt = message.highlighted_event.option.prompt
        name = getattr(prompt, "plain", str(prompt)).strip()
        if name in self.available_themes and name != self.theme:
            self._applying_theme = True
            self.theme = name
            self._applying_theme = False

    @on(CommandPalette.Closed)
    def _theme_palette_closed(self, message: CommandPalette.Closed) -> None:
        if not self._theme_palette_open:
            return
        self._theme_palette_open = False
        if not message.option_selected:
            self._applying_theme = True
            self.theme = self._theme_before
            self._applying_theme = False
        else:
            self.call_later(self.save_theme)

    def watch_theme(self, theme: str) -> None:
        if getattr(self, "_applying_theme", False) or self._theme_palette_open:
            return
        self.save_theme()

    def save_theme(self) -> None:
        if not self.persist_theme:
            return
        try:
            settings.save_theme(self.theme)
        except OSError as exc:
            self.notify(f"could not save the theme: {exc}", severity="warning")
