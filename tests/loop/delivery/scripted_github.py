"""A scripted GitHub for the real `gh`: TLS on 127.0.0.1:443 inside a private network namespace.

REST under /api/v3/, GraphQL at /api/graphql, and git's smart HTTP (git http-backend over the
local bare repository) at /<owner>/<repo>.git, so `gh` finds the repo from an https remote and
`git fetch` works. Every request is recorded; a test changes the world (`World`) between passes.
Loaded by tests/loop/delivery/conftest.py (importlib mode: not imported by name).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def _sibling(name: str) -> Any:
    import importlib.util
    import sys

    full = f"hallmark_tests_{name}"
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, Path(__file__).with_name(f"{name}.py"))
        assert spec and spec.loader
        sys.modules[full] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[full])
    return sys.modules[full]


select = _sibling("graphql_select").select
CLONE_NEWNET = 0x40000000
HOST = "localhost"


# -- the network namespace ---------------------------------------------------------------------


def namespace_problem() -> str | None:
    """Why this process cannot make a private network namespace (None: it can)."""
    if os.geteuid() != 0:
        return "a private network namespace needs root here (CI runs as root); the scripted GitHub tests skip"
    if not Path("/proc/self/ns/net").exists():
        return "no /proc/self/ns/net: network namespaces are not available"
    return None


class PrivateNetwork:
    """This thread (and every child process and thread it starts) in a fresh network namespace
    with only `lo` up; `close()` puts the thread back where it was."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._home = os.open(f"/proc/self/task/{threading.get_native_id()}/ns/net", os.O_RDONLY)
        if self._libc.unshare(CLONE_NEWNET) != 0:
            errno = ctypes.get_errno()
            os.close(self._home)
            raise OSError(errno, f"unshare(CLONE_NEWNET): {os.strerror(errno)}")
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True, capture_output=True)

    def close(self) -> None:
        if self._libc.setns(self._home, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns back to the original network namespace")
        os.close(self._home)


# -- the test certificate authority --------------------------------------------------------------


def certificates(where: Path) -> tuple[Path, Path, Path]:
    where.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (where / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    ext = where / "server.ext"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca),
        "-subj", "/CN=Hallmark test CA", "-days", "2")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=localhost")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(cert), "-days", "2", "-extfile", str(ext))  # fmt: skip
    return ca, cert, key


# -- the world -----------------------------------------------------------------------------------


@dataclass
class Thread:
    id: str
    author: str
    body: str
    path: str
    line: int
    resolved: bool = False
    replies: list[str] = field(default_factory=list)


@dataclass
class PullRequest:
    number: int
    title: str
    body: str
    head: str
    base: str
    state: str = "OPEN"  # OPEN, MERGED, CLOSED
    mergeable: str = "MERGEABLE"
    merge_state: str = "CLEAN"
    review_decision: str = ""
    checks: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    author: str = "hallmark-bot"


@dataclass
class World:
    """What GitHub knows; the test edits it between passes."""

    owner: str
    name: str
    bare: Path
    prs: dict[int, PullRequest] = field(default_factory=dict)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    down: bool = False  # every API call answers 503
    drop_comments: bool = False  # a comment post answers as if it worked, and keeps nothing
    next_number: int = 1
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"https://{HOST}/{self.owner}/{self.name}"

    def head_sha(self, branch: str) -> str:
        proc = subprocess.run(
            ["git", "rev-parse", "-q", "--verify", f"refs/heads/{branch}"],
            cwd=self.bare,
            capture_output=True,
            text=True,
            check=False,
        )
        return proc.stdout.strip()

    def pr_for(self, branch: str) -> PullRequest | None:
        found = [p for p in self.prs.values() if p.head == branch]
        return found[-1] if found else None

    def called(self, kind: str) -> list[dict[str, Any]]:
        """The recorded requests of one kind: a GraphQL operation name, or 'METHOD /path'."""
        return [r for r in self.requests if r["op"] == kind or f"{r['method']} {r['path']}".startswith(kind)]

    def ops(self) -> list[str]:
        return [r["op"] for r in self.requests]


# -- GraphQL ---------------------------------------------------------------------------------


_OP = re.compile(r"^\s*(query|mutation)\s+(\w+)", re.M)


