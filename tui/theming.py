"""Load Hallmark's own themes (TOML data in the `themes/` package) as Textual themes."""

from __future__ import annotations

import tomllib
from importlib import resources

from textual.color import Color, ColorParseError
from textual.theme import Theme

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


def _theme_from(data: dict, source: str) -> Theme:
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{source}: a theme needs a name")
    kwargs: dict = {"name": name, "dark": bool(data.get("dark", True))}
    for key in _COLOUR_KEYS:
        if key in data:
            try:
                Color.parse(data[key])
            except ColorParseError as exc:
                raise ValueError(f"{source}: {key} = {data[key]!r} is not a colour") from exc
            kwargs[key] = data[key]
    if "primary" not in kwargs:
        raise ValueError(f"{source}: a theme needs a primary colour")
    if "luminosity_spread" in data:
        kwargs["luminosity_spread"] = float(data["luminosity_spread"])
    variables = data.get("variables", {})
    if isinstance(variables, dict):
        kwargs["variables"] = {str(k): str(v) for k, v in variables.items()}
    return Theme(**kwargs)


def bundled_themes() -> list[Theme]:
    """Every `*.toml` in hallmark.themes, sorted by file name; a broken file is skipped."""
    found: list[Theme] = []
    folder = resources.files("hallmark.themes")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        try:
            found.append(_theme_from(tomllib.loads(entry.read_text(encoding="utf-8")), entry.name))
        except (ValueError, tomllib.TOMLDecodeError):
            continue
    return found
