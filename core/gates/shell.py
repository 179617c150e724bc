"""Read a Bash command the way bash would: a real parser (tree-sitter-bash), never text matching.

`walk(text, on_command)` calls `on_command(cmd)` for every simple command bash could run,
including those inside compound commands, functions, subshells, command and process
substitutions, and the heredocs, here-strings and pipes a shell reads as code. Wrappers and
git/gh meaning live in push.py; this module only knows the shell's grammar.

A command made only of plain words (no quotes, no expansions, no operators) is split without
loading the parser: for that subset, splitting on blanks is exactly what bash does, and it keeps
the common `git push origin main` free of the 18 ms parser import.

One walker over one grammar (its node types call each other recursively); what a single word
means (quotes, escapes, ANSI-C strings: `Word` and `word_value`) lives in shell_words.py, and the
grammar-free text helpers in shell_text.py.
"""

from __future__ import annotations

import os
import re

from .shell_text import UNKNOWN, UNKNOWN_TEMP, printf_output, unkeyword  # noqa: F401 - re-exported

# Word lives in shell_words.py and is re-exported here: the gates import it beside Command
from .shell_words import Word, node_text, word_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node, Parser

MAX_LENGTH = 16_384  # longer commands are not followed (strict mode denies them)
MAX_DEPTH = 8  # nested sh -c / eval / aliases

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "busybox"})

_PLAIN = re.compile(r"[A-Za-z0-9_./:=@%+,-]+(?:[ \t]+[A-Za-z0-9_./:=@%+,-]+)*")
_RESERVED = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "case",
        "esac",
        "for",
        "select",
        "while",
        "until",
        "do",
        "done",
        "in",
        "function",
        "time",
        "coproc",
        "{",
        "}",
        "[[",
        "]]",
        "!",
    }
)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")  # NAME=value and NAME+=value


class Command:
    """One simple command as bash would run it (before any wrapper is unwrapped)."""

    __slots__ = ("cwd", "depth", "env", "source", "stdin", "words")

    def __init__(
        self, words: list[Word], env: dict[str, str], cwd: str | None, stdin: str | None, source: str, depth: int
    ) -> None:
        self.words = words
        self.env = env  # literal VAR=value prefixes
        self.cwd = cwd  # the directory it runs in; None when a computed `cd` made it unknowable
        self.stdin = stdin  # literal text a heredoc, here-string or pipe feeds it; None if none/unknown
        self.source = source
        self.depth = depth

    @property
    def argv(self) -> list[str]:
        return [w.text for w in self.words]

    def __repr__(self) -> str:
        return f"Command({self.argv!r})"


class Problem:
    """Something the parser could not follow (a parse error, an over-long or over-deep command)."""

    __slots__ = ("detail", "kind", "source")

    def __init__(self, kind: str, detail: str, source: str) -> None:
        self.kind = kind
        self.detail = detail
        self.source = source

    def __repr__(self) -> str:
        return f"Problem({self.kind!r}, {self.detail!r})"


def plain_split(text: str) -> list[str] | None:
    """Split a command made only of plain words (the subset where blanks are the only syntax)."""
    stripped = text.strip(" \t")
    if not stripped or not _PLAIN.fullmatch(stripped):
        return None
    words = stripped.split()
    if any(w in _RESERVED for w in words):
        return None
    return words


_PARSER: Parser | None = None


def _bash_language() -> object:
    """tree_sitter_bash's compiled grammar, loaded without the package's __init__ (which imports
    importlib.resources, and with it tempfile: ~6 ms the hook does not need)."""
    try:
        import importlib.machinery
        import importlib.util

        found = importlib.util.find_spec("tree_sitter_bash")
        for folder in (found.submodule_search_locations or []) if found else []:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                candidate = os.path.join(folder, "_binding" + suffix)
                if os.path.isfile(candidate):
                    loader = importlib.machinery.ExtensionFileLoader("tree_sitter_bash._binding", candidate)
                    spec = importlib.util.spec_from_file_location("tree_sitter_bash._binding", candidate, loader=loader)
                    if spec is None:
                        continue
                    module = importlib.util.module_from_spec(spec)
                    loader.exec_module(module)
                    return module.language()
    except Exception:  # noqa: BLE001 - any surprise: the ordinary import below
        pass
    import tree_sitter_bash

    return tree_sitter_bash.language()


