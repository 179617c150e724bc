"""Benchmark: the secret scanner on a HELD-OUT corpus, through every persisted channel.

Run by hand, only to measure (never tune the scanner against it):
`python benchmarks/secrets_heldout.py [--runs N] [--tuning]`.

The corpus here was written before the scanner was changed for issue 22 and is kept apart from
the tests: tests/memory/secret_families.py is the tuning half (its shapes and contexts are what the
tests assert); this file holds other providers, other file formats and other ways of writing the
same families (key blocks, credentials inside config formats, connection strings, command-line
passwords, split and concatenated tokens, long tokens), plus 40 look-alikes. Every value is drawn
from a fixed seed in the right shape; none is a real credential.

It prints, for the held-out half (and with --tuning, for the tuning half as well):
- per channel (prompt, commit subject, title, question, answer, checkpoint, note, learning): how
  many credentials were refused or fully redacted, and whether any 12-character window of a raw
  value is left anywhere under the state directory (paths and contents) or the data directory;
- false refusals/redactions on the look-alikes;
- the scan time of a 4 KB prompt (median and worst of many runs).
"""

from __future__ import annotations

import argparse
import base64
import random
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

R = random.Random(22_0322)
DIG = string.digits
UP = string.ascii_uppercase + DIG
LOWD = string.ascii_lowercase + DIG
ALNUM = string.ascii_letters + DIG
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def pw(n: int = 14) -> str:
    """A generated password: letters, digits and a symbol or two."""
    while True:
        value = rand(ALNUM, n - 2) + R.choice("!#%^*") + R.choice(DIG)
        if any(c.isupper() for c in value) and any(c.islower() for c in value):
            return value


def b64_lines(n_lines: int, head: str = "", width: int = 64) -> list[str]:
    body = head + rand(B64, n_lines * width - len(head))
    return [body[i : i + width] for i in range(0, len(body), width)]


def block(label: str, lines: list[str], sep: str = "\n", indent: str = "") -> str:
    inner = sep.join(indent + line for line in lines)
    return f"-----BEGIN {label}-----{sep}{inner}{sep}{indent}-----END {label}-----"


# (family, text, raw values that must never be kept)
Entry = tuple[str, str, list[str]]


