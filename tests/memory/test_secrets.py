"""The secret scanner: real-shaped credentials are refused, look-alikes pass, nothing secret is stored.

The credentials below are generated from a fixed seed in the right shapes; none is a real key.
"""

from __future__ import annotations

import pytest
from hallmark.core import secrets
from hallmark.core.errors import HallError
from hallmark.core.memory import api, checkpoint, decisions, notes
from hypothesis import given, settings
from hypothesis import strategies as st

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


# ---- issue 22 item 3: what the fresh corpus found, one test per shape (values drawn here, fake) ----

_R = __import__("random").Random(2222)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _body(lines: int, width: int = 64) -> list[str]:
    return [_r(width, _ALNUM + "+/") for _ in range(lines)]


def _kept(text: str, values: list[str]) -> list[str]:
    redacted = secrets.redact(text)
    return [v for v in values if v[:12] in redacted or v[-12:] in redacted]


@pytest.mark.parametrize(
    "label, sep, indent",
    [("OPENSSH PRIVATE KEY", "\n", ""), ("EC PRIVATE KEY", "\n", ""), ("RSA PRIVATE KEY", "\n", "    ")],
)
def test_a_key_block_is_redacted_from_begin_to_end_not_only_its_first_line(label, sep, indent):
    body = _body(6)
    text = f"key: |\n{indent}-----BEGIN {label}-----{sep}" + sep.join(indent + b for b in body)
    text += f"{sep}{indent}-----END {label}-----\nnext: line"
    assert _kept(text, body) == []
    assert secrets.redact(text).endswith("[redacted: private key block]\nnext: line")


def test_a_pgp_block_with_headers_and_a_pem_inside_service_account_json_are_whole_spans():
    body = _body(5)
    pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: x\n\n" + "\n".join(body) + "\n=Ab12\n"
    pgp += "-----END PGP PRIVATE KEY BLOCK-----"
    assert _kept(pgp, body) == [] and secrets.redact(pgp) == "[redacted: private key block]"
    sa = _body(4)
    text = '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + "\\n".join(sa) + '\\n-----END PRIVATE KEY-----\\n"}'
    assert _kept(text, sa) == []
    assert secrets.redact(text) == '{"private_key": "[redacted: private key block]\\n"}'


def test_a_key_block_cut_short_is_redacted_to_the_end_of_its_material():
    body = _body(4)
    text = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n\nwhy does openssl reject it?"
    assert secrets.redact(text) == "[redacted: private key block]\n\nwhy does openssl reject it?"
    assert secrets.scan_text("-----BEGIN PRIVATE KEY----- is what the file starts with") == []


def test_a_putty_key_is_found_without_a_begin_line():
    private = _body(2)
    text = "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: ci\nPublic-Lines: 1\n" + _r(64)
    text += "\nPrivate-Lines: 2\n" + "\n".join(private) + "\nPrivate-MAC: " + _r(40, "0123456789abcdef")
    assert secrets.redact(text) == "[redacted: private key block]"


def test_a_long_key_is_redacted_whole_not_in_a_middle_window():
    key = "AAAA" + _r(7) + ":APA91b" + _r(60) + "-" + _r(40) + "_" + _r(33)
    assert secrets.redact(f"server key {key} (legacy)") == "server key [redacted: Firebase server key] (legacy)"
    inside = _r(30) + "-" + _r(40, _ALNUM + "+/") + "_" + _r(30)  # an AWS-shaped window in a longer token
    assert secrets.redact(f"v {inside} w") in (f"v {inside} w", "v [redacted: AWS secret access key] w")


@pytest.mark.parametrize(
    "text, value",
    [
        ('{"auths": {"ghcr.io": {"auth": "%s"}}}', "b64"),
        ('db := "svc:%s@tcp(db:3306)/app"', "pw"),
        ("ping reporting:%s@10.1.2.3:5432/dw", "pw"),
        ("mysql -u root -p%s shop", "pw"),
        ("sshpass -p '%s' ssh ops@web1", "pw"),
        ("PGPASSWORD=%s psql -h db", "letters"),
        ("<password>%s</password>", "pw"),
        ("redis-cli -a %s ping", "pw"),
        ("docker login -u ci -p %s registry.internal", "pw"),
    ],
)
def test_the_missed_families_are_found(text, value):
    import base64

    password = _r(10) + "%9" if value != "letters" else _r(12, "abcdefghijklmnopqrstuvwxyz")
    secret = base64.b64encode(f"ci:{password}".encode()).decode() if value == "b64" else password
    written = text % secret
    assert secrets.scan_text(written), written
    assert secret not in secrets.redact(written)


