"""The agent-verb channel: inside the sandbox, `hall` hands the agent verbs that write Hallmark's
state to a server outside it, which accepts those verbs only, from the repository's checkouts only,
and runs them as an agent's (a person's decision is refused as it is to any agent)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from hallmark.core import agent_channel, items
from hallmark.core.agent_channel_server import Server, serving
from hallmark.core.errors import HallError
from hallmark.core.paths import discover
from hallmark.core.repo import open_repo


@pytest.fixture
def repo(env_repo):
    return env_repo


@pytest.mark.parametrize(
    "argv",
    [
        ["ready"],
        ["verdict", "--file", "v.json"],
        ["budget", "--grant", "5"],
        ["daemon", "run"],
        ["answer", "Q-1", "a"],
        ["library", "accept", "L-0001"],
        ["checkpoint", "show"],
        ["drop", "H-0001", "--reason", "x"],
    ],
)
def test_only_the_agent_verbs_pass(argv):
    with pytest.raises(HallError) as caught:
        agent_channel.check_request({"argv": argv, "cwd": "/tmp"})
    assert caught.value.code == "GATE_DENIED"


@pytest.mark.parametrize(
    "argv",
    [
        ["fixed", "F-1"],
        ["propose-ready", "--summary", "s"],
        ["ask", "q?"],
        ["new", "--title", "t"],
        ["findings"],
        ["checkpoint", "set", "--phase", "p"],
        ["library", "propose", "x"],
    ],
)
def test_the_agent_verbs_pass(argv):
    assert agent_channel.check_request({"argv": argv, "cwd": "/tmp"})["verb"] == agent_channel.agent_verb(argv)


@pytest.mark.parametrize(
    "data",
    [
        {"argv": ["new", "--open", "--title", "t"], "cwd": "/tmp"},  # would start a process outside the sandbox
        {"argv": ["new", "--yolo"], "cwd": "/tmp"},
        {"argv": ["new", "--op", "--title", "t"], "cwd": "/tmp"},  # argparse's prefix of --open
        {"argv": ["checkpoint", "set", "--from-file", "/home/u/.ssh/id_ed25519"], "cwd": "/tmp"},  # read as the server
        {"argv": ["checkpoint", "set", "--from-f=/etc/shadow"], "cwd": "/tmp"},
        {"argv": ["-C/elsewhere", "fixed", "F-1"], "cwd": "/tmp"},
        {"argv": ["fixed", "F-1"], "cwd": "relative"},
        {"argv": ["fixed", "F-1"], "cwd": "/tmp", "env": {"HALL_ACTOR": "you"}},  # who acts is the launcher's
        {"argv": ["fixed", "F-1"], "cwd": "/tmp", "env": {"CLAUDECODE": "0"}},
        {"argv": "fixed", "cwd": "/tmp"},
        {"argv": ["fixed", 1], "cwd": "/tmp"},
        [],
    ],
)
def test_a_bad_request_is_refused(data):
    with pytest.raises(HallError):
        agent_channel.check_request(data)


def test_the_server_runs_an_agent_verb_and_refuses_a_persons_decision_and_other_places(repo, tmp_path):
    paths = discover(repo.main)
    server = Server(paths, {**os.environ, "HALL_ACTOR": "fixer"})
    try:
        listed = server.handle({"argv": ["findings", repo.item], "cwd": str(repo.wt)})
        assert listed["code"] == 0, listed
        before = [e["event"] for e in items.item_events(open_repo(repo.main), repo.item)]
        ready = server.handle({"argv": ["ready", repo.item], "cwd": str(repo.wt)})
        assert ready["code"] == 5 and "GATE_DENIED" in ready["stdout"], ready  # not an agent verb at all
        smuggled = server.handle({"argv": ["checkpoint", "set", "--phase", "x"], "cwd": str(tmp_path)})
        assert smuggled["code"] == 5 and "not a checkout" in smuggled["stdout"], smuggled
        assert [e["event"] for e in items.item_events(open_repo(repo.main), repo.item)] == before
    finally:
        server.stop()


def test_a_client_forwards_through_the_spool_and_prints_the_reply(repo):
    paths = discover(repo.main)
    with serving(paths, {**os.environ, "HALL_ACTOR": "fixer"}) as server:
        code = "import sys; from hallmark.core import agent_channel as c; sys.exit(c.forward(sys.argv[1:]))"
        env = {**os.environ, "HALL_CHANNEL": str(server.spool), "HALL_SESSION_ID": "s-1"}
        proc = subprocess.run(
            [sys.executable, "-c", code, "checkpoint", "set", "--phase", "p", "--active-work", "a", "--next-step", "n"],
            cwd=repo.wt,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert json.loads(proc.stdout)
        denied = subprocess.run(
            [sys.executable, "-c", code, "ready"], cwd=repo.wt, env=env, capture_output=True, text=True, timeout=60
        )
        assert denied.returncode == 5 and json.loads(denied.stdout)["error"]["code"] == "GATE_DENIED"
        assert not [p for p in server.spool.iterdir() if p.name.endswith((".req.json", ".reply.json"))]
    assert not server.spool.exists()  # a launcher's spool goes with it


def test_no_live_channel_is_a_clear_error(repo, tmp_path):
    with pytest.raises(HallError) as caught:
        agent_channel.forward(["fixed", "F-1"], cwd=repo.wt, env={"HALL_CHANNEL": str(tmp_path)})
    assert "no agent-verb channel" in caught.value.message and "hall new --open" in " ".join(caught.value.next)


def test_stdin_is_the_only_file_checkpoint_set_may_read():
    assert agent_channel.check_request({"argv": ["checkpoint", "set", "--from-file", "-"], "cwd": "/tmp", "stdin": "x"})


def test_a_link_left_in_the_spool_is_not_followed(repo, tmp_path):
    """The agent can write the spool: a request that is a link to a file only the server can read
    (the signing key) is refused unread."""
    secret = tmp_path / "key"
    secret.write_text(json.dumps({"argv": ["findings"], "cwd": str(repo.wt)}))  # would be a valid request
    with serving(discover(repo.main), dict(os.environ)) as server:
        (server.spool / "1-ab.req.json").symlink_to(secret)
        reply = server.spool / "1-ab.reply.json"
        for _ in range(200):
            if reply.exists():
                break
            time.sleep(0.05)
        answer = json.loads(reply.read_text())
    assert answer["code"] != 0 and "unreadable channel request" in answer["stdout"], answer
