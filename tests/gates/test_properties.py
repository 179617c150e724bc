"""Property tests: the one fold survives the index's incremental catch-up (a view stored as JSON
and folded on), its hallmark chain points at the events that struck and carried the hallmark, and
the plain-word fast path splits exactly as the real parser does."""

from __future__ import annotations

import json

from hallmark.core import states
from hallmark.core.gates import shell
from hallmark.core.gates.git_cmds import shell_split
from hallmark.core.gates.push import Context, analyze
from hypothesis import given, settings
from hypothesis import strategies as st

EVENT_NAMES = [
    *sorted(states.TRANSITIONS),
    "created",
    "adopted",
    "held",
    "released",
    "session_bound",
    "titled",
    "usage",
    "prompt",
    "rebased",
    "question",
    "answered",
]
SHAS = st.sampled_from(["", "a" * 40, "b" * 40, "c" * 40])

EVENT = st.builds(
    lambda name, sha, held, kind, actor, carried: {
        "event": name,
        "t": "2026-01-01T00:00:00.000Z",
        "actor": actor,
        "sha": sha,
        "held": held,
        "kind": kind,
        "worktree": "/w",
        "title": "t",
        "session": "s",
        "carried": carried,
        "qid": "Q-1",
        "hold_next": ["x"],
    },
    st.sampled_from(EVENT_NAMES),
    SHAS,
    st.booleans(),
    st.sampled_from(["checks", "budget"]),
    st.sampled_from(["x", "shipper", "assayer"]),
    st.booleans(),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(EVENT, max_size=30), st.data())
def test_the_fold_resumes_from_its_stored_json(events, data):
    """The index stores a view as JSON and folds the next events into it: the result is the fold
    of the whole journal, every field (the hand-written to_dict/from_dict lose nothing)."""
    cut = data.draw(st.integers(0, len(events)))
    stored = json.loads(json.dumps(states.fold("H-0001", events[:cut]).to_dict()))
    resumed = states.ItemView.from_dict(stored)
    for event in events[cut:]:
        states.apply(resumed, event)
    whole = states.fold("H-0001", events)
    assert resumed.to_dict() == whole.to_dict()
    assert resumed == whole
    assert whole.active == (bool(whole.created) and not whole.terminal)


@settings(max_examples=400, deadline=None)
@given(st.lists(EVENT, max_size=30))
def test_the_hallmark_chain_names_the_events_behind_the_hallmark(events):
    view = states.fold("H-0001", events)
    if not view.hallmark_chain:
        return
    first, *carried = [events[i] for i in view.hallmark_chain]
    assert first["event"] == "hallmarked"
    assert all(e["event"] == "rebased" and e["carried"] is True for e in carried)
    assert view.hallmark_chain == sorted(set(view.hallmark_chain))
    assert view.hallmark_sha == str((carried[-1] if carried else first)["sha"] or view.hallmark_sha)


# (tree-sitter reads a leading digit as a file descriptor in some words, e.g. `1@`; bash does not,
# and neither does the fast path, so words here start with a letter)
PLAIN_WORD = st.builds(
    lambda head, tail: head + tail,
    st.sampled_from("abgipuxz"),
    st.text(alphabet="abcgitpushorn-_./:=@%+,0123456789", max_size=7),
)
# (`a+=x` is an append assignment to bash: the fast path must agree)


@settings(max_examples=300, deadline=None)
@given(st.lists(PLAIN_WORD, min_size=1, max_size=6), st.sampled_from([" ", "  ", "\t", " \t "]))
def test_plain_split_is_what_bash_sees(words, sep):
    text = sep.join(words)
    fast = shell.plain_split(text)
    if fast is None:
        return
    seen: list[tuple[dict[str, str], list[str]]] = []

    def record(cmd: shell.Command) -> None:
        seen.append((dict(cmd.env), cmd.argv))

    root = shell._parser().parse(text.encode()).root_node
    if root.has_error:  # tree-sitter's own quirks (`a%` alone is an ERROR there, a word to bash)
        return
    shell.Walker(record, lambda problem: None)._block(root, {"cwd": "/"}, 0, {})
    env: dict[str, str] = {}
    rest = list(fast)
    while rest and shell._ASSIGNMENT.match(rest[0]):
        key, _, value = rest.pop(0).partition("=")
        env[key.rstrip("+")] = value
    assert seen == ([(env, rest)] if rest else [])


@given(st.lists(st.text(alphabet="ab c'\"\\", max_size=6), max_size=4))
def test_shell_split_round_trips_quoted_words(words):
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    assert shell_split(quoted) == words


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_the_analysis_never_raises(text):
    findings = analyze(text, Context("/tmp", alias_lookup=lambda *a: None))
    assert all(f.kind in ("push", "note", "commit", "stage", "strict", "state", "person") for f in findings)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab gitpush$`'\"\\(){}[]|&;<>\n#=*?~!%-./0123456789x\x00é", max_size=100))
def test_the_analysis_never_raises_on_shell_soup(text):
    analyze(text, Context("/tmp", alias_lookup=lambda *a: None))


def test_found_by_fuzzing():
    for text in ("$'\\9'", "$'\\x'", "$'\\u'", "bash 'a\x00b'", "echo > 'a\x00'", "source $'\\0'"):
        analyze(text, Context("/tmp", alias_lookup=lambda *a: None))


def test_characters_that_crash_tree_sitter_never_reach_it():
    """`{` then U+DC6C4 segfaulted tree-sitter-bash's scanner (a crash ends the hook without a
    decision). Parsed 300 times in a fresh process, as the hook would: it must exit cleanly."""
    import subprocess
    import sys

    from hallmark.core.gates.shell import parser_safe

    assert parser_safe("{\U000dc6c4 \U0001f3f4\U000e0067 é\ud800") == "{\ufffd \ufffd\ufffd é\ufffd"
    assert parser_safe("git push") == "git push"
    code = (
        "from hallmark.core.gates.push import analyze, Context\n"
        "for _ in range(300):\n"
        "    analyze('{\\U000dc6c4', Context('/tmp', alias_lookup=lambda *a: None))\n"
        "    analyze('git commit -m \"\\U0001f3f4\\U000e0067\\U000e0062\\U000e007f\" && git push', "
        "Context('/tmp', alias_lookup=lambda *a: None))\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-500:]


def test_the_dispatch_table_names_what_each_rule_module_reads():
    """push.py consults names.py before importing a rule module: the two must agree."""
    from hallmark.core.gates import forges, names, runners, writes

    assert frozenset(forges.FORGE_PUBLISH) == names.FORGES
    assert frozenset(forges.REGISTRY) == names.REGISTRIES
    assert frozenset(runners.RUNNER_FILES) == names.RUNNERS
    assert frozenset(runners.OPAQUE_RUNNERS) == names.OPAQUE_RUNNERS
    assert frozenset(writes.VALUE_OPTIONS) <= names.WRITERS
