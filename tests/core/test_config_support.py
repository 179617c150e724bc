"""Every key `hall schema config` lists does what it says or is refused as not yet supported."""

from __future__ import annotations

from pathlib import Path

import pytest
from hallmark.core.config import load
from hallmark.core.config_support import NOT_BUILT
from hallmark.core.errors import HallError

SET = {
    "merge.mode": '[merge]\nmode = "auto"\n',
    "merge.command": '[merge]\ncommand = "gh pr merge {pr}"\n',
    "merge.require_ci": "[merge]\nrequire_ci = false\n",
    "merge.lit": '[merge]\nlit = [".github/"]\n',
    "merge.update": '[merge]\nupdate = "conflicts"\n',
    "intake.split": '[intake]\nsplit = "off"\n',
    "intake.max_parts": "[intake]\nmax_parts = 3\n",
    "lenses": 'lenses = ["correctness"]\n',
    "library.search": '[library]\nsearch = "qmd"\n',
    "extensions": '[extensions]\nrust = ["rs"]\n',
}


def test_the_table_and_the_cases_name_the_same_keys():
    assert set(SET) == set(NOT_BUILT)


@pytest.mark.parametrize("key", sorted(SET))
def test_a_key_nothing_acts_on_is_refused_naming_it_and_its_line(tmp_path: Path, key: str):
    (tmp_path / ".hallmark.toml").write_text('base = "main"\n' + SET[key])
    with pytest.raises(HallError) as caught:
        load(tmp_path)
    err = caught.value
    assert err.code == "INVALID_CONFIG" and f"key '{key}' is not supported yet" in err.message
    line = 2 if key in ("lenses", "extensions") else 3  # lenses: a top-level key; extensions: a table
    assert f".hallmark.toml:{line}:" in err.message and "hall schema config" in err.next


def test_the_values_that_are_true_today_are_accepted(tmp_path: Path):
    (tmp_path / ".hallmark.toml").write_text(
        'lenses = "all"\nreview_comment = ""\n[merge]\nmode = "off"\n[library]\nsearch = "builtin"\n'
        '[delivery]\ninterval = "30s"\nwatch = false\n'
    )
    cfg = load(tmp_path)
    assert cfg.merge.mode == "off" and cfg.delivery.interval == "30s" and cfg.delivery.watch is False


def test_the_delivery_interval_is_a_duration(tmp_path: Path):
    (tmp_path / ".hallmark.toml").write_text('[delivery]\ninterval = "often"\n')
    with pytest.raises(HallError) as caught:
        load(tmp_path)
    assert "key 'delivery.interval'" in caught.value.message
