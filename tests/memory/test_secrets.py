"""The secret scanner: real-shaped credentials are refused, look-alikes pass, nothing secret is stored.

The credentials below are generated from a fixed seed in the right shapes; none is a real key.
"""

from __future__ import annotations

import random
import string

import pytest
from hallmark.core import secrets
from hallmark.core.errors import HallError
from hallmark.core.memory import api, checkpoint, decisions, notes

from .conftest import files_under

R = random.Random(20261130)
UP = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


SECRETS: list[tuple[str, str]] = [
    ("AWS access key", "AKIA" + rand(UP, 16)),
    ("AWS access key", "deploy used ASIA" + rand(UP, 16) + " yesterday"),
    ("high-entropy value next to a secret-like name", "aws_secret_access_key = " + rand(B64, 40)),
    ("GitHub token", "ghp_" + rand(ALNUM, 36)),
    ("GitHub token", "gho_" + rand(ALNUM, 36)),
    ("GitHub token", "ghs_" + rand(ALNUM, 36)),
    ("GitHub token", "ghu_" + rand(ALNUM, 36)),
    ("GitHub token", "ghr_" + rand(ALNUM, 36)),
    ("GitHub fine-grained token", "github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59)),
    ("GitLab token", "glpat-" + rand(URLSAFE, 20)),
    ("Slack token", "xoxb-" + rand(string.digits, 12) + "-" + rand(string.digits, 12) + "-" + rand(ALNUM, 24)),
    ("Slack token", "xoxp-" + rand(string.digits, 11) + "-" + rand(string.digits, 11) + "-" + rand(ALNUM, 32)),
    ("Slack webhook", "https://hooks.slack.com/services/T" + rand(UP, 8) + "/B" + rand(UP, 8) + "/" + rand(ALNUM, 24)),
    ("Stripe key", "sk_live_" + rand(ALNUM, 24)),
    ("Stripe key", "rk_live_" + rand(ALNUM, 24)),
    ("Anthropic key", "sk-ant-api03-" + rand(URLSAFE, 93)),
    ("OpenAI key", "sk-proj-" + rand(URLSAFE, 48)),
    ("Google API key", "AIza" + rand(URLSAFE, 35)),
    ("Google OAuth secret", "GOCSPX-" + rand(URLSAFE, 28)),
    ("npm token", "npm_" + rand(ALNUM, 36)),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 60)),
    ("SendGrid key", "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43)),
    ("Twilio key", "SK" + rand(HEX, 32)),
    ("Telegram bot token", rand(string.digits, 9) + ":AA" + rand(URLSAFE, 33)),
    ("Discord bot token", "M" + rand(ALNUM, 23) + "." + rand(URLSAFE, 6) + "." + rand(URLSAFE, 27)),
    ("DigitalOcean token", "dop_v1_" + rand(HEX, 64)),
    ("Hugging Face token", "hf_" + rand(string.ascii_letters, 34)),
    ("Azure storage key", "DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=" + rand(B64, 86) + "=="),
    ("JSON Web Token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ" + rand(URLSAFE, 30) + "." + rand(URLSAFE, 43)),
    ("private key block", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + rand(B64, 60) + "\n-----END RSA PRIVATE KEY-----"),
    ("private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk" + rand(B64, 40)),
    ("private key block", "-----BEGIN EC PRIVATE KEY-----"),
    ("private key block", "-----BEGIN PRIVATE KEY-----\n" + rand(B64, 64)),
    ("URL with a password", "postgres://admin:S3cretPassw0rd@db.internal:5432/app"),
    ("URL with a password", "mongodb+srv://svc:" + rand(ALNUM, 16) + "@cluster0.mongodb.net/prod"),
    ("URL with a password", "redis://default:p4ssw0rdXYZ42@cache.internal:6379/0"),
    ("password assignment", "password=Tr0ub4dor&3x"),
    ("password assignment", 'DB_PASSWORD: "correct-horse-9-battery"'),
    ("password assignment", "mysql -u root --password=R00tPa55word!"),
    ("password assignment", "PGPASSWORD=pg_Pa55w0rd_2024 psql -h db"),
    ("high-entropy value next to a secret-like name", '{"api_key": "' + rand(ALNUM, 32) + '"}'),
    ("high-entropy value next to a secret-like name", "client_secret = " + rand(URLSAFE, 40)),
    ("bearer token", "curl -H 'Authorization: Bearer " + rand(URLSAFE, 40) + "' https://api.internal"),
    ("high-entropy value next to a secret-like name", "export SECRET_KEY='" + rand(ALNUM + "!@#%^&*(-_=+)", 50) + "'"),
    ("high-entropy value next to a secret-like name", "runner token: " + rand(HEX, 40)),
    ("high-entropy value next to a secret-like name", "ACCESS_TOKEN=" + rand(URLSAFE, 43)),
]

