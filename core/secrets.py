"""The one secret scanner: every text Hallmark persists passes through here.

Two uses, one set of rules:
- memory writes (learnings, evidence, checkpoint, notes, decisions) are REFUSED with
  SECRET_REFUSED (exit 2), naming the field and the kind, never echoing the value;
- journal and log text (prompts, turn summaries, commit subjects, questions, answers, titles and
  so branch names, gate records, the hook log) is REDACTED in place (`[redacted: GitHub token]`)
  and never refused, so a hook never fails a session. Text that is cut to a length is redacted
  FIRST (`clip`): a cut before would leave the head of a secret across it, too short to recognise.

What counts, by structure rather than by the words around it:
- fixed shapes: a known prefix with its length and charset (cloud, VCS, chat, payment, CI keys…),
  JWTs, webhook URLs that carry their secret; also when the token is wrapped over two lines or
  built by concatenation (`"sk_live_" + "…"`);
- private keys as ONE span from BEGIN to END (PEM, OpenSSH, PGP, PuTTY; in YAML or inside a JSON
  string), or to the end of the key material when the END is missing;
- URL userinfo with a password, a connection string's password without a scheme
  (`user:pw@tcp(host)/db`), `curl -u`, `.netrc`, `Authorization:` headers, a registry's base64
  `auth`, `<password>` in XML, passwords on command lines (`mysql -p…`, `sshpass -p`, `redis-cli -a`);
- `name = value` where the name is secret-like (password, token, api_key…) and the value is a
  literal that looks generated (or, for a password, any literal: `PGPASSWORD=letters`), and a
  bare 40-character AWS secret access key.
A finding is redacted whole: overlapping matches become their union, and a shape that stops inside
a longer token takes the token.
Exempt are only values that are themselves examples or placeholders: the providers' documented
example keys (AKIAIOSFODNN7EXAMPLE…), values that say EXAMPLE/placeholder/xxxx inside themselves,
`<token>`, `${TOKEN}`, references to the environment. A key next to the word "example" is still
a key. STDLIB ONLY and precompiled on first use: UserPromptSubmit runs this on every prompt.

Over 500 lines on purpose: the rules are one table and one policy, read and changed together, and
the hook path loads one module for them (splitting them would add an import to every prompt).
"""

from __future__ import annotations

import binascii
import bisect
import math
import re

from .errors import HallError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Finding:
    __slots__ = ("end", "field", "kind", "start")

    def __init__(self, kind: str, field: str, start: int, end: int) -> None:
        self.kind, self.field, self.start, self.end = kind, field, start, end

    def describe(self) -> str:
        return f"{self.field}: {self.kind}"

    def __repr__(self) -> str:
        return f"Finding({self.kind!r}, {self.field!r}, {self.start}, {self.end})"


