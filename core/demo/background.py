"""`python -m hallmark.core.demo.background ROOT INTERVAL`: the demo's daemon, in its own process.

`hall demo` starts it beside the app (driver.Background) with the demo's environment already set
(its data dir and the stand-in's script), and stops it with the daemon's stop flag. If the app
dies without stopping it (killed, a closed terminal), the daemon notices its parent is gone and
stops too: a demo's daemon never outlives its demo.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

PARENT_CHECK_S = 1.0
GRACE_S = 60.0  # after the stop flag, the step in progress gets this long before the process ends


def watch_parent(parent: int) -> None:
    """Raise the daemon's stop flag when the process that started us is gone."""
    from hallmark.core.loop import daemon

    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    daemon.stop(wait_s=0)
    time.sleep(GRACE_S)
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    from hallmark.core import clock
    from hallmark.core.loop import daemon

    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0])
    interval = float(args[1]) if len(args) > 1 else 1.0

    def log(line: str) -> None:
        sys.stdout.write(f"{clock.stamp()} {line}\n")
        sys.stdout.flush()

    threading.Thread(target=watch_parent, args=(os.getppid(),), name="hall-demo-parent", daemon=True).start()
    daemon.run(until_idle=False, interval=interval, repos=[root], log=log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
