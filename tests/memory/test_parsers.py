"""Property tests for the store's parsers: learning files, checkpoints, similarity, globs."""

from __future__ import annotations

from hallmark.core.memory import checkpoint, globs, similarity
from hallmark.core.memory.store import Learning, parse, render
from hypothesis import given
from hypothesis import strategies as st

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)


@given(pattern=TEXT.filter(str.strip), rationale=TEXT, quote=TEXT, paths=st.lists(TEXT, max_size=3))
def test_learning_file_roundtrips_whatever_the_text(pattern, rationale, quote, paths):
    learning = Learning(
        id="L-0042",
        kind="rule",
        pattern=pattern + "\n---\n# not a header",
        rationale=rationale,
        evidence=[{"source": "user_statement", "quote": quote}],
        scope={"project": "github.com/o/r", "paths": paths},
        created="t",
        updated="t",
        version=3,
    )
    assert parse(render(learning)).to_dict() == learning.to_dict()


LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=60).map(str.strip)


@given(values=st.fixed_dictionaries({name: LINE for name in checkpoint.FIELDS}))
def test_checkpoint_render_parse_roundtrip(values):
    assert checkpoint.parse(checkpoint.render(values)) == values


@given(a=TEXT, b=TEXT)
def test_similarity_is_symmetric_and_normalise_idempotent(a, b):
    assert similarity.relation(a, b) == similarity.relation(b, a)
    assert similarity.normalise(similarity.normalise(a)) == similarity.normalise(a)
    assert similarity.relation(a, a.upper().lower()) in ("same", "near", None)


SEGMENT = st.text(alphabet="abcdefghij_-.", min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))


@given(parts=st.lists(SEGMENT, min_size=1, max_size=5))
def test_globs_match_literal_paths_and_their_directories(parts):
    path = "/".join(parts)
    assert globs.match(path, path)
    assert globs.match(path, parts[0] + "/**") or len(parts) == 1
    assert globs.match(path, "**/" + parts[-1])
    if len(parts) > 1:
        assert globs.match(path, parts[0] + "/")
        assert not globs.match(path, "zzz_not_there/**")


def test_normalise_collapses_mixed_separator_runs():
    """Found by hypothesis: ':' then '_' became two spaces, so normalising twice changed the text."""
    assert similarity.normalise("0:_0") == "0 0" == similarity.normalise(similarity.normalise("0:_0"))
    assert similarity.normalise("Clamp_discount -- x") == "clamp discount x"