_B = r"(?<![A-Za-z0-9_\-])"  # a token starts here (not inside a longer word)
_E = r"(?![A-Za-z0-9_\-])"  # and ends here
# (kind, needles, pattern, group holding the secret: 0 for the whole match). A pattern runs only
# on text that holds one of its needles, and is compiled the first time it runs: the hook that
# scans every prompt pays for the shapes a prompt could hold, not for all of them.
_SHAPES_SRC: list[tuple[str, tuple[str, ...], str, int]] = [
    (
        "Firebase server key",
        (":APA91b",),
        _B + r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{60,}",
        0,
    ),
    (
        "AWS access key",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "A3T"),
        _B + r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}" + _E,
        0,
    ),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _B + r"gh[pousr]_[A-Za-z0-9]{36,255}" + _E, 0),
    ("GitHub fine-grained token", ("github_pat_",), _B + r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}" + _E, 0),
    ("GitLab token", ("gl",), _B + r"gl(?:pat|dt|ptt|rt|cbt|oas|imt|agent|feed|ft|soat|wt)-[A-Za-z0-9_\-]{20,}", 0),
    ("Slack token", ("xox",), _B + r"xox[abposre]-(?:[0-9A-Za-z]+-)*[0-9A-Za-z]{10,}", 0),
    ("Slack app token", ("xapp-",), _B + r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{20,}", 0),
    (
        "Slack webhook",
        ("hooks.slack.com",),
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{20,}",
        0,
    ),
    (
        "Discord webhook",
        ("/api/webhooks/",),
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,}/[A-Za-z0-9_\-]{40,}",
        0,
    ),
    (
        "Microsoft Teams webhook",
        ("webhook.office.com",),
        r"https://[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{40,}",
        0,
    ),
    ("Stripe key", ("_live_", "_test_"), _B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}" + _E, 0),
    ("Stripe webhook secret", ("whsec_",), _B + r"whsec_[A-Za-z0-9+/]{24,}" + _E, 0),
    ("Anthropic key", ("sk-ant-",), _B + r"sk-ant-(?:api|admin|oat|ort)\d{2}-[A-Za-z0-9_\-]{40,}", 0),
    ("OpenAI key", ("sk-",), _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}", 0),
    ("OpenAI key", ("sk-",), _B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}", 0),
    ("Google API key", ("AIza",), _B + r"AIza[0-9A-Za-z_\-]{35}" + _E, 0),
    ("Google OAuth secret", ("GOCSPX-",), _B + r"GOCSPX-[A-Za-z0-9_\-]{28}" + _E, 0),
    ("Google service account key", ("private_key_id",), r"\"private_key_id\"\s*:\s*\"[a-f0-9]{40}\"", 0),
    ("npm token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}" + _E, 0),
    ("PyPI token", ("pypi-",), _B + r"pypi-AgE[A-Za-z0-9_\-]{50,}", 0),
    ("RubyGems key", ("rubygems_",), _B + r"rubygems_[a-f0-9]{48}" + _E, 0),
    ("SendGrid key", ("SG.",), _B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E, 0),
    ("Twilio key", ("SK",), _B + r"SK[0-9a-f]{32}" + _E, 0),
    ("Twilio credentials", ("AC",), _B + r"AC[0-9a-f]{32}(?:\s*[:/,;|]\s*|\s+)[0-9a-f]{32}" + _E, 0),
    ("Mailgun key", ("key-",), _B + r"key-[0-9a-f]{32}" + _E, 0),
    ("Mailchimp key", ("-us",), _B + r"[0-9a-f]{32}-us\d{1,2}" + _E, 0),
    ("Telegram bot token", (":AA",), _B + r"\d{8,10}:AA[A-Za-z0-9_\-]{33}" + _E, 0),
    (
        "Discord bot token",
        (".",),
        r"[MNO](?<![A-Za-z0-9_\-][MNO])[A-Za-z\d]{23,25}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,38}" + _E,
        0,
    ),
    ("DigitalOcean token", ("_v1_",), _B + r"do[pro]_v1_[a-f0-9]{64}" + _E, 0),
    ("Hugging Face token", ("hf_",), _B + r"hf_[A-Za-z]{34}" + _E, 0),
    ("Azure storage key", ("AccountKey=",), r"AccountKey=[A-Za-z0-9+/]{60,}={0,2}", 0),
    ("Azure SAS signature", ("sig=",), r"[?&]sig=([A-Za-z0-9%+/=]{30,})", 1),
    (
        "Doppler token",
        ("dp.",),
        _B + r"dp\.(?:st|pt|sa|ct|scim|audit)\.(?:[A-Za-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,}" + _E,
        0,
    ),
    ("Vault token", ("hvs.", "hvb.", "hvr."), _B + r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", 0),
    ("Databricks token", ("dapi",), _B + r"dapi[0-9a-f]{32}(?:-\d)?" + _E, 0),
    ("Atlassian API token", ("ATATT3",), _B + r"ATATT3[A-Za-z0-9_\-=]{100,}", 0),
    ("age secret key", ("AGE-SECRET-KEY-1",), _B + r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _E, 0),
    (
        "Grafana token",
        ("glsa_", "glc_"),
        _B + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})" + _E,
        0,
    ),
    ("Shopify token", ("shp",), _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, 0),
    ("Linear key", ("lin_",), _B + r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _E, 0),
    ("Postman key", ("PMAK-",), _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _E, 0),
    ("New Relic key", ("NRAK-", "NRII-", "NRJS-"), _B + r"NR(?:AK|II|JS)-[A-Za-z0-9]{27,}" + _E, 0),
    ("Sentry token", ("sntr",), _B + r"sntry[su]_[A-Za-z0-9_=+/\-]{40,}", 0),
    ("Supabase token", ("sbp_",), _B + r"sbp_[a-f0-9]{40}" + _E, 0),
    ("PlanetScale token", ("pscale_",), _B + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}", 0),
    ("Pulumi token", ("pul-",), _B + r"pul-[a-f0-9]{40}" + _E, 0),
    ("Docker Hub token", ("dckr_pat_",), _B + r"dckr_pat_[A-Za-z0-9_\-]{27,}" + _E, 0),
    ("Buildkite token", ("bkua_",), _B + r"bkua_[a-f0-9]{40}" + _E, 0),
    ("Sourcegraph token", ("sgp_",), _B + r"sgp_(?:[a-f0-9]{16}_)?[a-f0-9]{40}" + _E, 0),
    ("Fly.io token", ("fo1_",), _B + r"fo1_[A-Za-z0-9_\-]{43}" + _E, 0),
    ("Netlify token", ("nfp_",), _B + r"nfp_[A-Za-z0-9]{36}" + _E, 0),
    ("Figma token", ("figd_",), _B + r"figd_[A-Za-z0-9_\-]{40}" + _E, 0),
    ("Terraform Cloud token", (".atlasv1.",), _B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9\-_=]{60,}", 0),
    (
        "Square token",
        ("sq0", "EAAA"),
        _B + r"(?:sq0(?:atp|csp)-[0-9A-Za-z\-_]{22,43}|EAAA[A-Za-z0-9\-_+=]{60})" + _E,
        0,
    ),
    ("Notion token", ("secret_", "ntn_"), _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})" + _E, 0),
    ("Airtable token", ("pat",), _B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _E, 0),
    ("Alibaba key", ("LTAI",), _B + r"LTAI[A-Za-z0-9]{20}" + _E, 0),
    ("Heroku key", ("HRKU-",), _B + r"HRKU-[A-Za-z0-9_\-]{40,}", 0),
    ("JSON Web Token", ("eyJ",), _B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}", 0),
    (
        "URL with a password",
        ("://",),
        r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@]{0,64}:([^\s]{1,256})@[A-Za-z0-9\-.\[\]]+"
        r"(?::\d+)?(?=[/?#\s\"'`),;]|$)",
        1,
    ),
    (
        "curl --user credentials",
        ("-u", "--user"),
        r"(?:^|\s)(?:-u|--user)(?:\s+|=)(['\"]?)[^\s:'\"]+:([^\s'\"]{3,})\1",
        2,
    ),
    (
        ".netrc password",
        ("password",),
        r"(?m)(?:^[ \t]*password[ \t]+(\S{3,})[ \t]*$|\bmachine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(\S{3,}))",
        -1,
    ),
]
_COMPILED: dict[str, re.Pattern[str]] = {}


