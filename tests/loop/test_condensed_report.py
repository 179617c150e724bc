"""The fixer reads the whole condensed report: a real pytest run with 20 failures (15 sharing one
traceback) in an item's worktree, through the checks, the journal and the fixer's prompt."""

from __future__ import annotations

from hallmark.core import items
from hallmark.core.loop import daemon, findings, fix

LIB = """class BadSignature(Exception):
    pass


def _split(value):
    head, sep, stamp = value.rpartition(".")
    if not sep or not stamp.isdigit():
        raise BadSignature("Malformed timestamp in a signed value that was expected to carry one")
    return head, int(stamp)


def loads(value):
    return _split(value)[0]
"""
TESTS = (
    "import pytest\n\nimport signing\n\n\n"
    + "".join(
        f"def test_plain_{i}():\n    assert signing.loads('a.{i}') == 'b' * {i + 1}, 'the payload of a signed value "
        f"must come back exactly as it was signed, byte for byte'\n\n\n"
        for i in range(5)
    )
    + "@pytest.mark.parametrize('value', ["
    + ", ".join(repr(f"payload-{i}-" + "x" * 30) for i in range(15))
    + "])\ndef test_bad_payload(value):\n    assert signing.loads(value) == value\n"
)


def test_the_report_a_fixer_gets_is_whole(loop_repo, ready_item, scenario, kit):
    kit.write_config(loop_repo.root, gates=["python3 -m pytest -p no:cacheprovider tests_signing"])
    repo = kit.reopen(loop_repo)
    item_id = ready_item({"signing.py": LIB, "tests_signing/test_signing.py": TESTS}, title="signing")
    daemon.pass_repo(repo, "t")  # the checks fail: 20 failures
    (run,) = kit.events(repo, item_id, "check_run")
    output = run["output"]
    assert "20 failed" in output, "the totals line"
    assert output.rstrip("\n").splitlines()[-1].startswith("[condensed ") and run["log"] in output, "the footer"
    assert "failing tests (20):" in output
    for i in range(5):
        assert f"test_plain_{i}" in output
    for i in range(15):
        assert f"payload-{i}-" in output  # every failing test's ID
    assert "[x15] the same traceback also failed" in output
    assert output.count("Malformed timestamp in a signed value") <= 2  # one block, not fifteen
    assert "FAILED tests_signing/test_signing.py::test_plain_0" in output  # the heading carries the file
    failed = kit.events(repo, item_id, "checks_failed")[-1]
    assert failed["condensed"].rstrip("\n").endswith(output.rstrip("\n").splitlines()[-1])
    view = items.fold_item(repo, item_id)
    prompt = fix.build_prompt(repo, view)
    assert output.strip() in prompt  # the fixer gets all of it, never a cut-off piece
    assert [c["output"] for c in findings.failing_checks(repo, item_id)] == [output]