def test_tokens_split_over_lines_or_built_by_concatenation_are_found():
    token = _r(36)
    for text in (
        f"ghp_{token[:20]}\n{token[20:]}",
        f'k = "ghp_{token[:10]}" + "{token[10:]}"',
        f'k = ("ghp_{token[:10]}"\n     "{token[10:]}")',
        f'stripe.api_key = "sk_live_" + "{token[:24]}"',
    ):
        redacted = secrets.redact(text)
        assert token[:8] not in redacted and token[-8:] not in redacted, text


def test_prose_about_a_password_is_not_a_password():
    for text in (
        "Local DB without a password: postgres://app@localhost:5432/app",
        "host=db user=app password= sslmode=require",
        "conn = connect(user=user, password=db_password)",
        "mysql -u root -p shop",
        "Password: Mandatory",
    ):
        assert secrets.scan_text(text) == [], text


def test_clip_redacts_before_it_cuts():
    token = "ghp_" + _r(36)
    text = "p" * 3990 + " " + token + " more"
    assert token[:8] not in secrets.clip(text, 4000)
    assert secrets.clip(text, 4000).endswith("[redacted: GitHub token]")  # the marker is kept whole
    assert secrets.clip("short " + token, 4000) == "short [redacted: GitHub token]"
    assert secrets.clip("p" * 5000, 4000) == "p" * 4000


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=420), st.sampled_from(["ghp_", "sk_live_", "glpat-", "xoxb-1234567890-"]))
def test_a_token_anywhere_around_the_cut_leaves_no_head(offset, prefix):
    token = prefix + _TOKEN_BODY
    text = "lorem ipsum " * 40 + token + " tail"
    text = text[offset:]
    clipped = secrets.clip(text, 400)
    assert _TOKEN_BODY[:10] not in clipped and _TOKEN_BODY[-10:] not in clipped


_TOKEN_BODY = _r(36)


@pytest.mark.parametrize(
    "text",
    [
        "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 60000,
        "-p" * 5000,
        ("x\n" * 4000),
        ("ab_1cd\n" * 1500),
        '"a" + "b" ' * 1000,
        "u:p@h " * 1500,
        "password: " * 800,
    ],
    ids=["key body", "dash p", "newlines", "wrapped runs", "concat", "at signs", "names"],
)
def test_adversarial_text_is_scanned_quickly(text):
    import time

    start = time.perf_counter()
    secrets.redact(text)
    assert time.perf_counter() - start < 0.5


def test_a_split_token_after_a_secret_name_is_redacted_across_the_join():
    """The name rule redacts the first piece; the token across the join still takes the second."""
    token = _r(36)
    text = f'gh_token = "ghp_{token[:12]}" +\n    "{token[12:]}"'
    redacted = secrets.redact(text)
    assert token[:8] not in redacted and token[-8:] not in redacted


def test_a_shorter_secret_on_a_config_line_of_its_own_is_found():
    value = _r(11) + "!4"
    assert (
        secrets.redact(f"[s3]\nsecret_key = {value}\n")
        == "[s3]\nsecret_key = [redacted: high-entropy value next to a secret-like name]\n"
    )
    assert secrets.scan_text(f"the secret key {value[:6]} in prose") == []


@pytest.mark.parametrize(
    "template",
    [
        "warehouse.internal:5432:dw:etl:%s",
        "MAIL_PASS=%s",
        "printf '%s' | sudo -S apt-get update",
        "echo %s | podman login -u ci --password-stdin quay.io",
        "net use S: \\\\nas\\scans /user:office\\ann %s",
        "./seed --admin-password %s --yes",
        "parts = ['ghp_', '%s']",
        "the deploy token is %s, rotate it",
    ],
)
def test_shapes_found_after_round_two_of_the_held_out_corpus(template):
    value = _r(36) if "ghp_" in template else _r(24) if "token is" in template else _r(10) + "#3"
    written = template % value
    assert value[:8] not in secrets.redact(written), written


@pytest.mark.parametrize(
    "text",
    [
        "db_password: !vault |",
        "API_TOKEN=${API_TOKEN:?set API_TOKEN first}",
        "bypass = cache123",
        "the token is valid for one hour",
        "started 10:41:07:812:main",
        "--password-stdin reads it from standard input",
    ],
)
def test_round_two_look_alikes_stay(text):
    assert secrets.scan_text(text) == [], text