def _re(source: str, flags: int = 0) -> re.Pattern[str]:
    found = _COMPILED.get(source)
    if found is None:
        found = _COMPILED[source] = re.compile(source, flags)
    return found


_AWS_SECRET = r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"

_SECRET_NAME = (
    r"(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key(?:[_-]?id)?|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer|token|"
    r"private[_-]?key|credentials?|db[_-]?pass(?:word)?|signing[_-]?key|encryption[_-]?key|sas|"
    r"webhook[_-]?secret|account[_-]?key|master[_-]?key|session[_-]?key|(?<![A-Za-z])pass)"
)
# name = value, name: value, "name": "value", NAME=value, --password value
_ASSIGN = (
    r"(?i)(?P<name>[A-Za-z0-9_\-.]*" + _SECRET_NAME + r")[\"']?\s*(?::=|=>|=|:|\s+(?:is|was)\s|\s)\s*"
    r"(?:(?P<q>[\"'`])(?P<qvalue>[^\s\"'`]{4,})(?P=q)|(?P<value>[^\s\"'`,;)}\]]{4,}))"
)
_ROOTS = r"pass|pwd|secret|key|token|bearer|credential|sas"  # searched in the lower-cased text (20x faster than (?i))
_NAME_WORDS = ("pass", "pwd", "secret", "key", "token", "bearer", "credential", "sas")
_BEARER = r"(?i)\bauthorization\s*[:=]\s*[\"']?(?:bearer|token|basic)\s+(?P<value>[A-Za-z0-9._~+/=\-]{16,})"
_PROSE_GUARD = r"[A-Za-z_][\w.\[\]]*"
_CLASSES = (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

# The providers' own documented example values: quoted in docs everywhere, never live.
KNOWN_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIAI44QH8DHBEXAMPLE",
        "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
        ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "xoxb-not-a-real-token-this-will-not-work",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    }
)
# A value that says, in itself, that it is not a real one.
_SELF_EXAMPLE = (
    r"(?i)example|sample|dummy|placeholder|redacted|changeme|not[_\-]?a[_\-]?real|your[_\-]|"
    r"x{4,}|\*{3,}|\.{3,}|…|^<[^>]*>$|^\{\{.*\}\}$|^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|^![A-Za-z][\w.]*$"
)
# For a value written after a name (or in a URL): also a reference to where the secret lives, or a word.
_PLACEHOLDER = (
    r"(?ix)^(?:"
    r"%\(?[A-Za-z_]+\)?s?|"
    r"%[A-Za-z_]+%|none|null|nil|true|false|undefined|empty|required|optional|secret|password|token|string|str|"
    r"env|environ.*|os\.environ.*|os\.getenv.*|getenv.*|process\.env.*|settings\..*|config\..*|"
    r"self\..*|args\..*|getpass.*|input\(.*|read_secret.*|vault:.*|keyring.*|"
    r"[a-z_]+\(.*|[a-z_]+\.[a-z_]+.*|test|testing|hunter2|secret123|foo|bar|baz|qux|"
    r"fake.*|mock.*|invalid.*"
    r")$"
)


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    total = len(text)
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def _classes(value: str) -> int:
    return sum(1 for pattern in _CLASSES if _re(pattern).search(value))


