"""Each condensing filter on real-format logs (tests/stream/fixtures), plus the rules around them."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hallmark.core.loop import condense as cd
from hypothesis import given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).parent / "fixtures"


def log(name: str) -> str:
    # bytes -> str without universal-newline translation, so `\r` redraws stay as the tool wrote them
    return (FIXTURES / name).read_bytes().decode("utf-8")


def run(command: str, name: str, exit_code: int = 1) -> cd.Condensed:
    return cd.condense(command, log(name), exit_code, "/state/items/H-0001/checks/x.log")


# -- the rules --------------------------------------------------------------------------


def test_small_output_passes_verbatim():
    text = "collected 3 items\n\ntests/test_a.py ..F\n" + "E   assert 1 == 2\n"
    result = cd.condense("pytest", text, 1)
    assert result.text == text
    assert result.family == "verbatim" and not result.condensed
    assert result.bytes_in == result.bytes_out == len(text.encode())


def test_output_over_60_lines_is_condensed_even_when_small_in_bytes():
    text = "\n".join(f"l{i}" for i in range(300)) + "\n"
    assert len(text) < cd.SMALL_BYTES
    result = cd.condense("./script.sh", text, 1)
    assert result.family == "generic"


@pytest.mark.parametrize(
    "command",
    [
        "git diff",
        "git diff --stat main...HEAD",
        "git -C ../wt show HEAD~1",
        "git log -p -n 5",
        "/usr/bin/git --no-pager log --oneline",
    ],
)
def test_evidence_commands_pass_through_untouched(command):
    big = "".join(f"+added line {i}\x1b[32m green\x1b[0m\r\n" for i in range(2000))
    result = cd.condense(command, big, 0)
    assert result.text == big
    assert result.family == "evidence"


@pytest.mark.parametrize("command", ["git status", "git diff && pytest", "echo git diff", "gitk log"])
def test_only_git_diff_show_log_are_evidence(command):
    assert not cd.is_evidence(command)


@pytest.mark.parametrize(
    ("command", "family"),
    [
        ("pytest -q", "pytest"),
        ("python -m pytest tests/", "pytest"),
        ("uv run pytest -x", "pytest"),
        ("cargo test --workspace", "cargo-test"),
        ("cargo +nightly test", "cargo-test"),
        ("cargo build --release", "cargo-build"),
        ("cargo check", "cargo-build"),
        ("cargo clippy -- -D warnings", "cargo-build"),
        ("cargo fmt --check", "cargo-fmt"),
        ("go test ./...", "go-test"),
        ("CI=1 npx jest --ci", "jest"),
        ("pnpm vitest run", "vitest"),
        ("npx vitest", "vitest"),
        ("cd web && npx jest", "jest"),
        ("make test", "generic"),
        ("npm test", "generic"),
    ],
)
def test_the_family_is_picked_from_the_command_line(command, family):
    assert cd.family_of(command) == family


def test_ansi_and_carriage_return_redraws_are_cleaned():
    lines = cd.clean("\x1b[31mred\x1b[0m text\n\rprogress 10%\rprogress 50%\rprogress 100%\nnext\r\n")
    assert lines == ["red text", "progress 100%", "next"]


def test_repeats_collapse_with_a_count():
    assert cd.collapse_repeats(["a", "a", "a", "b", "a"]) == ["a [x3]", "b", "a"]


def test_measurements_and_footer_are_honest():
    result = run("pytest", "pytest_verbose.txt")
    assert result.bytes_in == len(log("pytest_verbose.txt").encode())
    assert result.bytes_out == len(result.text.encode())
    assert result.lines_out == result.text.count("\n")
    assert result.tokens_saved_estimate == (result.bytes_in - result.bytes_out) // 4
    last = result.text.rstrip("\n").splitlines()[-1]
    assert f"{result.bytes_in} B/200 lines -> {result.bytes_out} B/{result.lines_out} lines" in last
    assert "estimate, bytes/4" in last
    assert "/state/items/H-0001/checks/x.log" in last
    data = result.to_dict()
    assert data["tokens_saved_estimate"] == result.tokens_saved_estimate and data["condensed"] is True


def test_the_exit_code_is_kept_in_the_condensed_text():
    assert run("pytest", "pytest_verbose.txt", exit_code=2).text.startswith("$ pytest  (exit 2)")


# -- pytest -----------------------------------------------------------------------------


def test_pytest_keeps_each_failure_with_its_location_message_and_summary():
    result = run("pytest", "pytest_failures.txt")
    text = result.text
    assert result.family == "pytest"
    assert "failures (2):" in text
    # each heading carries its test's file (from the short test summary)
    assert (
        "FAILED tests/test_cart.py::test_total_with_tax" in text
        and "FAILED tests/test_orders.py::test_order_ships" in text
    )
    assert "tests/test_cart.py:41: AssertionError" in text
    assert "E       assert 22.0 == 24.0" in text
    assert "shop/orders.py:71: ValueError" in text and "E           ValueError: no address" in text
    assert "2 failed, 386 passed, 1 skipped, 4 warnings in 6.42s" in text
    # distinct warnings once, with a count
    assert text.count("price_cents is deprecated") == 1
    assert "DeprecationWarning: price_cents is deprecated; use price [x3]" in text
    assert "warnings (4, 2 distinct):" in text
    # progress, passing tests, captured stdout and the session header are gone
    assert "....." not in text and "[100%]" not in text
    assert "platform linux" not in text and "shipping order 1" not in text


def test_pytest_verbose_drops_every_passed_line():
    result = run("pytest -v", "pytest_verbose.txt")
    assert "PASSED" not in result.text
    assert "FAILED tests/test_inventory.py::test_case_121" in result.text
    assert "tests/test_inventory.py:140: AssertionError" in result.text
    assert result.bytes_out < result.bytes_in / 10


def test_pytest_collection_errors_are_failures_too():
    found = cd.filter_pytest(cd.clean(log("pytest_collection_error.txt")), 2)
    assert found is not None
    rendered = "\n".join(found.render([], 2))
    assert "ERROR collecting tests/test_discounts.py" in rendered
    assert "tests/test_discounts.py:3: in <module>" in rendered
    assert "E   ImportError: cannot import name 'bulk_discount'" in rendered
    assert "Interrupted: 1 error during collection" in rendered
    assert "1 error in 0.48s" in rendered


# -- cargo ------------------------------------------------------------------------------


def test_cargo_test_keeps_panics_with_location_and_the_result_line():
    result = run("cargo test", "cargo_test_failures.txt", 101)
    text = result.text
    assert result.family == "cargo-test"
    assert "FAILED cart::tests::total_with_tax" in text
    assert "panicked at src/cart.rs:88:9:" in text
    assert "left: 22.0" in text and "right: 24.0" in text
    assert "FAILED orders::tests::ships_with_address" in text and "src/orders.rs:140:30" in text
    assert "test result: FAILED. 62 passed; 2 failed" in text
    assert "warning: unused variable: `discount` --> src/pricing.rs:27:13 [x2]" in text
    assert "Compiling" not in text and "Downloaded" not in text and " ... ok" not in text
    assert "RUST_BACKTRACE" not in text


def test_cargo_build_keeps_every_error_block_and_counts_warnings_once():
    result = run("cargo build", "cargo_build_errors.txt", 101)
    text = result.text
    assert result.family == "cargo-build"
    assert "error[E0308]: mismatched types" in text and "--> src/cart.rs:42:26" in text
    assert "expected `u32`, found `f64`" in text
    assert "error[E0425]: cannot find value `rate` in this scope" in text and "--> src/pricing.rs:19:22" in text
    assert text.count("unused import: `std::collections::HashMap`") == 1
    assert "[x4]" in text
    assert "error: could not compile `shop` (lib) due to 2 previous errors" in text
    assert "Compiling" not in text


def test_cargo_clippy_repeated_errors_keep_every_location_but_one_explanation():
    result = run("cargo clippy -- -D warnings", "cargo_clippy.txt", 101)
    text = result.text
    assert "failures (10):" in text
    for line in range(10, 67, 7):
        assert f"src/orders.rs:{line}:30" in text
    assert text.count("if_same_then_else") <= 2
    assert "error: redundant clone" in text and "src/cart.rs:61:25" in text
    assert "Checking" not in text
    assert result.bytes_out < result.bytes_in / 2


def test_cargo_fmt_lists_every_unformatted_place():
    result = run("cargo fmt --check", "cargo_fmt_check.txt")
    text = result.text
    assert result.family == "cargo-fmt"
    for where in (
        "src/cart.rs:40",
        "src/orders.rs:12",
        "src/orders.rs:97",
        "src/pricing.rs:5",
        "src/inventory.rs:210",
        "src/lib.rs:1",
    ):
        assert f"not formatted: /home/dev/shop/{where} (+6 -1)" in text
    assert "6 unformatted hunk(s) in 5 file(s)" in text


def test_cargo_fmt_old_at_line_form():
    lines = [
        "Diff in /repo/src/main.rs at line 3:",
        " fn main() {",
        '-    println!("hi") ;',
        '+    println!("hi");',
        " }",
    ]
    found = cd.filter_cargo_fmt(lines, 1)
    assert found is not None and found.failures[0][0] == "not formatted: /repo/src/main.rs:3 (+1 -1)"


# -- go ---------------------------------------------------------------------------------


def test_go_test_verbose_keeps_failing_tests_with_their_log_lines_only():
    result = run("go test -v ./...", "go_test_verbose.txt")
    text = result.text
    assert result.family == "go-test"
    assert "--- FAIL: TestCartTotalWithTax (0.00s)" in text
    assert "cart_test.go:42: total(0.2) = 22, want 24" in text
    assert "--- FAIL: TestOrderTable/no_address (0.00s)" in text
    assert 'orders_test.go:61: Ship() error = <nil>, want "no address"' in text
    assert "failures (2):" in text  # the parent TestOrderTable adds nothing of its own
    assert "seeded with 42" not in text  # a passing test's log
    assert "=== RUN" not in text and "--- PASS" not in text
    assert "FAIL example.com/shop/cart" in text and "ok: 2 package(s)" in text


def test_go_test_panics_and_build_failures():
    result = run("go test ./...", "go_test_panic_build.txt")
    text = result.text
    assert "--- FAIL: TestInventoryAt (0.00s)" in text
    assert "panic: runtime error: index out of range [3] with length 3" in text
    assert "/home/dev/shop/inventory/inventory.go:31" in text
    assert "/usr/local/go/src" not in text  # runtime frames go
    assert "build failed: example.com/shop/orders" in text
    assert "orders/orders_test.go:12:9: undefined: NewOrdr" in text
    assert "FAIL example.com/shop/orders [build failed]" in text
    assert "ok: 41 package(s)" in text and "mod07" not in text


# -- jest and vitest --------------------------------------------------------------------


def test_jest_keeps_each_failure_once_with_message_source_line_and_location():
    result = run("npx jest", "jest_failures.txt")
    text = result.text
    assert result.family == "jest"
    assert "failures (2):" in text  # "Summary of all failing tests" repeats them; they are listed once
    assert "● src/cart.test.js › Cart › total › applies tax" in text
    assert "Expected: 24" in text and "Received: 22" in text
    assert "> 42 |   expect(total).toBe(24);" in text
    assert "at src/cart.test.js:42:17" in text and "at src/cart.test.js:51:42" in text
    assert "Tests:       2 failed, 71 passed, 73 total" in text
    assert "console.warn: [deprecated] formatPrice(cents) will be removed in 2.0 [x12]" in text
    assert "PASS" not in text and "cart ready with 0 items" not in text


def test_vitest_keeps_each_failure_with_location_and_the_source_line():
    result = run("npx vitest run", "vitest_failures.txt")
    text = result.text
    assert result.family == "vitest"
    assert "FAIL src/cart.test.ts > Cart > total > applies tax" in text
    assert "AssertionError: expected 22 to be 24" in text
    assert "at src/cart.test.ts:42:17" in text and "42| expect(total).toBe(24);" in text
    assert "FAIL src/cart.test.ts > Cart > rejects negative quantities" in text
    assert "at src/cart.test.ts:51:42" in text
    assert "Tests 2 failed | 88 passed (90)" in text and "Test Files 1 failed | 7 passed (8)" in text
    assert "✓" not in text and "processing batch" not in text and "Duration" not in text


# -- generic and fallbacks --------------------------------------------------------------


def test_generic_keeps_head_and_tail_and_collapses_repeats():
    result = run("./build.sh", "generic_build.txt")
    text = result.text
    assert result.family == "generic"
    assert "Downloading assets [####################] 100%" in text and "] 2%" not in text
    assert "\x1b[" not in text
    assert "warn: image docs/img/logo.png is larger than 500 KB [x12]" in text
    assert "error: broken link in docs/page-077.html" in text and "build failed: 1 error" in text
    assert "page-000.html" in text  # head
    assert "page-060.html" not in text  # middle
    assert "line(s) omitted" in text


def test_generic_rescues_error_lines_from_the_middle():
    lines = [f"step {i}" for i in range(50)] + ["ERROR: disk full at step 50"] + [f"step {i}" for i in range(51, 200)]
    out = cd.generic(lines)
    assert "ERROR: disk full at step 50" in out
    assert len(out) < 80


def test_a_family_filter_that_does_not_recognise_its_output_falls_back_to_generic():
    text = "".join(f"unrelated output {i}\n" for i in range(200))
    result = cd.condense("pytest", text, 4)
    assert result.family == "generic"
    assert "unrelated output 0" in result.text and "unrelated output 199" in result.text


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("pytest_failures.txt", "pytest"),
        ("cargo_test_failures.txt", "cargo-test"),
        ("cargo_build_errors.txt", "cargo-build"),
        ("go_test_verbose.txt", "go-test"),
        ("jest_failures.txt", "jest"),
        ("vitest_failures.txt", "vitest"),
        ("cargo_fmt_check.txt", "cargo-fmt"),
    ],
)
def test_a_command_naming_no_tool_is_sniffed_from_its_output(name, family):
    assert run("make test", name).family == family


def test_red_output_with_nothing_recognisable_shows_its_last_lines():
    lines = [
        "=" * 30 + " test session starts " + "=" * 30,
        *[f"noise {i}" for i in range(100)],
        "INTERNALERROR> KeyError: 'x'",
    ]
    found = cd.filter_pytest(lines, 3)
    assert found is not None
    rendered = found.render(lines, 3)
    assert "INTERNALERROR> KeyError: 'x'" in rendered
    assert "last lines of the output:" in rendered


def test_condensing_never_grows_the_output():
    text = "".join(f"error: e{i}\n  --> src/a.rs:{i}:1\n" for i in range(40))
    result = cd.condense("cargo build", text, 101)
    assert result.bytes_out <= result.bytes_in


@settings(max_examples=150, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=5000),
    st.sampled_from(
        [
            "pytest",
            "cargo test",
            "cargo build",
            "cargo fmt --check",
            "go test ./...",
            "npx jest",
            "npx vitest",
            "make",
            "git diff",
            "sh -c 'unbalanced",
        ]
    ),
    st.one_of(st.none(), st.integers(-5, 300)),
)
def test_condense_is_total_and_measures_itself(output, command, exit_code):
    result = cd.condense(command, output, exit_code, "/tmp/x.log")
    assert result.bytes_out == len(result.text.encode("utf-8", "replace"))
    assert result.bytes_in == len(output.encode("utf-8", "replace"))
    assert result.tokens_saved_estimate >= 0
    if result.family in ("verbatim", "evidence"):
        assert result.text == output


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "FAILED tests/a.py::t - x",
                "=" * 20 + " FAILURES " + "=" * 20,
                "_" * 10 + " t " + "_" * 10,
                "E   boom",
                "tests/a.py:3: AssertionError",
                "--- FAIL: TestA (0.00s)",
                "    a_test.go:3: no",
                "FAIL\tpkg\t0.1s",
                "error[E0308]: x",
                "  --> src/a.rs:1:1",
                "test result: FAILED. 1 passed; 1 failed",
                "---- t stdout ----",
                " FAIL  src/a.test.ts > a",
                " ❯ src/a.test.ts:1:1",
                "  ● a › b",
                "Tests:  1 failed",
                "panic: x",
                "# pkg",
                "Diff in /a.rs:3:",
                "+x",
                "-y",
                "",
                "   |",
                "random words",
            ]
        ),
        max_size=300,
    )
)
def test_every_family_filter_is_total_on_shuffled_real_lines(lines):
    for name, family_filter in cd.FILTERS.items():
        found = family_filter(lines, 1)
        if found is not None:
            rendered = found.render(lines, 1)
            assert all(isinstance(x, str) for x in rendered), name


def test_pytest_quiet_summary_line_without_its_rule():
    lines = [
        "..F" + "." * 70 + " [ 50%]",
        "." * 73 + " [100%]",
        "=" * 30 + " FAILURES " + "=" * 30,
        "_" * 20 + " test_x " + "_" * 20,
        "",
        ">       assert f() == 2",
        "E       assert 1 == 2",
        "",
        "tests/test_x.py:9: AssertionError",
        "=" * 10 + " short test summary info " + "=" * 10,
        "FAILED tests/test_x.py::test_x - assert 1 == 2",
        "1 failed, 145 passed in 0.91s",
    ]
    found = cd.filter_pytest(lines, 1)
    assert found is not None and found.summary == ["1 failed, 145 passed in 0.91s"]
    assert found.failures[0][0] == "FAILED tests/test_x.py::test_x"


def test_generic_keeps_file_line_locations_from_the_middle():
    lines = [f"checking module {i}" for i in range(100)]
    lines[50] = "src/app/models.py:41:5: F841 local variable 'x' is assigned to but never used"
    out = cd.generic(lines)
    assert lines[50] in out


def test_cargo_nextest_keeps_the_failing_test_its_panic_and_the_summary():
    result = run("cargo nextest run", "cargo_nextest_failures.txt", 100)
    text = result.text
    assert result.family == "cargo-test"
    assert "failures (1):" in text  # listed again after the Summary, shown once
    assert "FAIL shop cart::tests::total_with_tax" in text
    assert "panicked at src/cart.rs:88:9:" in text and "left: 22.0" in text
    assert "Summary [   0.231s] 64 tests run: 63 passed, 1 failed, 0 skipped" in text
    assert "error: test run failed" in text
    assert "PASS [" not in text and "test result:" not in text and "Compiling" not in text


# -- snapshots: the whole condensed text of every fixture, pinned ---------------------------

SNAPSHOTS = Path(__file__).parent / "snapshots"
COMMANDS = {
    "pytest_failures.txt": "pytest",
    "pytest_verbose.txt": "pytest -v",
    "pytest_collection_error.txt": "pytest",
    "cargo_test_failures.txt": "cargo test",
    "cargo_nextest_failures.txt": "cargo nextest run",
    "cargo_build_errors.txt": "cargo build",
    "cargo_clippy.txt": "cargo clippy -- -D warnings",
    "cargo_fmt_check.txt": "cargo fmt --check",
    "go_test_verbose.txt": "go test -v ./...",
    "go_test_panic_build.txt": "go test ./...",
    "jest_failures.txt": "npx jest",
    "vitest_failures.txt": "npx vitest run",
    "generic_build.txt": "./build.sh",
}


def test_every_fixture_has_a_command():
    assert set(COMMANDS) == {p.name for p in FIXTURES.glob("*.txt")}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_condensed_text_matches_its_snapshot(name):
    """Set HALL_UPDATE_SNAPSHOTS=1 to rewrite them after a deliberate change, then read the diff."""
    import os

    text = cd.condense(COMMANDS[name], log(name), 1, f"/state/checks/{name}.log").text
    snapshot = SNAPSHOTS / name
    if os.environ.get("HALL_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.read_text(encoding="utf-8") == text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "", "x [x2]"]), max_size=60))
def test_collapse_repeats_loses_no_line(lines):
    import re

    out = cd.collapse_repeats(lines)
    total = 0
    for line in out:
        match = re.match(r"^(.*) \[x(\d+)\]$", line)
        if match and int(match.group(2)) > 1 and match.group(1) in lines:
            total += int(match.group(2))
        else:
            total += 1
    assert total == len(lines)
    assert all(a != b for a, b in itertools.pairwise(out))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \r\n\x1b[31m0;K]\x07")), max_size=300))
def test_clean_leaves_no_escape_or_carriage_return(text):
    for line in cd.clean(text):
        assert "\r" not in line and "\n" not in line
        assert "\x1b[" not in line
