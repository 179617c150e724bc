"""`python -m hallmark.core.demo.background ROOT INTERVAL`: the demo's daemon, in its own process.

`hall demo` starts it beside the app (driver.Background) with the demo's environment already set
(its data dir and the stand-in's script), and stops it with the daemon's stop flag.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from hallmark.core import clock
    from hallmark.core.loop import daemon

    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0])
    interval = float(args[1]) if len(args) > 1 else 1.0

    def log(line: str) -> None:
        sys.stdout.write(f"{clock.stamp()} {line}\n")
        sys.stdout.flush()

    daemon.run(until_idle=False, interval=interval, repos=[root], log=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
