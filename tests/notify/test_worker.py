"""The notify worker against scripted ntfy, Telegram and Slack servers on 127.0.0.1: the exact
requests, nothing but the item, title, kind, question and options in them, each entry once,
dismissed entries never, quiet hours held to one digest, routes by kind, reminders under a pinned
clock, and a failing channel reported once without slowing the daemon's pass."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hallmark.core import inbox, items, journal, questions
from hallmark.core.errors import HallError
from hallmark.core.loop import daemon
from hallmark.core.notify import state
from hallmark.core.notify.worker import notify_pass

from .conftest import TELEGRAM_TOKEN, phone_config, user_config

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Quiet hours are local time: the tests' local time is UTC, and "now" is pinned."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setenv("HALLMARK_FIXED_NOW", "2026-12-01T12:00:00Z")
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


def at(monkeypatch, moment: str) -> None:
    monkeypatch.setenv("HALLMARK_FIXED_NOW", moment)


def notices(repo, kind: str) -> list[dict]:
    return [e for e in journal.read(repo.paths.repo_journal).events if e.get("kind") == kind]


@pytest.fixture
def item(hall_repo):
    return items.new(hall_repo, title="Parser speed-up")["item"]


def test_a_question_reaches_every_channel_once_with_its_options_and_nothing_else(hall_repo, item, services):
    phone_config(services.url)
    questions.ask(
        hall_repo,
        f"Keep the cache?\n```python\nTOKEN = '{TOKEN}'\n```\nthe key is {TOKEN}",
        item_id=item,
        options=["keep", "drop"],
    )
    steps = notify_pass(hall_repo)
    assert sorted(s["channel"] for s in steps if s["outcome"] == "notified") == ["ntfy", "slack", "telegram"]
    (ntfy,) = services.on("/hallmark-t0pic")
    assert ntfy.method == "POST"
    assert ntfy.headers["Title"].startswith("=?UTF-8?B?")  # RFC 2047, as ntfy's docs show: the title has a ·
    from email.header import decode_header

    title = decode_header(ntfy.headers["Title"])[0][0].decode()
    assert title == f"Hallmark · question · {item} · repo"
    assert (ntfy.headers["Priority"], ntfy.headers["Tags"]) == ("high", "hallmark,question")
    assert ntfy.body.decode() == (
        "Parser speed-up\n"
        "Keep the cache? [code not sent] the key is [redacted: GitHub token]\n"
        "options: keep, drop\n"
        "answer: hall answer Q-1 <keep|drop>"
    )
    (tg,) = services.on("/bot")
    assert tg.path == f"/bot{TELEGRAM_TOKEN}/sendMessage"
    assert tg.json == {"chat_id": "42", "text": f"{title}\n{ntfy.body.decode()}", "disable_web_page_preview": True}
    (slack,) = services.on("/services/")
    assert slack.json == {"text": f"*{title}*\n{ntfy.body.decode()}"}
    for seen in services.seen:
        everything = seen.body.decode() + json.dumps(seen.headers)
        assert TOKEN not in everything and "TOKEN =" not in everything and "```" not in everything
    assert notify_pass(hall_repo) == [] and len(services.seen) == 3  # once, not every pass


def test_a_changed_entry_is_sent_again_an_answered_one_never(hall_repo, item, services):
    phone_config(services.url, channels='["ntfy"]')
    asked = questions.ask(hall_repo, "Which way?", item_id=item, options=["a", "b"])
    notify_pass(hall_repo)
    questions.answer(hall_repo, asked.qid, "a")
    assert notify_pass(hall_repo) == []
    assert state.read(hall_repo.state_dir)["sent"] == {}  # the answered entry is forgotten
    items.propose_ready(hall_repo, item, summary="done", why="w", how="h")
    notify_pass(hall_repo)
    kinds = [s.headers["Tags"] for s in services.seen]
    assert kinds == ["hallmark,question", "hallmark,white_check_mark"]


def test_a_dismissed_entry_is_not_sent_and_notices_never_are(hall_repo, item, services):
    phone_config(services.url)
    questions.ask(hall_repo, "Which way?", item_id=item, options=["a", "b"])
    inbox.dismiss(hall_repo, 1)
    items.record(hall_repo, item, "notice", actor="watchman", kind="stuck", text="no progress for 30m")
    assert notify_pass(hall_repo) == []
    assert services.seen == []


def test_quiet_hours_hold_the_phone_and_send_one_digest_after(hall_repo, item, services, monkeypatch):
    phone_config(services.url, channels='["ntfy", "slack"]', extra='quiet_hours = "22:00-07:00"')
    at(monkeypatch, "2026-12-01T23:00:00Z")
    questions.ask(hall_repo, "First?", item_id=item, options=["a", "b"])
    questions.ask(hall_repo, "Second?", item_id=item)
    steps = notify_pass(hall_repo)
    assert {s["outcome"] for s in steps} == {"notify_held"} and services.seen == []
    at(monkeypatch, "2026-12-02T06:59:00Z")
    assert notify_pass(hall_repo) == [] and services.seen == []
    at(monkeypatch, "2026-12-02T07:00:00Z")
    steps = notify_pass(hall_repo)
    assert [(s["outcome"], s["key"], s["channel"]) for s in steps] == [
        ("notified", "digest", "ntfy"),
        ("notified", "digest", "slack"),
    ]
    ntfy = services.on("/hallmark-t0pic")
    assert len(ntfy) == 1 and ntfy[0].headers["Tags"] == "hallmark,inbox_tray"
    assert ntfy[0].body.decode() == (
        "2 waiting for you (held during quiet hours)\n"
        f"question {item}: First? question {item}: Second?\n"
        "answer: hall inbox"
    )
    assert notify_pass(hall_repo) == [] and len(services.seen) == 2


def test_routes_send_each_kind_only_where_it_is_routed(hall_repo, item, services):
    phone_config(services.url, extra='[notify.route]\nquestion = ["slack"]\n"ready?" = ["ntfy", "telegram"]\n')
    questions.ask(hall_repo, "Which way?", item_id=item)
    notify_pass(hall_repo)
    assert [s.path.split("/")[1] for s in services.seen] == ["services"]
    items.propose_ready(hall_repo, item, summary="done", why="w", how="h")
    services.seen.clear()
    notify_pass(hall_repo)
    assert sorted(s.path.split("/")[1][:3] for s in services.seen) == ["bot", "hal"]


def test_the_repository_may_narrow_but_never_add_a_channel(hall_repo, item, services):
    phone_config(services.url)
    (hall_repo.root / ".hallmark.toml").write_text('[notify]\nchannels = ["telegram"]\n')
    hall_repo.__dict__.pop("config", None)
    questions.ask(hall_repo, "Which way?", item_id=item)
    notify_pass(hall_repo)
    assert [s.path.split("/")[1][:3] for s in services.seen] == ["bot"]
    (hall_repo.root / ".hallmark.toml").write_text('[notify.slack]\nwebhook = "https://evil.invalid/x"\n')
    hall_repo.__dict__.pop("config", None)
    with pytest.raises(HallError, match="may only narrow"):
        hall_repo.config  # noqa: B018
    questions.ask(hall_repo, "Another?", item_id=item)
    assert notify_pass(hall_repo) == []
    assert next(n["text"] for n in notices(hall_repo, "notify_config")).startswith("notifications are off in this repo")
    notify_pass(hall_repo)
    assert len(notices(hall_repo, "notify_config")) == 1  # recorded once, not every pass


def test_remind_resends_at_its_interval_and_stops_after_its_count(hall_repo, item, services, monkeypatch):
    phone_config(services.url, channels='["ntfy"]', extra='remind = "1h"\nremind_count = 2')
    questions.ask(hall_repo, "Which way?", item_id=item, options=["a", "b"])
    sent = []
    for moment in ("12:00", "12:30", "12:59", "13:00", "13:30", "14:00", "15:00", "18:00"):
        at(monkeypatch, f"2026-12-01T{moment}:00Z")
        if any(s["outcome"] == "notified" for s in notify_pass(hall_repo)):
            sent.append(moment)
    assert sent == ["12:00", "13:00", "14:00"]
    from email.header import decode_header

    titles = [decode_header(s.headers["Title"])[0][0].decode() for s in services.seen]
    assert titles[1] == f"Hallmark · reminder: question · {item} · repo"


def test_a_failing_channel_is_reported_once_and_tried_again_only_after_a_backoff(
    hall_repo, item, services, monkeypatch
):
    phone_config(services.url, channels='["ntfy", "slack"]')
    services.fail = 500
    questions.ask(hall_repo, "Which way?", item_id=item)
    steps = notify_pass(hall_repo)
    assert sorted((s["channel"], s["outcome"]) for s in steps) == [
        ("ntfy", "notify_failed"),
        ("slack", "notify_failed"),
    ]
    assert steps[0]["answer"].startswith("500 ")
    for _ in range(3):
        assert notify_pass(hall_repo) == []  # backing off: no request at all
    assert len(services.seen) == 2
    failed = notices(hall_repo, "notify_failed")
    assert len(failed) == 2 and "500" in failed[0]["text"]
    from hallmark.core.notify.probe import doctor_check

    row = doctor_check(hall_repo.state_dir, hall_repo.root)
    assert not row.ok and row.optional and "ntfy failing since" in row.detail
    services.fail = None
    at(monkeypatch, "2026-12-01T12:01:01Z")  # past the first back-off (60 s)
    steps = notify_pass(hall_repo)
    assert sorted(s["outcome"] for s in steps) == ["notified", "notified"]
    assert len(notices(hall_repo, "notify_recovered")) == 2
    assert doctor_check(hall_repo.state_dir, hall_repo.root).ok


def test_a_server_down_never_slows_the_daemons_pass(hall_repo, item, services):
    url = services.url
    services.stop()  # connection refused from now on
    phone_config(url)
    questions.ask(hall_repo, "Which way?", item_id=item)
    started = time.monotonic()
    steps = daemon.pass_repo(hall_repo, "test-holder")
    first = time.monotonic() - started
    assert {s["outcome"] for s in steps if s.get("step") == "notify"} == {"notify_failed"}
    started = time.monotonic()
    again = daemon.pass_repo(hall_repo, "test-holder")
    assert [s for s in again if s.get("step") == "notify"] == []
    assert first < 5 and time.monotonic() - started < 5
    assert len(notices(hall_repo, "notify_failed")) == 3


def test_the_daemon_sends_what_its_pass_put_in_the_inbox(hall_repo, item, services):
    phone_config(services.url, channels='["slack"]')
    questions.ask(hall_repo, "Which way?", item_id=item, options=["a", "b"])
    run = daemon.run(until_idle=True, repos=[hall_repo.root])
    assert [s["outcome"] for s in run.steps if s.get("step") == "notify"] == ["notified"]
    assert len(services.seen) == 1


def test_a_bad_user_config_is_an_error_naming_the_key(hall_repo, item):
    user_config('[notify]\nchannels = ["pager"]\n')
    from hallmark.core.notify.settings import user_config as load

    with pytest.raises(HallError, match=r"notify\.channels"):
        load()
    user_config('[notify]\nquiet_hours = "late"\n')
    with pytest.raises(HallError, match="quiet_hours"):
        load()
    assert Path(user_config("x = [")).exists()
    with pytest.raises(HallError, match=r"config\.toml"):
        load()


def test_a_failures_answer_never_repeats_the_webhook_url(hall_repo, item):
    user_config(
        '[notify]\nchannels = ["slack"]\n[notify.slack]\nwebhook = "hooks.example.invalid/services/T0/B0/s3cretPart"\n'
    )
    questions.ask(hall_repo, "Which way?", item_id=item)
    (step,) = notify_pass(hall_repo)
    assert step["outcome"] == "notify_failed" and "<the URL>" in step["answer"]
    (notice,) = notices(hall_repo, "notify_failed")
    assert "s3cretPart" not in json.dumps(notice) and "s3cretPart" not in json.dumps(state.read(hall_repo.state_dir))


def test_the_demo_never_notifies_the_persons_channels(hall_repo, item, services):
    """The demo copies the person's config.toml (their theme and keys) into its data dir; its own
    .hallmark.toml turns notifications off, so demo items never reach a phone."""
    from hallmark.core.demo import workspace

    phone_config(services.url)
    (hall_repo.root / ".hallmark.toml").write_text(workspace.config_text("/opt/venv/bin/hall-standin-claude"))
    hall_repo.__dict__.pop("config", None)
    questions.ask(hall_repo, "Which way?", item_id=item)
    assert notify_pass(hall_repo) == [] and services.seen == []
