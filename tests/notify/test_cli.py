"""`hall notify ntfy` (a random topic in the user's config.toml), `hall notify test` (one message on
every channel, what each answered), the schema of [notify], and the app's terminal sequences."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from hallmark.core.inbox_results import QuestionEntry
from hallmark.core.notify.terminal import alert

from .conftest import TELEGRAM_TOKEN, phone_config


def test_ntfy_setup_writes_a_random_topic_and_notify_test_reaches_it(hall, tmp_path, services):
    first = hall("notify", "ntfy", "--server", services.url, cwd=tmp_path)
    assert first.code == 0, first.stderr
    topic = first.json["topic"]
    assert topic.startswith("hallmark-") and len(topic) >= 9 + 20
    assert first.json["subscribe"] == f"{services.url}/{topic}"
    config = Path(os.environ["HALLMARK_DATA_DIR"]) / "config.toml"
    data = tomllib.loads(config.read_text())
    assert data["notify"]["channels"] == ["ntfy"] and data["notify"]["ntfy"] == {"server": services.url, "topic": topic}
    again = hall("notify", "ntfy", "--server", services.url, cwd=tmp_path).json["topic"]
    assert again != topic  # random each time
    topic = again
    tested = hall("notify", "test", cwd=tmp_path)
    assert tested.code == 0, tested.stdout
    (result,) = tested.json["results"]
    assert result["channel"] == "ntfy" and result["ok"] is True and result["answer"].startswith("200 {")
    (seen,) = services.seen
    from email.header import decode_header

    assert seen.path == f"/{topic}" and seen.method == "POST"
    assert decode_header(seen.headers["Title"])[0][0].decode() == "Hallmark · test"
    assert seen.headers["Priority"] == "low" and seen.headers["Tags"] == "hallmark,test_tube"


def test_notify_test_prints_what_each_channel_answered(hall, tmp_path, services, hall_repo):
    phone_config(services.url)
    done = hall("notify", "test", cwd=hall_repo.root)
    assert done.code == 0, done.stdout
    answers = {r["channel"]: (r["ok"], r["answer"]) for r in done.json["results"]}
    assert answers["slack"] == (True, "200 ok")
    assert answers["telegram"][0] is True and '"ok": true' in answers["telegram"][1]
    assert TELEGRAM_TOKEN not in done.stdout
    services.fail = 500
    failed = hall("notify", "test", cwd=hall_repo.root)
    assert failed.code == 1 and {r["ok"] for r in failed.json["results"]} == {False}
    assert failed.json["results"][0]["answer"].startswith("500 ")
    (hall_repo.root / ".hallmark.toml").write_text('[notify]\nchannels = ["slack"]\n')
    narrowed = hall("notify", "test", cwd=hall_repo.root).json
    assert [r["channel"] for r in narrowed["results"]] == ["slack"]


def test_a_channel_listed_without_its_keys_is_named_not_sent(hall, tmp_path):
    config = Path(os.environ["HALLMARK_DATA_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[notify]\nchannels = ["telegram"]\n')
    done = hall("notify", "test", cwd=tmp_path)
    assert done.code == 1
    assert done.json["results"] == []
    assert done.json["incomplete"] == {"telegram": "[notify] telegram.token, telegram.chat_id is not set"}


def test_every_notify_key_is_in_hall_schema_config(hall, tmp_path):
    schema = hall("schema", "config", cwd=tmp_path).json
    text = json.dumps(schema)
    for key in ("quiet_hours", "remind", "remind_count", "route", "terminal", "webhook", "chat_id", "topic"):
        assert f'"{key}"' in text, key


def test_the_apps_terminal_sequences():
    entry = QuestionEntry(
        kind="question", item="H-0001", since="", text="Keep it? [a, b]", key="Q-1", fingerprint="f",
        next=(), qid="Q-1", options=["a", "b"], default=None,
    )  # fmt: skip
    assert alert("off", entry) == ""
    assert alert("bell", entry) == "\a"
    assert alert("osc9", entry, "Speed\x1b]0;x") == "\x1b]9;Hallmark · question · H-0001: Speed]0,x: Keep it?\a"
    assert alert("osc777", entry) == "\x1b]777;notify;Hallmark · question · H-0001;Keep it?\a"