def _check_node(check: dict[str, Any]) -> dict[str, Any]:
    return {
        "__typename": "CheckRun",
        "name": check["name"],
        "status": check.get("status", "COMPLETED"),
        "conclusion": check.get("conclusion", "SUCCESS"),
        "startedAt": "2026-01-01T00:00:00Z",
        "completedAt": "2026-01-01T00:01:00Z",
        "detailsUrl": f"https://{HOST}/acme/remote/actions/runs/{check.get('run', 1)}/job/{check.get('run', 1) * 100}",
        "isRequired": check.get("required", True),
        "checkSuite": {"workflowRun": {"databaseId": check.get("run", 1), "workflow": {"name": check["name"]}}},
    }


def pr_node(world: World, pr: PullRequest) -> dict[str, Any]:
    sha = world.head_sha(pr.head)
    rollup = {"contexts": {"nodes": [_check_node(c) for c in pr.checks], "pageInfo": {"hasNextPage": False}}}
    return {
        "id": f"PR_{pr.number}",
        "number": pr.number,
        "title": pr.title,
        "body": pr.body,
        "url": f"{world.url}/pull/{pr.number}",
        "state": pr.state,
        "closed": pr.state != "OPEN",
        "merged": pr.state == "MERGED",
        "isDraft": False,
        "mergeable": pr.mergeable,
        "mergeStateStatus": pr.merge_state,
        "reviewDecision": pr.review_decision or None,
        "headRefName": pr.head,
        "headRefOid": sha,
        "baseRefName": pr.base,
        "author": {"login": pr.author},
        "headRepositoryOwner": {"login": world.owner},
        "headRepository": {"name": world.name},
        "isCrossRepository": False,
        "maintainerCanModify": True,
        "comments": {
            "nodes": [dict(c, author={"login": c["author"]}) for c in pr.comments],
            "totalCount": len(pr.comments),
            "pageInfo": {"hasNextPage": False, "endCursor": ""},
        },
        "commits": {"totalCount": 1, "nodes": [{"commit": {"oid": sha, "statusCheckRollup": rollup}}]},
        "statusCheckRollup": {"nodes": [{"commit": {"statusCheckRollup": rollup}}]},
        "reviewThreads": {
            "nodes": [
                {
                    "id": t.id,
                    "isResolved": t.resolved,
                    "isOutdated": False,
                    "path": t.path,
                    "line": t.line,
                    "comments": {
                        "nodes": [{"body": t.body, "author": {"login": t.author}, "url": f"{world.url}/t/{t.id}"}]
                        + [{"body": r, "author": {"login": "hallmark-bot"}} for r in t.replies]
                    },
                }
                for t in pr.threads
            ],
            "pageInfo": {"hasNextPage": False, "endCursor": ""},
        },
        "labels": {"nodes": []},
        "assignees": {"nodes": []},
        "reviewRequests": {"nodes": []},
        "reviews": {"nodes": []},
        "latestReviews": {"nodes": []},
        "projectCards": {"nodes": []},
        "milestone": None,
    }


def _repo_node(world: World) -> dict[str, Any]:
    return {
        "id": "R_1",
        "name": world.name,
        "owner": {"login": world.owner},
        "url": world.url,
        "defaultBranchRef": {"name": "main"},
        "viewerPermission": "WRITE",
        "isPrivate": False,
        "hasIssuesEnabled": True,
        "parent": None,
        "mergeCommitAllowed": True,
        "rebaseMergeAllowed": True,
        "squashMergeAllowed": True,
    }


