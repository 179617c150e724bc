"""The tuning half of the issue-22 secret corpus: the families the scanner missed, by shape.

Its other half is held out in benchmarks/secrets_heldout.py (other providers, formats and
spellings), measured only by hand. Each entry is (family, text, raw values): the raw values are
what must never be kept on disk, in whole or in part, after the text went through a persisted
channel. Every value is drawn from a fixed seed in the right shape; none is a real credential.
"""

from __future__ import annotations

import base64
import random
import string

R = random.Random(20261222)
DIG = string.digits
UP = string.ascii_uppercase + DIG
ALNUM = string.ascii_letters + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"

Entry = tuple[str, str, list[str]]


def rand(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def pw(n: int = 14) -> str:
    """A generated password: mixed case, digits and a symbol."""
    while True:
        value = rand(ALNUM, n - 2) + R.choice("!@%&") + R.choice(DIG)
        if any(c.isupper() for c in value) and any(c.islower() for c in value):
            return value


def b64_lines(n_lines: int, head: str = "", width: int = 64) -> list[str]:
    body = head + rand(B64, n_lines * width - len(head))
    return [body[i : i + width] for i in range(0, len(body), width)]


def pem(label: str, lines: list[str], sep: str = "\n", indent: str = "") -> str:
    inner = sep.join(indent + line for line in lines)
    return f"-----BEGIN {label}-----{sep}{inner}{sep}{indent}-----END {label}-----"


def _key_blocks() -> list[Entry]:
    out: list[Entry] = []
    rsa = b64_lines(12, "MIIEowIBAAKCAQEA")
    out.append(("key block", pem("RSA PRIVATE KEY", rsa), rsa))
    ossh = b64_lines(6, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 70)
    out.append(("key block", pem("OPENSSH PRIVATE KEY", ossh), ossh))
    ec = b64_lines(3, "MHcCAQEEIB")
    out.append(("key block", "the signer uses\n" + pem("EC PRIVATE KEY", ec) + "\nfrom vault", ec))
    yaml_rsa = b64_lines(8, "MIIEpQIBAAKCAQEA")
    yaml = "tls:\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n" + "\n".join("    " + x for x in yaml_rsa)
    yaml += "\n    -----END RSA PRIVATE KEY-----\n  cert: cert.pem"
    out.append(("key block", yaml, yaml_rsa))
    pgp = b64_lines(7, "lQOYBF")
    pgp_text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n" + "\n".join(pgp)
    pgp_text += "\n=" + rand(B64, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----"
    out.append(("key block", pgp_text, pgp))
    sa = b64_lines(10, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")
    sa_json = (
        '{"type": "service_account", "project_id": "demo-'
        + rand(DIG, 6)
        + '", "private_key": "'
        + pem("PRIVATE KEY", sa, sep="\\n")
        + '\\n", "client_email": "svc@demo.iam.gserviceaccount.com"}'
    )
    out.append(("key block", sa_json, sa))
    enc = b64_lines(6, "MIIEpAIBAAKCAQEA")
    enc_text = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," + rand(HEX, 32).upper()
    enc_text += "\n\n" + "\n".join(enc) + "\n-----END RSA PRIVATE KEY-----"
    out.append(("key block", enc_text, enc))
    half = b64_lines(5, "MIIEvAIBADANBgkqhkiG9w0BAQEFAASC")
    out.append(("key block", "-----BEGIN PRIVATE KEY-----\n" + "\n".join(half) + "\n(the rest is on the wiki)", half))
    pub = b64_lines(3, "AAAAC3NzaC1lZDI1NTE5AAAAI")
    priv = b64_lines(2, "AAAAQ")
    putty = (
        "PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 3\n"
        + "\n".join(pub)
        + "\nPrivate-Lines: 2\n"
        + "\n".join(priv)
        + "\nPrivate-MAC: "
        + rand(HEX, 40)
    )
    out.append(("key block", putty, priv))
    one = b64_lines(4, "MIIBOgIBAAJBA")
    out.append(("key block", pem("RSA PRIVATE KEY", one, sep=" "), one))
    return out


def _config_formats() -> list[Entry]:
    out: list[Entry] = []
    auth = base64.b64encode(f"deploy:{pw(16)}".encode()).decode()
    out.append(("config", '{"auths": {"registry.gitlab.com": {"auth": "' + auth + '"}}}', [auth]))
    auth2 = base64.b64encode(f"AWS:{rand(B64, 40)}".encode()).decode()
    out.append(
        ("config", '"auths": {\n  "123.dkr.ecr.eu-west-1.amazonaws.com": {\n    "auth": "' + auth2 + '"\n  }', [auth2])
    )
    auth3 = base64.b64encode(f"ci:{pw(12)}".encode()).decode()
    out.append(("config", "_auth=" + auth3 + "\nalways-auth=true", [auth3]))
    p = pw(14)
    out.append(("config", "[pypi]\nusername = __token__\npassword = " + p, [p]))
    p2 = pw(16)
    out.append(("config", "<settings><servers><server><id>central</id><password>" + p2 + "</password>", [p2]))
    tok = rand(URLSAFE, 48)
    out.append(("config", "users:\n- name: admin\n  user:\n    token: " + tok, [tok]))
    data = base64.b64encode(pw(14).encode()).decode()
    out.append(("config", "kind: Secret\ndata:\n  password: " + data, [data]))
    p3 = pw(12)
    out.append(("config", "[client]\nuser = backup\npassword = " + p3, [p3]))
    p4 = rand(string.ascii_lowercase, 12)
    out.append(("config", 'DB_PASSWORD="' + p4 + '"', [p4]))
    return out


def _connections() -> list[Entry]:
    out: list[Entry] = []
    p = pw(12)
    out.append(("connection", 'db, err := sql.Open("mysql", "app:' + p + '@tcp(db.internal:3306)/shop")', [p]))
    p2 = pw(14)
    out.append(("connection", "DATABASE=admin:" + p2 + "@db.internal:5432/app", [p2]))
    p3 = pw(13)
    out.append(("connection", "jdbc:postgresql://db:5432/app?user=app&password=" + p3, [p3]))
    p4 = pw(12)
    out.append(("connection", "Host=db;Database=app;Username=app;Password=" + p4 + ";", [p4]))
    p5 = "p%40ss" + rand(ALNUM, 8) + "%2F"
    out.append(("connection", "postgresql://svc:" + p5 + "@db.internal/app", [p5]))
    p6 = pw(12)
    out.append(("connection", "host=db user=app password=" + p6 + " sslmode=require", [p6]))
    return out


def _command_lines() -> list[Entry]:
    out: list[Entry] = []
    p = pw(12)
    out.append(("command line", "mysql -u root -p" + p + " shop", [p]))
    p2 = pw(10)
    out.append(("command line", "sshpass -p '" + p2 + "' scp build.tgz web1:/srv", [p2]))
    p3 = rand(string.ascii_lowercase, 10)
    out.append(("command line", "PGPASSWORD=" + p3 + " psql -h db -U app", [p3]))
    p4 = pw(11)
    out.append(("command line", "docker login -u ci -p " + p4 + " registry.internal", [p4]))
    p5 = pw(12)
    out.append(("command line", "redis-cli -a " + p5 + " ping", [p5]))
    p6 = pw(12)
    out.append(("command line", "sshpass -p " + p6 + " ssh ops@db1", [p6]))
    p7 = pw(12)
    out.append(("command line", "mysqladmin -uroot -p'" + p7 + "' status", [p7]))
    p8 = pw(12)
    out.append(("command line", "htpasswd -b -c .htpasswd admin " + p8, [p8]))
    p9 = pw(12)
    out.append(("command line", "openssl rsa -in k.pem -passin pass:" + p9, [p9]))
    p10 = pw(12)
    out.append(("command line", "ldapsearch -x -D cn=admin -w " + p10 + " -b dc=acme", [p10]))
    return out


def _split() -> list[Entry]:
    out: list[Entry] = []
    tok = rand(ALNUM, 36)
    out.append(("split", "ghp_" + tok[:18] + "\n" + tok[18:], [tok[:18], tok[18:]]))
    sk = rand(ALNUM, 24)
    out.append(("split", 'stripe.api_key = "sk_live_" + "' + sk + '"', [sk]))
    tok2 = rand(ALNUM, 36)
    out.append(("split", 'TOKEN = ("ghp_' + tok2[:16] + '"\n         "' + tok2[16:] + '")', [tok2[:16], tok2[16:]]))
    tok3 = rand(URLSAFE, 20)
    out.append(("split", "key = 'glpat-' + '" + tok3 + "'", [tok3]))
    return out


def _tokens() -> list[Entry]:
    out: list[Entry] = []
    fcm = "AAAA" + rand(URLSAFE, 7) + ":APA91b" + rand(URLSAFE, 134)
    out.append(("token", "FCM_SERVER_KEY=" + fcm, [fcm]))
    fcm2 = "AAAA" + rand(URLSAFE, 7) + ":APA91b" + rand(URLSAFE, 134)
    out.append(("token", "push with the server key " + fcm2, [fcm2]))
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + rand(URLSAFE, 200) + "." + rand(URLSAFE, 43)
    out.append(("token", "Authorization: Bearer " + jwt, [jwt]))
    gh = "ghp_" + rand(ALNUM, 36)
    out.append(("token", "https://x-access-token:" + gh + "@github.com/acme/app.git", [gh]))
    sl = "xoxb-" + rand(DIG, 12) + "-" + rand(DIG, 13) + "-" + rand(ALNUM, 24)
    out.append(("token", "SLACK_BOT_TOKEN=" + sl, [sl]))
    aws = rand(B64, 40)
    out.append(
        ("token", "[default]\naws_access_key_id = AKIA" + rand(UP, 16) + "\naws_secret_access_key = " + aws, [aws])
    )
    npm = "npm_" + rand(ALNUM, 36)
    out.append(("token", "//registry.npmjs.org/:_authToken=" + npm, [npm]))
    st = "sk_live_" + rand(ALNUM, 99)
    out.append(("token", "STRIPE_SECRET_KEY=" + st, [st]))
    return out


CREDENTIALS: list[Entry] = [
    *_key_blocks(),
    *_config_formats(),
    *_connections(),
    *_command_lines(),
    *_split(),
    *_tokens(),
]

_PUB = b64_lines(6, "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA")
_CERT = b64_lines(9, "MIIDazCCAlOgAwIBAgIU")

LOOK_ALIKES: list[str] = [
    f"reverted {rand(HEX, 40)}",
    f"tag v2.3.1 points at {rand(HEX, 12)}",
    f"job {rand(HEX, 8)}-{rand(HEX, 4)}-4{rand(HEX, 3)}-8{rand(HEX, 3)}-{rand(HEX, 12)} failed",
    f'"sha256": "{rand(HEX, 64)}"',
    "avatar: data:image/png;base64," + base64.b64encode(bytes(R.randrange(256) for _ in range(150))).decode(),
    'integrity="sha512-' + base64.b64encode(bytes(R.randrange(256) for _ in range(64))).decode() + '"',
    f"golang.org/x/net v0.20.0 h1:{base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode()}",
    pem("PUBLIC KEY", _PUB),
    pem("CERTIFICATE", _CERT),
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43) + " me@laptop",
    "password: ${{ secrets.PROD_DB_PASSWORD }}",
    'export GITHUB_TOKEN="$(gh auth token)"',
    "No password needed: postgres://app@localhost:5432/app",
    "run mysql -u root -p and type it when asked",
    "mysql -u app -p shop < dump.sql",
    "echo $CR_PAT | docker login ghcr.io -u acme --password-stdin",
    "PGPASSWORD=$DB_PASS psql -h db",
    "sshpass -e ssh ops@db1",
    "pk_live_" + rand(ALNUM, 24) + " is the publishable key",
    '{"auths": {"ghcr.io": {}}, "credsStore": "osxkeychain"}',
    '"auth": "none"',
    "password: <from 1password>",
    "DB_PASSWORD=changeme",
    "the seed user has the password 'password' in fixtures",
    "fingerprint SHA256:" + base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode().rstrip("="),
    "git clone git@gitlab.com:acme/infra.git",
    "ping ops:oncall@acme.io",
    "def login(username: str, password: str) -> Session:",
    "engine = create_engine(url, password=password)",
    "token_ttl_seconds = 900",
    "the key-rotation job runs nightly",
    "-----BEGIN PRIVATE KEY----- is the header openssl writes",
    "PuTTY-User-Key-File-3 is the new .ppk format",
    "host=db user=app password= sslmode=require  # empty: uses .pgpass",
    "AAAA records point at the load balancer",
    "mysql -h db -P 3306 -u app -p",
    "docker login -u acme registry.internal",
    "openssl rsa -in k.pem -passin env:KEY_PASS",
    "redis-cli -a $REDIS_PASSWORD ping",
    "smbclient //files/share -U alice",
]