def _key_blocks() -> list[Entry]:
    out: list[Entry] = []
    dsa = b64_lines(10, "MIIBuwIBAAKBgQ")
    out.append(("key block", block("DSA PRIVATE KEY", dsa), dsa))
    enc = b64_lines(12, "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI")
    out.append(("key block", block("ENCRYPTED PRIVATE KEY", enc), enc))
    ossh = b64_lines(7, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA", 70)
    tf = 'resource "tls_private_key" "x" {}\nlocals {\n  deploy_key = <<-EOT\n'
    out.append(("key block", tf + block("OPENSSH PRIVATE KEY", ossh, indent="    ") + "\n  EOT\n}", ossh))
    rsa = b64_lines(9, "MIIEpAIBAAKCAQEA")
    env = 'TLS_KEY="' + block("RSA PRIVATE KEY", rsa, sep="\\n") + '"'
    out.append(("key block", env, rsa))
    ec = b64_lines(3, "MHcCAQEEI")
    out.append(("key block", "paste this:  " + block("EC PRIVATE KEY", ec, sep=" "), ec))
    pgp = b64_lines(8, "lQdGBF")
    pgp_text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: exported\n\n" + "\n".join(pgp)
    pgp_text += "\n=" + rand(B64, 4) + "\n-----END PGP PRIVATE KEY BLOCK-----"
    out.append(("key block", pgp_text, pgp))
    cut = b64_lines(6, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC")
    out.append(("key block", "my key got cut off:\n-----BEGIN PRIVATE KEY-----\n" + "\n".join(cut), cut))
    pub = b64_lines(4, "AAAAB3NzaC1yc2EAAAADAQABAAABAQ")
    priv = b64_lines(8, "AAABAQC")
    putty = (
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: build-agent\nPublic-Lines: 4\n"
        + "\n".join(pub)
        + "\nPrivate-Lines: 8\n"
        + "\n".join(priv)
        + "\nPrivate-MAC: "
        + rand(HEX, 64)
    )
    out.append(("key block", putty, priv))
    ossh2 = b64_lines(5, "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0")
    yaml = "ssh:\n  key: |\n" + "\n".join("    " + line for line in ["-----BEGIN OPENSSH PRIVATE KEY-----", *ossh2])
    yaml += "\n    -----END OPENSSH PRIVATE KEY-----\n  user: git"
    out.append(("key block", yaml, ossh2))
    return out


def _config_formats() -> list[Entry]:
    out: list[Entry] = []
    user, secret = "ci-bot", pw(18)
    auth = base64.b64encode(f"{user}:{secret}".encode()).decode()
    out.append(
        (
            "config",
            '{\n  "auths": {\n    "ghcr.io": {\n      "auth": "' + auth + '"\n    }\n  }\n}',
            [auth],
        )
    )
    auth2 = base64.b64encode(f"_json_key:{pw(24)}".encode()).decode()
    out.append(("config", '{"quay.io": {"auth": "' + auth2 + '", "email": ""}}', [auth2]))
    tok = rand(URLSAFE, 40)
    out.append(("config", 'npmRegistryServer: "https://npm.internal"\nnpmAuthToken: "' + tok + '"', [tok]))
    p = pw(16)
    out.append(
        ("config", "<server>\n  <id>nexus</id>\n  <username>deploy</username>\n  <password>" + p + "</password>", [p])
    )
    p2 = pw(12)
    out.append(("config", '{"http-basic": {"repo.example.org": {"username": "me", "password": "' + p2 + '"}}}', [p2]))
    tok2 = rand(ALNUM, 52)
    out.append(("config", "- name: internal\n  url: https://charts.internal\n  password: " + tok2, [tok2]))
    p3 = pw(15)
    out.append(
        ("config", "[remote-s3]\ntype = s3\naccess_key_id = AKIA" + rand(UP, 16) + "\nsecret_access_key = " + p3, [p3])
    )
    tok3 = rand(B64, 60)
    out.append(("config", "systemProp.gradle.wrapperPassword=" + tok3, [tok3]))
    p4 = rand(string.ascii_lowercase, 11)
    out.append(("config", "spring:\n  datasource:\n    username: app\n    password: " + p4, [p4]))
    return out


def _connections() -> list[Entry]:
    out: list[Entry] = []
    p = pw(13)
    out.append(("connection", 'dsn := "svc:' + p + '@unix(/var/run/mysqld.sock)/orders?parseTime=true"', [p]))
    p2 = pw(16)
    out.append(
        ("connection", "Server=tcp:sql.internal,1433;Database=app;User ID=sa;Password=" + p2 + ";Encrypt=True", [p2])
    )
    p3 = pw(12)
    out.append(("connection", "redis.internal:6380,password=" + p3 + ",ssl=True,abortConnect=False", [p3]))
    p4 = pw(14)
    out.append(("connection", "amqps://orders:" + p4 + "@mq.internal:5671/prod", [p4]))
    p5 = pw(11)
    out.append(("connection", "Driver={ODBC Driver 18};Server=db;Uid=report;Pwd=" + p5 + ";", [p5]))
    p6 = pw(14)
    out.append(("connection", "connect to reporting:" + p6 + "@10.0.4.12:5432/warehouse", [p6]))
    p7 = pw(12)
    out.append(("connection", 'psql "host=db.internal port=5432 user=etl password=' + p7 + ' dbname=dw"', [p7]))
    return out


def _command_lines() -> list[Entry]:
    out: list[Entry] = []
    p = pw(12)
    out.append(("command line", "mysqldump -h db -u backup -p" + p + " --all-databases > all.sql", [p]))
    p2 = pw(10)
    out.append(("command line", 'sshpass -p"' + p2 + '" ssh deploy@web1 uptime', [p2]))
    p3 = rand(string.ascii_letters, 12)
    out.append(("command line", "PGPASSWORD='" + p3 + "' pg_dump -h db app > app.sql", [p3]))
    p4 = pw(13)
    out.append(("command line", "mongosh mongodb.internal/admin -u root -p " + p4, [p4]))
    p5 = pw(11)
    out.append(("command line", "kubectl create secret generic db --from-literal=password=" + p5, [p5]))
    p6 = pw(12)
    out.append(("command line", "wget --user=ci --password=" + p6 + " https://artifacts.internal/x.tgz", [p6]))
    p7 = pw(12)
    out.append(("command line", "lftp -u uploader," + p7 + " sftp://files.internal", [p7]))
    p8 = pw(12)
    out.append(("command line", "MYSQL_PWD=" + p8 + " mysql -u app app < seed.sql", [p8]))
    p9 = pw(12)
    out.append(("command line", "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:" + p9, [p9]))
    p10 = pw(12)
    out.append(("command line", "redis-cli -h cache.internal -a " + p10 + " FLUSHALL", [p10]))
    return out


def _split() -> list[Entry]:
    out: list[Entry] = []
    tok = rand(ALNUM, 36)
    out.append(("split", 'token := "ghp_' + tok[:14] + '" +\n\t"' + tok[14:] + '"', [tok[:14], tok[14:]]))
    sk = rand(ALNUM, 24)
    out.append(("split", "const key = 'sk_live_' + '" + sk + "';", [sk]))
    tok2 = rand(URLSAFE, 20)
    out.append(("split", 'GITLAB = ("glpat-"\n          "' + tok2 + '")', [tok2]))
    tok3 = rand(ALNUM, 36)
    out.append(("split", "export GH_TOKEN=ghp_" + tok3[:20] + "\\\n" + tok3[20:], [tok3[:20]]))
    return out


def _tokens() -> list[Entry]:
    out: list[Entry] = []

    def add(text: str, value: str) -> None:
        out.append(("token", text, [value]))

    fcm = "AAAA" + rand(URLSAFE, 7) + ":APA91b" + rand(URLSAFE, 134)
    add("legacy FCM server key: " + fcm, fcm)
    v = "xoxp-" + rand(DIG, 12) + "-" + rand(DIG, 12) + "-" + rand(DIG, 12) + "-" + rand(HEX, 32)
    add("SLACK_USER_TOKEN=" + v, v)
    v = "sk-ant-api03-" + rand(URLSAFE, 93) + "AA"
    add('client = Anthropic(api_key="' + v + '")', v)
    v = "glpat-" + rand(URLSAFE, 20)
    add("git remote set-url origin https://oauth2:" + v + "@gitlab.com/acme/api.git", v)
    v = "npm_" + rand(ALNUM, 36)
    add("echo '//npm.pkg.github.com/:_authToken=" + v + "' >> ~/.npmrc", v)
    v = "AKIA" + rand(UP, 16)
    add("[prod]\naws_access_key_id=" + v, v)
    v = (
        "eyJhbGciOiJSUzI1NiIsImtpZCI6I"
        + rand(URLSAFE, 30)
        + ".eyJpc3MiOi"
        + rand(URLSAFE, 300)
        + "."
        + rand(URLSAFE, 342)
    )
    add("users:\n- name: sa\n  user:\n    token: " + v, v)
    v = "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43)
    add("SENDGRID_API_KEY=" + v, v)
    v = "hf_" + rand(string.ascii_letters, 34)
    add("huggingface-cli login --token " + v, v)
    v = "dckr_pat_" + rand(URLSAFE, 27)
    add("echo " + v + " | docker login -u acme --password-stdin", v)
    v = rand(HEX, 32)
    add("DD_API_KEY=" + v, v)
    v = "xoxe.xoxp-1-" + rand(ALNUM, 140)
    add("refresh with " + v, v)
    return out


def credentials() -> list[Entry]:
    return [*_key_blocks(), *_config_formats(), *_connections(), *_command_lines(), *_split(), *_tokens()]


def look_alikes() -> list[str]:
    pub = b64_lines(6, "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA")
    cert = b64_lines(8, "MIIDdzCCAl+gAwIBAgIE")
    return [
        f"cherry-pick {rand(HEX, 40)} onto release",
        f"git diff {rand(HEX, 7)}..{rand(HEX, 7)}",
        f"correlation id {rand(HEX, 8)}-{rand(HEX, 4)}-4{rand(HEX, 3)}-9{rand(HEX, 3)}-{rand(HEX, 12)}",
        f"sha256sum: {rand(HEX, 64)}  dist/app.tar.gz",
        "logo: data:image/png;base64," + base64.b64encode(bytes(R.randrange(256) for _ in range(120))).decode(),
        '<script integrity="sha384-' + base64.b64encode(bytes(R.randrange(256) for _ in range(48))).decode() + '">',
        f"github.com/pkg/errors v0.9.1/go.mod h1:{base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode()}",
        block("PUBLIC KEY", pub),
        block("CERTIFICATE", cert),
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + rand(B64, 300) + " ops@bastion",
        "password: ${{ secrets.DB_PASSWORD }}",
        'GH_TOKEN="$(gh auth token)" gh release create v1.2.0',
        "token: ${{ github.token }}",
        "Local DB without a password: postgres://app@localhost:5432/app",
        "mysql -u root -p orders   # it asks for the password",
        "docker login -u acme --password-stdin < token.txt",
        "PGPASSWORD=$PGPASS psql -h db app",
        "sshpass -e ssh deploy@web1  # reads SSHPASS from the environment",
        "publishable key pk_live_" + rand(ALNUM, 24) + " is fine in the browser",
        '{"credsStore": "desktop", "auths": {"ghcr.io": {}}}',
        "password = <set in the vault>",
        "DB_PASSWORD=your-password-here",
        "api_key: REPLACE_ME",
        "the fixture user logs in with password 'password'",
        "SSH fingerprint SHA256:" + base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode().rstrip("="),
        "arn:aws:iam::" + rand(DIG, 12) + ":role/deploy-" + rand(LOWD, 6),
        "git clone git@github.com:acme/payments.git",
        "resourceVersion: " + rand(DIG, 9),
        "release 4.12.0-beta.3+exp.sha." + rand(HEX, 7),
        "contact ops:oncall@acme.io for access",
        "the password reset token expires after 15 minutes",
        "def connect(user: str, password: str) -> Connection:",
        "conn = psycopg.connect(host=host, user=user, password=password)",
        "if not token: raise AuthError('missing token')",
        "Use `mysql -p` and type the password when asked",
        "retry_token_bucket_size = 500",
        "https://docs.internal/auth/tokens#rotation",
        "ENCRYPTION_KEY_ID=alias/app-prod",
        "BEGIN TRANSACTION; UPDATE users SET password_hash = $1 WHERE id = $2; COMMIT;",
        "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tuning", action="store_true", help="also measure the tuning half (the tests' corpus)")
    args = parser.parse_args()
    from benchmarks.secrets_measure import measure

    halves = [("held-out", credentials(), look_alikes())]
    if args.tuning:
        from tests.memory.secret_families import CREDENTIALS, LOOK_ALIKES

        halves.insert(0, ("tuning", CREDENTIALS, LOOK_ALIKES))
    for name, creds, looks in halves:
        measure(name, creds, looks, args.runs)


if __name__ == "__main__":
    main()
