"""The secret scanner every write to the memory store passes through.

Memory outlives the session it came from, so a credential that lands in it is a leak waiting
to be injected into a prompt. Every field of every write (learning, evidence, checkpoint, note,
decision) is scanned; a hit refuses the whole write (SECRET_REFUSED, exit 2) naming the field and
the kind of secret, never echoing the value. Stdlib only: the hook path writes through here.

What counts as a secret:
- fixed-shape tokens (cloud keys, GitHub/GitLab/Slack/Stripe/npm/PyPI/OpenAI/Anthropic/Google…),
- private key blocks, JWTs, URLs with an embedded password,
- `password=`-style assignments of a literal value,
- a high-entropy string sitting next to a secret-like name (`api_key: "…"`).

What does not: values marked as examples or placeholders (AKIAIOSFODNN7EXAMPLE, `<token>`,
`${TOKEN}`, `xxxx`, `changeme`), references to the environment (`os.environ[...]`), and
high-entropy strings with no secret-like name beside them (git SHAs, digests, UUIDs, base64 data).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import HallError


@dataclass(frozen=True)
class Finding:
    kind: str
    field: str
    start: int
    end: int

    def describe(self) -> str:
        return f"{self.field}: {self.kind}"


# (kind, pattern) — fixed shapes; a match is a secret unless it is marked as an example.
_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    ("private key block", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("AWS access key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b")),
    ("GitHub fine-grained token", re.compile(r"\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b")),
    ("GitLab token", re.compile(r"\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_\-]{20,}")),
    ("Slack token", re.compile(r"\bxox[abposr]-(?:[0-9]+-)+[A-Za-z0-9]{10,}")),
    ("Slack webhook", re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}")),
    ("Stripe key", re.compile(r"\b(?:sk|rk|pk)_live_[A-Za-z0-9]{20,}\b")),
    ("Anthropic key", re.compile(r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{40,}")),
    ("OpenAI key", re.compile(r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}")),
    ("OpenAI key", re.compile(r"\bsk-proj-[A-Za-z0-9_\-]{40,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("Google OAuth secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_\-]{28}\b")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("PyPI token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}")),
    ("SendGrid key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b")),
    ("Twilio key", re.compile(r"\bSK[0-9a-f]{32}\b")),
    ("Telegram bot token", re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b")),
    ("Discord bot token", re.compile(r"\b[MNO][A-Za-z\d]{23,25}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,38}\b")),
    ("DigitalOcean token", re.compile(r"\bdo[pro]_v1_[a-f0-9]{64}\b")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z]{34}\b")),
    ("Azure storage key", re.compile(r"AccountKey=[A-Za-z0-9+/]{60,}={0,2}")),
    ("JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{16,}")),
    ("URL with a password", re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{1,64}:([^\s:/@]{3,128})@[^\s/]+")),
]

_SECRET_NAME = (
    r"(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|client[_-]?secret|api[_-]?key|apikey|"
    r"access[_-]?key(?:[_-]?id)?|auth[_-]?token|access[_-]?token|refresh[_-]?token|bearer|token|"
    r"private[_-]?key|credentials?|db[_-]?pass(?:word)?|signing[_-]?key|encryption[_-]?key)"
)
# name = value, name: value, "name": "value", NAME=value, --password value, Authorization: Bearer x
_ASSIGN = re.compile(
    r"(?i)(?P<name>[A-Za-z0-9_\-.]*" + _SECRET_NAME + r")[\"']?\s*(?::=|=>|=|:|\s)\s*"
    r"(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;)}\]]{4,})(?P=q)"
)
_BEARER = re.compile(r"(?i)\bauthorization\s*:\s*(?:bearer|token|basic)\s+(?P<value>[A-Za-z0-9._~+/=\-]{16,})")

# Values that are placeholders, examples or references, never secrets.
_PLACEHOLDER = re.compile(
    r"(?ix)^(?:"
    r".*example.*|.*sample.*|.*dummy.*|.*placeholder.*|.*redacted.*|.*changeme.*|.*your[_\-]?.*|"
    r"x{3,}.*|\*{3,}.*|\.{3,}.*|<[^>]*>|\{\{.*\}\}|\$\{?[A-Z_][A-Z0-9_]*\}?|%\(?[A-Za-z_]+\)?s?|"
    r"none|null|nil|true|false|undefined|empty|required|optional|secret|password|token|string|str|"
    r"env|environ.*|os\.environ.*|os\.getenv.*|getenv.*|process\.env.*|settings\..*|config\..*|"
    r"self\..*|args\..*|getpass.*|input\(.*|read_secret.*|vault.*|keyring.*|"
    r"[a-z_]+\(.*|[a-z_]+\.[a-z_]+.*|test|testing|hunter2|secret123|foo|bar|baz|qux|"
    r"fake.*|mock.*|not[_\-]?a[_\-]?real.*|invalid.*"
    r")$"
)
_EXAMPLE_MARK = re.compile(r"(?i)example|sample|dummy|placeholder|fake|not[\s_\-]?real|redacted|xxxx")
_AWS_DOC_KEYS = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}


def shannon_entropy(text: str) -> float:
    if not text:
        return 0.0
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    total = len(text)
    return -sum(c / total * math.log2(c / total) for c in counts.values())


def _looks_random(value: str) -> bool:
    """A value that is plausibly a generated credential rather than a word or a reference."""
    if len(value) < 8:
        return False
    if not any(c.isdigit() for c in value) and (len(value) < 32 or re.fullmatch(r"[A-Za-z_][\w.\[\]]*", value)):
        return False  # identifiers, type hints and words (Optional[SecretStr], getPassword) are code, not keys
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    if len(value) >= 12 and shannon_entropy(value) >= 3.0 and classes >= 2:
        return True
    # short passwords: mixed classes with a digit or symbol (e.g. S3cr3t!pass)
    return classes >= 3 and len(value) >= 8


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value.strip())) or value in _AWS_DOC_KEYS


def _marked_example(text: str, start: int, end: int) -> bool:
    """The match itself, or the few characters around it, say this is an example."""
    window = text[max(0, start - 40): min(len(text), end + 40)]
    return bool(_EXAMPLE_MARK.search(text[start:end])) or bool(
        re.search(r"(?i)\b(?:example|e\.g\.|for instance|sample|dummy|fake)\b", window))


def scan_text(text: str, field: str = "text") -> list[Finding]:
    """Every secret-shaped thing in text, as findings that name the field and the kind."""
    if not text:
        return []
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append(Finding(kind, field, start, end))

    for kind, pattern in _SHAPES:
        for match in pattern.finditer(text):
            token = match.group(0)
            if token in _AWS_DOC_KEYS or _marked_example(text, match.start(), match.end()):
                continue
            if kind == "URL with a password":
                password = match.group(1)
                if _is_placeholder(password) or password.startswith("$"):
                    continue
            add(kind, match.start(), match.end())
    for match in _BEARER.finditer(text):
        value = match.group("value")
        if not _is_placeholder(value) and _looks_random(value):
            add("bearer token", match.start("value"), match.end("value"))
    for match in _ASSIGN.finditer(text):
        name, value = match.group("name"), match.group("value")
        if _is_placeholder(value) or _marked_example(text, match.start("value"), match.end("value")):
            continue
        lowered = name.lower()
        is_password = any(w in lowered for w in ("password", "passwd", "pwd", "passphrase"))
        quoted = bool(match.group("q"))
        separator = text[match.end("name"): match.start("value")]
        if not quoted and not re.search(r"[=:]", separator):
            # "token abc" in prose is not an assignment; only flag a random-looking value
            if not (_looks_random(value) and len(value) >= 20):
                continue
        if is_password and (quoted or "=" in separator or ":" in separator) and len(value) >= 6 and not value.isalpha():
            add("password assignment", match.start("value"), match.end("value"))
        elif _looks_random(value) and len(value) >= 16:
            add("high-entropy value next to a secret-like name", match.start("value"), match.end("value"))
        elif is_password and len(value) >= 8 and _looks_random(value):
            add("password assignment", match.start("value"), match.end("value"))
    return found


def _walk(value: Any, field: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(field, value)]
    if isinstance(value, Mapping):
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


def scan(fields: Mapping[str, Any]) -> list[Finding]:
    """Scan a record field by field (nested dicts and lists get dotted names)."""
    found: list[Finding] = []
    for field, text in _walk(fields, ""):
        found.extend(scan_text(text, field))
    return found


def refuse_if_secret(fields: Mapping[str, Any], what: str = "this write") -> None:
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