def _looks_random(value: str) -> bool:
    """A value that is plausibly a generated credential rather than a word or a reference."""
    if len(value) < 8:
        return False
    if not any(c.isdigit() for c in value) and (len(value) < 32 or _re(_PROSE_GUARD).fullmatch(value)):
        return False  # identifiers, type hints and words (Optional[SecretStr], getPassword) are code, not keys
    classes = _classes(value)
    if len(value) >= 12 and shannon_entropy(value) >= 3.0 and classes >= 2:
        return True
    return classes >= 3 and len(value) >= 8  # short passwords: mixed classes with a digit or symbol


def is_example(value: str) -> bool:
    """The value itself is a documented example or a placeholder (not: the text near it says so)."""
    value = value.strip().strip("'\"`")
    if value in KNOWN_EXAMPLES or _re(_SELF_EXAMPLE).search(value):
        return True
    core = re.sub(r"^[A-Za-z]{2,12}[_\-.]", "", value)  # after a provider prefix: all one character?
    return len(core) >= 8 and len(set(core.replace("-", "").replace("_", ""))) <= 2


def is_placeholder(value: str) -> bool:
    """An assigned value that is an example, a reference to where the secret lives, or a plain word."""
    return is_example(value) or bool(_re(_PLACEHOLDER).match(value.strip().strip("'\"`")))


def _shapes(text: str, add: Callable[[str, int, int], None]) -> None:
    """The fixed shapes: a known prefix, length and charset (the needles say which are worth a search)."""
    for kind, needles, source, group in _SHAPES_SRC:
        if not any(needle in text for needle in needles):
            continue
        # the leading boundary is checked here, not in the pattern: a pattern that starts with a
        # lookbehind cannot use re's fast search for its literal prefix (~70x slower on a prompt)
        bounded = source.startswith(_B)
        for match in _re(source[len(_B) :] if bounded else source).finditer(text):
            if bounded and match.start() and text[match.start() - 1] in _TOKEN_CHARS:
                continue
            slot = (match.lastindex or 0) if group == -1 else group
            value = match.group(slot)
            if is_placeholder(value) if slot else is_example(value):
                continue
            if (
                slot
                and kind in ("URL with a password", "curl --user credentials", ".netrc password")
                and (value.startswith("$") or not _credential_like(value))
            ):
                continue
            if slot:
                add(kind, match.start(slot), match.end(slot))
            else:  # a shape that stopped inside a longer token redacts the token
                add(kind, *_widen(text, match.start(), match.end(), _TOKEN_CHARS))


def _bearer(text: str, add: Callable[[str, int, int], None]) -> None:
    """`Authorization: Bearer <token>` with a random-looking token."""
    for match in _re(_BEARER).finditer(text):
        value = match.group("value")
        if not is_placeholder(value) and _looks_random(value):
            add("bearer token", match.start("value"), match.end("value"))


