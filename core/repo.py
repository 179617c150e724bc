"""One opened repository: its paths, its config (read from the main checkout) and who is acting."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from . import paths as _paths
from .actor import AGENT_ROLES, actor_is_person, current_actor  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from .config import Config
    from .index import Index


@dataclass
class Repo:
    paths: _paths.RepoPaths
    cwd: Path = field(default_factory=Path.cwd)

    @cached_property
    def config(self) -> Config:
        from .config import load
        from .config_raw import known_valid, mark_valid

        loaded = load(self.paths.main_checkout)
        if self.paths.initialized and not known_valid(self.paths.main_checkout, self.state_dir):
            mark_valid(self.paths.main_checkout, self.state_dir)  # read-only commands can skip the check
        return loaded

    @cached_property
    def index(self) -> Index:
        from .index import Index

        return Index(self.paths)

    @property
    def state_dir(self) -> Path:
        return self.paths.state_dir

    @property
    def root(self) -> Path:
        return self.paths.main_checkout


def open_repo(start: str | os.PathLike[str] | None = None, *, initialized: bool = True) -> Repo:
    where = Path(start) if start is not None else Path.cwd()
    found = _paths.discover(where)
    assert found is not None
    if initialized:
        found.require_initialized()
    return Repo(found, Path(os.path.realpath(where)))
