"""The sandbox's mount points in a checkout, told apart from the work.

While a sandboxed command runs, Claude Code's sandbox (bubblewrap) holds its protected names in the
working directory in place (`.bashrc`, `.gitconfig`, `.mcp.json`, `.claude/settings.json`, …): where
one does not exist it creates an empty read-only file (mode 0444) as the mount point, and removes
it afterwards. A `hall fixed` that the agent-verb channel runs outside the sandbox during that
command sees them as untracked files; they are not the agent's work, so the dirtiness checks leave
them out. Stdlib only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SCRATCH = ".cc-writes"  # the sandbox's own folder beside the mount points in .claude/


def _is_mount_point_file(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == 0 and stat.S_IMODE(info.st_mode) == 0o444


def sandbox_placeholder(root: Path, rel: str) -> bool:
    """True when the untracked `rel` (a file, or a folder git lists as one) holds nothing but the
    sandbox's empty read-only mount points."""
    path = os.path.join(root, rel.rstrip("/"))
    if not os.path.isdir(path) or os.path.islink(path):
        return _is_mount_point_file(path)
    found = False
    for folder, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != SCRATCH or folder != path]
        for name in files:
            if not _is_mount_point_file(os.path.join(folder, name)):
                return False
            found = True
    return found