def _spans() -> tuple[list[tuple[str, int, int]], Callable[[str, int, int], None]]:
    spans: list[tuple[str, int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if end > start:
            spans.append((kind, start, end))

    return spans, add


def _merged(spans: list[tuple[str, int, int]], field: str) -> list[Finding]:
    """Overlapping spans become one finding over their union (the first found names the kind):
    a span is redacted whole, never a window inside a longer match."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][1], i))
    found: list[Finding] = []
    for i in order:
        kind, start, end = spans[i]
        last = found[-1] if found else None
        if last is not None and start < last.end:
            last.end = max(last.end, end)
            continue
        found.append(Finding(kind, field, start, end))
    return found


def scan_text(text: str, field: str = "text") -> list[Finding]:
    """Every secret-shaped thing in text, as findings that name the field and the kind."""
    if not text or len(text) < 8:
        return []
    spans, add = _spans()
    _key_blocks(text, add)
    _shapes(text, add)
    lowered = text.lower()
    if "authorization" in lowered:
        _bearer(text, add)
    if any(word in lowered for word in _NAME_WORDS):
        # anchored at the start of each identifier holding a secret-like word (far cheaper than a search)
        assign = _re(_ASSIGN)
        starts: set[int] = set()
        same_length = len(lowered) == len(text)  # lower() keeps positions for all but a few letters
        for root in _re(_ROOTS).finditer(lowered) if same_length else _re("(?i)" + _ROOTS).finditer(text):
            start = root.start()
            while start > 0 and (text[start - 1].isascii() and (text[start - 1].isalnum() or text[start - 1] in "_-.")):
                start -= 1
            if start in starts or text.startswith("${", start - 2):
                continue  # once per identifier; `${NAME:?message}` is a shell expansion, not an assignment
            starts.add(start)
            assigned = assign.match(text, start)
            if assigned:
                _assignment(text, assigned, add)
    for match in _re(_AWS_SECRET).finditer(text):
        value = match.group(0)
        if (
            _classes(value) >= 3
            and shannon_entropy(value) >= 4.3
            and not is_example(value)
            and not re.search(r"[a-z]{7,}", value)
        ):
            add("AWS secret access key", *_widen(text, match.start(), match.end(), _B64_CHARS))
    _command_lines(text, add)
    _config_values(text, lowered, add)
    _joined(text, spans, add)
    return _merged(spans, field)


def _credential_like(value: str) -> bool:
    """A password in a URL or on a command line: anything that is not a word list or a reference."""
    return not re.fullmatch(r"[A-Za-z]{1,7}", value) and not value.startswith(("{", "%"))


def _literal(text: str, match: re.Match[str], name: str, slot: str) -> bool:
    """The value is a literal, not prose: an environment-style NAME=value, or a config line that
    holds nothing but the assignment (`password: hunter`, `  "password": "x",`)."""
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and "=" in text[match.end("name") : match.start(slot)]:
        return True
    line_start = text.rfind("\n", 0, match.start("name")) + 1
    line_end = text.find("\n", match.end(slot))
    before = text[line_start : match.start("name")].strip(" \t\"'{,-[")
    after = text[match.end(slot) : len(text) if line_end == -1 else line_end].strip(" \t\"'`,;}]")
    return not before and not after


def _assignment(text: str, match: re.Match[str], add: Callable[[str, int, int], None]) -> None:
    slot = "qvalue" if match.group("q") else "value"
    name, value = match.group("name"), match.group(slot)
    if is_placeholder(value) or _re(r"[A-Za-z][A-Za-z0-9+.\-]*://").match(value):
        return  # a URL after the name is the URL rule's to judge ("without a password: postgres://app@db")
    quoted = bool(match.group("q"))
    if not quoted and _re(r"[A-Za-z_][\w.\-]*=[^=]").match(value):
        return  # `password= sslmode=require`: the next assignment, not this one's value
    lowered = name.lower()
    is_password = any(w in lowered for w in ("password", "passwd", "pwd", "passphrase")) or lowered.endswith("pass")
    separator = text[match.end("name") : match.start(slot)]
    if not quoted and not re.search(r"[=:]", separator) and not (_looks_random(value) and len(value) >= 20):
        return  # "token abc" in prose is not an assignment; only flag a random-looking value
    literal = _literal(text, match, name, slot)
    if not quoted and not literal and _re(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+").fullmatch(value):
        return  # password=db_password, token=authToken: a variable in code
    assigned = quoted or "=" in separator or ":" in separator
    if (
        is_password
        and assigned
        and len(value) >= 6
        and (not value.isalpha() or quoted or (literal and _letters_literal(value, name)))
    ):
        add("password assignment", match.start(slot), match.end(slot))  # letters too, when a literal
        return
    if _looks_random(value) and (len(value) >= 16 or (literal and len(value) >= 12)):
        kind = (
            "AWS secret access key"
            if "aws" in lowered and len(value) == 40
            else "high-entropy value next to a secret-like name"
        )
        add(kind, match.start(slot), match.end(slot))
    elif is_password and len(value) >= 8 and _looks_random(value):
        add("password assignment", match.start(slot), match.end(slot))


def _letters_literal(value: str, name: str) -> bool:
    """A password of letters only is one when it is a literal: after NAME= in a shell or .env line,
    or alone on a config line in lower or mixed case (`password: qzvbnwpyrt`), not a label in prose
    (`Password: Mandatory`)."""
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
        return True
    return len(value) >= 8 and not value.istitle() and not value.isupper()


# ---- key blocks: one span from BEGIN to END (or to the end of the key material) ----

_KEY_NEEDLES = ("PRIVATE KEY", "PuTTY-User-Key-File-", "b3BlbnNzaC1rZXktdjE")
_KEY_BEGIN = (
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:[ \t]*[\w@.\-]+"
    r"|(?<![A-Za-z0-9+/])b3BlbnNzaC1rZXktdjE"
)
_KEY_END = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|Private-MAC:[ \t]*[0-9a-fA-F]{16,}"
_LINE_BREAK = r"\\r\\n|\\n|\\r|\r?\n"  # a real line break, or JSON's and a shell string's escape for one
_BODY_STRIP = " \t\"'|>,"
_KEY_SCAN_LIMIT = 65536


def _key_blocks(text: str, add: Callable[[str, int, int], None]) -> None:
    """A private key is the whole block: its BEGIN line, headers, body and END line. Without an END
    (a paste cut short, a PuTTY file without its MAC) the block runs as far as the key material does."""
    if not any(needle in text for needle in _KEY_NEEDLES):
        return
    position = 0
    begin_re, end_re = _re(_KEY_BEGIN), _re(_KEY_END)
    while (begin := begin_re.search(text, position)) is not None:
        bare_body = begin.group(0).startswith("b3Bl")
        body_from = begin.start() if bare_body else begin.end()
        end = end_re.search(text, begin.end(), begin.end() + _KEY_SCAN_LIMIT)
        if end is not None and _re(r"[A-Za-z0-9+/]{16}").search(
            _re(_LINE_BREAK).sub("", text[body_from : end.start()])
        ):
            if not is_example(text[body_from : end.start()].strip()):
                add("private key block", begin.start(), end.end())
            position = end.end()
            continue
        stop, material = _key_body(text, body_from)
        if material >= 16:
            add("private key block", begin.start(), stop)
        position = max(stop, begin.end())


def _key_body(text: str, start: int) -> tuple[int, int]:
    """Where the key material after start ends, and how many characters of it there are: lines of
    base64 (and `Name: value` headers), as written in a file, in YAML, or inside a JSON string."""
    breaks = _re(_LINE_BREAK)
    stop, material, position = start, 0, start
    limit = min(len(text), start + _KEY_SCAN_LIMIT)
    while position < limit:
        found = breaks.search(text, position, limit)
        line_end = found.start() if found else limit
        line = text[position:line_end]
        stripped = line.strip(_BODY_STRIP)
        if stripped and _re(r"[A-Za-z0-9+/=]+").fullmatch(stripped):
            material += len(stripped)
            stop = position + len(line.rstrip(_BODY_STRIP))
        elif stripped and _re(r"[A-Za-z][A-Za-z0-9\-]*:[ \t][^\r\n]{0,120}").fullmatch(stripped):
            stop = position + len(line.rstrip(_BODY_STRIP))
        elif stripped:  # a pasted key on one line, words apart: take the long base64 words that lead it
            for word in _re(r"\S+").finditer(line):
                if not _re(r"[A-Za-z0-9+/=]{16,}").fullmatch(word.group(0)):
                    break
                material += len(word.group(0))
                stop = position + word.end()
            break
        if found is None:
            break
        position = found.end()
    return stop, material


# ---- passwords on command lines ----

_VALUE = r"(?P<q>[\"']?)(?P<value>[^\s\"']+)(?P=q)"
_COMMANDS: list[tuple[tuple[str, ...], str]] = [
    (("mysql", "mariadb"), r"\b(?:mysql\w*|mariadb[\w\-]*)\b[^\n|;&]*?\s-p" + _VALUE),
    (("sshpass",), r"\bsshpass\s+(?:-[a-zA-Z]\s+\S+\s+)*?-p\s*" + _VALUE),
    (("redis-cli",), r"\bredis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+" + _VALUE),
    (
        ("login",),
        r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=)"
        + _VALUE,
    ),
    (("mongo",), r"\bmongo\w*\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=)" + _VALUE),
    (("ldap",), r"\bldap\w+\b[^\n|;&]*?\s-w\s+" + _VALUE),
    (("pass:",), r"\s-pass(?:in|out)?\s+pass:" + _VALUE),
    (("lftp",), r"\blftp\b[^\n|;&]*?\s-u\s+(?P<q>[\"']?)[^\s,\"']+,(?P<value>[^\s\"']+)(?P=q)"),
    (("-U",), r"\s-U\s+(?P<q>[\"']?)[^\s%\"']+%(?P<value>[^\s\"']+)(?P=q)"),
    (("sqlcmd", "bcp", "osql"), r"\b(?:sqlcmd|bcp|osql)\b[^\n|;&]*?\s-P\s*" + _VALUE),
    (("pass",), r"\s--(?:\w+-)*pass(?:word|wd|phrase)?\s+" + _VALUE),
    (
        ("-S", "-stdin", "chpasswd"),
        r"\b(?:echo|printf)\s+(?:-[en]+\s+)?"
        + _VALUE
        + r"\s*\|\s*(?:sudo\s+(?:-\w+\s+)*-\w*S\b|chpasswd|[^\n|;&]*--password-stdin)",
    ),
    (("net use",), r"\bnet\s+use\b[^\n|;&]*?\s/user:\S+\s+" + _VALUE),
    (("htpasswd",), r"\bhtpasswd\s+(?:-[A-Za-z]+\s+)*?-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*\S+\s+\S+\s+" + _VALUE),
]


def _command_lines(text: str, add: Callable[[str, int, int], None]) -> None:
    """`mysql -p<pw>`, `sshpass -p pw`, `redis-cli -a pw`, `docker login -p pw`, `-passin pass:pw`…"""
    for needles, source in _COMMANDS:
        if not any(needle in text for needle in needles):
            continue
        bounded = source.startswith(r"\b")
        for match in _re(source[2:] if bounded else source).finditer(text):
            if bounded and match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] == "_"):
                continue
            value = match.group("value")
            if len(value) < 4 or value.startswith(("$", "-", "<", "`")) or not _credential_like(value):
                continue
            if not is_placeholder(value):
                add("password on a command line", match.start("value"), match.end("value"))


# ---- credentials inside config formats, and connection strings without a scheme ----

_REGISTRY_AUTH = r"(?i)[\"']?_?auth[\"']?\s*[:=]\s*[\"']?(?P<value>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])"
_XML_SECRET = (
    r"(?i)<(?P<name>[\w:.\-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|private[_-]?key))"
    r"(?:\s[^<>]*)?>\s*(?P<value>[^<\s]{4,})\s*</"
)
_PGPASS_LINE = (
    r"(?<!\S)[\w.\-*\[\]]*[A-Za-z.*\[][\w.\-*\[\]]*:(?:\d{1,5}|\*):[\w.\-*]+:[\w.\-*@]+:(?P<value>[^\s:]\S*)(?!\S)"
)
_NO_SCHEME_DSN = (
    r"(?<![\w.+\-/:@%])[A-Za-z0-9_.\-]{1,64}:(?P<value>[^\s:@/\"'`]{3,128})@(?:(?:tcp|udp|unix)\("
    r"|[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*(?::\d{2,5}(?=[/\s\"'`,;)]|$)|/\w))"
)


def _config_values(text: str, lowered: str, add: Callable[[str, int, int], None]) -> None:
    """A registry's base64 `auth` (user:password), `<password>` in XML, a .pgpass line,
    `user:pw@host:5432/db`."""
    if "auth" in lowered:
        for match in _re(_REGISTRY_AUTH).finditer(text):
            if _basic_pair(match.group("value")):
                add("registry auth", match.start("value"), match.end("value"))
    if "</" in text:
        for match in _re(_XML_SECRET).finditer(text):
            value = match.group("value")
            secret_name = any(w in match.group("name").lower() for w in ("pass", "secret"))
            if not is_placeholder(value) and (_looks_random(value) or (secret_name and len(value) >= 6)):
                add(
                    "password assignment" if secret_name else "high-entropy value next to a secret-like name",
                    match.start("value"),
                    match.end("value"),
                )
    if text.count(":") >= 4:  # a .pgpass line: host:port:database:user:password
        for match in _re(_PGPASS_LINE).finditer(text):
            value = match.group("value")
            if _credential_like(value) and not is_placeholder(value):
                add("password in a .pgpass line", match.start("value"), match.end("value"))
    if "@" in text:
        for match in _re(_NO_SCHEME_DSN).finditer(text):
            value = match.group("value")
            if _credential_like(value) and not value.startswith("$") and not is_placeholder(value):
                add("connection string password", match.start("value"), match.end("value"))


def _basic_pair(value: str) -> bool:
    """base64 of `user:password`, as Docker, npm and HTTP Basic store a login."""
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return False
    try:
        decoded = raw.decode("ascii")
    except UnicodeDecodeError:
        return False
    user, colon, password = decoded.partition(":")
    return bool(colon and user and len(password) >= 4 and decoded.isprintable())


# ---- tokens split over lines or built by concatenation ----

_JOIN = (
    r"(?<=[A-Za-z0-9_\-])(?:(?P<quotes>[\"'`][ \t]*(?:\+|\.|\|\||&|,)?\s*(?:\\\r?\n\s*)?[\"'`])|\\?\r?\n[ \t]*)"
    r"(?=[A-Za-z0-9_\-])"
)
_JOIN_WINDOW = 320  # characters either side of a join that a token across it can reach


def _joined(text: str, spans: list[tuple[str, int, int]], add: Callable[[str, int, int], None]) -> None:
    """The fixed shapes again, around each join taken out ("ghp_abc" + "def", a token wrapped over
    two lines); a match across a join covers the original text from its head to its tail."""
    joins = [join for join in _re(_JOIN).finditer(text) if join.group("quotes") or _wrapped(text, join)]
    if not joins:
        return
    pieces, starts, origins, at, last = [], [], [], 0, 0
    for join in joins:
        pieces.append(text[last : join.start()])
        starts.append(at)
        origins.append(last)
        at += join.start() - last
        last = join.end()
    pieces.append(text[last:])
    starts.append(at)
    origins.append(last)
    joined = "".join(pieces)

    def original(position: int) -> int:
        index = bisect.bisect_right(starts, position) - 1
        return origins[index] + position - starts[index]

    windows: list[list[int]] = []
    for at in starts[1:]:
        if windows and at - _JOIN_WINDOW <= windows[-1][1]:
            windows[-1][1] = at + _JOIN_WINDOW  # joins close together share one window
        else:
            windows.append([max(0, at - _JOIN_WINDOW), at + _JOIN_WINDOW])
    found, collect = _spans()
    for low, high in windows:

        def shifted(kind: str, start: int, end: int, low: int = low) -> None:
            collect(kind, start + low, end + low)

        _shapes(joined[low:high], shifted)
    for kind, start, end in found:
        first, final = original(start), original(end - 1) + 1
        if final - first == end - start:
            continue  # no join inside: the pass over the text itself judged it
        if not any(k == kind and s == first for k, s, _ in spans):  # not a longer run of a token found whole
            add(kind, first, final)


def _wrapped(text: str, join: re.Match[str]) -> bool:
    """A line break inside a token, not between two lines of prose or code: a generated-looking run
    (a digit, `_` or `-` in it) on the left, and a run of six or more token characters on the right."""
    left = join.start()
    while left > 0 and text[left - 1] in _TOKEN_CHARS and join.start() - left < 64:
        left -= 1
    head = text[left : join.start()]
    if len(head) < 6 or not any(c.isdigit() or c in "_-" for c in head):
        return False
    tail = text[join.end() : join.end() + 6]
    return len(tail) == 6 and all(c in _TOKEN_CHARS for c in tail)


def _widen(text: str, start: int, end: int, chars: frozenset[str]) -> tuple[int, int]:
    """A match that stopped inside a longer token takes the whole token."""
    while start > 0 and text[start - 1] in chars:
        start -= 1
    while end < len(text) and text[end] in chars:
        end += 1
    return start, end


def redact(text: str) -> str:
    """The text with every secret replaced by `[redacted: <kind>]` (journal and log text)."""
    if not isinstance(text, str) or len(text) < 8:
        return text
    found = scan_text(text)
    if not found:
        return text
    out = []
    last = 0
    for finding in sorted(found, key=lambda f: f.start):
        out.append(text[last : finding.start])
        out.append(f"[redacted: {finding.kind}]")
        last = finding.end
    out.append(text[last:])
    return "".join(out)


CLIP_MARGIN = 4096  # text read past a cut, so that a secret across the cut is still whole when judged


def clip(text: str, limit: int) -> str:
    """The text redacted, THEN cut to limit characters: cutting first would leave the head of a
    secret that straddles the cut, too short to be recognised (a `ghp_` token's first 10 characters).
    A cut inside a redaction marker keeps the marker whole."""
    if not isinstance(text, str) or len(text) <= limit:
        return redact(text)
    head = redact(text[: limit + CLIP_MARGIN])
    if len(head) <= limit:
        return head
    cut = head[:limit]
    marker = cut.rfind("[")
    if marker != -1 and "]" not in cut[marker:] and head.startswith("[redacted: ", marker):
        close = head.find("]", marker)
        cut = head[: close + 1] if close != -1 else cut[:marker]
    return cut


def redact_value(value: Any) -> Any:
    """redact() through strings, lists and dicts (a journal field's value)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    return value


def _walk(value: Any, field: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(field, value)]
    if isinstance(value, dict):
        out: list[tuple[str, str]] = []
        for key, inner in value.items():
            out.extend(_walk(inner, f"{field}.{key}" if field else str(key)))
        return out
    if isinstance(value, list | tuple):
        out = []
        for index, inner in enumerate(value):
            out.extend(_walk(inner, f"{field}[{index}]"))
        return out
    return []


def scan(fields: dict[str, Any]) -> list[Finding]:
    """Scan a record field by field (nested dicts and lists get dotted names)."""
    found: list[Finding] = []
    for field, text in _walk(fields, ""):
        found.extend(scan_text(text, field))
    return found


def refuse_if_secret(fields: dict[str, Any], what: str = "this write") -> None:
    """Raise SECRET_REFUSED (exit 2) naming each field and kind; nothing has been stored yet."""
    found = scan(fields)
    if not found:
        return
    named = "; ".join(sorted({f.describe() for f in found}))
    raise HallError(
        "SECRET_REFUSED",
        f"Refused {what}: it looks like it holds a secret ({named}). Nothing was stored. "
        "Remove the value (name the variable or the vault entry instead) and try again.",
        ["describe where the secret lives (e.g. 'the token is in $GITHUB_TOKEN'), never its value"],
    )
