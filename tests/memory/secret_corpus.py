"""A measured corpus for the secret scanner: real-shaped credentials and look-alikes.

Every credential is generated here from a fixed seed with its provider's prefix, length and
charset; none is a real key. The look-alikes are what a coding session is full of: git SHAs,
UUIDs, base64 image data, lockfile and image digests, the providers' own documented example keys,
public keys, placeholders and references. Used by tests/memory/test_secrets.py (which asserts the
rates) and benchmarks/secrets.py (which prints them, and the scanner's speed).
"""

from __future__ import annotations

import base64
import random
import string
import urllib.parse

R = random.Random(20261201)
UP = string.ascii_uppercase + string.digits
LOW = string.ascii_lowercase + string.digits
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def rand(alphabet: str, n: int) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def aws_secret() -> str:
    while True:  # a real one always mixes cases and digits; retry the rare draw that does not
        value = rand(B64, 40)
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value):
            return value


def sas_sig() -> str:
    return urllib.parse.quote(base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode(), safe="")


# (kind expected, text)
CREDENTIALS: list[tuple[str, str]] = [
    # the types the review found missing
    ("Stripe webhook secret", "STRIPE_WEBHOOK=whsec_" + rand(ALNUM, 32)),
    ("Stripe webhook secret", "verify with whsec_" + rand(ALNUM, 32) + " from the dashboard"),
    ("Twilio credentials", "AC" + rand(HEX, 32) + ":" + rand(HEX, 32)),
    ("high-entropy value next to a secret-like name", "TWILIO_AUTH_TOKEN=" + rand(HEX, 32)),
    (
        "Azure SAS signature",
        "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r"
        "&se=2026-12-31T00:00:00Z&spr=https&sig=" + sas_sig(),
    ),
    (
        "Azure SAS signature",
        "BlobEndpoint=https://x.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&sig=" + sas_sig(),
    ),
    ("Discord webhook", "https://discord.com/api/webhooks/" + rand("0123456789", 18) + "/" + rand(URLSAFE, 68)),
    (
        "Discord webhook",
        "post to https://discordapp.com/api/webhooks/" + rand("0123456789", 19) + "/" + rand(URLSAFE, 68),
    ),
    ("Doppler token", "DOPPLER_TOKEN=dp.st.prd." + rand(ALNUM, 40)),
    ("Doppler token", "dp.pt." + rand(ALNUM, 43)),
    ("Vault token", "VAULT_TOKEN=hvs." + rand(URLSAFE, 90)),
    ("Vault token", "login with hvs." + rand(URLSAFE, 24)),
    ("AWS secret access key", aws_secret()),
    ("AWS secret access key", "then paste " + aws_secret() + " when it asks"),
    (".netrc password", "machine api.github.com login bot password " + rand(ALNUM, 20)),
    (".netrc password", "machine example.com\n  login deploy\n  password " + rand(ALNUM + "!#%", 16) + "\n"),
    ("URL with a password", "redis://:" + rand(ALNUM, 18) + "@cache.internal:6379/0"),
    ("URL with a password", "postgres://app:p@ss/w0rd" + rand(ALNUM, 6) + "@db.internal:5432/app"),
    ("URL with a password", "mysql://root:abc@def" + rand(ALNUM, 8) + "@db/prod"),
    ("curl --user credentials", "curl -u admin:" + rand(ALNUM, 14) + " https://api.internal/v1/x"),
    ("curl --user credentials", "curl --user 'deploy:" + rand(ALNUM + "!%", 12) + "' https://ci.internal"),
    ("Mailgun key", "key-" + rand(HEX, 32)),
    ("Databricks token", "dapi" + rand(HEX, 32)),
    ("Databricks token", "DATABRICKS_TOKEN=dapi" + rand(HEX, 32) + "-2"),
    ("Atlassian API token", "ATATT3xFfGF0" + rand(URLSAFE, 180) + "=" + rand(HEX, 8).upper()),
    ("age secret key", "AGE-SECRET-KEY-1" + rand(BECH32, 58)),
    ("Grafana token", "glsa_" + rand(ALNUM, 32) + "_" + rand(HEX, 8)),
    ("Grafana token", "glc_" + rand(B64, 60) + "=="),
    # a key next to the words "sample", "example" or "e.g." is still a key
    ("Stripe key", "sample rate fix: prod key sk_live_" + rand(ALNUM, 24)),
    ("GitHub token", "for example, the bot uses ghp_" + rand(ALNUM, 36)),
    ("AWS access key", "e.g. AKIA" + rand(UP, 16) + " in the deploy config"),
    # cloud and VCS
    ("AWS access key", "AKIA" + rand(UP, 16)),
    ("AWS access key", "deploy used ASIA" + rand(UP, 16) + " yesterday"),
    ("AWS secret access key", "aws_secret_access_key = " + aws_secret()),
    ("GitHub token", "ghp_" + rand(ALNUM, 36)),
    ("GitHub token", "gho_" + rand(ALNUM, 36)),
    ("GitHub token", "ghs_" + rand(ALNUM, 36)),
    ("GitHub token", "ghu_" + rand(ALNUM, 36)),
    ("GitHub token", "ghr_" + rand(ALNUM, 36)),
    ("GitHub fine-grained token", "github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59)),
    ("GitLab token", "glpat-" + rand(URLSAFE, 20)),
    ("GitLab token", "CI uses gldt-" + rand(URLSAFE, 24)),
    ("Google API key", "AIza" + rand(URLSAFE, 35)),
    ("Google OAuth secret", "GOCSPX-" + rand(URLSAFE, 28)),
    ("Google service account key", '{"type": "service_account", "private_key_id": "' + rand(HEX, 40) + '"}'),
    ("Azure storage key", "DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=" + rand(B64, 86) + "=="),
    ("DigitalOcean token", "dop_v1_" + rand(HEX, 64)),
    ("Alibaba key", "LTAI" + rand(ALNUM, 20)),
    ("Heroku key", "HRKU-" + rand(URLSAFE, 60)),
    ("Terraform Cloud token", rand(ALNUM, 14) + ".atlasv1." + rand(URLSAFE, 67)),
    ("Pulumi token", "pul-" + rand(HEX, 40)),
    ("Fly.io token", "fo1_" + rand(URLSAFE, 43)),
    ("Netlify token", "nfp_" + rand(ALNUM, 36)),
    ("Supabase token", "sbp_" + rand(HEX, 40)),
    ("PlanetScale token", "pscale_tkn_" + rand(URLSAFE, 43)),
    # chat, mail, payments, registries, SaaS
    ("Slack token", "xoxb-" + rand("0123456789", 12) + "-" + rand("0123456789", 12) + "-" + rand(ALNUM, 24)),
    ("Slack token", "xoxp-" + rand("0123456789", 11) + "-" + rand("0123456789", 11) + "-" + rand(ALNUM, 32)),
    ("Slack app token", "xapp-1-A" + rand(UP, 10) + "-" + rand("0123456789", 13) + "-" + rand(HEX, 64)),
    ("Slack webhook", "https://hooks.slack.com/services/T" + rand(UP, 8) + "/B" + rand(UP, 8) + "/" + rand(ALNUM, 24)),
    (
        "Microsoft Teams webhook",
        "https://contoso.webhook.office.com/webhookb2/"
        + rand(HEX, 8)
        + "-"
        + rand(HEX, 4)
        + "@"
        + rand(HEX, 8)
        + "/IncomingWebhook/"
        + rand(HEX, 32)
        + "/"
        + rand(HEX, 8),
    ),
    ("Telegram bot token", rand("0123456789", 9) + ":AA" + rand(URLSAFE, 33)),
    ("Discord bot token", "M" + rand(ALNUM, 23) + "." + rand(URLSAFE, 6) + "." + rand(URLSAFE, 27)),
    ("SendGrid key", "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43)),
    ("Mailchimp key", rand(HEX, 32) + "-us21"),
    ("Twilio key", "SK" + rand(HEX, 32)),
    ("Stripe key", "sk_live_" + rand(ALNUM, 24)),
    ("Stripe key", "rk_live_" + rand(ALNUM, 24)),
    ("Stripe key", "sk_test_" + rand(ALNUM, 24)),
    ("Square token", "sq0atp-" + rand(URLSAFE, 22)),
    ("Shopify token", "shpat_" + rand(HEX, 32)),
    ("npm token", "//registry.npmjs.org/:_authToken=npm_" + rand(ALNUM, 36)),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 60)),
    ("RubyGems key", "rubygems_" + rand(HEX, 48)),
    ("Docker Hub token", "dckr_pat_" + rand(URLSAFE, 27)),
    ("Hugging Face token", "hf_" + rand(string.ascii_letters, 34)),
    ("Anthropic key", "sk-ant-api03-" + rand(URLSAFE, 93)),
    ("OpenAI key", "sk-proj-" + rand(URLSAFE, 48)),
    ("Linear key", "lin_api_" + rand(ALNUM, 40)),
    ("Postman key", "PMAK-" + rand(HEX, 24) + "-" + rand(HEX, 34)),
    ("New Relic key", "NRAK-" + rand(UP, 27)),
    ("Sentry token", "sntrys_" + rand(B64, 60)),
    ("Buildkite token", "bkua_" + rand(HEX, 40)),
    ("Sourcegraph token", "sgp_" + rand(HEX, 16) + "_" + rand(HEX, 40)),
    ("Figma token", "figd_" + rand(URLSAFE, 40)),
    ("Notion token", "ntn_" + rand(ALNUM, 46)),
    ("Airtable token", "pat" + rand(ALNUM, 14) + "." + rand(HEX, 64)),
    # structure: PEM, JWT, URL userinfo, headers, name = value
    (
        "private key block",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + rand(B64, 60) + "\n-----END RSA PRIVATE KEY-----",
    ),
    ("private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk" + rand(B64, 40)),
    ("private key block", "-----BEGIN PRIVATE KEY-----\n" + rand(B64, 64)),
    ("JSON Web Token", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ" + rand(URLSAFE, 30) + "." + rand(URLSAFE, 43)),
    ("URL with a password", "postgres://admin:" + rand(ALNUM, 14) + "@db.internal:5432/app"),
    ("URL with a password", "mongodb+srv://svc:" + rand(ALNUM, 16) + "@cluster0.mongodb.net/prod"),
    ("URL with a password", "amqp://guest:" + rand(ALNUM, 12) + "@rabbit:5672/"),
    ("password assignment", "password=Tr0ub4dor&3x"),
    ("password assignment", 'DB_PASSWORD: "correct-horse-9-battery"'),
    ("password assignment", "mysql -u root --password=R00tPa55word!"),
    ("password assignment", "PGPASSWORD=pg_Pa55w0rd_2024 psql -h db"),
    ("high-entropy value next to a secret-like name", '{"api_key": "' + rand(ALNUM, 32) + '"}'),
    ("high-entropy value next to a secret-like name", "client_secret = " + rand(URLSAFE, 40)),
    ("high-entropy value next to a secret-like name", "export SECRET_KEY='" + rand(ALNUM + "!@#%^&*(-_=+)", 50) + "'"),
    ("high-entropy value next to a secret-like name", "runner token: " + rand(HEX, 40)),
    ("high-entropy value next to a secret-like name", "ACCESS_TOKEN=" + rand(URLSAFE, 43)),
    ("bearer token", "curl -H 'Authorization: Bearer " + rand(URLSAFE, 40) + "' https://api.internal"),
]


def _sha() -> str:
    return rand(HEX, 40)


def _uuid() -> str:
    h = rand(HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


LOOK_ALIKES: list[str] = [
    *(f"fixed in commit {_sha()}" for _ in range(8)),
    *(f"see {_sha()[:7]} for the revert" for _ in range(3)),
    f"merge {_sha()} into {_sha()}",
    *(f"request {_uuid()} timed out" for _ in range(5)),
    f"request_id = {_uuid()}",
    f"trace_id: {_uuid()}",
    "icon: data:image/png;base64," + base64.b64encode(bytes(R.randrange(256) for _ in range(180))).decode(),
    "![chart](data:image/jpeg;base64," + base64.b64encode(bytes(R.randrange(256) for _ in range(300))).decode() + ")",
    '<img src="data:image/gif;base64,' + base64.b64encode(bytes(R.randrange(256) for _ in range(90))).decode() + '">',
    *("integrity: sha512-" + base64.b64encode(bytes(R.randrange(256) for _ in range(64))).decode() for _ in range(4)),
    *(
        '    "integrity": "sha1-' + base64.b64encode(bytes(R.randrange(256) for _ in range(20))).decode() + '",'
        for _ in range(2)
    ),
    *(f'checksum = "{rand(HEX, 64)}"' for _ in range(3)),
    *(f'    {{file = "pkg-1.0.tar.gz", hash = "sha256:{rand(HEX, 64)}"}},' for _ in range(2)),
    *(
        f"golang.org/x/sys v0.1.0 h1:{base64.b64encode(bytes(R.randrange(256) for _ in range(32))).decode()}"
        for _ in range(3)
    ),
    *(f"image: registry.internal/app@sha256:{rand(HEX, 64)}" for _ in range(2)),
    "sha256 of the tarball: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "md5 d41d8cd98f00b204e9800998ecf8427e matches",
    "The AWS docs use AKIAIOSFODNN7EXAMPLE as the access key",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
    "Stripe's docs test key sk_test_4eC39HqLyjWDarjtT1zdp7dc works in test mode",
    "the jwt.io sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
    "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "a token looks like ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "SLACK_TOKEN=xoxb-not-a-real-token-this-will-not-work",
    "for example AIzaSyEXAMPLE0000000000000000000000000 in the docs",
    "password = os.environ['DB_PASSWORD']",
    "password: ${DB_PASSWORD}",
    "token = <your-token-here>",
    "api_key: YOUR_API_KEY",
    "password=changeme in the docker-compose example",
    "password = None",
    "the token expired, so the client refreshes the token",
    "set the password in the vault, never in code",
    "session_token_ttl = 3600",
    "aGVsbG8gd29ybGQgdGhpcyBpcyBqdXN0IGJhc2U2NCBkYXRh is the fixture's body",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIC" + rand(B64, 60),
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl dev@host",
    "clone https://github.com/owner/repo.git",
    "clone https://deploy@github.com/owner/repo.git",
    "DATABASE_URL=postgres://localhost:5432/app",
    "postgres://app:${DB_PASS}@db/app",
    "https://user:<password>@host.invalid/path",
    'curl -u "$USER:$TOKEN" https://api.internal',
    "curl -u admin https://api.internal (it prompts for the password)",
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
    "passwordless login via magic links",
    "the secret sauce is the index",
    "author: Jane Doe <jane@example.com>",
    "api_key: Optional[SecretStr] = None must never be logged",
    "def rotate(token: str) -> None",
    "client_secret=config.client_secret",
    "password_hash = bcrypt.hashpw(password, salt)",
    "token = request.headers['Authorization']",
    "Authorization: Bearer <token>",
    "src/components/ButtonGroupItemRenderer/index.tsx",
    "tests/memory/test_secrets.py::test_look_alikes_are_not_flagged[lookalike-12]",
    "the key-value store keeps sessions for 30 days",
    "machine learning models need a lot of data",
    "Run `pytest -k secret` and read the summary",
    "SKU-2024-00042 ships on Monday",
    "ACME Corp signed the contract",
]
