"""The loop's commands through the real `hall`: verdict, findings, fixed, next, usage, budget, daemon, schema."""

from __future__ import annotations

import json
from pathlib import Path

from hallmark.core import items, states
from hallmark.core.loop import findings, leases, review, verdict

PROJECT = Path(__file__).resolve().parents[2]


def _to_review(repo, ready_item, kit):
    from hallmark.core.loop import daemon

    item_id = ready_item()
    daemon.pass_repo(repo, "test")  # checks only: the stand-in is not asked yet
    assert items.fold_item(repo, item_id).state == states.REVIEW
    return item_id


def test_hall_verdict_is_refused_to_agents(loop_repo, ready_item, kit, hall, tmp_path):
    item_id = _to_review(loop_repo, ready_item, kit)
    good = tmp_path / "v.json"
    good.write_text(json.dumps({"item": item_id, "summary": "fine", "findings": []}))
    for env in ({"CLAUDECODE": "1"}, {"HALL_ACTOR": "fixer"}, {"HALL_ACTOR": "assayer"}):
        r = hall("verdict", "--file", str(good), cwd=loop_repo.root, env=env)
        assert r.code == 5 and r.json["error"]["code"] == "GATE_DENIED", (env, r.stdout)
    assert items.fold_item(loop_repo, item_id).state == states.REVIEW
    assert not kit.events(loop_repo, item_id, "verdict")


def test_a_bad_verdict_file_is_invalid_and_loses_nothing(loop_repo, ready_item, kit, hall, tmp_path):
    item_id = _to_review(loop_repo, ready_item, kit)
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "item": item_id,
                "summary": "x",
                "findings": [{"lens": "vibes", "severity": "major", "file": "a", "scenario": "s"}],
            }
        )
    )
    r = hall("verdict", "--file", str(bad), cwd=loop_repo.root)
    assert (
        r.code == 2 and r.json["error"]["code"] == "INVALID_VERDICT" and "findings.0.lens" in r.json["error"]["message"]
    )
    (tmp_path / "torn.json").write_text('{"summary": ')
    r = hall("verdict", "--file", str(tmp_path / "torn.json"), item_id, cwd=loop_repo.root)
    assert r.code == 2 and "not JSON" in r.json["error"]["message"]
    r = hall("verdict", "--file", str(tmp_path / "missing.json"), item_id, cwd=loop_repo.root)
    assert r.code == 2 and r.json["error"]["code"] == "USAGE"
    assert items.fold_item(loop_repo, item_id).state == states.REVIEW


def test_a_persons_verdict_is_a_human_override_everywhere(loop_repo, ready_item, kit, hall, tmp_path):
    item_id = _to_review(loop_repo, ready_item, kit)
    sha = items.fold_item(loop_repo, item_id).sha
    path = tmp_path / "v.json"
    path.write_text(
        json.dumps(
            {
                "item": item_id,
                "summary": "I read it myself",
                "findings": [
                    {
                        "lens": "evidence",
                        "severity": "minor",
                        "file": "app.py",
                        "line": 4,
                        "scenario": "no test covers mul",
                    }
                ],
            }
        )
    )
    r = hall("verdict", "--file", str(path), cwd=loop_repo.root)
    assert r.code == 0, r.stdout
    assert r.json["outcome"] == "hallmarked" and r.json["human_override"] is True
    note = review.read_note(loop_repo, sha)
    assert note["actor"] == "you" and note["model"] == "human override" and note["open_findings"] == ["F-1"]
    (v,) = kit.events(loop_repo, item_id, "verdict")
    assert v["human_override"] is True and v["actor"] == "you"
    assert kit.events(loop_repo, item_id, "hallmarked")[0]["human_override"] is True
    body = __import__("hallmark.core.loop.ship", fromlist=["body_text"]).body_text(
        loop_repo, items.fold_item(loop_repo, item_id)
    )
    assert "a human override" in body


def test_findings_and_fixed_from_the_worktree(loop_repo, ready_item, kit, hall, scenario):
    scenario({"review": [kit.reject()]})
    item_id = _to_review(loop_repo, ready_item, kit)
    review.review(loop_repo, item_id)
    view = items.fold_item(loop_repo, item_id)
    wt = Path(view.worktree)
    r = hall("findings", cwd=wt)
    assert r.code == 0 and [f["id"] for f in r.json["findings"]] == ["F-1"] and r.json["open"] == 1
    r = hall("fixed", "F-9", cwd=wt)
    assert r.code == 2 and "F-9" in r.json["error"]["message"]
    r = hall("fixed", "F-1", cwd=wt)  # HEAD is the reviewed commit: nothing fixed it
    assert r.code == 4 and r.json["error"]["code"] == "WRONG_STATE"
    r = hall("fixed", "--dispute", "F-1", cwd=wt)
    assert r.code == 2 and "--reason" in r.json["error"]["message"]
    (wt / "app.py").write_text((wt / "app.py").read_text() + "\n# guarded\n")
    r = hall("fixed", "F-1", cwd=wt)
    assert r.code == 4 and r.json["error"]["code"] == "DIRTY_WORKTREE"
    kit.git(wt, "commit", "-qam", "guard")
    r = hall("fixed", "F-1", cwd=wt, env={"HALL_ACTOR": "fixer"})
    assert r.code == 0 and r.json["state"] == "checks" and r.json["fixed"] == ["F-1"]
    assert findings.list_findings(loop_repo, item_id)[0]["status"] == "fixed"
    assert kit.events(loop_repo, item_id, "fixed")[0]["actor"] == "fixer"