LOOK_ALIKES: list[str] = [
    "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "see 3f78685 for the revert",
    "sha256 of the tarball: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "md5 d41d8cd98f00b204e9800998ecf8427e matches",
    "request 550e8400-e29b-41d4-a716-446655440000 timed out",
    "request_id = 9b2c7f0e-1d3a-4e5b-8c6d-7e8f9a0b1c2d",
    "icon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "The AWS docs use AKIAIOSFODNN7EXAMPLE as the access key",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "a token looks like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "password = os.environ['DB_PASSWORD']",
    "password: ${DB_PASSWORD}",
    "token = <your-token-here>",
    "api_key: YOUR_API_KEY",
    "password=changeme in the docker-compose example",
    "password = None",
    "the token expired, so the client refreshes the token",
    "set the password in the vault, never in code",
    "session_token_ttl = 3600",
    "checksum: sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "digest = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "aGVsbG8gd29ybGQgdGhpcyBpcyBqdXN0IGJhc2U2NCBkYXRh is the fixture's body",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@host",
    "clone https://github.com/owner/repo.git",
    "DATABASE_URL=postgres://localhost:5432/app",
    "postgres://app:${DB_PASS}@db/app",
    "https://user:<password>@example.com/path",
    "The GitHub token lives in $GITHUB_TOKEN; never paste it",
    "password_min_length = 12",
    "JWT tokens start with eyJ and have three parts",
    "version 1.2.3-rc.4+build.5678",
    "brand colour #1e90ff",
    "GitHub classic tokens start with ghp_ and fine-grained ones with github_pat_",
    "password=<redacted>",
    "token: null",
    "api_key = settings.API_KEY",
    "send the bearer token in the Authorization header",
    "secret = getpass.getpass()",
    "integrity: sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==",
    "passwordless login via magic links",
    "for example AIzaSyEXAMPLE0000000000000000000000000 in the docs",
    "the secret sauce is the index",
    "author: Jane Doe <jane@example.com>",
    "api_key: Optional[SecretStr] = None must never be logged",
    "def rotate(token: str) -> None",
    "client_secret=config.client_secret",
    "password_hash = bcrypt.hashpw(password, salt)",
    "token = request.headers['Authorization']",
    "Authorization: Bearer <token>",
]


def test_the_corpus_is_big_enough():
    assert len(SECRETS) >= 40 and len(LOOK_ALIKES) >= 40


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
    print(f"\nsecret scanner: detected {caught}/{len(SECRETS)} real-shaped credentials; "
          f"false positives {false_positives}/{len(LOOK_ALIKES)} = {false_positives / len(LOOK_ALIKES):.1%}")
    assert caught == len(SECRETS) and false_positives == 0


@pytest.mark.parametrize("where", ["pattern", "rationale", "quote", "paths"])
def test_a_secret_in_any_field_refuses_the_learning_and_stores_nothing(repo, where):
    before = files_under(repo.state_dir / "library")
    token = SECRETS[3][1]
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
    named = {"pattern": "pattern:", "rationale": "rationale:", "quote": "evidence[0].quote:", "paths": "paths[0]:"}[where]
    assert named in err.value.message
    assert files_under(repo.state_dir / "library") == before


def test_secrets_refused_in_checkpoint_notes_decisions_and_decisions(repo):
    key = "AKIA" + "Q" * 4 + "7XK2M9PL3ZR8"
    before = files_under(repo.state_dir / "library")
    calls = [
        lambda: checkpoint.set_checkpoint(repo.paths, {"Phase": "implementation", "Active work": "H-1",
                                                       "Next step": f"export AWS_ACCESS_KEY_ID={key}"}),
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
    result = hall("library", "propose", "--kind", "rule", "--pattern", "CI pushes with the bot",
                  "--quote", f"the bot uses {token}", "--source", "user_statement", cwd=repo.root)
    assert result.code == 2
    error = result.json["error"]
    assert error["code"] == "SECRET_REFUSED"
    assert "evidence[0].quote: GitLab token" in error["message"] and token not in result.stdout
    assert hall("library", "list", cwd=repo.root).json["count"] == 0
