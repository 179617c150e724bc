"""Forges, their APIs and package registries: other ways code leaves the machine.

- `gh` (and its aliases, read from gh's config.yml by gh_config.py), `glab`, `hub`, `tea`, `jj git push`, Sapling, Graphite
  and `az repos`: opening or merging a pull/merge request, pushing, releasing are pushes; other
  commands that change the forge are strict; reads pass.
- `gh api`/`glab api` and plain HTTP clients (`curl`, `wget`, `http`, `xh`): a write to a forge's
  pulls, merge requests, refs, contents or merges endpoints (or a GraphQL mutation that creates or
  merges one) is a push; any other upload is strict. A field read from a file (`-F x=@file`,
  `--input file`) is read too.
- Package registries (`npm publish`, `twine upload`, `cargo publish`, `docker push` …) and copies to
  another host (`scp`, `rsync host:`, `sftp`) publish code: pushes.
"""

from __future__ import annotations

import os
import re

from .names import HTTP_CLIENTS, REMOTE_COPY  # noqa: F401 - the dispatch table owns the names
from .shell import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .push import Analyzer
    from .shell import Command

GH_READ = {
    "pr": {"view", "list", "status", "diff", "checks", "checkout"},
    "issue": {"view", "list", "status"},
    "repo": {"view", "list", "clone", "set-default"},
    "run": {"view", "list", "watch", "download"},
    "workflow": {"view", "list"},
    "release": {"view", "list", "download", "verify", "verify-asset"},
    "gist": {"view", "list", "clone"},
    "auth": {"status", "token", "login", "logout", "refresh", "setup-git", "switch"},
    "config": {"get", "list", "set", "clear-cache"},
    "label": {"list"},
    "cache": {"list"},
    "secret": {"list"},
    "variable": {"list", "get"},
    "ruleset": {"view", "list", "check"},
    "org": {"list"},
    "project": {"view", "list", "field-list", "item-list"},
    "codespace": {"list", "view", "logs", "ssh", "code", "cp", "jupyter", "ports"},
    "extension": {"list", "search", "browse"},
    "alias": {"list"},
    "attestation": {"verify", "download", "trusted-root"},
    "search": None,
    "browse": None,
    "status": None,
    "help": None,
    "version": None,
    "completion": None,
}
GH_PUBLISH = {
    ("pr", "create"),
    ("pr", "merge"),
    ("pr", "ready"),
    ("release", "create"),
    ("release", "upload"),
    ("repo", "sync"),
    ("gist", "create"),
}
GH_BUILTINS = frozenset(GH_READ) | {"api", "gpg-key", "ssh-key", "preview", "agent-task", "copilot", "accessibility"}
API_PUSH_PATH = (
    r"(^|/)(pulls|merges|contents|git|refs|merge|merge_requests|releases|repository/(commits|files|branches))(/|$|\?)"
)
GRAPHQL_PUSH = (
    r"\b(createPullRequest|mergePullRequest|enablePullRequestAutoMerge|updateRefs?|createRef|deleteRef|"
    r"createCommitOnBranch|mergeBranch|markPullRequestReadyForReview|createRelease)\b"
)
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# forge CLIs: (tool, group, action) that publish; a group of None matches any action word
FORGE_PUBLISH: dict[str, set[tuple[str, str | None]]] = {
    "glab": {("mr", "create"), ("mr", "merge"), ("mr", "approve"), ("release", "create"), ("repo", "mirror")},
    "hub": {
        ("pull-request", None),
        ("push", None),
        ("release", "create"),
        ("merge", None),
        ("create", None),
        ("fork", None),
    },
    "tea": {
        ("pr", "create"),
        ("pulls", "create"),
        ("pr", "merge"),
        ("pulls", "merge"),
        ("release", "create"),
        ("releases", "create"),
    },
    "sl": {("push", None), ("pr", "submit"), ("submit", None), ("ghstack", None)},
    "gt": {("submit", None), ("ss", None), ("stack", "submit"), ("branch", "submit"), ("merge", None), ("sync", None)},
    "jj": {("git", "push")},
    "az": {("repos", "pr")},
    "git-town": {("ship", None), ("propose", None), ("sync", None)},
}
FORGE_READ = {
    "glab": {"list", "view", "diff", "status", "ci", "check-update", "version", "help", "auth", "config", "alias"},
    "hub": {"browse", "ci-status", "compare", "help", "version", "issue", "pr"},
    "tea": {"list", "ls", "view", "login", "logins", "whoami", "help"},
    "jj": None,
    "sl": None,
    "gt": None,
    "az": None,
    "git-town": None,
}
# registries: (tool, action words) that publish a package or an image
REGISTRY = {
    "npm": ("publish",),
    "pnpm": ("publish",),
    "yarn": ("publish", "npm"),
    "bun": ("publish",),
    "twine": ("upload",),
    "poetry": ("publish",),
    "uv": ("publish",),
    "flit": ("publish",),
    "hatch": ("publish",),
    "pdm": ("publish",),
    "maturin": ("publish", "upload"),
    "cargo": ("publish",),
    "gem": ("push",),
    "docker": ("push",),
    "podman": ("push",),
    "buildah": ("push",),
    "helm": ("push",),
    "nuget": ("push",),
    "dotnet": ("nuget",),
    "vsce": ("publish",),
    "ovsx": ("publish",),
    "dart": ("pub",),
    "flutter": ("pub",),
    "mix": ("hex.publish",),
    "cabal": ("upload",),
    "anaconda": ("upload",),
    "mvn": ("deploy",),
    "gradle": ("publish",),
    "gradlew": ("publish",),
    "./gradlew": ("publish",),
    "skopeo": ("copy",),
    "crane": ("push", "copy"),
    "oras": ("push",),
    "goreleaser": ("release",),
    "semantic-release": (),
    "changeset": ("publish",),
    "lerna": ("publish",),
    "jf": ("rt",),
    "jfrog": ("rt",),
    "swift": (),
}
UPLOAD_HOSTS = (
    r"\b(uploads\.github\.com|upload\.pypi\.org|test\.pypi\.org/legacy|registry\.npmjs\.org|"
    r"crates\.io/api/v1/crates/new|rubygems\.org/api/v1/gems|api\.nuget\.org|marketplace\.visualstudio)"
)