def test_next_claims_with_a_lease_and_answers_claimed(loop_repo, ready_item, hall):
    item_id = ready_item()
    r = hall("next", "--role", "assayer", "--holder", "worker-a", cwd=loop_repo.root)
    assert r.code == 0 and r.json["item"] == item_id and r.json["work"] == "run the gates"
    r = hall("next", "--role", "assayer", "--holder", "worker-b", cwd=loop_repo.root)
    assert r.code == 7 and r.json["error"]["code"] == "CLAIMED"
    r = hall("next", "--role", "fixer", "--holder", "worker-b", cwd=loop_repo.root)
    assert r.code == 0 and r.json["item"] is None
    leases.release(loop_repo, item_id, "worker-a")
    r = hall("next", "--role", "assayer", "--holder", "worker-b", cwd=loop_repo.root)
    assert r.code == 0 and r.json["item"] == item_id


def test_usage_and_budget_report_the_runs(loop_repo, ready_item, scenario, kit, hall):
    scenario(
        {
            "review": [dict(kit.approve(), usage={"input_tokens": 1200, "output_tokens": 34})],
            "librarian": [{"usage": {"input_tokens": 0, "output_tokens": 0}}],
        }
    )  # it distils the closed item
    item_id = ready_item()
    kit.run_loop(loop_repo)
    r = hall("usage", "--by", "role", cwd=loop_repo.root)
    assert r.code == 0
    rows = {row["key"]: row for row in r.json["rows"]}
    assert set(rows) == {"review", "librarian"} and rows["librarian"]["runs"] == 1
    row = rows["review"]
    assert row["key"] == "review" and row["input_tokens"] == 1200 and row["output_tokens"] == 34
    assert row["runs"] == 1 and row["standin_runs"] == 1 and r.json["total"]["cost_usd"] == 0
    assert hall("usage", "--by", "item", cwd=loop_repo.root).json["rows"][0]["key"] == item_id
    assert hall("usage", "--by", "room", cwd=loop_repo.root).json["rows"][0]["key"] == "Assay Office"
    assert hall("usage", "--since", "1d", cwd=loop_repo.root).json["total"]["runs"] == 2
    r = hall("usage", "--by", "week", cwd=loop_repo.root)
    assert r.code == 2
    r = hall("budget", cwd=loop_repo.root)
    assert r.code == 0 and r.json["daily"]["used"] == 1234 and r.json["daily"]["cap"] == 4_000_000
    assert r.json["rooms"]["review"]["max_usd_per_run"] == 6.0
    r = hall("budget", "--set", "review.max_usd=3", "--set", "per_item=900k", cwd=loop_repo.root)
    assert r.code == 0 and r.json["per_item"]["cap"] == 900_000 and r.json["rooms"]["review"]["max_usd_per_run"] == 3.0
    text = (loop_repo.root / ".hallmark.toml").read_text()
    assert "gates = [" in text and "[budget.review]" in text  # the rest of the file is kept
    r = hall("budget", "--set", "bogus=1", cwd=loop_repo.root)
    assert r.code == 2


def test_the_daily_cap_pauses_the_model_workers_until_a_grant(loop_repo, ready_item, scenario, kit, hall):
    kit.write_config(loop_repo.root, '[budget]\ndaily = "1k"\n')
    repo = kit.reopen(loop_repo)
    scenario(
        {
            "review": [dict(kit.reject(), usage={"input_tokens": 2000}), kit.approve()],
            "fix": [{"edits": [{"file": "app.py", "append": "# x\n"}], "fixed": ["F-1"]}],
        }
    )
    item_id = ready_item()
    kit.run_loop(repo)
    view = items.fold_item(repo, item_id)
    assert view.state == states.FIXING and not view.hold  # waiting, not held: the loop is paused
    entries = [e for e in __import__("hallmark.core.inbox", fromlist=["x"]).report(repo)["entries"]]
    assert [e["kind"] for e in entries] == ["budget"] and "Daily budget" in entries[0]["text"]
    r = hall("budget", "--grant", cwd=repo.root)
    assert r.code == 0 and r.json["daily"]["granted"] == 1000
    r = hall("budget", "--grant", "1M", cwd=repo.root)
    kit.run_loop(repo)
    assert items.fold_item(repo, item_id).state == states.CLOSED