def graphql(world: World, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The answer to one GraphQL document (by what it asks for, not a full GraphQL engine)."""
    if query.lstrip().startswith("mutation"):
        return _mutation(world, query, variables)
    return _query(world, query, variables)


def _mutation(world: World, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    if "createPullRequest" in query:
        data = variables.get("input", {})
        number = world.next_number
        world.next_number += 1
        head = str(data.get("headRefName", "")).split(":")[-1]
        pr = PullRequest(
            number, str(data.get("title", "")), str(data.get("body", "")), head, str(data.get("baseRefName"))
        )
        world.prs[number] = pr
        return 200, {"data": {"createPullRequest": {"pullRequest": pr_node(world, pr)}}}
    if "updatePullRequest" in query:
        data = variables.get("input", {})
        pr = world.prs[int(str(data.get("pullRequestId", "PR_0"))[3:])]
        pr.title = str(data.get("title") or pr.title)
        pr.body = str(data.get("body") if data.get("body") is not None else pr.body)
        # gh decodes this one strictly (shurcooL/graphql): exactly the selection, nothing more
        return 200, {"data": {"updatePullRequest": {"pullRequest": {"id": f"PR_{pr.number}"}}}}
    if "addComment" in query:
        data = variables.get("input", {})
        pr = world.prs[int(str(data.get("subjectId", "PR_0"))[3:])]
        cid = sum(len(p.comments) for p in world.prs.values()) + 100
        url = f"{world.url}/pull/{pr.number}#issuecomment-{cid}"
        if not world.drop_comments:
            pr.comments.append(
                {"id": f"IC_{cid}", "body": str(data.get("body", "")), "author": "hallmark-bot", "url": url}
            )
        return 200, {"data": {"addComment": {"commentEdge": {"node": {"url": url}}}}}
    if "resolveReviewThread" in query:
        tid = str(variables.get("threadId") or variables.get("id") or "")
        found = re.search(r'threadId:\s*"([^"]+)"', query)
        tid = tid or (found.group(1) if found else "")
        for pr in world.prs.values():
            for thread in pr.threads:
                if thread.id == tid:
                    thread.resolved = True
                    return 200, {"data": {"resolveReviewThread": {"thread": {"id": tid, "isResolved": True}}}}
        return 200, {"errors": [{"message": f"no thread {tid}"}]}
    return 200, {"errors": [{"message": "the scripted GitHub does not know this mutation"}]}


def _query(world: World, query: str, variables: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    repo = _repo_node(world)
    if "viewer" in query and "repository" not in query:
        return 200, {"data": {"viewer": {"login": "hallmark-bot"}}}
    if "pullRequests(" in query:
        head = variables.get("headRefName")
        states = variables.get("states") or ["OPEN", "MERGED", "CLOSED"]
        nodes = [
            pr_node(world, p)
            for p in sorted(world.prs.values(), key=lambda p: -p.number)
            if (head is None or p.head == head) and p.state in states
        ]
        repo["pullRequests"] = {"nodes": nodes, "totalCount": len(nodes), "pageInfo": {"hasNextPage": False}}
        return 200, {"data": {"repository": repo}}
    if "pullRequest(" in query:
        number = int(variables.get("pr_number") or variables.get("number") or 0)
        pr = world.prs.get(number)
        if pr is None:
            return 200, {"errors": [{"type": "NOT_FOUND", "message": f"Could not resolve to a PullRequest {number}"}]}
        repo["pullRequest"] = pr_node(world, pr)
        return 200, {"data": {"repository": repo}}
    if "issue(" in query or "issueOrPullRequest(" in query:
        number = int(variables.get("number") or variables.get("issue_number") or 0)
        issue = world.issues.get(number)
        if issue is None:
            return 200, {"errors": [{"type": "NOT_FOUND", "message": f"Could not resolve to an issue {number}"}]}
        node = {
            "__typename": "Issue",
            "number": number,
            "url": f"{world.url}/issues/{number}",
            "state": "OPEN",
            **issue,
        }
        repo["issue"] = repo["issueOrPullRequest"] = node
        return 200, {"data": {"repository": repo}}
    if "repository(" in query:
        return 200, {"data": {"repository": repo}}
    return 200, {"errors": [{"message": "the scripted GitHub does not know this query"}]}


# -- the HTTP server ---------------------------------------------------------------------------


def _handler(world: World) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, code: int, payload: Any, content_type: str = "application/json") -> None:
            raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(raw)))
            self.send_header("X-Oauth-Scopes", "repo, read:org")
            self.end_headers()
            self.wfile.write(raw)

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _git(self, body: bytes) -> None:
            path, _, query = self.path.partition("?")
            env = dict(
                os.environ,
                GIT_PROJECT_ROOT=str(world.bare.parent),
                GIT_HTTP_EXPORT_ALL="1",
                PATH_INFO="/" + world.bare.name + path.split(".git", 1)[1],
                QUERY_STRING=query,
                REQUEST_METHOD=self.command,
                CONTENT_TYPE=self.headers.get("Content-Type", ""),
                CONTENT_LENGTH=str(len(body)),
            )
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False).stdout
            head, _, rest = out.partition(b"\r\n\r\n")
            status, ctype = 200, "text/plain"
            for line in head.decode().splitlines():
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name.lower() == "content-type":
                    ctype = value.strip()
            self._send(status, rest, ctype)

        def _handle(self) -> None:
            body = self._body()
            path = self.path
            if ".git/" in path:
                self._git(body)
                return
            record: dict[str, Any] = {"method": self.command, "path": path.split("?")[0], "op": ""}
            if path.startswith("/api/graphql"):
                doc = json.loads(body or b"{}")
                query = str(doc.get("query", ""))
                named = _OP.search(query)
                record.update(
                    op=named.group(2) if named else "graphql", query=query, variables=doc.get("variables") or {}
                )
            else:
                record["op"] = f"{self.command} {record['path']}"
                record["body"] = body.decode(errors="replace")
            with world.lock:
                world.requests.append(record)
                if world.down:
                    self._send(503, {"message": "the scripted GitHub is down"})
                    return
                if path.startswith("/api/graphql"):
                    code, answer = graphql(world, record["query"], record["variables"])
                    if answer.get("data") is not None:  # exactly the selection: gh decodes some strictly
                        answer["data"] = select(answer["data"], record["query"])
                else:
                    code, answer = rest(world, self.command, record["path"], body)
            self._send(code, answer)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle

    return Handler


def rest(world: World, method: str, path: str, body: bytes) -> tuple[int, Any]:
    prefix = f"/api/v3/repos/{world.owner}/{world.name}"
    if path in ("/api/v3/", "/api/v3"):
        return 200, {}
    if path == "/api/v3/user":
        return 200, {"login": "hallmark-bot"}
    if not path.startswith(prefix):
        return 404, {"message": "Not Found"}
    rel = path[len(prefix) :]
    if rel in ("", "/"):
        return 200, {"name": world.name, "full_name": f"{world.owner}/{world.name}", "default_branch": "main"}
    found = re.fullmatch(r"/issues/(\d+)", rel)
    if found and int(found.group(1)) in world.issues:
        issue = world.issues[int(found.group(1))]
        return 200, {"number": int(found.group(1)), "state": "open", **issue}
    found = re.fullmatch(r"/issues/(\d+)/comments", rel)
    if found and method == "POST":
        pr = world.prs.get(int(found.group(1)))
        if pr is None:
            return 404, {"message": "Not Found"}
        text = json.loads(body or b"{}").get("body", "")
        cid = sum(len(p.comments) for p in world.prs.values()) + 100
        url = f"{world.url}/pull/{pr.number}#issuecomment-{cid}"
        if not world.drop_comments:
            pr.comments.append({"id": f"IC_{cid}", "body": text, "author": "hallmark-bot", "url": url})
        return 201, {"id": cid, "html_url": url, "body": text}
    found = re.fullmatch(r"/actions/runs/(\d+)(/jobs|/logs)?", rel)
    if found:
        return _actions(world, int(found.group(1)), found.group(2) or "")
    found = re.fullmatch(r"/actions/workflows/(\d+)", rel)
    if found:
        return 200, {"id": int(found.group(1)), "name": "ci", "path": ".github/workflows/ci.yml", "state": "active"}
    return 404, {"message": "Not Found"}


def _actions(world: World, run: int, part: str) -> tuple[int, Any]:
    """A workflow run, its jobs (one per check with that run id) and its logs (a zip, as GitHub serves)."""
    checks = [c for p in world.prs.values() for c in p.checks if c.get("run", 1) == run]
    if not checks:
        return 404, {"message": "Not Found"}
    failed = any(str(c.get("conclusion", "SUCCESS")).upper() == "FAILURE" for c in checks)
    base = f"https://{HOST}/api/v3/repos/{world.owner}/{world.name}/actions/runs/{run}"
    if part == "":
        return 200, {
            "id": run, "name": "ci", "workflow_id": 7, "status": "completed",
            "conclusion": "failure" if failed else "success", "head_branch": "x", "head_sha": "0" * 40,
            "event": "pull_request", "jobs_url": f"{base}/jobs", "logs_url": f"{base}/logs", "url": base,
            "html_url": f"{world.url}/actions/runs/{run}", "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:01:00Z", "run_attempt": 1,
        }  # fmt: skip
    if part == "/jobs":
        jobs = []
        for i, c in enumerate(checks):
            conclusion = str(c.get("conclusion", "SUCCESS")).lower()
            step = {"name": "test", "number": 1, "status": "completed", "conclusion": conclusion}
            jobs.append({"id": run * 100 + i, "run_id": run, "name": c["name"], "status": "completed",
                         "conclusion": conclusion, "steps": [step], "started_at": "2026-01-01T00:00:00Z",
                         "completed_at": "2026-01-01T00:01:00Z", "url": f"{base}/jobs/{run * 100 + i}"})  # fmt: skip
        return 200, {"total_count": len(jobs), "jobs": jobs}
    import io
    import zipfile

    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        for c in checks:
            archive.writestr(f"{c['name']}/1_test.txt", str(c.get("log", f"{c['name']}: ok\n")))
    return 200, raw.getvalue()


class ScriptedGitHub:
    """The server, listening on 127.0.0.1:443 in this thread's network namespace."""

    def __init__(self, world: World, cert: Path, key: Path) -> None:
        self.world = world
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 443), _handler(world))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(cert), str(key))
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
