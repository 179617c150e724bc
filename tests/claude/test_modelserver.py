"""The scripted model server in-process (Messages API shapes, scripts, errors, the record), the
limit and usage readers, and the usage ledger; plus the runner's view of 529 and a killed run
through the real CLI."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
from hallmark.core.modelserver import ModelServer, Script
from hypothesis import given, settings
from hypothesis import strategies as st


def post(server: ModelServer, path: str, body: dict, headers: dict | None = None) -> tuple[int, str, dict]:
    request = urllib.request.Request(
        server.url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def sse(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


FIX_SYSTEM = [{"type": "text", "text": "You are Hallmark's fixer. You work only in the item's worktree"}]


def test_streaming_tool_call_usage_and_the_record():
    script = Script.from_json(
        {
            "roles": {
                "fix": [[{"tool": "Bash", "input": {"command": "git status"}, "usage": {"output_tokens": 42}}, "done"]]
            }
        }
    )
    with ModelServer(script) as server:
        assert server.url.startswith("http://127.0.0.1:")
        body = {
            "model": "m",
            "stream": True,
            "system": FIX_SYSTEM,
            "messages": [{"role": "user", "content": "go"}],
            "tools": [{"name": "Bash"}],
        }
        status, text, headers = post(server, "/v1/messages?beta=true", body, {"x-claude-code-session-id": "s1"})
        events = sse(text)
        assert status == 200 and headers["content-type"] == "text/event-stream"
        assert next(e["type"] for e in events) == "message_start" and events[-1]["type"] == "message_stop"
        start = next(e for e in events if e["type"] == "content_block_start")
        assert start["content_block"]["name"] == "Bash"
        raw = "".join(e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta")
        assert json.loads(raw) == {"command": "git status"}
        delta = next(e for e in events if e["type"] == "message_delta")
        assert delta["delta"]["stop_reason"] == "tool_use" and delta["usage"]["output_tokens"] == 42
        # the same conversation's next request gets the next turn, without streaming
        status, text, _ = post(server, "/v1/messages", dict(body, stream=False), {"x-claude-code-session-id": "s1"})
        assert json.loads(text)["content"] == [{"type": "text", "text": "done"}]
        status, text, _ = post(server, "/v1/messages/count_tokens", body)
        assert status == 200 and json.loads(text)["input_tokens"] > 0
        assert [r.role for r in server.requests()] == ["fix", "fix"] and server.requests()[0].tool_names == ["Bash"]
        assert server.requests()[0].user_text() == "go"


@pytest.mark.parametrize("status,kind", [(429, "rate_limit_error"), (529, "overloaded_error"), (500, "api_error")])
def test_error_answers_repeat_then_the_run_goes_on(status, kind):
    script = Script.from_json(
        {"roles": {"session": [[{"error": status, "repeat": 2, "headers": {"retry-after": "3"}}, "after"]]}}
    )
    with ModelServer(script) as server:
        body = {"messages": [{"role": "user", "content": "x"}]}
        for _ in range(2):
            code, text, headers = post(server, "/v1/messages", body, {"x-claude-code-session-id": "a"})
            assert code == status and json.loads(text)["error"]["type"] == kind and headers["retry-after"] == "3"
        assert (
            json.loads(post(server, "/v1/messages", body, {"x-claude-code-session-id": "a"})[1])["content"][0]["text"]
            == "after"
        )


def test_runs_of_a_role_are_taken_in_order_and_unscripted_requests_get_the_default():
    script = Script.from_json({"roles": {"session": [["one"], ["two"]]}})
    with ModelServer(script) as server:
        texts = [
            json.loads(post(server, "/v1/messages", {"messages": []}, {"x-claude-code-session-id": s})[1])["content"][
                0
            ]["text"]
            for s in ("a", "b", "c")
        ]
    assert texts == ["one", "two", "Done."]


def test_bad_scripts_and_addresses_are_refused():
    with pytest.raises(ValueError):
        Script.from_json({"roles": {"review": [{"text": "not a list of runs"}]}})
    with pytest.raises(ValueError):
        Script.from_json({"roles": {"review": [[{"txet": "typo"}]]}})
    with pytest.raises(ValueError):
        ModelServer(host="0.0.0.0")


# -- limits ---------------------------------------------------------------------------------------


def test_a_rate_limit_event_wins_and_the_text_alone_is_read_too():
    from hallmark.core.runner import limits

    facts = limits.StreamFacts()
    facts.see({"type": "rate_limit_event", "rate_limit_info": {"status": "rejected", "resetsAt": 1796136561}})
    found = limits.limit_of({"result": "You've hit your 5-hour limit · resets 2:49pm (UTC)"}, facts)
    assert found.kind == "plan" and found.resets_at == "2026-12-01T14:49:21.000Z"
    now = datetime(2026, 12, 1, 13, 49, tzinfo=UTC)
    alone = limits.limit_of(
        {"result": "You've hit your limit · resets 8pm (Europe/Berlin)"}, limits.StreamFacts(), now=now
    )
    assert (alone.kind, alone.resets_at) == ("plan", "2026-12-01T19:00:00.000Z")
    assert (
        limits.limit_of(
            {"api_error_status": 429, "result": "API Error: Request rejected (429)"}, limits.StreamFacts(), now=now
        ).kind
        == "rate"
    )
    assert limits.limit_of({"api_error_status": 529}, limits.StreamFacts(), now=now).kind == "overloaded"
    assert limits.limit_of({"result": "the tests failed"}, limits.StreamFacts(), now=now) is None


@settings(max_examples=200, deadline=None)
@given(
    minutes=st.integers(min_value=1, max_value=24 * 60 - 1),
    start=st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1)),
)
def test_a_reset_time_of_day_is_the_next_such_moment(minutes, start):
    from hallmark.core.runner import limits

    now = start.replace(tzinfo=UTC, second=0, microsecond=0)
    moment = now + timedelta(minutes=minutes)
    hour = moment.hour % 12 or 12
    text = f"You've hit your limit · resets {hour}:{moment.minute:02d}{'pm' if moment.hour >= 12 else 'am'} (UTC)"
    assert limits.reset_from_text(text, now) == moment.strftime("%Y-%m-%dT%H:%M:00.000Z")


def test_a_killed_run_counts_each_response_once_at_its_largest():
    from hallmark.core.runner import limits

    facts = limits.StreamFacts()
    for mid, out in (("m1", 1), ("m1", 40), ("m2", 5), ("m1", 40)):
        facts.see(
            {
                "type": "assistant",
                "message": {"id": mid, "model": "claude-x", "usage": {"input_tokens": 100, "output_tokens": out}},
            }
        )
    assert limits.fallback_rows(facts, "") == [
        {
            "model": "claude-x",
            "input_tokens": 200,
            "output_tokens": 45,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reported_cost_usd": 0.0,
        }
    ]


def test_the_ledger_counts_a_message_once_whichever_path_sees_it_first(tmp_path):
    from hallmark.core import usage_ledger

    first, new_ids = usage_ledger.claim(tmp_path, "sess-1", {"m1": {"output_tokens": 10}})
    assert first["m1"]["output_tokens"] == 10 and new_ids == {"m1"}
    again, new_ids = usage_ledger.claim(tmp_path, "sess-1", {"m1": {"output_tokens": 10}, "m2": {"output_tokens": 3}})
    assert set(again) == {"m2"} and new_ids == {"m2"}
    grew, _ = usage_ledger.claim(tmp_path, "sess-1", {"m1": {"output_tokens": 25}})
    assert grew["m1"]["output_tokens"] == 15
    assert usage_ledger.ledger_path(tmp_path, "../escape") is None


def test_the_runner_records_only_what_the_stop_hook_did_not(hall_repo):
    """A session the Stop hook already counted, resumed headless: the runner takes those ids off."""
    from hallmark.core import usage_ledger
    from hallmark.core.runner import spawn

    usage_ledger.claim(hall_repo.state_dir, "sess-9", {"m1": {"input_tokens": 100, "output_tokens": 30}})
    tracker = spawn._Tracker()
    tracker.session_id = "sess-9"
    for mid, out in (("m1", 30), ("m2", 7)):
        tracker.see(
            json.dumps(
                {
                    "type": "assistant",
                    "message": {"id": mid, "model": "claude-x", "usage": {"input_tokens": 100, "output_tokens": out}},
                }
            ).encode()
        )
    tracker.see(
        json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "session_id": "sess-9",
                "modelUsage": {"claude-x": {"inputTokens": 200, "outputTokens": 37}},
            }
        ).encode()
    )
    rows = spawn.run_usage(hall_repo, tracker)
    assert [(r["input_tokens"], r["output_tokens"]) for r in rows] == [(100, 7)]
    assert spawn.run_usage(hall_repo, tracker) == []  # read again: nothing new