# -- gh ----------------------------------------------------------------------------------------------


def run_gh(an: Analyzer, args: list[Word], cmd: Command, cwd: str | None, *, expanded: bool = False) -> None:
    words = list(args)
    while words and words[0].literal and words[0].text.startswith("-"):
        words = words[2:] if words[0].text in ("-R", "--repo", "--hostname") else words[1:]
    if not words:
        return
    if not all(w.literal for w in words[:2]):
        an.add("strict", "gh with a computed subcommand", cmd, cwd, always=True)
        return
    group = words[0].text
    alias = None if expanded or group in GH_BUILTINS else an.ctx.gh_aliases.get(group)
    if alias is not None:  # gh never lets an alias shadow a command, and aliases do not nest
        gh_alias(an, group, alias, words[1:], cmd, cwd)
        return
    action = words[1].text if len(words) > 1 else ""
    lits = [w.text for w in words]
    if any(flag in lits for flag in ("--help", "-h")):
        return
    if (group, action) in GH_PUBLISH:
        an.add("push", f"gh {group} {action}", cmd, cwd)
        return
    if group == "api":
        api_call(an, "gh api", words[1:], cmd, cwd)
        return
    if group in GH_READ:
        allowed = GH_READ[group]
        if allowed is None or action in allowed or action == "":
            return
    an.add("strict", f"gh {group} {action}".strip() + " changes GitHub (or is unknown)", cmd, cwd)


