"""The signed hallmark: forgeries that the journal chain alone let through (the red team's S15 and
its kin) fail on the signature, and the keys the remote's base lists decide whom to trust.

Every key here is a real Ed25519 key made by ssh-keygen; every push is a real push to a local bare
repository; `hall verify` runs in a real fresh clone with no journal.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gatehelp import (
    RUN,
    GateRepo,
    _environ,
    _note_body,
    commit_file,
    git,
    hallmark_commit,
    loop_events,
    make_repo,
    signed_note,
)
from hallmark.core import hallmark_note, signers, signing, verify
from hallmark.core.errors import HallError
from hallmark.core.gates import hallmark
from hallmark.core.paths import discover

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")


@pytest.fixture
def repo(tmp_path) -> GateRepo:
    r = make_repo(tmp_path)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare), env=r.env)
    git(r.main, "remote", "add", "origin", str(bare), env=r.env)
    git(r.main, "push", "-q", "--no-verify", "origin", "main", env=r.env)  # a person's push of the base
    git(r.main, "fetch", "-q", "origin", env=r.env)
    r.bare = bare  # type: ignore[attr-defined]
    return r


def put_note(r: GateRepo, body: dict | str, sha: str = "HEAD") -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    git(r.wt, "notes", "--ref=hallmark", "add", "-f", "-m", text, sha, env=r.env)


def check(r: GateRepo) -> hallmark.Verdict:
    return hallmark.check(str(r.wt), discover(r.main))


def tree_of(r: GateRepo, sha: str) -> str:
    return git(r.wt, "rev-parse", f"{sha}^{{tree}}", env=r.env)


def own_key(tmp: Path, principal: str) -> tuple[Path, str]:
    """An agent's own key pair (it can always make one): the private key and its public line."""
    tmp.mkdir(parents=True, exist_ok=True)
    key = tmp / "agent_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", str(key)], check=True)
    return key, " ".join(key.with_suffix(".pub").read_text().split()[:2])


