"""Screens, widgets and the app say what they need of each other with Protocols (tui/protocols.py):
no `getattr(self.app, …)` probe, and the real app and screens satisfy what is declared."""

from __future__ import annotations

import ast
from pathlib import Path

from hallmark.tui import protocols

TUI = Path(__file__).resolve().parents[2] / "tui"
PROBES = {"getattr", "hasattr"}
HOSTS = {"app", "screen"}  # self.app, app, self.screen, screen


def _probes(path: Path) -> list[str]:
    """Each getattr/hasattr whose object is the app or a screen, as `file:line source`."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PROBES and node.args
        ):
            continue
        target = node.args[0]
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in HOSTS:
            found.append(f"{path.parent.name}/{path.name}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_screen_widget_or_app_probes_the_other_with_getattr():
    files = [*(TUI / "screens").glob("*.py"), *(TUI / "widgets").glob("*.py"), TUI / "app.py", TUI / "triage.py"]
    assert len(files) > 10
    probes = [probe for path in files for probe in _probes(path)]
    assert probes == [], "declare it in tui/protocols.py and ask isinstance():\n" + "\n".join(probes)


def test_the_scan_finds_a_probe(tmp_path):
    """The scan itself can fail: a probe of each spelling is found."""
    sample = tmp_path / "probe_sample.py"
    sample.write_text(
        "def f(self, app, screen):\n    getattr(self.app, 'building', None)\n"
        "    hasattr(app, 'x')\n    getattr(screen, 'core_done')\n    getattr(self.screen, 'y')\n"
        "    getattr(self.other, 'z')\n"
    )
    assert len(_probes(sample)) == 4


def test_the_app_and_screens_satisfy_what_is_declared(tmp_path):
    from hallmark.tui.app import HallmarkApp
    from hallmark.tui.screens.board import BoardScreen
    from hallmark.tui.screens.diff import DiffScreen
    from hallmark.tui.screens.inbox import InboxScreen
    from hallmark.tui.screens.item import ItemScreen
    from hallmark.tui.screens.runs import RunsScreen
    from hallmark.tui.screens.trace import TraceScreen

    app = HallmarkApp(tmp_path, watch_journal=False)
    for protocol in (
        protocols.HallmarkAppLike,
        protocols.BuildingSource,
        protocols.WaitingCounter,
        protocols.KeymapSource,
    ):
        assert isinstance(app, protocol), protocol.__name__
    wants = {
        BoardScreen: {
            protocols.DrawsBuilding,
            protocols.ReloadsOnJournal,
            protocols.ItemContext,
            protocols.ShowsWaiting,
            protocols.GreysKeys,
            protocols.OneItemScreen,
        },
        InboxScreen: {protocols.ItemContext, protocols.ShowsWaiting, protocols.HearsCoreDone},
        ItemScreen: {protocols.ItemContext, protocols.OneItemScreen, protocols.GreysKeys},
        DiffScreen: {protocols.ItemContext, protocols.OneItemScreen, protocols.ReloadsOnJournal},
        RunsScreen: {protocols.FocusesItem},
        TraceScreen: {protocols.HearsCoreDone, protocols.GreysKeys},
    }
    for screen, declared in wants.items():
        for protocol in declared:  # structural: the methods and attributes exist on the class
            members = [m for m in [*vars(protocol), *protocol.__annotations__] if not m.startswith("_")]
            assert all(hasattr(screen, m) for m in members), (screen.__name__, protocol.__name__)
    assert DiffScreen.item_screen and ItemScreen.item_screen and not BoardScreen.item_screen
