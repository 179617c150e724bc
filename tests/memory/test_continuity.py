"""Continuity: the project identity, the one checkpoint, scoping, notes and locked decisions."""

from __future__ import annotations

import json

import pytest
from hallmark.core.errors import HallError
from hallmark.core.memory import (
    api,
    briefing,
    checkpoint,
    decisions,
    identity,
    inject,
    notes,
    transfer,
)
from hallmark.core.paths import discover

from .conftest import git

FULL = {
    "Phase": "implementation",
    "Active work": "H-0007 checkout flow (issue 12)",
    "Completed": "red test",
    "In flight": "wiring the form",
    "Blocked": "None",
    "Pending decisions": "None",
    "Relevant files": "web/checkout.tsx",
    "Last verified": "npm test: 2 failed",
    "Next step": "make the form test pass",
}


# -- identity ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url, expected",
    [
        ("git@github.com:Owner/Repo.git", "github.com/Owner/Repo"),
        ("https://github.com/owner/repo", "github.com/owner/repo"),
        ("https://user@gitlab.example.com:8443/group/sub/proj.git", "gitlab.example.com/group/sub/proj"),
        ("ssh://git@github.com/owner/repo.git", "github.com/owner/repo"),
        ("/srv/git/local.git", None),
    ],
)
def test_origin_urls_normalise(url, expected):
    assert identity.normalise_origin(url) == expected


@pytest.mark.parametrize(
    "value, ok",
    [
        ("github.com/o/r", True),
        ("local/550e8400-e29b-41d4-a716-446655440000", True),
        ("a", False),
        ("has space", False),
        ("-lead", False),
        ("x" * 129, False),
        ("x" * 128, True),
        ("proj:name_1.2", True),
    ],
)
def test_identity_grammar(value, ok):
    if ok:
        assert identity.validate(value) == value
    else:
        with pytest.raises(HallError) as err:
            identity.validate(value)
        assert err.value.code == "USAGE" and "[A-Za-z0-9]" in err.value.message