def sign_with(key: Path, body: dict) -> str:
    proc = subprocess.run(
        ["ssh-keygen", "-Y", "sign", "-q", "-f", str(key), "-n", signing.NOTE_NAMESPACE],
        input=hallmark_note.payload(body),
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode().strip()


def base_lists(r: GateRepo, text: str) -> None:
    """A person's reviewed commit on the base: .hallmark/allowed_signers says whom to trust; pushed."""
    (r.main / ".hallmark").mkdir(exist_ok=True)
    (r.main / ".hallmark" / "allowed_signers").write_text(text)
    git(r.main, "reset", "-q", env=r.env)  # make_repo left app.py staged in the main checkout
    git(r.main, "add", ".hallmark/allowed_signers", env=r.env)
    git(r.main, "commit", "-q", "-m", "trust these hallmark keys", env=r.env)
    git(r.main, "push", "-q", "--no-verify", "origin", "main", env=r.env)
    git(r.main, "fetch", "-q", "origin", env=r.env)


def test_the_loops_signed_note_counts(repo):
    sha = commit_file(repo)
    hallmark_commit(repo, sha)
    verdict = check(repo)
    assert verdict.ok and verdict.signed and verdict.journal == "checked", verdict


def test_a_forged_chain_with_an_unsigned_note_is_no_hallmark(repo):
    """S15: a whole journal chain written by hand and a version-2 note without a signature."""
    sha = commit_file(repo)
    loop_events(repo, sha)  # ready, checks, run_started, verdict, hallmarked: every line the loop writes
    put_note(repo, _note_body(repo, sha, tree_of(repo, sha), run=RUN, standin=False))
    verdict = check(repo)
    assert not verdict.ok and "carries no SSH signature" in verdict.reason


def test_a_note_signed_by_the_agents_own_key_is_no_hallmark(repo, tmp_path):
    sha = commit_file(repo)
    loop_events(repo, sha)
    with _environ(repo.env):
        principal = signing.read_public().principal  # type: ignore[union-attr]
    key, _pub = own_key(tmp_path / "agent", principal)
    body = _note_body(repo, sha, tree_of(repo, sha), run=RUN, standin=False)
    body["signer"] = principal  # claims to be the trusted signer
    body["sig"] = sign_with(key, body)
    put_note(repo, body)
    verdict = check(repo)
    assert not verdict.ok and "does not verify" in verdict.reason


def test_a_signed_note_altered_or_moved_does_not_verify(repo):
    sha = commit_file(repo)
    hallmark_commit(repo, sha)
    good = signed_note(repo, sha, run=RUN)
    altered = {**good, "round": 7}
    put_note(repo, altered, sha)
    assert "does not verify" in check(repo).reason
    # the same tree under another commit (an amended message): the note copied and its sha rewritten
    git(repo.wt, "commit", "-q", "--amend", "-m", "same tree, another commit", env=repo.env)
    moved_sha = git(repo.wt, "rev-parse", "HEAD", env=repo.env)
    put_note(repo, {**good, "sha": moved_sha}, moved_sha)
    verdict = check(repo)
    assert not verdict.ok and "does not verify" in verdict.reason
    # copied as it is: it names the other commit
    put_note(repo, good, moved_sha)
    assert f"its note is for {sha[:7]}" in check(repo).reason


def test_a_note_for_another_tree_is_refused_before_any_signature(repo):
    sha = commit_file(repo)
    hallmark_commit(repo, sha)
    put_note(repo, {**signed_note(repo, sha, run=RUN), "tree": "0" * 40}, sha)
    assert "another tree" in check(repo).reason


def test_a_process_pointing_the_data_dir_elsewhere_signs_nothing_that_counts(repo, tmp_path):
    """The agent runs the loop with HALLMARK_DATA_DIR of its own: a fresh key no list trusts."""
    sha = commit_file(repo)
    loop_events(repo, sha)
    env = {**repo.env, "HALLMARK_DATA_DIR": str(tmp_path / "agents-data")}
    other = GateRepo(repo.main, repo.wt, repo.item, env, repo.other)
    put_note(repo, signed_note(other, sha, run=RUN), sha)
    verdict = check(repo)
    assert not verdict.ok and "does not verify" in verdict.reason
    assert "agents-data" not in (discover(repo.main).state_dir / "allowed_signers").read_text()


def test_a_version_1_note_counts_for_nothing_until_setup_git_resigns_it(repo):
    sha = commit_file(repo)
    loop_events(repo, sha)
    v1 = {"v": 1, "item": repo.item, "sha": sha, "round": 1, "model": "opus", "actor": "assayer", "run": RUN}
    put_note(repo, v1, sha)
    assert "unsigned version-1" in check(repo).reason
    # a second item-less commit with a v1 note and no journal behind it: reported, left invalid
    forged = commit_file(repo, "forged.py")
    put_note(repo, {**v1, "sha": forged}, forged)
    from hallmark.core import stamp_key

    with _environ(repo.env):
        done = stamp_key.set_up(discover(repo.main), resign=True)
    by_sha = {n.sha: n for n in done.resigned or ()}
    assert by_sha[sha].resigned is True
    assert by_sha[forged].resigned is False and "no hallmarked" in by_sha[forged].reason
    assert hallmark.check_revs(str(repo.wt), [sha], discover(repo.main)).ok
    assert "unsigned version-1" in check(repo).reason  # HEAD is the forged one


def test_the_remote_base_decides_whom_to_trust(repo, tmp_path):
    sha = commit_file(repo)
    hallmark_commit(repo, sha)
    assert check(repo).ok  # the base lists no one yet: this machine's list
    _key, stranger = own_key(tmp_path / "stranger", "someone-else")
    base_lists(repo, f'someone-else namespaces="hallmark" {stranger}\n')
    verdict = check(repo)
    assert not verdict.ok and "on origin/main" in verdict.reason, verdict
    with _environ(repo.env):
        mine = signing.read_public()
    assert mine is not None
    base_lists(repo, f'someone-else namespaces="hallmark" {stranger}\n{mine.allowed_line()}\n')
    assert check(repo).ok
    # moving the working tree's file changes nothing: only the remote's base counts
    (repo.main / ".hallmark" / "allowed_signers").write_text(f'someone-else namespaces="hallmark" {stranger}\n')
    assert check(repo).ok


def test_hall_verify_in_a_fresh_clone_trusts_the_base_alone(repo, tmp_path):
    sha = commit_file(repo)
    hallmark_commit(repo, sha)
    with _environ(repo.env):
        mine = signing.read_public()
    assert mine is not None
    base_lists(repo, mine.allowed_line() + "\n")
    branch = git(repo.wt, "branch", "--show-current", env=repo.env)
    git(repo.wt, "push", "-q", "origin", f"HEAD:refs/heads/{branch}", "refs/notes/hallmark", env=repo.env)
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", str(repo.bare), str(clone), env=repo.env)  # type: ignore[attr-defined]
    git(clone, "fetch", "-q", "origin", "+refs/notes/hallmark:refs/notes/hallmark", env=repo.env)
    git(clone, "checkout", "-q", sha, env=repo.env)
    with _environ(repo.env):
        done = verify.verify(clone, "HEAD")
        assert done.ok and done.journal == "unavailable" and done.item == repo.item
        with pytest.raises(HallError, match="requires the loop's journal"):
            verify.verify(clone, "HEAD", strict=True)
        # a copied note on another commit, and an unsigned one: both refused
        git(clone, "notes", "--ref=hallmark", "copy", sha, "origin/main", env=repo.env)
        with pytest.raises(HallError, match="its note is for"):
            verify.verify(clone, "origin/main")
        unsigned = {k: v for k, v in signed_note(repo, sha, run=RUN).items() if k != "sig"}
        git(clone, "notes", "--ref=hallmark", "add", "-f", "-m", json.dumps(unsigned), sha, env=repo.env)
        with pytest.raises(HallError, match="no SSH signature"):
            verify.verify(clone, "HEAD")


def test_the_pre_push_hook_refuses_a_forged_chain(repo):
    """A script pushes (no hook gate sees it): git's pre-push hook checks the signature too."""
    sha = commit_file(repo)
    loop_events(repo, sha)
    put_note(repo, _note_body(repo, sha, tree_of(repo, sha), run=RUN, standin=False))
    code = "import subprocess, sys\nsys.exit(subprocess.run(['git', 'push', 'origin', 'HEAD:refs/heads/x']).returncode)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo.wt, env=repo.env, capture_output=True, text=True)
    assert proc.returncode != 0 and "no SSH signature" in proc.stderr, proc.stderr
    hallmark_commit(repo, sha)
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo.wt, env=repo.env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_trusted_signers_never_come_from_the_environment_or_the_working_tree(repo, tmp_path):
    paths = discover(repo.main)
    _key, stranger = own_key(tmp_path / "s", "someone-else")
    (repo.main / ".hallmark").mkdir(exist_ok=True)
    (repo.main / ".hallmark" / "allowed_signers").write_text(f"someone-else {stranger}\n")
    os.environ["GIT_DIR"] = str(tmp_path)  # a caller's variable may not redirect the read
    try:
        trusted = signers.trusted(str(repo.wt), paths)
    finally:
        del os.environ["GIT_DIR"]
    assert stranger not in trusted.text and trusted.source == ".hallmark/allowed_signers on origin/main"


def test_an_ssh_keygen_first_on_path_that_says_yes_to_anything_changes_nothing(repo, tmp_path):
    """PATH shadowing: the agent's own `ssh-keygen` (exit 0 for every -Y verify) first on PATH, and a
    script pushing a forged chain through git's pre-push hook in that environment."""
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "ssh-keygen").write_text('#!/bin/sh\necho "Good \\"hallmark\\" signature"\nexit 0\n')
    (shim / "ssh-keygen").chmod(0o755)
    sha = commit_file(repo)
    loop_events(repo, sha)
    body = _note_body(repo, sha, tree_of(repo, sha), run=RUN, standin=False)
    body["signer"], body["sig"] = "hallmark-root@vm", "-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----"
    put_note(repo, body)
    env = {**repo.env, "PATH": f"{shim}{os.pathsep}{repo.env['PATH']}"}
    code = "import subprocess, sys\nsys.exit(subprocess.run(['git', 'push', 'origin', 'HEAD:refs/heads/x']).returncode)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo.wt, env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "does not verify" in proc.stderr, proc.stderr
    saved = os.environ["PATH"]
    os.environ["PATH"] = env["PATH"]
    try:
        assert signing.ssh_keygen() != str(shim / "ssh-keygen")
        assert not check(repo).ok
    finally:
        os.environ["PATH"] = saved