def gh_alias(an: Analyzer, name: str, body: str, rest: list[Word], cmd: Command, cwd: str | None) -> None:
    """Expand a gh alias as gh does: `$1`… take the arguments, the unused ones are appended; a
    `!` (--shell) alias runs its body through sh, which is read like any nested command."""
    from .git_cmds import quote, shell_split

    if not all(w.literal for w in rest):
        an.add("strict", f"gh alias {name!r} with computed arguments", cmd, cwd, always=True)
        return
    values = [w.text for w in rest]
    used: set[int] = set()

    def fill(match: re.Match[str]) -> str:
        index = int(match.group(1)) - 1
        used.add(index)
        return values[index] if 0 <= index < len(values) else ""

    if body.startswith("!"):
        script = re.sub(r"\$(\d+)", lambda m: quote(fill(m)), body[1:])
        extra = " ".join(quote(v) for i, v in enumerate(values) if i not in used)
        an.nested(script + (" " + extra if extra else ""), cmd, cwd)
        return
    split = shell_split(body)
    if not split:
        an.add("strict", f"gh alias {name!r} cannot be read", cmd, cwd, always=True)
        return
    words = [Word(re.sub(r"\$(\d+)", fill, w)) for w in split]
    words += [Word(v) for i, v in enumerate(values) if i not in used]
    run_gh(an, words, cmd, cwd, expanded=True)


def _field_text(an: Analyzer, field: Word, cwd: str | None) -> str | None:
    """A field's text; `key=@file` (and `--input file`) read the file, `-` reads stdin (unknown)."""
    if not field.literal:
        return None
    text = field.text
    _, eq, value = text.partition("=")
    value = value if eq else text
    if value.startswith("@") or not eq:
        name = value[1:] if value.startswith("@") else value
        if name == "-":
            return None
        path = name if os.path.isabs(name) else os.path.join(cwd or an.ctx.cwd, name)
        real = os.path.realpath(path)
        if real in an.written:
            return an.written[real]
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read(262_144)
        except (OSError, ValueError):
            return None if value.startswith("@") or not eq else text
    return text


