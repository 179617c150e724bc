"""The desktop channel for real: `hall notify test` in a private D-Bus session (dbus-run-session)
with a scripted freedesktop notification server on the bus (the system python's dbus and gi
bindings) and `dbus-monitor` watching org.freedesktop.Notifications; the Notify call must carry
the summary and body Hallmark sent. Skips, saying why, where any part is not installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import user_config

BIN = Path(sys.executable).parent
SYSTEM_PYTHON = "/usr/bin/python3"

SERVER = r"""
import json, sys
import dbus, dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DBusGMainLoop(set_as_default=True)
out, ready = sys.argv[1], sys.argv[2]
IFACE = "org.freedesktop.Notifications"

class Server(dbus.service.Object):
    @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("scripted", "hallmark-tests", "1", "1.2")

    @dbus.service.method(IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["body"]

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        with open(out, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"app": str(app), "summary": str(summary), "body": str(body),
                                     "urgency": int(hints.get("urgency", -1))}) + "\n")
        return 7

bus = dbus.SessionBus()
name = dbus.service.BusName(IFACE, bus)
Server(bus, "/org/freedesktop/Notifications")
open(ready, "w").close()
GLib.MainLoop().run()
"""

SCRIPT = r"""
"$PY" "$OUT/server.py" "$OUT/served.jsonl" "$OUT/ready" &
for i in $(seq 100); do [ -f "$OUT/ready" ] && break; sleep 0.05; done
dbus-monitor "interface='org.freedesktop.Notifications',member='Notify'" > "$OUT/monitor.txt" 2>/dev/null &
sleep 0.3
"$HALL" notify test > "$OUT/test.json"
sleep 0.3
kill $! %1 2>/dev/null
true
"""


def _why_not() -> str | None:
    for tool in ("dbus-run-session", "dbus-monitor", "notify-send"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install -y dbus libnotify-bin)"
    probe = (
        subprocess.run(
            [SYSTEM_PYTHON, "-c", "import dbus, dbus.service, gi.repository.GLib"], capture_output=True, check=False
        )
        if os.path.exists(SYSTEM_PYTHON)
        else None
    )
    if probe is None or probe.returncode != 0:
        return "the scripted notification server needs the system python's dbus and gi (python3-dbus, python3-gi)"
    return None


@pytest.mark.skipif(sys.platform != "linux", reason="freedesktop notifications are Linux's")
def test_the_desktop_channel_makes_the_notify_call(tmp_path):
    why = _why_not()
    if why:
        pytest.skip(why)
    user_config('[notify]\nchannels = ["desktop"]\n')
    (tmp_path / "server.py").write_text(SERVER)
    env = {**os.environ, "OUT": str(tmp_path), "PY": SYSTEM_PYTHON, "HALL": str(BIN / "hall")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    subprocess.run(["dbus-run-session", "--", "sh", "-c", SCRIPT], env=env, timeout=60, check=True, cwd=tmp_path)
    reply = json.loads((tmp_path / "test.json").read_text())
    assert reply["ok"] is True, reply
    assert [(r["channel"], r["ok"]) for r in reply["results"]] == [("desktop", True)]
    assert reply["results"][0]["answer"] == "notify-send: exit 0"
    (served,) = [json.loads(line) for line in (tmp_path / "served.jsonl").read_text().splitlines()]
    assert served == {
        "app": "Hallmark",
        "summary": "Hallmark · test",
        "body": "A test from hall notify test\nIf you read this, this channel reaches you.\nanswer: nothing to answer",
        "urgency": 1,
    }
    monitor = (tmp_path / "monitor.txt").read_text()
    assert "member=Notify" in monitor
    assert 'string "Hallmark · test"' in monitor
    assert 'string "A test from hall notify test' in monitor
