"""The secret scanner: real-shaped credentials are refused, look-alikes pass, nothing secret is stored.

The credentials below are generated from a fixed seed in the right shapes; none is a real key.
"""

from __future__ import annotations

import pytest
from hallmark.core import secrets
from hallmark.core.errors import HallError
from hallmark.core.memory import api, checkpoint, decisions, notes

from .conftest import files_under
from .secret_corpus import CREDENTIALS, LOOK_ALIKES

SECRETS = CREDENTIALS


def test_the_corpus_is_big_enough():
    assert len(SECRETS) >= 80 and len(LOOK_ALIKES) >= 80


@pytest.mark.parametrize("kind, text", SECRETS, ids=[f"secret-{i}" for i in range(len(SECRETS))])
def test_real_shaped_credentials_are_found(kind, text):
    found = secrets.scan_text(text, "pattern")
    assert found, f"missed a {kind}"
    assert kind in {f.kind for f in found}


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[f"lookalike-{i}" for i in range(len(LOOK_ALIKES))])
def test_look_alikes_are_not_flagged(text):
    assert secrets.scan_text(text, "pattern") == []


def test_rates_reported():
    """Prints the false-positive and detection rates (run with -s to see them)."""
    caught = sum(1 for _, text in SECRETS if secrets.scan_text(text))
    false_positives = sum(1 for text in LOOK_ALIKES if secrets.scan_text(text))
    print(
        f"\nsecret scanner: detected {caught}/{len(SECRETS)} real-shaped credentials; "
        f"false positives {false_positives}/{len(LOOK_ALIKES)} = {false_positives / len(LOOK_ALIKES):.1%}"
    )
    assert caught == len(SECRETS) and false_positives == 0


@pytest.mark.parametrize("where", ["pattern", "rationale", "quote", "paths"])
def test_a_secret_in_any_field_refuses_the_learning_and_stores_nothing(repo, where):
    before = files_under(repo.state_dir / "library")
    token = "ghp_" + "Q7wErT9yUiOp3AsDfGhJkL2zXcVbNm1qW4eR"
    fields = {"kind": "rule", "pattern": "Deploys use the CI token", "rationale": ""}
    evidence = None
    if where == "pattern":
        fields["pattern"] = f"Deploys use {token}"
    elif where == "rationale":
        fields["rationale"] = f"because {token}"
    elif where == "quote":
        evidence = {"source": "user_statement", "quote": f"use {token}"}
    paths = [f"secrets/{token}"] if where == "paths" else None
    with pytest.raises(HallError) as err:
        api.propose(repo, evidence=evidence, paths=paths, **fields)
    assert err.value.code == "SECRET_REFUSED" and err.value.exit_code == 2
    assert "GitHub token" in err.value.message
    assert token not in err.value.message
    named = {"pattern": "pattern:", "rationale": "rationale:", "quote": "evidence[0].quote:", "paths": "paths[0]:"}[
        where
    ]
    assert named in err.value.message
    assert files_under(repo.state_dir / "library") == before


def test_secrets_refused_in_checkpoint_notes_decisions_and_decisions(repo):
    key = "AKIA" + "Q" * 4 + "7XK2M9PL3ZR8"
    before = files_under(repo.state_dir / "library")
    calls = [
        lambda: checkpoint.set_checkpoint(
            repo.paths,
            {"Phase": "implementation", "Active work": "H-1", "Next step": f"export AWS_ACCESS_KEY_ID={key}"},
        ),
        lambda: notes.add(repo.paths, fact=f"staging uses {key}", facet="infrastructure"),
        lambda: decisions.lock(repo.paths, title="Keys", specification=f"use {key}", confirm=True),
    ]
    for call in calls:
        with pytest.raises(HallError) as err:
            call()
        assert err.value.code == "SECRET_REFUSED" and "AWS access key" in err.value.message
    assert files_under(repo.state_dir / "library") == before


def test_reject_reason_and_edited_pattern_are_scanned(repo):
    lid = api.propose(repo, kind="rule", pattern="Rotate the deploy credentials monthly")["id"]
    with pytest.raises(HallError):
        api.accept(repo, lid, pattern="Rotate xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx monthly")
    with pytest.raises(HallError):
        api.reject(repo, lid, "the password=Hunter2Hunter2! is old")
    assert api.get(repo, lid).status == "proposed" and api.get(repo, lid).version == 1


def test_cli_refusal_is_exit_2_secret_refused_naming_field_and_kind(repo, hall):
    token = "glpat-" + "aB3dE5fG7hJ9kL1mN3pQ"
    result = hall(
        "library",
        "propose",
        "--kind",
        "rule",
        "--pattern",
        "CI pushes with the bot",
        "--quote",
        f"the bot uses {token}",
        "--source",
        "user_statement",
        cwd=repo.root,
    )
    assert result.code == 2
    error = result.json["error"]
    assert error["code"] == "SECRET_REFUSED"
    assert "evidence[0].quote: GitLab token" in error["message"] and token not in result.stdout
    assert hall("library", "list", cwd=repo.root).json["count"] == 0
