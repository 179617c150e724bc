"""pytest: each failure's `>` source line, `E` lines and file:line locations, headed by its full node
ID (file::class::test, from the short test summary, else from its first location); failures whose
traceback below the test's own frame is the same are folded together; the totals line and distinct
warnings once with a count."""

from __future__ import annotations

import re

from .found import Found, cap_entry

_SECTION = re.compile(r"^={3,} ?(.*?) ?={3,}$")
_TITLE = re.compile(r"^_{3,} (.+?) _{3,}$")
_LOCATION = re.compile(r"^(\S+?\.py):(\d+):(.*)$")
_KEPT_LOCATION = re.compile(r"^(\S+?\.py):(\d+)(?::|$)")  # a location as the filter keeps it
_CAPTURED = re.compile(r"^-{3,} Captured .* -{3,}$")
_WARNING = re.compile(r"^\s+(\S+:\d+: \w*Warning: .*)$")
_QUIET_SUMMARY = re.compile(
    r"^(\d+ (passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun)"
    r"\b.*|no tests ran) in [\d.]+s\b"
)
_SUMMARY = re.compile(
    r"\b(\d+ (passed|failed|error|errors|skipped|xfailed|xpassed|warnings?|deselected)|no tests ran)\b"
)
_SHORT = re.compile(r"^(FAILED|ERROR) (\S+)(?: - .*)?$")


def _strip_rule(line: str, char: str = "=") -> str:
    return line.strip().strip(char).strip()


def _title_of(node: str) -> str:
    """What pytest puts in a failure's title for a node id: the part after the file, `::` as `.`."""
    return ".".join(node.split("::")[1:]) if "::" in node else node


def _name_heading(found: Found, titles: list[tuple[str, str]], nodes: list[str]) -> None:
    """Give every failure its file: match titles to the short summary's node ids, in order."""
    pool: dict[str, list[str]] = {}
    for node_id in nodes:
        pool.setdefault(_title_of(node_id), []).append(node_id)
    for entry, (word, title) in zip(found.failures, titles, strict=True):
        node: str | None = None
        if pool.get(title):
            node = pool[title].pop(0)
        elif title.startswith("collecting "):
            node = title
        if node is None:  # no summary: the first location in the body is the test's own file
            first = next((m.group(1) for m in (_KEPT_LOCATION.match(x.strip()) for x in entry[1:]) if m), None)
            node = f"{first}::{title.replace('.', '::')}" if first else title
        entry[0] = f"{word} {node}"


def _signature(entry: list[str]) -> tuple[str, ...] | None:
    """The traceback below the test's own frame: the same one in many tests is one cause."""
    heading = entry[0].split(" ", 1)[-1]
    test_file = heading.split("::", 1)[0]
    body = entry[1:]
    for index, line in enumerate(body):
        match = _KEPT_LOCATION.match(line.strip())
        if match and match.group(1) == test_file:
            rest = body[index + 1 :]
            if any(_KEPT_LOCATION.match(x.strip()) for x in rest):
                return tuple(rest)
            return None
    return None


class _PytestLog:
    """Reading pytest's output a line at a time: which section we are in and what it has given."""

    def __init__(self) -> None:
        self.found = Found.empty()
        self.section = ""
        self.current: list[str] | None = None  # the failure whose lines follow
        self.titles: list[tuple[str, str]] = []
        self.nodes: list[str] = []
        self.skipping_capture = False
        self.warning_ids = 0
        self.recognised = False

    def line(self, number: int, line: str) -> None:
        if self._summary(line):
            return
        if self.section in ("failures", "errors"):
            self._failure(number, line)
        elif self.section == "warnings summary":
            warn = _WARNING.match(line)
            if warn:
                self.found.warnings[warn.group(1)] = self.found.warnings.get(warn.group(1), 0) + max(
                    1, self.warning_ids
                )
                self.warning_ids = 0
            elif line and not line[0].isspace() and "::" in line:
                self.warning_ids += 1
        elif self.section == "short test summary info":
            short = _SHORT.match(line)
            if short:
                self.nodes.append(short.group(2))

    def _summary(self, line: str) -> bool:
        """A section rule, a totals line or a `!!!` interruption line: noted, and True."""
        match = _SECTION.match(line)
        if match and len(line) >= 20:
            self.section = match.group(1).lower()
            self.current = None
            self.skipping_capture = False
            if "test session starts" in self.section:
                self.recognised = True
            elif _SUMMARY.search(self.section):
                self.found.summary.append(match.group(1))
                self.recognised = True
            return True
        if _QUIET_SUMMARY.match(line):  # -q prints the summary line without its rule
            self.found.summary.append(line.strip())
            self.recognised = True
            return True
        if line.startswith("!!!") and "!!!" in line[3:]:
            self.found.summary.append(_strip_rule(line, "!"))
            return True
        return False

    def _failure(self, number: int, line: str) -> None:
        """A line of the failures or errors section: a title starts a failure; its `>`, `E` and
        location lines are kept, captured output is not."""
        title = _TITLE.match(line)
        if title:
            word = "ERROR" if self.section == "errors" else "FAILED"
            name = title.group(1)
            if word == "ERROR" and name.startswith("ERROR "):
                name = name[len("ERROR ") :]
            self.current = [f"{word} {name}"]
            self.titles.append((word, name))
            self.found.failures.append(self.current)
            if self.found.first_line is None:
                self.found.first_line = number
            self.skipping_capture = False
            return
        if _CAPTURED.match(line):
            self.skipping_capture = True
            return
        if self.current is None or self.skipping_capture:
            return
        stripped = line.strip()
        if stripped.startswith(">") or line.startswith("E ") or stripped.startswith("E   "):
            self.current.append("  " + line.rstrip())
        elif _LOCATION.match(stripped):
            self.current.append("  " + stripped.rstrip(": ").rstrip())


def filter_pytest(lines: list[str], exit_code: int | None) -> Found | None:
    log = _PytestLog()
    for number, line in enumerate(lines):
        log.line(number, line)
    found, titles, nodes, recognised = log.found, log.titles, log.nodes, log.recognised
    if not recognised and not found.failures:
        return None
    _name_heading(found, titles, nodes)
    for index, entry in enumerate(found.failures):
        signature = _signature(entry)
        if signature:
            found.signatures[index] = signature
        cap_entry(entry)
    for node in nodes or [e[0].split(" ", 1)[1] for e in found.failures]:
        file, sep, rest = node.partition("::")
        found.ids.append((file, rest) if sep else ("", node))
    return found