def test_init_proposes_the_origin_identity(git_repo, hall):
    git(git_repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    reply = hall("init", cwd=git_repo).json
    assert reply["project_identity"]["project"] == "github.com/acme/widgets" and reply["project_identity"]["written"]
    assert (git_repo / ".agentmemory-project").read_text() == "github.com/acme/widgets\n"
    assert any(n.startswith("git add") and ".agentmemory-project" in n for n in reply["next"])
    # not committed yet: memory refuses to guess
    result = hall("library", "list", cwd=git_repo)
    assert result.code == 4 and "not committed yet" in result.json["error"]["message"]
    git(git_repo, "add", ".agentmemory-project")
    git(git_repo, "commit", "-qm", "identity")
    assert hall("library", "list", cwd=git_repo).json["project"] == "github.com/acme/widgets"


def test_init_without_a_remote_proposes_local_uuid(repo):
    value = (repo.root / ".agentmemory-project").read_text().strip()
    assert value.startswith("local/") and identity.GRAMMAR.fullmatch(value)
    assert identity.current(repo.paths).to_dict() == {"project": value, "source": "file"}


def test_a_working_tree_identity_that_differs_from_head_is_rejected(repo, hall):
    api.propose(repo, kind="map", pattern="The store lives in the git common dir")
    (repo.root / ".agentmemory-project").write_text("github.com/someone/else\n")
    with pytest.raises(HallError) as err:
        identity.current(repo.paths)
    assert err.value.code == "WRONG_STATE" and "differs from HEAD" in err.value.message
    result = hall("library", "list", cwd=repo.root)
    assert result.code == 4 and "differs from HEAD" in result.json["error"]["message"]
    context = inject.session_context(discover(repo.root))
    assert "memory was NOT restored" in context and "differs from HEAD" in context
    assert "git common dir" not in context
    brief = hall("library", "briefing", cwd=repo.root).json
    assert brief["memory_restored"] is False and "NOT restored" in brief["text"] and brief["learnings"] == []


def test_an_invalid_identity_file_is_a_clear_error(repo):
    (repo.root / ".agentmemory-project").write_text("two words\n")
    git(repo.root, "commit", "-qam", "bad id")
    with pytest.raises(HallError) as err:
        api.list_learnings(repo)
    assert "not a valid project identity" in err.value.message


def test_another_projects_data_is_never_returned(repo, tmp_path):
    api.propose(repo, kind="map", pattern="Ours: the index is derived")
    mine = api.accept(repo, "L-0001")
    # an export from another project lands in this store, keeping its own scope
    foreign = {
        "format": "hallmark-library",
        "version": 1,
        "project": "github.com/other/proj",
        "learnings": [
            {
                "id": "L-0001",
                "kind": "rule",
                "pattern": "FOREIGN-MARKER never trust the cache",
                "status": "accepted",
                "scope": {"project": "github.com/other/proj", "paths": ["src/**"]},
                "evidence": [],
            }
        ],
    }
    (tmp_path / "other.json").write_text(json.dumps(foreign))
    result = transfer.import_export(repo, tmp_path / "other.json")
    foreign_id = result["imported"][0]["id"]
    assert result["imported"][0]["project"] == "github.com/other/proj"
    assert [x.id for x in api.list_learnings(repo)] == [mine.id]
    assert api.pending(repo) == []
    with pytest.raises(HallError) as err:
        api.get(repo, foreign_id)
    assert err.value.code == "LEARNING_NOT_FOUND"
    brief = briefing.build(repo.paths, changed=["src/app.py"], query="cache trust", effort="high")
    assert "FOREIGN-MARKER" not in json.dumps(brief.to_dict())
    assert "FOREIGN-MARKER" not in inject.session_context(repo.paths)
    # --adopt brings it here as a proposal a person must drain
    adopted = transfer.import_export(repo, tmp_path / "other.json", adopt=True)
    assert adopted["imported"][0]["status"] == "proposed"


# -- checkpoint ---------------------------------------------------------------------------------
def test_checkpoint_single_slot_replaced_with_history(repo):
    assert checkpoint.show(repo.paths)["checkpoint"] is None
    first = checkpoint.set_checkpoint(repo.paths, FULL)
    assert first["replaced"] is False and first["text"].splitlines()[0] == "Phase: implementation"
    assert [line.split(":")[0] for line in first["text"].splitlines()] == list(checkpoint.FIELDS)
    second = checkpoint.set_checkpoint(repo.paths, {"Phase": "review", "Next step": "read the findings"})
    assert second["replaced"] is True
    shown = checkpoint.show(repo.paths)["checkpoint"]
    assert shown["Phase"] == "review" and shown["Active work"] == FULL["Active work"]  # carried over
    folder = checkpoint.folder(repo.paths, identity.current(repo.paths).value)
    assert sorted(p.name for p in folder.glob("*.md")) == ["current.md"]  # exactly one slot
    versions = checkpoint.history(repo.paths).versions
    assert [v["checkpoint"]["Phase"] for v in versions] == ["implementation", "review"]
    fresh = checkpoint.set_checkpoint(
        repo.paths, {"Phase": "discovery", "Active work": "new", "Next step": "ask"}, fresh=True
    )
    assert fresh["checkpoint"]["Completed"] == "" and fresh["checkpoint"]["Blocked"] == "None"


def test_checkpoint_size_limit_and_field_rules(repo):
    with pytest.raises(HallError) as err:
        checkpoint.set_checkpoint(repo.paths, {**FULL, "Completed": "x" * 3900})
    assert err.value.code == "USAGE" and "limit is 4,000" in err.value.message
    with pytest.raises(HallError) as err:
        checkpoint.set_checkpoint(repo.paths, {**FULL, "Next step": "do a\nthen b"})
    assert "exactly one" in err.value.message
    with pytest.raises(HallError):
        checkpoint.set_checkpoint(repo.paths, {"Phase": "x"})  # Active work and Next step missing
    with pytest.raises(HallError):
        checkpoint.set_checkpoint(repo.paths, {**FULL, "Mood": "good"})
    assert checkpoint.show(repo.paths)["checkpoint"] is None  # nothing stored by any failure
    ok = checkpoint.set_checkpoint(repo.paths, {**FULL, "Completed": "y" * 3600})
    assert ok["characters"] <= 4000


def test_checkpoint_cli_show_set_history(repo, hall):
    assert hall("checkpoint", "show", cwd=repo.root).json["checkpoint"] is None
    reply = hall(
        "checkpoint", "set", "--phase", "review", "--active-work", "H-2", "--next-step", "merge", cwd=repo.root
    ).json
    assert reply["checkpoint"]["Phase"] == "review"
    text = "Phase: blocked\nActive work: H-2\nBlocked: waiting on Ana\nNext step: ask Ana\n"
    reply = hall("checkpoint", "set", "--from-file", "-", cwd=repo.root, input=text).json
    assert reply["checkpoint"]["Blocked"] == "waiting on Ana" and reply["replaced"]
    assert hall("checkpoint", "history", cwd=repo.root).json["count"] == 2
    bad = hall("checkpoint", "set", "--from-file", "-", cwd=repo.root, input="Mood: great\n")
    assert bad.code == 2 and "not one of the fields" in bad.json["error"]["message"]


def test_checkpoint_is_per_project(repo):
    checkpoint.set_checkpoint(repo.paths, FULL)
    (repo.root / ".agentmemory-project").write_text("github.com/acme/other\n")
    git(repo.root, "commit", "-qam", "new identity")
    assert checkpoint.show(repo.paths)["checkpoint"] is None


# -- notes and decisions --------------------------------------------------------------------------
def test_notes_with_facet_and_as_of_and_the_index(repo, hall):
    note = notes.add(
        repo.paths,
        fact="Staging deploys need the VPN",
        facet="infrastructure",
        provenance="Ana, in H-0003",
        as_of="2026-11-02",
    ).note
    assert note["file"].endswith("notes/2026-11-02-staging-deploys-need-the-vpn.md")
    line = notes.index_line(note)
    assert (
        line
        == "- Staging deploys need the VPN (infrastructure, as of 2026-11-02) — notes/2026-11-02-staging-deploys-need-the-vpn.md"
    )
    with pytest.raises(HallError):
        notes.add(repo.paths, fact="x", facet="feelings")
    with pytest.raises(HallError):
        notes.add(repo.paths, fact="x", facet="gotcha", as_of="yesterday")
    listed = hall("note", "list", cwd=repo.root).json
    assert listed["index"] == [line]
    body = hall("note", "show", note["slug"], cwd=repo.root).json["note"]["body"]
    assert body == "Staging deploys need the VPN\n\nAna, in H-0003"
    hall("note", "remove", note["slug"], "--reason", "VPN retired", cwd=repo.root)
    assert hall("note", "list", cwd=repo.root).json["count"] == 0


def test_lock_shows_first_then_locks_and_supersedes(repo, hall):
    preview = hall(
        "library",
        "lock",
        "--title",
        "Buttons",
        "--spec",
        "Primary buttons are blue",
        "--allow",
        "navy on dark themes",
        "--anti",
        "gradient buttons",
        cwd=repo.root,
    ).json
    assert preview["locked"] is False and preview["would_lock"]["allowed"] == ["navy on dark themes"]
    assert hall("library", "lock", "--list", cwd=repo.root).json["count"] == 0
    first = hall(
        "library", "lock", "--title", "Buttons", "--spec", "Primary buttons are blue", "--confirm", cwd=repo.root
    ).json["decision"]
    second = decisions.lock(
        repo.paths, title="Buttons v2", specification="Primary buttons are teal", supersedes=first["id"], confirm=True
    )["decision"]
    old = decisions.get(repo.paths, first["id"])
    assert old["status"] == "superseded" and old["superseded_by"] == second["id"]
    assert second["supersedes"] == first["id"]
    assert decisions.context_lines(repo.paths) == [f"- {second['id']} Buttons v2: Primary buttons are teal"]
    with pytest.raises(HallError):
        decisions.lock(repo.paths, title="again", specification="x", supersedes=first["id"], confirm=True)
    with pytest.raises(HallError) as err:
        decisions.lock(repo.paths, title="agent", specification="x", confirm=True, actor="agent")
    assert err.value.code == "GATE_DENIED"


def test_a_worktree_from_before_the_identity_commit_uses_the_main_checkouts_value(git_repo, tmp_path):
    from hallmark.core import setup_repo

    git(git_repo, "branch", "old-branch")  # cut before .agentmemory-project exists
    setup_repo.init(git_repo)
    (git_repo / ".agentmemory-project").write_text("github.com/acme/chosen-by-hand\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "init")
    worktree = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(worktree), "old-branch")
    assert not (worktree / ".agentmemory-project").exists()
    assert identity.current(discover(worktree)).to_dict() == {
        "project": "github.com/acme/chosen-by-hand",
        "source": "file",
    }