def _parser() -> Parser:
    global _PARSER
    if _PARSER is None:
        import tree_sitter

        _PARSER = tree_sitter.Parser(tree_sitter.Language(_bash_language()))
    return _PARSER


# tree-sitter-bash's scanner reads out of bounds on code points far above the BMP (`{` then
# U+DC6C4 segfaults the process, found by fuzzing; the threshold moves from run to run), and lone
# surrogates cannot be encoded: both become U+FFFD before parsing. No command word, option or
# path the gates decide on is made of them; a crash would end the hook without a decision.
_UNPARSABLE = "[\ud800-\udfff\U00010000-\U0010ffff]"


def parser_safe(text: str) -> str:
    """The text tree-sitter may safely parse: characters above U+FFFF (and lone surrogates) as U+FFFD."""
    return re.sub(_UNPARSABLE, "\ufffd", text) if not text.isascii() else text


# -- the walk ----------------------------------------------------------------------------


_OUTPUT_OPS = (">", ">>", ">|", "&>", "&>>", "<>")


class Walker:
    """Walks bash source and reports every simple command and every problem."""

    def __init__(
        self,
        on_command: Callable[[Command], None],
        on_problem: Callable[[Problem], None],
        on_write: Callable[..., None] | None = None,
        on_assign: Callable[..., None] | None = None,
        on_read: Callable[[Word, str | None], str | None] | None = None,
    ) -> None:
        self.on_command = on_command
        self.on_problem = on_problem
        self.on_write = on_write  # (target, cwd, source, content) for every output redirection
        self.on_assign = on_assign  # ({name: value}, exported) for assignments that are whole statements
        self.on_read = on_read  # (target, cwd) -> the text of a file redirected into a command

    def _redirect(self, node: Node, state: dict, content: str | None = None) -> None:
        """Report where an output redirection writes (`>`, `>>`, `>|`, `&>`, `<>`)."""
        if self.on_write is None or node.type != "file_redirect":
            return
        ops = [c.type for c in node.children if not c.is_named]
        if not any(op in _OUTPUT_OPS for op in ops):
            return
        targets = [c for c in node.named_children if c.type != "file_descriptor"]
        if targets:
            whole = any(op in (">", ">|") for op in ops)
            self.on_write(word_value(targets[-1]), state.get("cwd"), node_text(node), content if whole else None)

    def _input(self, node: Node, state: dict) -> str | None:
        """The text a `< file` redirection feeds (None when it is not one; UNKNOWN when unreadable)."""
        ops = [c.type for c in node.children if not c.is_named]
        if "<" not in ops or any(op in _OUTPUT_OPS for op in ops):
            return None
        targets = [c for c in node.named_children if c.type != "file_descriptor"]
        if not targets:
            return None
        word = word_value(targets[-1])
        text = self.on_read(word, state.get("cwd")) if self.on_read is not None and word.literal else None
        return text if text is not None else UNKNOWN

    # entry point, also used for nested sources (sh -c, eval, heredocs read by a shell, aliases)
    def source(
        self, text: str, cwd: str | None, depth: int = 0, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> None:
        if depth > MAX_DEPTH:
            self.on_problem(Problem("too_deep", f"nested more than {MAX_DEPTH} levels", text))
            return
        if len(text) > MAX_LENGTH:
            self.on_problem(Problem("too_long", f"{len(text)} characters (over {MAX_LENGTH})", text[:200]))
            return
        plain = plain_split(text)
        if plain is not None:
            words = [Word(w) for w in plain]
            cmd_env = dict(env or {})
            while words and _ASSIGNMENT.match(words[0].text) and len(words) > 0:
                name, _, value = words[0].text.partition("=")
                cmd_env[name.rstrip("+")] = value
                words = words[1:]
            if words:
                self.on_command(Command(words, cmd_env, cwd, stdin, text, depth))
            return
        tree = _parser().parse(parser_safe(text).encode("utf-8"))
        root = tree.root_node
        if root.has_error:
            self.on_problem(Problem("parse_error", "bash cannot parse this command", text[:200]))
        state = {"cwd": cwd}
        self._block(root, state, depth, env or {})

    # statements in sequence share the shell state (a literal `cd` moves later commands)
    def _block(self, node: Node, state: dict, depth: int, env: dict[str, str]) -> None:
        for child in node.children:
            self._node(child, state, depth, env)

    def _node(self, node: Node, state: dict, depth: int, env: dict[str, str], stdin: str | None = None) -> None:
        kind = node.type
        if kind == "command":
            self._command(node, state, depth, env, stdin)
        elif kind == "pipeline":
            self._pipeline(list(node.named_children), state, depth, env)
        elif kind == "redirected_statement":
            self._redirected(node, state, depth, env, stdin)
        elif kind in ("subshell", "command_substitution", "process_substitution"):
            self._block(node, dict(state), depth, env)
        elif kind in ("comment", "heredoc_start", "heredoc_end"):
            return
        elif kind in ("variable_assignment", "variable_assignments", "declaration_command"):
            self._assignments(node, state, depth, env)
        elif node.child_count:
            self._block(node, state, depth, env)

    def _assignments(self, node: Node, state: dict, depth: int, env: dict[str, str]) -> None:
        """`x=1`, `export X=1`, `local y=$(…)`: the values are remembered (the analysis expands them
        in later write targets and sees Hallmark's variables exported to later commands)."""
        self._subs(node, state, depth, env)
        if self.on_assign is None:
            return
        exported = node.type == "declaration_command" and (
            node_text(node).startswith("export") or re.search(r"\s-[a-z]*x", node_text(node)) is not None
        )
        found: dict[str, str] = {}
        pending = [node]
        while pending:
            current = pending.pop()
            if current.type == "variable_assignment":
                name = current.child_by_field_name("name")
                value = current.child_by_field_name("value")
                if name is not None:
                    val = word_value(value) if value is not None else Word("")
                    found[node_text(name)] = val.text if val.literal else UNKNOWN
            elif (
                current.type == "variable_name"
                and current.parent is not None
                and current.parent.type == "declaration_command"
            ):
                found.setdefault(node_text(current), "")
            else:
                pending.extend(current.named_children)
        if found:
            self.on_assign(found, exported)

    def _subs(self, node: Node, state: dict, depth: int, env: dict[str, str]) -> None:
        """Run the command substitutions inside a word (they execute even when the word is data)."""
        if node.type in ("command_substitution", "process_substitution"):
            self._block(node, dict(state), depth, env)
            return
        for child in node.children:
            self._subs(child, state, depth, env)

    def _command(self, node: Node, state: dict, depth: int, env: dict[str, str], stdin: str | None) -> None:
        words: list[Word] = []
        cmd_env = dict(env)
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                self._subs(child, state, depth, env)
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if name is not None:
                    val = word_value(value) if value is not None else Word("")
                    cmd_env[node_text(name)] = val.text if val.literal else UNKNOWN
            elif kind == "command_name":
                self._subs(child, state, depth, env)
                inner = child.named_children[0] if child.named_children else child
                words.append(word_value(inner))
            elif kind == "herestring_redirect":
                self._subs(child, state, depth, env)
                target = child.named_children[-1] if child.named_children else None
                if target is not None:
                    val = word_value(target)
                    stdin = val.text + "\n" if val.literal else None
            elif kind in ("file_redirect", "heredoc_redirect"):
                self._subs(child, state, depth, env)
                self._redirect(child, state)
            elif child.is_named:
                self._subs(child, state, depth, env)
                words.append(word_value(child))
        if not words:
            return
        self.on_command(Command(words, cmd_env, state.get("cwd"), stdin, node_text(node), depth))
        self._track_cd(words, state)

    on_cd: Callable[[Word, str | None], str | None] | None = None  # evaluates a computed `cd` target

    def _track_cd(self, words: list[Word], state: dict) -> None:
        if words[0].text not in ("cd", "pushd") or not words[0].literal:
            return
        args = [w for w in words[1:] if not (w.literal and w.text.startswith("-") and w.text != "-")]
        if not args:
            state["cwd"] = os.path.expanduser("~")
            return
        target = args[0]
        if not target.literal and self.on_cd is not None:
            value = self.on_cd(target, state.get("cwd"))
            target = Word(value) if value is not None else target
        if not target.literal or target.text == "-":
            state["cwd"] = None
            return
        if target.text.startswith(UNKNOWN_TEMP):
            state["cwd"] = target.text
            return
        base = state.get("cwd")
        if base is None and not os.path.isabs(target.text):
            return
        state["cwd"] = os.path.normpath(os.path.join(base or "/", target.text))

    def _redirected(self, node: Node, state: dict, depth: int, env: dict[str, str], stdin: str | None) -> None:
        body = node.child_by_field_name("body")
        heredocs: list[tuple[int, str]] = []
        continuation: list = []
        redirects: list = []
        for child in node.children:
            if child is body or child == body:
                continue
            if child.type == "heredoc_redirect":
                heredocs.append((child.start_byte, self._heredoc(child, state, depth, env, continuation)))
            elif child.type == "herestring_redirect":
                self._subs(child, state, depth, env)
                target = child.named_children[-1] if child.named_children else None
                if target is not None:
                    val = word_value(target)
                    heredocs.append((child.start_byte, val.text + "\n" if val.literal else UNKNOWN))
            else:
                self._subs(child, state, depth, env)
                fed_text = self._input(child, state) if child.type == "file_redirect" else None
                if fed_text is not None:
                    heredocs.append((child.start_byte, fed_text))
                else:
                    redirects.append(child)
        if body is None:
            return
        piped = [c for c in continuation if not isinstance(c, tuple)]
        later = [c[1] for c in continuation if isinstance(c, tuple)]
        if body.type == "pipeline" or piped:
            elements = list(body.named_children) if body.type == "pipeline" else [body]
            feeds: dict[int, str | None] = {}
            for start, text in heredocs:
                receiver = 0
                for index, element in enumerate(elements):
                    if element.start_byte <= start:
                        receiver = index
                feeds[receiver] = text
            self._pipeline(elements + piped, state, depth, env, feeds)
        else:
            fed = heredocs[-1][1] if heredocs else stdin
            self._node(body, state, depth, env, fed)
        content = output_of(body, heredocs[-1][1] if heredocs else stdin) if body.type == "command" else None
        for redirect in redirects:  # after the body: `cd x && echo > f` writes f inside x
            self._redirect(redirect, state, content)
        for part in later:
            self._node(part, state, depth, env)

    def _heredoc(self, child: Node, state: dict, depth: int, env: dict[str, str], continuation: list) -> str:
        """A here-document's text; what follows its start line (`<<EOF | sh`, `<<EOF && x`) joins
        continuation, piped nodes as they are and later commands as ("after", node)."""
        text = ""
        for part in child.children:
            if part.type == "heredoc_body":
                self._subs(part, state, depth, env)
                text = node_text(part)
            elif part.type == "pipeline" and part.children and part.children[0].type == "|":
                continuation.extend(part.named_children)
            elif part.type in ("&&", "||", ";", "&"):
                continue
            elif part.is_named and part.type not in (
                "heredoc_start",
                "heredoc_end",
                "heredoc_content",
                "file_redirect",
            ):
                continuation.append(("after", part))
            elif part.type == "file_redirect":
                self._subs(part, state, depth, env)
                self._redirect(part, state)
        return text

    def _pipeline(
        self, elements: list, state: dict, depth: int, env: dict[str, str], feeds: dict[int, str | None] | None = None
    ) -> None:
        """Each element runs in its own subshell; what flows into a shell is code."""
        feeds = feeds or {}
        upstream: str | None = None
        for index, element in enumerate(elements):
            if index in feeds:
                fed: str | None = feeds[index]
            elif index == 0:
                fed = None
            else:
                fed = upstream if upstream is not None else UNKNOWN
            self._node(element, dict(state), depth, env, fed)
            upstream = output_of(element, fed)


def output_of(node: Node, fed: str | None) -> str | None:
    """What a pipeline element writes, when it is plainly data (echo, printf, cat of a heredoc)."""
    if node.type != "command":
        return None
    words = [
        word_value(c.named_children[0] if c.type == "command_name" and c.named_children else c)
        for c in node.children
        if c.type == "command_name"
        or (
            c.is_named
            and c.type not in ("variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect")
        )
    ]
    if not words or not all(w.literal for w in words):
        return None
    name = os.path.basename(words[0].text)
    args = [w.text for w in words[1:]]
    if name == "echo":
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return " ".join(args) + "\n"
    if name == "printf":
        return printf_output(args) if args else ""
    if name == "cat" and not args:
        return fed if fed != UNKNOWN else None
    return None
