"""Write docs/demo.svg: the demo's floor plan as the scripted part leaves it (run by hand).

    python tools/demo_screenshot.py [OUT.svg]

It builds a demo in a temporary directory (the real loop with the stand-in model, exactly what
`hall demo` does before it opens the app) and takes the same screenshot as the snapshot test
tests/demo/test_app.py (same size, theme and screen), so the README's picture is what a test checks.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from hallmark.core.demo import driver, workspace
from hallmark.tui.cli.app import make_app
from textual._doc import take_svg_screenshot

SIZE = (160, 42)
ROOT = Path(__file__).resolve().parent.parent


async def settle(pilot, rounds: int = 60) -> None:
    """Let the screens' loading workers finish (as the snapshot test does)."""
    for _ in range(rounds):
        await pilot.pause()
        if not [w for w in pilot.app.workers if w.group not in ("watch", "tail") and w.is_running]:
            return
        await asyncio.sleep(0.02)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "demo.svg"
    demo = workspace.create(None)
    try:
        with workspace.demo_env(demo):
            driver.build(demo, lambda text: print(f"hall demo: {text}", file=sys.stderr))
            app = make_app(
                demo, keep=False, welcome=False, theme="hallmark-dark", watch_journal=False, persist_theme=False
            )
            svg = take_svg_screenshot(app=app, terminal_size=SIZE, run_before=settle)
    finally:
        workspace.remove(demo)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(svg, encoding="utf-8")
    print(f"wrote {out} ({len(svg):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
