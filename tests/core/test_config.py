"""Configuration: every key has the seed's default, bad files name key and line, main checkout only."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from hallmark.core import config_raw
from hallmark.core.config import Config, load, parse_tokens
from hallmark.core.errors import HallError
from hallmark.core.repo import open_repo


def _seed_config_block(shared: Path) -> dict:
    text = (shared / "seeds" / "003_4505e756272ed91a.txt").read_text(encoding="utf-8")
    section = text[text.index("## Configuration") :]
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block, "the seed's Configuration section has a toml block"
    return tomllib.loads(block.group(1))


def test_every_seed_key_has_the_seed_default(shared_dir: Path):
    seed = _seed_config_block(shared_dir)
    ours = Config().model_dump(by_alias=True)

    def walk(expected: dict, actual: dict, where: str) -> None:
        for key, value in expected.items():
            assert key in actual, f"{where}{key} has no default"
            if isinstance(value, dict) and value:
                walk(value, actual[key], f"{where}{key}.")
            elif not isinstance(value, dict):
                assert actual[key] == value, f"{where}{key}: {actual[key]!r} != seed {value!r}"

    walk(seed, ours, "")


def test_the_stdlib_defaults_are_the_models_defaults():
    """Hooks read config_raw.DEFAULTS (no pydantic); the model takes its defaults from there. The two
    say exactly the same, key for key, both ways: a default added to one and not the other fails."""
    model = Config().model_dump(by_alias=True)
    assert model == config_raw.DEFAULTS


def test_the_models_choices_are_the_stdlib_choices():
    """Every Literal the model validates with is listed in config_raw.CHOICES (which the hook's light
    check of [capture] uses), with the same values in the same order, and nothing else is."""
    import typing

    from hallmark.core import config as config_module

    found: dict[str, tuple[str, ...]] = {}

    def walk(model: type, where: str) -> None:
        for name, field in model.model_fields.items():
            annotation = field.annotation
            if typing.get_origin(annotation) is typing.Literal:
                found[f"{where}{name}"] = typing.get_args(annotation)
            elif isinstance(annotation, type) and issubclass(annotation, config_module.BaseModel):
                walk(annotation, f"{where}{field.alias or name}.")

    walk(Config, "")
    assert found == config_raw.CHOICES


def test_the_gates_capture_check_refuses_what_the_model_refuses(tmp_path: Path):
    from hallmark.core.gates import settings

    assert settings.CONFIG_NAME == config_raw.CONFIG_NAME
    assert settings.capture({}) == config_raw.DEFAULTS["capture"]
    for key, bad in (("mode", "loose"), ("push_guard", "none"), ("free", "docs/"), ("push_allow", [1])):
        (tmp_path / ".hallmark.toml").write_text(f"[capture]\n{key} = {json.dumps(bad)}\n")
        with pytest.raises(HallError):
            load(tmp_path)
        with pytest.raises(ValueError):
            settings.capture(config_raw.load_raw(tmp_path))


def test_missing_file_means_all_defaults(tmp_path: Path):
    assert load(tmp_path) == Config()
    assert config_raw.load_raw(tmp_path) == config_raw.DEFAULTS


def test_overrides_are_read_and_merged(tmp_path: Path):
    (tmp_path / ".hallmark.toml").write_text(
        'gates = ["rig test", "rig run build"]\nworktree = "rig wt new {branch}"\n[capture]\nmode = "ask"\n'
        '[budget.review]\nmax_usd = 3.0\ndaily = "2M"\n'
    )
    cfg = load(tmp_path)
    assert cfg.gates == ["rig test", "rig run build"] and cfg.worktree == "rig wt new {branch}"
    assert cfg.capture.mode == "ask" and cfg.capture.free == ["docs/", "*.md"]
    assert cfg.budget.room("review").max_usd == 3.0
    raw = config_raw.load_raw(tmp_path)
    assert raw["capture"] == {"mode": "ask", "free": ["docs/", "*.md"], "push_guard": "strict", "push_allow": []}


def test_the_worktree_table_holds_the_template_and_copies(tmp_path: Path):
    (tmp_path / ".hallmark.toml").write_text('[worktree]\ncommand = "x {branch}"\ncopy = [".env"]\n')
    cfg = load(tmp_path)
    assert cfg.worktree == "x {branch}" and cfg.worktree_copy == [".env"]


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ("max_rejects = 0\n", "max_rejects", 1),
        ('base = "main"\n\n[capture]\nfree = ["a"]\nmode = "sometimes"\n', "capture.mode", 5),
        ('mode = "gate"\n[capture]\nmode = "nope"\n', "capture.mode", 3),  # not fooled by a top-level 'mode'
        ("capture.mode = 3\n", "capture.mode", 1),
        ('gates = ["ok", 3]\n', "gates.1", 1),
        ('[budget]\ndaily = "lots"\n', "budget.daily", 2),
        ("colour = 1\n", "colour", 1),
        ("[capture]\nextra = 1\n", "capture.extra", 2),
        ("[worktree]\ncopy = 3\n", "worktree.copy", 2),
        ('stuck_after = "soon"\n', "stuck_after", 1),
        ('claude_args = ["--dangerously-skip-permissions"]\n', "claude_args", 1),
        ("[intake]\nmax_parts = 99\n", "intake.max_parts", 2),
    ],
)
def test_an_invalid_value_names_the_key_and_the_line(tmp_path: Path, text: str, key: str, line: int):
    (tmp_path / ".hallmark.toml").write_text(text)
    with pytest.raises(HallError) as caught:
        load(tmp_path)
    err = caught.value
    assert err.code == "INVALID_CONFIG" and err.exit_code == 2
    assert f".hallmark.toml:{line}:" in err.message and f"key '{key}'" in err.message
    assert "hall schema config" in err.next


@pytest.mark.parametrize(
    ("text", "line"),
    [('base = "main"\ngates = [\n', 2), ('base = "main"\nbase = "x"\nmax = 1\n', 2), ("a = 1\n[capture\n", 2)],
)
def test_broken_toml_names_the_line(tmp_path: Path, text: str, line: int):
    (tmp_path / ".hallmark.toml").write_text(text)
    with pytest.raises(HallError) as caught:
        load(tmp_path)
    assert caught.value.code == "INVALID_CONFIG" and f".hallmark.toml:{line}: not valid TOML" in caught.value.message


def test_token_sizes():
    assert parse_tokens("4M") == 4_000_000 and parse_tokens("800k") == 800_000 and parse_tokens(1200) == 1200
    assert parse_tokens("none") is None
    with pytest.raises(ValueError):
        parse_tokens("lots")


def test_config_is_read_from_the_main_checkout_not_a_worktree(hall, hall_repo):
    """An item cannot loosen its own gates: its worktree's .hallmark.toml is never read."""
    root = hall_repo.root
    (root / ".hallmark.toml").write_text('base = "main"\nbranch = "main-says/{id}"\n[capture]\nmode = "gate"\n')
    created = hall("new", "--title", "first", cwd=root)
    assert created.code == 0, created.stdout
    worktree = Path(created.json["worktree"])
    assert created.json["branch"] == "main-says/H-0001"
    (worktree / ".hallmark.toml").write_text('branch = "worktree-says/{id}"\n[capture]\nmode = "off"\n')
    assert open_repo(worktree).config.capture.mode == "gate"
    assert config_raw.load_raw(open_repo(worktree).root)["capture"]["mode"] == "gate"
    second = hall("new", "--title", "second", cwd=worktree)
    assert second.code == 0, second.stdout
    assert second.json["branch"] == "main-says/H-0002"
    # an invalid file in the worktree breaks nothing either
    (worktree / ".hallmark.toml").write_text("max_rejects = 'many'\n")
    assert hall("status", "--all", cwd=worktree).code == 0
    subprocess.run(["git", "status"], cwd=worktree, check=True, capture_output=True)


def test_the_gates_cache_only_a_config_whose_capture_passed(hall_repo):
    """The gates' cached config carries its [capture] already checked; an invalid one is never cached,
    so every call reads it again and refuses it (the gate fails closed), and a fixed file is used."""
    from hallmark.core.gates import settings

    cache = hall_repo.paths.state_dir / "cache" / "config.json"
    config = hall_repo.root / ".hallmark.toml"
    good = config.read_text()
    config.write_text(
        good + '\n[capture]\nmode = "loose"\n'
        if "[capture]" not in good
        else good.replace('mode = "gate"', 'mode = "loose"')
    )
    cache.unlink(missing_ok=True)
    for _ in range(2):
        with pytest.raises(ValueError):
            settings.capture(settings.load(hall_repo.paths))
        assert not cache.exists()
    config.write_text(good)
    loaded = settings.load(hall_repo.paths)
    assert cache.exists() and loaded[settings.CHECKED] is True
    assert settings.capture(settings.load(hall_repo.paths)) == config_raw.load_raw(hall_repo.root)["capture"]