def api_call(an: Analyzer, tool: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    method, fields, files, endpoint = _api_words(args)
    if method is None:
        method = "POST" if fields or files else "GET"
    if method in ("GET", "HEAD"):
        return
    if endpoint is None or not endpoint.literal or method == "?":
        an.add("strict", f"{tool} write to a computed endpoint", cmd, cwd, always=True)
        return
    texts = [
        _field_text(an, f, cwd) if f.literal and "=@" in f.text else (f.text if f.literal else None) for f in fields
    ] + [_field_text(an, Word(f"@{f.text}", f.literal), cwd) for f in files]
    path = endpoint.text
    if path == "graphql" or path.endswith("/graphql"):
        if any(t is None for t in texts) or re.search(GRAPHQL_PUSH, " ".join(texts)):  # type: ignore[arg-type]
            an.add("push", f"{tool} graphql mutation that publishes", cmd, cwd)
        elif "mutation" in " ".join(texts):  # type: ignore[arg-type]
            an.add("strict", f"{tool} graphql mutation", cmd, cwd)
        return
    if method in WRITE_METHODS and re.search(API_PUSH_PATH, path.split("?", 1)[0]):
        an.add("push", f"{tool} {method} {path}", cmd, cwd)
    else:
        an.add("strict", f"{tool} {method} {path} changes the forge", cmd, cwd)


def _api_words(args: list[Word]) -> tuple[str | None, list[Word], list[Word], Word | None]:
    """`gh api`'s (method, --field values, --input files, endpoint); method "?" when computed."""
    method = None
    fields: list[Word] = []
    files: list[Word] = []
    endpoint: Word | None = None
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if text in ("-X", "--method", "--request") and i + 1 < len(args):
            method = args[i + 1].text.upper() if args[i + 1].literal else "?"
            i += 2
            continue
        if text.startswith("-X") and len(text) > 2:
            method = text[2:].upper()
        elif text.startswith(("--method=", "--request=")):
            method = text.split("=", 1)[1].upper()
        elif text in ("-f", "-F", "--field", "--raw-field") and i + 1 < len(args):
            fields.append(args[i + 1])
            i += 2
            continue
        elif text == "--input" and i + 1 < len(args):
            files.append(args[i + 1])
            i += 2
            continue
        elif text.startswith(("--field=", "--raw-field=")) or (text[:2] in ("-f", "-F") and len(text) > 2):
            fields.append(Word(text.split("=", 1)[-1] if text.startswith("--") else text[2:], word.literal))
        elif text.startswith("--input="):
            files.append(Word(text.split("=", 1)[1], word.literal))
        elif text in (
            "-H",
            "--header",
            "-q",
            "--jq",
            "-t",
            "--template",
            "--hostname",
            "--cache",
            "-p",
            "--preview",
        ) and i + 1 < len(args):
            i += 2
            continue
        elif not text.startswith("-") and endpoint is None:
            endpoint = word
        i += 1
    return method, fields, files, endpoint


# -- other forges, HTTP, registries, copies to other hosts -------------------------------------------


def run_forge(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    positional = [w for w in args if not (w.literal and w.text.startswith("-"))]
    if positional and not all(w.literal for w in positional[:2]):
        an.add("strict", f"{name} with a computed subcommand", cmd, cwd, always=True)
        return
    words = [w.text for w in positional]
    if any(w.text in ("--help", "-h") for w in args if w.literal):
        return
    group = words[0] if words else ""
    action = words[1] if len(words) > 1 else ""
    if name == "glab" and group == "api":
        api_call(an, "glab api", args[args.index(positional[0]) + 1 :], cmd, cwd)
        return
    for want_group, want_action in FORGE_PUBLISH.get(name, set()):
        if group == want_group and (want_action is None or action == want_action):
            an.add("push", f"{name} {group} {action}".strip(), cmd, cwd)
            return
    reads = FORGE_READ.get(name)
    if reads is None or not group or group in reads or action in reads:
        return
    an.add("strict", f"{name} {group} {action}".strip() + " may change the forge", cmd, cwd)


def registry(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> bool:
    """A package publish or image push (True when it is one, recorded as a push)."""
    words = [w.text for w in args if w.literal and not w.text.startswith("-")]
    actions = REGISTRY.get(name)
    if actions is None or only_pretends(name, args):
        return False
    if name in ("mvn", "gradle", "gradlew", "./gradlew"):
        hit = any(w == "deploy" or w.startswith("publish") for w in words)
    elif name == "yarn":
        hit = words[:1] == ["publish"] or words[:2] == ["npm", "publish"]
    elif name in ("dotnet",):
        hit = words[:2] == ["nuget", "push"]
    elif name in ("dart", "flutter"):
        hit = words[:2] == ["pub", "publish"]
    elif name in ("jf", "jfrog"):
        hit = words[:2] in (["rt", "upload"], ["rt", "u"], ["rt", "docker-push"])
    elif name == "semantic-release":
        hit = "--dry-run" not in [w.text for w in args]
    elif name == "docker" and words[:2] == ["buildx", "build"]:
        hit = any(w.text == "--push" or w.text.startswith("--output=type=registry") for w in args)
    elif name == "swift":
        hit = words[:2] == ["package", "publish"]
    else:
        hit = bool(words) and words[0] in actions
    if hit:
        an.add("push", f"{name} {' '.join(words[:2])} (publishes to a registry)", cmd, cwd)
    return hit


# registries whose options read a separate `true`/`false` after a flag (npm's nopt: `--dry-run false`)
_NOPT = frozenset({"npm", "pnpm", "yarn", "bun"})


def only_pretends(name: str, args: list[Word]) -> bool:
    """`--help`/`-h` (the tool prints its usage) or `--dry-run` (it checks and uploads nothing; the
    last of `--dry-run`/`--no-dry-run`/`--dry-run=false` wins): no publish. A computed word might undo
    it, so then it is not. Lifecycle scripts a dry run still runs are the runner path's (runners.py)."""
    dry = False
    for index, word in enumerate(args):
        if not word.literal:
            return False
        text = word.text
        if text == "--":
            break
        if text in ("--help", "-h"):
            return True
        after = args[index + 1].text.lower() if index + 1 < len(args) and args[index + 1].literal else ""
        if text == "--dry-run":
            dry = not (name in _NOPT and after == "false")
        elif text.startswith("--dry-run="):
            dry = text.split("=", 1)[1].lower() not in ("false", "0", "no", "off")
        elif text == "--no-dry-run":
            dry = False
    return dry


def http_client(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    """curl/wget/httpie: an upload to a forge's publishing endpoint is a push; other uploads strict."""
    method = None
    sends = False
    urls: list[Word] = []
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text if word.literal else ""
        if text in ("-X", "--request", "--method") and i + 1 < len(args):
            method = args[i + 1].text.upper() if args[i + 1].literal else "?"
            i += 2
            continue
        if text.startswith(("--request=", "--method=")):
            method = text.split("=", 1)[1].upper()
        elif text.startswith("-X") and len(text) > 2:
            method = text[2:].upper()
        elif text in (
            "-d",
            "--data",
            "--data-binary",
            "--data-raw",
            "--data-urlencode",
            "-F",
            "--form",
            "-T",
            "--upload-file",
            "--json",
            "--post-data",
            "--post-file",
            "--body-data",
            "--body-file",
        ):
            sends = True
            i += 2
            continue
        elif text.startswith(("--data", "--form", "--json", "--post-", "--body-", "--upload-file")) or (
            text[:2] in ("-d", "-F", "-T") and len(text) > 2
        ):
            sends = True
        elif name in ("http", "https", "xh", "xhs", "httpie") and word.literal and re.fullmatch(r"[A-Z]+", text):
            method = text
        elif name in ("http", "https", "xh", "xhs", "httpie") and word.literal and re.match(r"[\w.-]+(:=|=|@)", text):
            sends = True
        elif not text.startswith("-"):
            urls.append(word)
        i += 1
    writing = (method or ("POST" if sends else "GET")) in WRITE_METHODS or method == "?"
    if not writing:
        return
    for url in urls:
        if not url.literal:
            an.add("strict", f"{name} sends data to a computed address", cmd, cwd, always=True)
            return
        if (
            re.search(API_PUSH_PATH, re.sub(r"^[a-z]+://[^/]+", "", url.text).split("?", 1)[0])
            or ("graphql" in url.text and re.search(r"github|gitlab|gitea|bitbucket", url.text))
            or re.search(UPLOAD_HOSTS, url.text)
        ):
            an.add("push", f"{name} {method or 'POST'} {url.text[:80]}", cmd, cwd)
            return
    # any other upload is data leaving the machine, which no parser can judge: the sandbox wall's job


def remote_copy(an: Analyzer, name: str, args: list[Word], cmd: Command, cwd: str | None) -> None:
    """scp/rsync/sftp/cloud copies to another host: code leaves the machine (a push)."""
    operands = [w for w in args if not (w.literal and w.text.startswith("-"))]
    if name in ("aws", "gsutil", "gcloud", "az", "s3cmd", "mc", "rclone"):
        words = [w.text for w in operands if w.literal]
        if any(
            w in ("cp", "sync", "mv", "put", "rsync", "copy", "upload", "copyto", "moveto", "move") for w in words[:3]
        ):
            an.add("push", f"{name} {' '.join(words[:2])} (copies off the machine)", cmd, cwd)
        return
    if name in ("sftp", "ftp", "lftp"):
        an.add("push", f"{name} (transfers files to another host)", cmd, cwd)
        return
    destination = operands[-1] if operands else None
    if destination is None:
        return
    if not destination.literal:
        an.add("strict", f"{name} to a computed destination", cmd, cwd, always=True)
        return
    if re.match(r"^([\w.-]+@)?[\w.-]+:(?!//)", destination.text) or destination.text.startswith(
        ("rsync://", "scp://", "sftp://")
    ):
        an.add("push", f"{name} to {destination.text[:60]} (copies off the machine)", cmd, cwd)
