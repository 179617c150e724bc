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


# ---- round 2: written after round 1 was measured (and two bugs it showed were fixed), before any
# measurement of its own; other shapes again. Measured once, like round 1.


def credentials_round2() -> list[Entry]:
    out: list[Entry] = []

    def add(family: str, text: str, *raw: str) -> None:
        out.append((family, text, list(raw)))

    k = b64_lines(8, "MIIEowIBAAKCAQEA")
    add("key block", "stringData:\n  tls.key: |-\n" + block("RSA PRIVATE KEY", k, indent="    "), *k)
    k = b64_lines(5, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU", 70)
    add("key block", "$ cat ~/.ssh/id_ed25519\n" + block("OPENSSH PRIVATE KEY", k) + "\n$ ", *k)
    k = b64_lines(6, "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC")
    add("key block", 'KEY = """' + block("PRIVATE KEY", k) + '"""', *k)
    k = b64_lines(3, "MHcCAQEEIA")
    add("key block", block("EC PRIVATE KEY", k, sep="\r\n"), *k)
    k = b64_lines(5, "lQVYBF")
    add("key block", "> " + block("PGP PRIVATE KEY BLOCK", ["", *k], sep="\n> "), *k)
    k = b64_lines(4, "MIIEpAIBAAKCAQEA")
    add("key block", '{"env": "{\\"key\\": \\"' + block("RSA PRIVATE KEY", k, sep="\\\\n") + '\\"}"}', *k)
    a = base64.b64encode(f"robot$ci:{pw(20)}".encode()).decode()
    t = rand(URLSAFE, 60)
    add(
        "config",
        '{\n\t"auths": {\n\t\t"harbor.internal": {\n\t\t\t"auth": "'
        + a
        + '",\n\t\t\t"identitytoken": "'
        + t
        + '"\n\t\t}',
        a,
        t,
    )
    v = rand(HEX, 32)
    add("config", "env:\n  API_SECRET: " + v + "\n  REGION: eu-west-1", v)
    v = "rk_live_" + rand(ALNUM, 40)
    add("config", 'STRIPE_KEY="' + v + '"', v)
    v = pw(16)
    add("config", 'resource "aws_db_instance" "db" {\n  username = "admin"\n  password = "' + v + '"\n}', v)
    v = pw(14)
    add("config", '"ConnectionStrings": {"Default": "Server=db;User Id=app;Password=' + v + ';"}', v)
    v = "ghp_" + rand(ALNUM, 36)
    add("config", "machine github.com login bot password " + v, v)
    v = pw(13)
    add("config", "db.internal:5432:app:app:" + v, v)
    v = pw(12)
    add("config", "SMTP_PASS=" + v, v)
    v = pw(15)
    add("config", "spring.datasource.password=" + v, v)
    v = pw(12)
    add("connection", "mongodb://admin:" + v + "@mongo-0.internal,mongo-1.internal/?replicaSet=rs0", v)
    v = pw(18)
    add("connection", "rediss://default:" + v + "@redis.cloud.internal:6380", v)
    v = pw(12)
    add("connection", "engine = create_engine('mysql+pymysql://app:" + v + "@db/app')", v)
    v = "p%21" + rand(ALNUM, 10)
    add("connection", "DATABASE_URL=postgres://app:" + v + "@db/app", v)
    v = pw(12)
    add("command line", "mysql -h db -uroot -p" + v + " app -e 'select 1'", v)
    v = rand(HEX, 32)
    add("command line", 'curl -H "X-Api-Key: ' + v + '" https://api.internal/v2/items', v)
    v = rand(B64, 40)
    add("command line", "aws configure set aws_secret_access_key " + v, v)
    v = "hvs." + rand(URLSAFE, 24)
    add("command line", "export VAULT_TOKEN=" + v, v)
    v = rand(URLSAFE, 32)
    add("command line", "git clone https://x-token-auth:" + v + "@bitbucket.org/acme/app.git", v)
    v = pw(12)
    add("command line", "echo '" + v + "' | sudo -S systemctl restart app", v)
    v = pw(11)
    add("command line", "net use Z: \\\\files\\share /user:corp\\bob " + v, v)
    v = pw(12)
    add("command line", "./migrate --db-user app --db-password " + v, v)
    tok = rand(ALNUM, 36)
    add("split", "token: ghp_" + tok[:16] + "\n  " + tok[16:], tok[:16], tok[16:])
    tok = rand(ALNUM, 24)
    add("split", 'key = "xoxb-" + "' + rand(DIG, 12) + '" + "-" + "' + rand(DIG, 12) + '" + "-" + "' + tok + '"', tok)
    tok = rand(ALNUM, 24)
    add("split", "key = ''.join(['sk_live_', '" + tok + "'])", tok)
    v = "rk_live_" + rand(ALNUM, 30)
    add("token", '{"id": "rk_1", "secret": "' + v + '", "livemode": true}', v)
    v = "eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOj" + rand(URLSAFE, 60) + "." + rand(URLSAFE, 43)
    add("token", "Cookie: session=" + v + "; Path=/", v)
    v = rand(B64, 86) + "=="
    add("token", "AccountName=logs;AccountKey=" + v + ";EndpointSuffix=core.windows.net", v)
    v = "1//0g" + rand(URLSAFE, 98)
    add("token", '"refresh_token": "' + v + '"', v)
    v = "https://hooks.slack.com/services/T" + rand(UP, 10) + "/B" + rand(UP, 10) + "/" + rand(ALNUM, 24)
    add("token", "alerts go to " + v, v)
    v = rand(HEX, 32)
    add("token", "the Twilio auth token is " + v + ", account AC" + rand(HEX, 32), v)
    return out


def look_alikes_round2() -> list[str]:
    return [
        f"Merge pull request #4411 from acme/fix-{rand(HEX, 7)}",
        f"docker pull ghcr.io/acme/api@sha256:{rand(HEX, 64)}",
        f'etag: W/"{rand(HEX, 32)}"',
        f"x-request-id: {rand(HEX, 8)}-{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 4)}-{rand(HEX, 12)}",
        "font: url(data:font/woff2;base64,"
        + base64.b64encode(bytes(R.randrange(256) for _ in range(90))).decode()
        + ")",
        f'resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{rand(HEX, 40)}"',
        block("RSA PUBLIC KEY", b64_lines(4, "MIIBCgKCAQEA")),
        block("CERTIFICATE REQUEST", b64_lines(6, "MIICvDCCAaQCAQAwdzEL")),
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB" + rand(B64, 80) + " ci@runner",
        "api_key: ${{ secrets.STAGING_API_KEY }}",
        'TOKEN="$(vault kv get -field=token secret/ci)"',
        "export AWS_SECRET_ACCESS_KEY=$(aws configure get aws_secret_access_key)",
        "password: !vault |",
        "DB_PASSWORD=${DB_PASSWORD:?required}",
        "the password must be at least 12 characters long, with a digit",
        'password="" means no password for the local dev database',
        "mysql --login-path=local app",
        "psql -h db -U app -W   # -W asks for the password",
        "sshpass -f ~/.sshpass ssh ops@db1",
        "pk_test_" + rand(ALNUM, 24) + " goes in the frontend config",
        '{"auths": {"https://index.docker.io/v1/": {}}, "credHelpers": {"gcr.io": "gcloud"}}',
        'secret_name = "prod/db/password"',
        "token_endpoint: https://auth.internal/oauth/token",
        "use the client_credentials grant to get an access token",
        "AUTH_TOKEN_HEADER = 'X-Auth-Token'",
        "def get_password(self) -> str: return keyring.get_password('app', self.user)",
        "expect(screen.getByLabelText('Password')).toBeInTheDocument()",
        "assert hash_password('hunter2') != 'hunter2'",
        "key_id: " + rand(HEX, 8) + "  # gpg --list-keys",
        "commit " + rand(HEX, 40) + "\nAuthor: Jane <jane@acme.io>",
        "ssh -i ~/.ssh/deploy_key -p 2222 git@git.internal",
        "scp -P 2222 build.tgz deploy@web1:/srv/app",
        "redis-cli -h cache -p 6379 INFO",
        "ldapsearch -x -W -D cn=admin -b dc=acme",
        "openssl req -new -key server.key -passin file:pass.txt",
        "user:password@host is the URL userinfo form",
        "postgres://localhost/app?sslmode=disable",
        "The key is to keep each module small",
        "Tokens are rotated every 90 days by the platform team",
        "BEGIN; SELECT pg_sleep(1); END;",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tuning", action="store_true", help="also measure the tuning half (the tests' corpus)")
    args = parser.parse_args()
    from benchmarks.secrets_measure import measure

    halves = [
        ("held-out", credentials(), look_alikes()),
        ("held-out round 2", credentials_round2(), look_alikes_round2()),
    ]
    if args.tuning:
        from tests.memory.secret_families import CREDENTIALS, LOOK_ALIKES

        halves.insert(0, ("tuning", CREDENTIALS, LOOK_ALIKES))
    for name, creds, looks in halves:
        measure(name, creds, looks, args.runs)


if __name__ == "__main__":
    main()
