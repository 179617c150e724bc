"""`hall trace`: an item's runs by number, --list, --file, --json lines, and --follow on a live run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

from hallmark.core import items
from hallmark.tui.cli import trace as cmd_trace

WRITER = r"""
import json, sys, time
from filelock import FileLock
stream, lock_path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lock = FileLock(lock_path, timeout=5)
lock.acquire()
open(stream + ".ready", "w").close()
lines = [
    {"type": "system", "subtype": "init", "session_id": "s-1", "model": "hallmark-standin", "cwd": "/tmp", "tools": []},
    {"type": "assistant", "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "working"}]},
     "parent_tool_use_id": None, "session_id": "s-1"},
    {"type": "result", "subtype": "success", "is_error": False, "num_turns": 1, "duration_ms": 900,
     "result": "done", "session_id": "s-1", "total_cost_usd": 0},
]
with open(stream, "ab") as out:
    for line in lines:
        time.sleep(0.3)
        data = json.dumps(line).encode() + b"\n"
        if mode == "torn" and line["type"] == "result":
            out.write(data[:25]); out.flush(); break
        out.write(data[:10]); out.flush(); time.sleep(0.1)   # a line arrives in two writes
        out.write(data[10:]); out.flush()
    if mode == "end":
        time.sleep(0.3)
        out.write(json.dumps({"type": "hall_run_end", "role": "review", "item": "H-0001", "exit_code": 0,
                              "duration_ms": 1500, "failure": None, "cwd": "/tmp"}).encode() + b"\n")
        out.flush()
        time.sleep(2)  # the end line, not the lock, must stop the follower
