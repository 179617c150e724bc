"""The stream-json parser: real captures in ../shared read in place, real-format streams written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hallmark.core.runner import trace
from hypothesis import given, settings
from hypothesis import strategies as st

SID = "5b0c1a6e-8d2f-4c8e-9a51-2f7d3c9e0b14"


# -- real-format lines (the shapes of claude -p --output-format stream-json --verbose, CLI 2.1.x) ----


def init(session: str = SID, model: str = "claude-sonnet-4-5-20250929", cwd: str = "/work/repo-H-0001") -> dict:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "session_id": session,
        "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "TodoWrite"],
        "mcp_servers": [],
        "model": model,
        "permissionMode": "acceptEdits",
        "slash_commands": ["compact", "review"],
        "apiKeySource": "none",
        "claude_code_version": "2.1.19",
        "output_style": "default",
        "agents": ["general-purpose"],
        "skills": [],
        "plugins": [{"name": "hallmark", "path": "/opt/hallmark/plugin"}],
        "uuid": "3f1e2d4c-0000-4000-8000-000000000001",
    }


def assistant(blocks: list[dict], msg_id: str = "msg_01A", parent: str | None = None, session: str = SID) -> dict:
    return {
        "type": "assistant",
        "message": {
            "model": "claude-sonnet-4-5-20250929",
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "content": blocks,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 4,
                "cache_creation_input_tokens": 1200,
                "cache_read_input_tokens": 9000,
                "output_tokens": 80,
                "service_tier": "standard",
            },
        },
        "parent_tool_use_id": parent,
        "session_id": session,
        "uuid": "a-" + msg_id,
    }


def text(words: str, **kw) -> dict:
    return assistant([{"type": "text", "text": words}], **kw)


def tool_use(name: str, tool_input: dict, use_id: str, **kw) -> dict:
    return assistant([{"type": "tool_use", "id": use_id, "name": name, "input": tool_input}], **kw)


def tool_result(use_id: str, content, is_error: bool = False, stdout: str | None = None) -> dict:
    line = {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": use_id, "type": "tool_result", "content": content, "is_error": is_error}],
        },
        "parent_tool_use_id": None,
        "session_id": SID,
        "uuid": "u-" + use_id,
    }
    if stdout is not None:
        line["tool_use_result"] = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
    return line


def result(
    subtype: str = "success",
    *,
    structured=None,
    model_usage: bool = True,
    session: str = SID,
    text_result: str | None = "Done.",
    is_error: bool = False,
) -> dict:
    line = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": 41250,
        "duration_api_ms": 39800,
        "num_turns": 6,
        "session_id": session,
        "total_cost_usd": 0.318,
        "usage": {
            "input_tokens": 20,
            "cache_creation_input_tokens": 3000,
            "cache_read_input_tokens": 50000,
            "output_tokens": 900,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 3000},
        },
        "permission_denials": [],
        "uuid": "r-1",
    }
    if text_result is not None and subtype == "success":
        line["result"] = text_result
    if subtype.startswith("error"):
        line["errors"] = ["Reached maximum budget ($1.00)"]
    if model_usage:
        line["modelUsage"] = {
            "claude-sonnet-4-5-20250929": {
                "inputTokens": 30,
                "outputTokens": 1400,
                "cacheReadInputTokens": 61000,
                "cacheCreationInputTokens": 5200,
                "webSearchRequests": 0,
                "costUSD": 0.29,
                "contextWindow": 200000,
                "maxOutputTokens": 64000,
            },
            "claude-haiku-4-5-20251001": {
                "inputTokens": 500,
                "outputTokens": 120,
                "cacheReadInputTokens": 0,
                "cacheCreationInputTokens": 0,
                "webSearchRequests": 0,
                "costUSD": 0.028,
                "contextWindow": 200000,
                "maxOutputTokens": 64000,
            },
        }
    if structured is not None:
        line["structured_output"] = structured
    return line


def end(exit_code: int = 0, failure: str | None = None) -> dict:
    return {
        "type": "hall_run_end",
        "role": "review",
        "item": "H-0001",
        "exit_code": exit_code,
        "duration_ms": 42010,
        "failure": failure,
        "cwd": "/work/repo-H-0001",
    }


def review_run() -> list[dict]:
    verdict = {
        "approve": False,
        "findings": [
            {
                "lens": "correctness",
                "severity": "major",
                "file": "app.py",
                "line": 2,
                "scenario": "add('1', 2) raises TypeError",
            }
        ],
    }
    return [
        {
            "type": "system",
            "subtype": "hook_started",
            "hook_id": "h1",
            "hook_name": "SessionStart:startup",
            "hook_event": "SessionStart",
            "uuid": "h-1",
            "session_id": SID,
        },
        init(),
        assistant([{"type": "thinking", "thinking": "Read the diff first.\nThen the tests.", "signature": "sig=="}]),
        text("I'll review the change against the base branch's rules."),
        tool_use("Bash", {"command": "git diff main...HEAD", "description": "Show the diff"}, "toolu_01"),
        tool_result("toolu_01", "diff --git a/app.py b/app.py\n+    return a + b\n", stdout="diff --git …"),
        tool_use("Read", {"file_path": "/work/repo-H-0001/app.py"}, "toolu_02"),
        tool_result("toolu_02", [{"type": "text", "text": "     1\tdef add(a, b):\n     2\t    return a + b\n"}]),
        tool_use("Grep", {"pattern": "add\\(", "path": "tests"}, "toolu_03"),
        tool_result("toolu_03", "<tool_use_error>Path does not exist: tests</tool_use_error>", is_error=True),
        {
            "type": "system",
            "subtype": "api_retry",
            "attempt": 1,
            "max_retries": 10,
            "retry_delay_ms": 1200,
            "error_status": 529,
            "error": "overloaded_error",
            "uuid": "x",
            "session_id": SID,
        },
        tool_use(
            "Task",
            {"description": "Check callers", "prompt": "Find every caller of add", "subagent_type": "Explore"},
            "toolu_04",
        ),
        text("Searching callers.", msg_id="msg_sub", parent="toolu_04"),
        tool_result("toolu_04", [{"type": "text", "text": "Two callers: cli.py:10, api.py:33"}]),
        result(structured=verdict, text_result=""),
        end(),
    ]


def write_stream(path: Path, records: list, *, tail: bytes = b"") -> Path:
    with open(path, "wb") as handle:
        for record in records:
            raw = record if isinstance(record, bytes) else json.dumps(record).encode()
            handle.write(raw + b"\n")
        handle.write(tail)
    return path


# -- the shared captures, read in place --------------------------------------------------


def _samples(shared_dir: Path) -> list[Path]:
    folder = shared_dir / "formats" / "samples" / "stream-json"
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_every_shared_stream_file_reads_without_error(shared_dir):
    files = _samples(shared_dir)
    assert len(files) >= 6
    for path in files:
        steps = trace.read_steps(path)
        assert steps, path.name
        assert not [s for s in steps if s.kind == "error"], path.name
        for step in steps:
            assert step.kind in trace.KINDS
            assert isinstance(step.detail, str) and isinstance(step.summary, str)
            json.dumps(step.to_dict())


def test_hall_trace_file_reads_every_shared_stream_file(shared_dir, hall, tmp_path):
    for path in _samples(shared_dir):
        as_json = hall("trace", "--file", str(path), "--json", cwd=tmp_path)
        assert as_json.code == 0, (path.name, as_json.stderr)
        rows = [json.loads(line) for line in as_json.stdout.splitlines()]
        assert rows and all({"run", "line", "kind", "summary", "detail"} <= set(r) for r in rows)
        as_text = hall("trace", "--file", str(path), "--text", cwd=tmp_path)
        assert as_text.code == 0 and as_text.stderr == ""
        assert as_text.stdout.startswith("── run 1 ──")


def test_nineteen_appended_runs_are_numbered(shared_dir):
    path = shared_dir / "formats/samples/stream-json/DragonelRoland__self-agents__claude_output.jsonl"
    steps = trace.read_steps(path)
    assert max(s.run for s in steps) == 19
    results = [s for s in steps if s.kind == "result"]
    assert len(results) == 18 and all(s.is_error for s in results)  # subtype success, is_error true
    assert "Credit balance is too low" in results[-1].summary
    assert [s.kind for s in steps if s.run == 19] == ["init"]  # the file ends with a bare init
    info = trace.run_info(path)
    assert info["runs"] == 19 and info["has_result"] is False and info["ended"] is False
    second = trace.run_info(path, run=2)
    assert second["has_result"] and second["is_error"] and second["result"] == "Credit balance is too low"
    assert second["usage"]["source"] == "usage"


def test_a_run_cut_off_without_result_and_a_run_followed_by_the_next_init(shared_dir):
    cut = trace.read_steps(
        shared_dir / "formats/samples/stream-json/ArturoKuang__sandbox_ai_compiler__claude_output.jsonl"
    )
    assert {s.run for s in cut} == {1}
    assert not [s for s in cut if s.kind == "result"]
    results = [s for s in cut if s.kind == "tool_result"]
    assert len(results) == 79 and sum(s.is_error for s in results) == 11
    assert all(s.tool for s in results)  # every result is named after its call
    assert [s for s in cut if s.parent]  # Task subagent lines are marked
    zee = trace.read_steps(shared_dir / "formats/samples/stream-json/Zeeeepa__github.gg__claude_output.jsonl")
    assert max(s.run for s in zee) == 7
    assert len([s for s in zee if s.kind == "result"]) == 5
    assert zee[-1].kind == "tool_call"
    assert not [s for s in zee if s.run == 6 and s.kind == "result"]


def test_pretty_printed_single_messages(shared_dir):
    folder = shared_dir / "formats/samples/stream-json/single-messages"
    only = trace.read_steps(folder / "charlieyou__claude-agent-sdk-gleam__result_success.json")
    assert [s.kind for s in only] == ["result"]
    info = trace.run_info(folder / "charlieyou__claude-agent-sdk-gleam__result_success.json")
    assert info["usage"]["source"] == "modelUsage"
    assert info["usage"]["output_tokens"] == 765 and info["usage"]["cache_read_tokens"] == 28775
    assert info["session_id"] == "40e7b02d-c0f9-4876-9010-f514d4eb0603"
    assert [s.kind for s in trace.read_steps(folder / "charlieyou__claude-agent-sdk-gleam__system_message.json")] == [
        "init"
    ]


# -- real-format streams written here ----------------------------------------------------


def test_a_review_run_becomes_named_steps(tmp_path):
    steps = trace.read_steps(write_stream(tmp_path / "r.jsonl", review_run()))
    kinds = [s.kind for s in steps]
    assert kinds == [
        "system",
        "init",
        "thinking",
        "text",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "retry",
        "tool_call",
        "text",
        "tool_result",
        "result",
        "end",
    ]
    assert {s.run for s in steps} == {1}  # startup hook lines belong to the run they start
    by_kind = {s.kind: s for s in steps}
    assert steps[4].summary == "Bash: git diff main...HEAD" and steps[4].tool == "Bash"
    assert json.loads(steps[4].detail) == {"command": "git diff main...HEAD", "description": "Show the diff"}
    # a result names its call and says what came back: the same words in the app and `hall trace`
    assert steps[5].tool == "Bash" and steps[5].summary.startswith("Bash: git diff main...HEAD → diff --git a/app.py")
    assert "+    return a + b" in steps[5].detail
    assert steps[6].summary == "Read: /work/repo-H-0001/app.py"
    lines = steps[7].detail.strip().count("\n") + 1
    assert steps[7].summary == f"Read: /work/repo-H-0001/app.py → {lines} line{'s' if lines != 1 else ''}"
    assert steps[7].chars == len(steps[7].detail) and "~" in trace.step_text(steps[7])
    assert steps[8].summary == "Grep: add\\( in tests"
    assert steps[9].is_error and steps[9].summary.startswith("Grep: add\\( in tests → ERROR:")
    assert by_kind["retry"].summary.startswith("API retry 1/10 in 1200 ms: 529 overloaded_error")
    assert steps[11].summary.startswith("Task (Explore): Check callers")
    assert steps[12].parent == "toolu_04" and steps[12].summary.startswith("[subagent] ")
    assert by_kind["thinking"].detail == "Read the diff first.\nThen the tests."
    assert "structured output" in by_kind["result"].summary and "$0.3180" in by_kind["result"].summary
    assert '"severity": "major"' in by_kind["result"].detail
    assert by_kind["end"].summary.startswith("run ended: exit 0 · review")
    assert [s.line for s in steps][:6] == [1, 2, 3, 4, 5, 6]


def test_run_info_reads_result_structured_output_session_and_model_usage(tmp_path):
    info = trace.run_info(write_stream(tmp_path / "r.jsonl", review_run()))
    assert info["session_id"] == SID and info["model"] == "claude-sonnet-4-5-20250929"
    assert info["ended"] is True and info["exit_code"] == 0 and info["failure"] is None
    assert info["structured_output"]["findings"][0]["severity"] == "major"
    usage = info["usage"]
    assert usage["source"] == "modelUsage"  # the source of truth: covers the haiku subagent too
    assert usage["input_tokens"] == 530 and usage["output_tokens"] == 1520
    assert usage["cache_read_tokens"] == 61000 and usage["cache_write_tokens"] == 5200
    assert set(usage["by_model"]) == {"claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}
    assert info["cost_usd"] == pytest.approx(0.318) and info["num_turns"] == 6
    assert info["cwd"] == "/work/repo-H-0001"


def test_usage_falls_back_to_the_usage_block(tmp_path):
    info = trace.run_info(write_stream(tmp_path / "r.jsonl", [init(), result(model_usage=False)]))
    usage = info["usage"]
    assert usage["source"] == "usage"
    assert (usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"], usage["cache_write_tokens"]) == (
        20,
        900,
        50000,
        3000,
    )


def test_error_results_and_failed_end_lines(tmp_path):
    records = [init(), result("error_max_budget_usd", model_usage=False), end(1, "the result has no structured_output")]
    steps = trace.read_steps(write_stream(tmp_path / "r.jsonl", records))
    res, fin = steps[1], steps[2]
    assert res.is_error and "error_max_budget_usd" in res.summary and "Reached maximum budget" in res.summary
    assert fin.is_error and "failed: the result has no structured_output" in fin.summary
    info = trace.run_info(tmp_path / "r.jsonl")
    assert info["is_error"] and info["failure"] == "the result has no structured_output" and info["exit_code"] == 1


def test_runs_are_numbered_by_init_and_by_what_follows_a_result(tmp_path):
    second = "9d7c0f1e-1111-4222-8333-444455556666"
    records = [
        init(),
        text("one"),
        result(),
        end(),
        {"type": "system", "subtype": "hook_started", "hook_name": "SessionStart:startup", "session_id": second},
        init(session=second),
        text("two", session=second),
        init(session="third"),
        text("three"),
        result(session="third"),
    ]
    steps = trace.read_steps(write_stream(tmp_path / "r.jsonl", records))
    assert [(s.run, s.kind) for s in steps] == [
        (1, "init"),
        (1, "text"),
        (1, "result"),
        (1, "end"),
        (2, "system"),
        (2, "init"),
        (2, "text"),
        (3, "init"),
        (3, "text"),
        (3, "result"),
    ]
    assert trace.run_info(tmp_path / "r.jsonl", run=2)["session_id"] == second
    assert trace.run_info(tmp_path / "r.jsonl")["session_id"] == "third"


def test_a_torn_last_line_is_an_error_step_and_everything_before_it_reads(tmp_path):
    whole = json.dumps(text("almost done")).encode()
    path = write_stream(tmp_path / "r.jsonl", [init(), text("hello")], tail=whole[: len(whole) // 2])
    steps = trace.read_steps(path)
    assert [s.kind for s in steps] == ["init", "text", "error"]
    assert "torn last line" in steps[-1].summary and steps[-1].line == 3
    info = trace.run_info(path)
    assert info["session_id"] == SID and info["has_result"] is False and info["ended"] is False


def test_a_live_runs_half_written_line_is_not_yet_a_step(tmp_path):
    whole = json.dumps(text("almost done")).encode()
    path = write_stream(tmp_path / "r.jsonl", [init(), text("hello")], tail=whole[:30])
    assert [s.kind for s in trace.iter_steps(path, live=True)] == ["init", "text"]


def test_a_last_line_without_newline_that_parses_is_a_normal_step(tmp_path):
    path = write_stream(tmp_path / "r.jsonl", [init()], tail=json.dumps(result()).encode())
    assert [s.kind for s in trace.read_steps(path)] == ["init", "result"]


def test_garbage_lines_become_error_or_unknown_steps(tmp_path):
    records = [
        init(),
        b"not json at all",
        b"[1, 2, 3]",
        b"42",
        b'{"type": "telemetry", "x": 1}',
        b'{"no_type": true}',
        b"\xff\xfe binary",
        b"",
        b"   ",
        json.dumps({"type": "assistant", "message": {"content": []}}).encode(),
        json.dumps({"type": "user", "message": "odd"}).encode(),
        json.dumps(
            {
                "type": "assistant",
                "message": {
                    "content": [
                        {"type": "server_tool_use", "name": "web_search", "id": "s1", "input": {"query": "x"}},
                        {"type": "mystery"},
                        "str-block",
                    ]
                },
            }
        ).encode(),
        json.dumps({"type": "stream_event", "event": {"type": "content_block_delta"}}).encode(),
        json.dumps(result()).encode(),
    ]
    steps = trace.read_steps(write_stream(tmp_path / "r.jsonl", records))
    kinds = [s.kind for s in steps]
    assert kinds == [
        "init",
        "error",
        "error",
        "error",
        "unknown",
        "unknown",
        "error",
        "unknown",
        "unknown",
        "tool_call",
        "unknown",
        "unknown",
        "system",
        "result",
    ]
    assert steps[4].summary.startswith("telemetry:")
    assert steps[9].summary == "web_search: x"
    assert [s.line for s in steps][-1] == 14  # blank lines still count as lines


def test_parse_line_is_per_line_and_needs_no_reader():
    steps = trace.parse_line(tool_use("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}, "t9"))
    assert len(steps) == 1 and steps[0].kind == "tool_call" and steps[0].summary == "Edit: a.py"
    assert trace.parse_line(None)[0].kind == "error"
    assert (
        trace.parse_line({"type": "result", "subtype": 7, "num_turns": "x", "total_cost_usd": "free"})[0].kind
        == "result"
    )
    multi = assistant(
        [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]
    )
    assert [s.kind for s in trace.parse_line(multi)] == ["text", "tool_call"]


def test_one_line_summaries_are_short_single_lines():
    long_text = "word " * 400
    step = trace.parse_line(text(long_text + "\nsecond line"))[0]
    assert "\n" not in step.summary and len(step.summary) <= trace.SUMMARY_MAX + 2
    assert step.detail.startswith("word word")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "subtype",
                    "message",
                    "content",
                    "text",
                    "name",
                    "input",
                    "id",
                    "tool_use_id",
                    "is_error",
                    "result",
                    "usage",
                    "modelUsage",
                    "num_turns",
                    "total_cost_usd",
                    "session_id",
                    "parent_tool_use_id",
                    "thinking",
                    "errors",
                    "structured_output",
                    "x",
                ]
            ),
            children,
            max_size=6,
        )
    ),
    max_leaves=30,
)

typed = st.fixed_dictionaries(
    {"type": st.sampled_from(["system", "assistant", "user", "result", "hall_run_end", "stream_event", "other"])},
    optional={
        "subtype": st.sampled_from(["init", "api_retry", "success", "error_max_turns", "hook_started"]) | json_values,
        "message": st.fixed_dictionaries({}, optional={"content": json_values}) | json_values,
        "modelUsage": json_values,
        "usage": json_values,
        "num_turns": json_values,
        "total_cost_usd": json_values,
        "result": json_values,
        "errors": json_values,
        "duration_ms": json_values,
        "failure": json_values,
    },
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(json_values, typed))
def test_parse_line_is_total(record):
    steps = trace.parse_line(record)
    assert steps
    for step in steps:
        assert step.kind in trace.KINDS
        assert isinstance(step.summary, str) and isinstance(step.detail, str)
        json.dumps(step.to_dict(), default=str)
    trace.usage_from_result(record if isinstance(record, dict) else None)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.binary(max_size=60) | st.one_of(json_values, typed).map(lambda v: json.dumps(v).encode()), max_size=20)
)
def test_reading_any_bytes_never_raises(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("h") / "s.jsonl"
    path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
    steps = trace.read_steps(path)
    runs = [s.run for s in steps]
    assert runs == sorted(runs)
    trace.run_info(path)


def test_odd_field_types_do_not_break_run_numbering(tmp_path):
    # found by hypothesis: an unhashable subtype once raised inside the run bookkeeping
    records = [b'{"type":"system","subtype":[]}', b'{"type":"system","subtype":{"a":1}}', json.dumps(init()).encode()]
    steps = trace.read_steps(write_stream(tmp_path / "r.jsonl", records))
    assert [(s.run, s.kind) for s in steps] == [(1, "system"), (1, "system"), (1, "init")]


def test_an_array_of_messages_on_one_line_or_pretty_printed(tmp_path):
    messages = [init(), text("hi"), result()]
    one_line = trace.read_steps(write_stream(tmp_path / "a.jsonl", [json.dumps(messages).encode()]))
    assert [(s.kind, s.line) for s in one_line] == [("init", 1), ("text", 1), ("result", 1)]
    assert trace.run_info(tmp_path / "a.jsonl")["session_id"] == SID
    pretty = tmp_path / "turns.json"
    pretty.write_text(json.dumps(messages, indent=2))
    assert [s.kind for s in trace.read_steps(pretty)] == ["init", "text", "result"]
    assert trace.run_info(pretty)["has_result"] is True
