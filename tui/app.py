"""The terminal app: the building's floor plan, boards, the triage list, item detail, run traces,
the reflect drain, the inbox and usage, over the same core functions as the CLI.

Threading rule (harlequin's): core calls and file reads run in worker threads that post
messages; only message handlers touch widgets. Each worker opens its own Repo, so SQLite handles
never cross threads.

Data flow: the journal watcher merges what changed into one set and pings; the app loads one
core.building.Building (every item, what waits for you, badges, stuck items, rooms) in a worker,
at most one load at a time, and every screen draws from that same object. So a key never waits
for a load, and the footer, the floor, the boards and the list always agree.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from hallmark.core.building import Building
from hallmark.core.errors import HallError
from hallmark.core.item_results import ItemResult
from hallmark.core.paths import RepoPaths, discover
from hallmark.core.repo import Repo
from hallmark.core.results import Result
from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from . import settings, theming, watch
from .commands import ItemCommands
from .messages import BuildingLoaded, CoreDone, JournalChanged
from .protocols import (
    DrawsBuilding,
    FocusesItem,
    HearsCoreDone,
    ItemContext,
    OneItemScreen,
    ReloadsOnJournal,
    ShowsWaiting,
)
from .screens.floor import FloorScreen
from .screens.setup import NotARepoScreen, NotInitialisedScreen

MODE_TITLES: dict[str, tuple[str, str]] = {
    "floor": ("Floor plan", "The building: rooms, their items and the watchman (f)"),
    "board": ("Boards", "Items in columns by state, with the triage keys (b)"),
    "list": ("Triage list", "Every item in one sortable table with a detail pane (v)"),
    "inbox": ("Inbox", "What waits for you, oldest first, and notices (i)"),
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
    COMMANDS = App.COMMANDS | {ItemCommands}
    MODES: ClassVar[dict[str, str | Callable[[], Screen]]] = {
        "floor": FloorScreen,
        "board": lambda: _screen("board", "BoardScreen"),
        "list": lambda: _screen("items_list", "ItemListScreen"),
        "inbox": lambda: _screen("inbox", "InboxScreen"),
        "usage": lambda: _screen("usage", "UsageScreen"),
        "drain": lambda: _screen("drain", "DrainScreen"),
        "runs": lambda: _screen("runs", "RunsScreen"),
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "mode('floor')", "Floor", id="mode.floor"),
        Binding("b", "mode('board')", "Boards", id="mode.board"),
        Binding("v", "mode('list')", "List", id="mode.list"),
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
    """How many things wait for you (core.waiting, from the current Building); None until loaded."""

    def __init__(
        self,
        repo_path: str | os.PathLike[str] | None = None,
        *,
        watch_journal: bool = True,
        theme: str | None = None,
        start_mode: str = "floor",
        persist_theme: bool | None = None,
    ) -> None:
        super().__init__()
        self.start_path = Path(repo_path) if repo_path is not None else Path.cwd()
        self.paths: RepoPaths | None = None
        self.repo: Repo | None = None
        self.watch_journal = watch_journal
        self.pinned_theme = theme
        self.persist_theme = (theme is None) if persist_theme is None else persist_theme
        self.start_mode = start_mode
        self.settings = settings.TuiSettings()
        self.building: Building | None = None
        self.building_loads = 0  # how many Buildings were drawn (the benchmark reports it)
        self.journal_generation = 0  # counts journal changes: a screen of another view reloads on return
        self.changes = watch.Changes()
        self._loading = False  # a Building load is in flight
        self._load_again: frozenset[str] | None = frozenset()  # what changed while it was (None: anything)
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
        from . import programs

        programs.forget()  # PATH may have changed since another app in this process looked
        self._install_themes()
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        for problem in self.settings.problems:
            self.notify(problem, title="config", severity="warning", timeout=8)
        if self.repo is not None:
            self._open_building()
        elif self.paths is None:
            self.push_screen(NotARepoScreen(self.start_path))
        else:
            self.push_screen(NotInitialisedScreen(self.paths.main_checkout))

    def _open_building(self) -> None:
        self.refresh_building(None)
        self.switch_mode(self.start_mode)
        self.start_watching()

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
        self._open_building()

    # -- the building: one load at a time, everything draws from it -------------------------
    def refresh_building(self, changed: frozenset[str] | None = frozenset()) -> None:
        """Load a fresh Building (changed: what moved, None for anything). A load already in
        flight is followed by one more, with everything that changed meanwhile."""
        if self.repo is None:
            return
        if self._loading:
            if changed is None or self._load_again is None:
                self._load_again = None
            else:
                self._load_again = self._load_again | changed
            return
        self._loading = True
        self._load_again = frozenset()
        self._building_worker(changed)

    @work(thread=True, group="building", exit_on_error=False)
    def _building_worker(self, changed: frozenset[str] | None) -> None:
        from hallmark.core import building

        try:
            with self.fresh_repo() as repo:
                found = building.load(repo)
        except HallError as exc:
            self.call_from_thread(self._building_failed, exc)
            return
        self.post_message(BuildingLoaded(found, changed))

    def _building_failed(self, error: HallError) -> None:
        self._loading = False
        self.report_error(error)

    @on(BuildingLoaded)
    def _on_building(self, message: BuildingLoaded) -> None:
        before = self.building
        self.building = message.building
        self.building_loads += 1
        self._loading = False
        self.waiting_count = message.building.waiting.count
        if before is not None:
            self._tell_new_waiting(before, message.building)
        with self.batch_update():
            for screen in self.screen_stack:
                if isinstance(screen, DrawsBuilding):
                    screen.building_changed(message.building, message.changed)
        again = self._load_again
        if again is None or again:
            self.refresh_building(again)

    def _tell_new_waiting(self, before: Building, after: Building) -> None:
        """A toast for what newly waits for you (a question, an escalation, a hold, ready?)."""
        old = {e.key for e in before.waiting.entries}
        new = [e for e in after.waiting.entries if e.key not in old]
        for entry in new[:3]:
            who = entry.item or "the repository"
            self.notify(
                f"{who}: {entry.text}",
                title=f"◆ waiting for you: {entry.kind}",
                timeout=6,
                markup=False,
            )
        if new and not self.is_headless and self._driver is not None:  # [notify] terminal: bell or OSC 9/777
            from hallmark.core.notify.terminal import alert, mode

            self._driver.write(alert(mode(), new[0]))

    def action_next_waiting(self) -> None:
        """n: the next item waiting for you, oldest first (core.waiting, from the Building). A
        screen may show it in place (the board selects its card); otherwise its detail opens."""
        if self.repo is None or self.building is None:
            return
        order = list(self.building.waiting.items)
        screen = self.screen
        after = screen.current_item_id() if isinstance(screen, ItemContext) else None
        if not order or order == [after]:
            self.notify(
                "Nothing else is waiting for you." if order else "Nothing is waiting for you.", severity="information"
            )
            return
        found = order[(order.index(after) + 1) % len(order)] if after in order else order[0]
        if isinstance(screen, ShowsWaiting) and screen.show_waiting(found):
            return
        # an item's own screens (its detail, its diff) give way to the next item's detail
        while len(self.screen_stack) > 1 and isinstance(self.screen, OneItemScreen) and self.screen.item_screen:
            self.pop_screen()
        self.open_item(found)

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
                if self.changes.add(diff):
                    self.post_message(JournalChanged())

    @on(JournalChanged)
    def _on_journal_changed(self, message: JournalChanged) -> None:
        changed = self.changes.take()
        if not changed:
            return
        self.journal_changed(changed)

    def journal_changed(self, changed: frozenset[str]) -> None:
        """Something was written: a new Building, and screens with data of their own reload
        (the one in front now, the others when they come back)."""
        self.journal_generation += 1
        self.refresh_building(changed)
        for screen in self.screen_stack:
            if isinstance(screen, ReloadsOnJournal):
                screen.journal_changed(changed, in_front=screen is self.screen)

    # -- core calls from keys --------------------------------------------------------------
    def core_call(self, label: str, fn: Callable[..., Any], *args: Any, item: str | None = None, **kwargs: Any) -> None:
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
        except Exception as exc:  # noqa: BLE001 - a key never ends the app: the error is shown
            self.post_message(CoreDone(label, None, exc, item))
            return
        answer = result if isinstance(result, Result | dict) else {"result": result}
        self.post_message(CoreDone(label, answer, None, item))

    @on(CoreDone)
    def _on_core_done(self, message: CoreDone) -> None:
        if message.error is not None:
            self.report_error(message.error)
        elif message.label:
            state = message.result.state if isinstance(message.result, ItemResult) else None
            where = f"{message.item} → {state}" if message.item and state else (message.item or "")
            self.notify(f"{message.label} {where}".strip(), title="done", timeout=4)
        self.journal_changed(frozenset({message.item}) if message.item else frozenset({watch.REPO}))
        if isinstance(self.screen, HearsCoreDone):
            self.screen.core_done(message)

    def report_error(self, error: Exception) -> None:
        """A core error as a notification with its `next` commands."""
        if isinstance(error, HallError):
            text = error.message
            if error.next:
                text += "\nnext: " + "  ·  ".join(error.next)
            self.notify(text, title=error.code, severity="error", timeout=10, markup=False)
        else:
            self.notify(f"{type(error).__name__}: {error}", title="error", severity="error", timeout=10, markup=False)

    # -- outside programs ------------------------------------------------------------------
    def run_external(self, command: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> int | None:
        """Run a program in the terminal: suspend the app when the terminal allows, else run it
        detached from the screen (headless tests). A program that cannot start is a notification,
        never a crash: returns None then."""
        full_env = dict(os.environ)
        full_env.update(env or {})
        driver = self._driver
        try:
            if driver is not None and driver.can_suspend:
                with self.suspend():
                    return subprocess.run(command, cwd=cwd, env=full_env, check=False).returncode
            return subprocess.run(
                command,
                cwd=cwd,
                env=full_env,
                check=False,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ).returncode
        except Exception as exc:  # noqa: BLE001 - OSError (not found, not executable) or the terminal refusing
            from . import programs

            programs.forget()
            name = command[0] if command else "the program"
            self.notify(
                f"could not start {name}: {exc}", title="not started", severity="error", timeout=10, markup=False
            )
            self.refresh_bindings()
            return None

    # -- actions ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "mode":
            return self.repo is not None
        if action == "next_waiting":
            return self.repo is not None
        return True

    async def action_mode(self, mode: str) -> None:
        """Each view key always shows that view's own first screen (b is always the board, never
        a trace that was opened from it)."""
        if self.repo is None:
            return
        if self.current_mode != mode:
            await self.switch_mode(mode)
        while len(self.screen_stack) > 1:
            self.pop_screen()

    async def show_runs(self, item_id: str | None) -> None:
        """t from an item: the Runs view with that item's runs first (the same view as t anywhere)."""
        await self.action_mode("runs")
        if isinstance(self.screen, FocusesItem):
            self.screen.focus_item(item_id)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(HallmarkApp, type(self.screen)))

    def open_item(self, item_id: str) -> None:
        from .screens.item import ItemScreen

        self.push_screen(ItemScreen(item_id))

    def open_trace(self, path: Path, item: str | None = None) -> None:
        from .screens.trace import TraceScreen

        self.push_screen(TraceScreen(Path(path), item=item))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title == "Keys":  # Textual's key panel; ours (below) also shows the ids to remap
                continue
            yield command
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