lock.release()
"""


def _start_writer(tmp_path: Path, stream: Path, mode: str) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    proc = subprocess.Popen([sys.executable, str(script), str(stream), str(stream.with_suffix(".lock")), mode])
    ready = Path(str(stream) + ".ready")
    deadline = time.monotonic() + 10
    while not ready.exists():
        assert time.monotonic() < deadline, "the writer never took its lock"
        time.sleep(0.02)
    return proc


def _printer(as_json: bool = True) -> tuple[cmd_trace.Printer, io.StringIO]:
    out = io.StringIO()
    return cmd_trace.Printer(out, as_json=as_json, full=False, raw=False, colour=False), out


def test_follow_stops_at_the_end_line(tmp_path):
    stream = tmp_path / "20261130T094312123Z-review.jsonl"
    stream.touch()
    writer = _start_writer(tmp_path, stream, "end")
    try:
        printer, out = _printer()
        started = time.monotonic()
        why = cmd_trace.follow_file(stream, printer, lock=stream.with_suffix(".lock"), poll_s=0.05, max_wait_s=20)
        took = time.monotonic() - started
    finally:
        writer.wait(timeout=20)
    assert why == "ended"
    kinds = [json.loads(line)["kind"] for line in out.getvalue().splitlines()]
    assert kinds == ["init", "text", "result", "end"]
    assert took < 1.9 + 1.5  # it did not wait for the writer to let go of its lock


def test_follow_stops_when_the_lock_is_released_without_an_end_line(tmp_path):
    stream = tmp_path / "20261130T094312123Z-fix.jsonl"
    stream.touch()
    writer = _start_writer(tmp_path, stream, "torn")
    try:
        printer, out = _printer()
        why = cmd_trace.follow_file(stream, printer, lock=stream.with_suffix(".lock"), poll_s=0.05, max_wait_s=20)
    finally:
        writer.wait(timeout=20)
    assert why == "released"
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["kind"] for r in rows] == ["init", "text", "error"]
    assert "torn last line" in rows[-1]["summary"]


def test_follow_of_a_finished_file_returns_at_once(tmp_path):
    stream = tmp_path / "done.jsonl"
    stream.write_text(json.dumps({"type": "system", "subtype": "init", "session_id": "s"}) + "\n")
    printer, out = _printer(as_json=False)
    assert cmd_trace.follow_file(stream, printer, lock=stream.with_suffix(".lock"), max_wait_s=5) == "unlocked"
    stream.with_suffix(".lock").touch()  # a lock file nobody holds: the runner let go of it
    printer, out = _printer(as_json=False)
    assert cmd_trace.follow_file(stream, printer, lock=stream.with_suffix(".lock"), max_wait_s=5) == "released"
    assert "▶ init" in out.getvalue()


def test_hall_trace_follow_through_the_cli(tmp_path, hall):
    stream = tmp_path / "20261130T094312123Z-review.jsonl"
    stream.touch()
    writer = _start_writer(tmp_path, stream, "end")
    try:
        result = hall("trace", "--file", str(stream), "--follow", "--text", cwd=tmp_path, timeout=30)
    finally:
        writer.wait(timeout=20)
    assert result.code == 0, result.stderr
    assert "working" in result.stdout and "■ result" in result.stdout and "⏹ end" in result.stdout


# -- an item's runs ----------------------------------------------------------------------


def _runs(repo, item_id: str) -> list[Path]:
    folder = repo.paths.item_dir(item_id) / "runs"
    folder.mkdir(parents=True)
    paths = []
    for number, (stamp, role) in enumerate(
        [("20261130T090000000Z", "review"), ("20261130T091500000Z", "fix"), ("20261130T093000000Z", "review")], start=1
    ):
        path = folder / f"{stamp}-{role}.jsonl"
        lines = [
            {
                "type": "system",
                "subtype": "init",
                "session_id": f"session-{number}",
                "model": "hallmark-standin",
                "cwd": str(repo.root),
                "tools": ["Bash"],
            },
            {
                "type": "assistant",
                "message": {
                    "id": f"m{number}",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{number}",
                            "name": "Bash",
                            "input": {"command": f"echo run {number}"},
                        }
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": f"session-{number}",
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{number}",
                            "content": f"run {number}",
                            "is_error": False,
                        }
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": f"session-{number}",
            },
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "num_turns": 2,
                "duration_ms": 1000,
                "result": f"finished {number}",
                "session_id": f"session-{number}",
                "total_cost_usd": 0,
            },
            {
                "type": "hall_run_end",
                "role": role,
                "item": item_id,
                "exit_code": 0,
                "duration_ms": 1100,
                "failure": None,
                "cwd": str(repo.root),
            },
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        paths.append(path)
    return paths


def test_hall_trace_item_picks_runs_by_number(hall_repo, hall):
    item_id = items.new(hall_repo, title="traced")["item"]
    _runs(hall_repo, item_id)
    root = hall_repo.root

    latest = hall("trace", item_id, "--json", cwd=root)
    assert latest.code == 0, latest.stderr
    rows = [json.loads(line) for line in latest.stdout.splitlines()]
    assert [r["kind"] for r in rows] == ["init", "tool_call", "tool_result", "result", "end"]
    assert rows[1]["summary"] == "Bash: echo run 3" and rows[2]["tool"] == "Bash"

    first = hall("trace", item_id, "--run", "1", "--json", cwd=root)
    assert "echo run 1" in first.stdout and "echo run 3" not in first.stdout
    previous = hall("trace", item_id, "--run", "-2", "--text", cwd=root)
    assert previous.stdout.startswith(f"{item_id} · 20261130T091500000Z-fix.jsonl")
    assert "Bash: echo run 2" in previous.stdout
    by_name = hall("trace", item_id, "--run", "20261130T090000000Z-review", "--json", cwd=root)
    assert "echo run 1" in by_name.stdout

    missing = hall("trace", item_id, "--run", "9", cwd=root)
    assert missing.code == 3 and missing.json["error"]["code"] == "RUN_NOT_FOUND"
    assert "3 run(s)" in missing.json["error"]["message"]

    listing = hall("trace", item_id, "--list", cwd=root)
    assert listing.code == 0
    assert [r["run"] for r in listing.json["runs"]] == [1, 2, 3]


def test_hall_trace_from_inside_the_items_worktree_and_full_detail(hall_repo, hall):
    made = items.new(hall_repo, title="worktree trace")
    _runs(hall_repo, made["item"])
    result = hall("trace", "--full", "--text", cwd=Path(made["worktree"]))
    assert result.code == 0, result.stderr
    assert '"command": "echo run 3"' in result.stdout  # --full prints the tool input under the call


def test_hall_trace_errors(hall_repo, hall, tmp_path):
    item_id = items.new(hall_repo, title="no runs")["item"]
    none = hall("trace", item_id, cwd=hall_repo.root)
    assert none.code == 3 and none.json["error"]["code"] == "RUN_NOT_FOUND"
    mixed = hall("trace", item_id, "--file", str(tmp_path / "x.jsonl"), cwd=hall_repo.root)
    assert mixed.code == 2 and mixed.json["error"]["code"] == "USAGE"
    unknown = hall("trace", "H-0999", cwd=hall_repo.root)
    assert unknown.code == 3 and unknown.json["error"]["code"] == "ITEM_NOT_FOUND"


def test_hall_trace_into_a_closed_pipe_is_quiet(tmp_path):
    stream = tmp_path / "big.jsonl"
    line = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 80}]}}) + "\n"
    stream.write_text(line * 20000)
    proc = subprocess.run(
        f"'{Path(sys.executable).parent / 'hall'}' trace --file '{stream}' --text | head -3",
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.count("\n") == 3
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_every_json_line_matches_hall_schema_trace_step(hall_repo, hall):
    import jsonschema

    item_id = items.new(hall_repo, title="schema")["item"]
    _runs(hall_repo, item_id)
    schema = hall("schema", "trace-step", cwd=hall_repo.root).json
    schema.pop("next", None)
    rows = hall("trace", item_id, "--json", "--raw", cwd=hall_repo.root).stdout.splitlines()
    assert len(rows) == 5
    for row in rows:
        jsonschema.validate(json.loads(row), schema)
    with_error = {"run": 1, "line": 1, "kind": "nonsense", "summary": "", "detail": ""}
    try:
        jsonschema.validate(with_error, schema)
    except jsonschema.ValidationError:
        pass
    else:  # pragma: no cover - the schema must reject unknown kinds
        raise AssertionError("an unknown kind passed the schema")


def test_kind_filter_last_n_and_the_footer(hall_repo, hall):
    item_id = items.new(hall_repo, title="filters")["item"]
    _runs(hall_repo, item_id)
    root = hall_repo.root
    calls = hall("trace", item_id, "--kind", "tool_call,result", "--json", cwd=root)
    assert [json.loads(r)["kind"] for r in calls.stdout.splitlines()] == ["tool_call", "result"]
    last = hall("trace", item_id, "--last", "2", "--json", cwd=root)
    assert [json.loads(r)["kind"] for r in last.stdout.splitlines()] == ["result", "end"]
    text = hall("trace", item_id, "--text", cwd=root).stdout
    assert text.rstrip().splitlines()[-1] == "── 5 step(s) · 1 run(s) · result: success · $0.0000 ──"
    bad = hall("trace", item_id, "--kind", "calls", cwd=root)
    assert bad.code == 2 and "calls" in bad.json["error"]["message"]
    assert hall("trace", item_id, "--last", "0", cwd=root).code == 2


def test_follow_with_last_catches_up_with_n_steps_then_prints_every_new_one(tmp_path):
    stream = tmp_path / "20261130T094312123Z-review.jsonl"
    stream.write_text(
        "".join(
            json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": f"earlier {i}"}]}}) + "\n"
            for i in range(10)
        )
    )
    writer = _start_writer(tmp_path, stream, "end")
    try:
        printer = cmd_trace.Printer(io.StringIO(), as_json=True, full=False, raw=False, colour=False, last=2)
        why = cmd_trace.follow_file(stream, printer, lock=stream.with_suffix(".lock"), poll_s=0.05, max_wait_s=20)
    finally:
        writer.wait(timeout=20)
    assert why == "ended"
    rows = [json.loads(line) for line in printer.out.getvalue().splitlines()]
    summaries = [r["summary"] for r in rows]
    assert summaries[:2] == ["earlier 8", "earlier 9"]  # the catch-up: only the last two
    assert [r["kind"] for r in rows[2:]] == ["init", "text", "result", "end"]  # then everything new


def test_the_footer_names_a_run_without_result():
    printer = cmd_trace.Printer(io.StringIO(), as_json=False, full=False, raw=False, colour=False)
    from hallmark.core.runner import trace

    for step in trace.parse_line(
        {
            "type": "result",
            "subtype": "success",
            "total_cost_usd": 0.5,
            "modelUsage": {"m": {"inputTokens": 10, "outputTokens": 20}},
        },
        run=1,
    ):
        printer.step(step)
    for step in trace.parse_line({"type": "system", "subtype": "init", "model": "m"}, run=2):
        printer.step(step)
    assert printer.footer() == (
        "── 2 step(s) · 2 run(s) · run 2 has no result line · last result (run 1): success"
        " · $0.5000 · 10 in / 20 out / 0 cache read tokens (modelUsage) ──"
    )


def test_hall_trace_repo_level_runs(hall_repo, hall):
    folder = hall_repo.state_dir / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "20261130T080000000Z-intake.jsonl").write_text(
        json.dumps({"type": "system", "subtype": "init", "session_id": "intake-1", "model": "haiku"})
        + "\n"
        + json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "num_turns": 1,
                "result": "split into 2 parts",
                "session_id": "intake-1",
                "total_cost_usd": 0.01,
            }
        )
        + "\n"
    )
    root = hall_repo.root
    text = hall("trace", "--repo", "--text", cwd=root)
    assert text.code == 0, text.stderr
    assert text.stdout.startswith("repository · 20261130T080000000Z-intake.jsonl")
    assert "split into 2 parts" in text.stdout
    listing = hall("trace", "--repo", "--list", cwd=root)
    assert listing.json["item"] is None and [r["run"] for r in listing.json["runs"]] == [1]
    assert hall("trace", "--repo", "--run", "2", cwd=root).json["error"]["code"] == "RUN_NOT_FOUND"
    assert hall("trace", "H-0001", "--repo", cwd=root).code == 2