def test_schema_verdict_matches_the_shipped_file(hall, loop_repo):
    r = hall("schema", "verdict", cwd=loop_repo.root)
    assert r.code == 0 and r.json["title"] == "Hallmark verdict"
    shipped = json.loads((PROJECT / "plugin" / "schemas" / "verdict.json").read_text())
    served = {k: v for k, v in r.json.items() if k != "next"}
    # beside the file's format, what `hall verdict` answers (where every command's reply is described)
    reply = served["definitions"].pop("reply")
    assert [shape["title"] for shape in reply["anyOf"]] == ["VerdictHallmarked", "VerdictReturned"]
    assert shipped == verdict.schema() == served


def test_daemon_start_status_stop(loop_repo, hall):
    r = hall("daemon", "status", cwd=loop_repo.root)
    assert r.code == 0 and r.json["running"] is False
    r = hall("daemon", "start", cwd=loop_repo.root)
    try:
        assert r.code == 0 and r.json["running"] is True, r.stdout
        again = hall("daemon", "start", cwd=loop_repo.root)
        assert again.json.get("already") is True and again.json["pid"] == r.json["pid"]
    finally:
        stopped = hall("daemon", "stop", cwd=loop_repo.root)
    assert stopped.code == 0 and stopped.json["stopped"] is True and stopped.json["running"] is False
    assert hall("daemon", "status", cwd=loop_repo.root).json["stale"] is False


def test_a_daemon_without_heartbeat_shows_in_the_inbox(loop_repo, hall):
    from hallmark.core import inbox
    from hallmark.core.loop import daemon

    daemon._update_state(
        pid=999_999_9,
        started="2026-11-30T00:00:00.000Z",
        heartbeat="2026-11-30T00:00:00.000Z",
        expected=True,
        stop=False,
    )
    r = hall("daemon", "status", cwd=loop_repo.root)
    assert r.json["stale"] is True
    assert [e["kind"] for e in inbox.report(loop_repo)["entries"]] == ["daemon stopped"]
    daemon._update_state(expected=False)
    hall("daemon", "status", cwd=loop_repo.root)
    assert inbox.report(loop_repo)["entries"] == []


def test_text_renderers_show_what_a_person_needs(loop_repo, ready_item, scenario, kit):
    import io

    from hallmark.core.loop import budget, fix, usage
    from hallmark.tui.cli import loop as cmd_loop
    from hallmark.tui.cli import usage as cmd_usage
    from rich.console import Console

    scenario({"review": [kit.reject()]})
    item_id = _to_review(loop_repo, ready_item, kit)
    review.review(loop_repo, item_id)

    def render(thing) -> str:
        out = io.StringIO()
        Console(file=out, width=200).print(thing)
        return out.getvalue()

    shown = render(cmd_loop.text_findings(fix.findings_report(loop_repo, item_id)))
    assert "F-1" in shown and "major" in shown and "app.py:5" in shown and "1 open finding" in shown
    shown = render(cmd_usage.text_usage(usage.report(loop_repo, by="role")))
    assert "review" in shown and "total" in shown and "$0.00" in shown
    shown = render(cmd_usage.text_budget(budget.status(loop_repo)))
    assert "daily total" in shown and "4,000,000" in shown and "max $6 a run" in shown and item_id in shown


def test_a_broken_config_stops_the_loop_in_that_repo_only(loop_repo, ready_item, scenario, kit, hall, tmp_path):
    """Two repos: the one whose .hallmark.toml is broken gets one notice (not one per pass) and
    waits; the other is reviewed and closed. From the command line the exit code says so."""
    from hallmark.core import setup_repo
    from hallmark.core.loop import daemon
    from hallmark.core.repo import open_repo

    scenario({"review": [kit.approve()]})
    item_id = ready_item()
    broken = tmp_path / "broken"
    broken.mkdir()
    kit.git(broken, "init", "-q", "-b", "main")
    (broken / "README.md").write_text("x\n")
    kit.git(broken, "add", "-A")
    kit.git(broken, "commit", "-q", "-m", "init")
    setup_repo.init(broken)
    (broken / ".hallmark.toml").write_text('base = "main"\nmax_rejects = "three"\n')

    result = daemon.run(until_idle=True, repos=[broken, loop_repo.root])
    assert items.fold_item(loop_repo, item_id).state == states.CLOSED
    blocked = [s for s in result["steps"] if s.get("step") == "pass"]  # one a pass
    assert blocked and {(s["repo"], s["error"]["code"]) for s in blocked} == {(str(broken), "INVALID_CONFIG")}
    daemon.run(until_idle=True, repos=[broken])
    notices = [e for e in open_repo(broken).index.events(kinds=["notice"]) if e.get("kind") == "loop_blocked"]
    assert len(notices) == 1 and "max_rejects" in notices[0]["text"]

    reply = hall("daemon", "run", "--until-idle", "--repo", str(broken), cwd=broken)
    summary = json.loads(reply.stdout.splitlines()[-1])  # JSON lines: one per step, the summary last
    assert reply.code == 1 and "edit .hallmark.toml" in summary["next"]
