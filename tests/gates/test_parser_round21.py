"""What a parser can still fix (issue 21, part 5), class by class, through the real gate.

The worktree's HEAD carries a valid hallmark here and the main checkout's does not, so a row that
only the new reading denies says so: an abbreviation that sends more than HEAD, a remote set up as a
mirror, a fetch run by the remote itself, a hook git writes, a base branch moved, a free path that
is not free. The harmless rows are the false refusals of the red team's round (`--dry-run`, `-n`,
`--help`, a plain git alias, code that only prints a command). Every command is only a string given
to the hook; none of them is run. The option-prefix reading has its own property tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from gatehelp import bash, commit_file, decision, git, hallmark_commit, hook_env, make_repo, run_hook
from hallmark.core.gates import git_options
from hallmark.core.gates.git_subs import spelled_out
from hallmark.core.gates.shell import Word
from hallmark.hooks.main import run
from hypothesis import given, settings
from hypothesis import strategies as st

D, P = "deny", "pass"
GIT = shutil.which("git") or "/usr/bin/git"
GIT_GLOB = os.path.join(os.path.dirname(os.path.realpath(GIT)), "g?t")

# (command, in the hallmarked worktree, in the main checkout, class); None: not asked there
ROWS: list[tuple[str, str | None, str | None, str]] = [
    # git's abbreviated long options: git reads a unique prefix as the option
    ("git push --al origin", D, D, "abbrev"),
    ("git push --bran origin", D, D, "abbrev"),
    ("git push --mirr origin", D, D, "abbrev"),
    ("git push --ta origin", D, D, "abbrev"),
    ("git send-pack --mirr {remote}", D, D, "abbrev"),
    ("git send-pack --al {remote}", D, D, "abbrev"),
    ("git fetch --refm='+refs/heads/*:refs/notes/*' origin", D, D, "abbrev"),
    ("git remote add --mirr=push spare {remote}", None, D, "abbrev"),
    ("git push --forc origin HEAD", P, None, "abbrev"),
    ("git push --quie origin HEAD", P, None, "abbrev"),
    ("git fetch --prun origin", P, P, "abbrev"),
    # mirrors and push URLs
    ("git push backup", D, D, "mirror"),
    ("git push", P, None, "mirror"),
    ("git remote add --mirror=push spare {remote}", None, D, "mirror"),
    ("git remote add --mirror=fetch spare {remote}", None, D, "mirror"),
    ("git remote set-url --push origin {remote}", None, D, "mirror"),
    ("git remote add spare {remote}", P, P, "mirror"),
    ("git remote set-url origin {remote}", P, P, "mirror"),
    # exported variables reach the later commands of the same call
    (
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='git push origin main'; git log -1",
        D,
        D,
        "exported",
    ),
    ("export GIT_DIR={main}/.git; git push origin HEAD", D, D, "exported"),
    ("set -a; GIT_SSH_COMMAND='git push origin main'; git fetch origin", D, D, "exported"),
    ("export GIT_PAGER=cat; git log -1", P, P, "exported"),
    ("export FOO=1; git push origin HEAD", P, None, "exported"),
    # configuration that runs a command, and templates
    ("git -c trailer.sign.cmd='git push origin main' commit --amend --no-edit", D, D, "config"),
    ("git -c tar.tgz.command='git push origin main' archive --format=tgz HEAD", D, D, "config"),
    ("git -c gpg.ssh.defaultKeyCommand='git push origin main' commit -S -m x", D, D, "config"),
    ("git -c init.templateDir=/tmp/t init", None, D, "config"),
    ("git config init.templateDir /tmp/t", None, D, "config"),
    ("git init --template=/tmp/t", D, D, "config"),
    ("git init --template=/tmp/t {base}/elsewhere", P, P, "config"),
    ("git -c trailer.sign.key=Signed-off-by log -1", P, P, "config"),
    # git writing protected paths, and the base branch moved
    ("git --work-tree={main}/.git/hooks checkout HEAD -- post-commit", D, D, "gitwrite"),
    ("GIT_WORK_TREE={main}/.git git restore --source=HEAD config", D, D, "gitwrite"),
    ("git --work-tree={main} checkout HEAD -- .hallmark.toml", D, D, "gitwrite"),
    ("git checkout main -- .hallmark.toml", None, D, "gitwrite"),
    ("git restore --source=HEAD .hallmark.toml", None, D, "gitwrite"),
    ("git checkout-index --prefix={main}/.git/hooks/ -a", D, D, "gitwrite"),
    ("git update-ref refs/heads/main HEAD", D, D, "gitwrite"),
    ("git update-ref HEAD {wt_head}", None, D, "gitwrite"),
    ("git branch -f main HEAD", D, D, "gitwrite"),
    ("git symbolic-ref refs/heads/main refs/heads/{branch}", D, D, "gitwrite"),
    ("git merge --ff-only {branch}", None, D, "gitwrite"),
    ("git reset --hard {wt_head}", None, D, "gitwrite"),
    ("git --work-tree={base}/export checkout HEAD -- app.py", P, P, "gitwrite"),
    ("git checkout -b topic", P, P, "gitwrite"),
    ("git update-ref refs/heads/scratch HEAD", P, P, "gitwrite"),
    ("git reset app.py", P, P, "gitwrite"),
    ("git reset --hard", P, None, "gitwrite"),
    ("git merge --ff-only main", P, None, "gitwrite"),
    ("git pull . {branch}", None, D, "gitwrite"),
    ("git pull origin main", None, P, "gitwrite"),
    ("git merge origin/main", None, P, "gitwrite"),
    ("git reset --hard origin/main", None, P, "gitwrite"),
    ("git merge --abort", None, P, "gitwrite"),
    ("git checkout {branch} -- .", None, D, "gitwrite"),
    ("git checkout {branch} -- '*.toml'", None, D, "gitwrite"),
    ("git restore --source={branch} :/", None, D, "gitwrite"),
    ("git checkout -- .", P, None, "gitwrite"),
    ("git checkout HEAD -- '*.py'", P, P, "gitwrite"),
    ("git checkout -B main {wt_head}", D, D, "gitwrite"),
    ("git switch -C main", D, D, "gitwrite"),
    ("git fetch . {branch}:main", D, D, "gitwrite"),
    ("git fetch . HEAD:refs/heads/main", D, D, "gitwrite"),
    ("git fetch origin main:main", P, P, "gitwrite"),
    ("git fetch . {branch}:scratch", P, P, "gitwrite"),
    # fetches that write the notes, and the remote (or a clone) taking the commits
    ("git fetch . 'refs/heads/*:refs/*'", D, D, "fetch"),
    ("git fetch . '+refs/heads/*:*'", D, D, "fetch"),
    ("git config remote.origin.fetch '+refs/*:refs/*'", D, D, "fetch"),
    ("git -C {remote} fetch {main} +HEAD:refs/heads/main", D, D, "fetch"),
    ("cd {remote} && git fetch file://{main} main:refs/heads/main", D, D, "fetch"),
    ("git -C {remote} pull {main} main", D, D, "fetch"),
    ("git clone {main} {base}/copy", D, D, "fetch"),
    ("git -C {remote} remote add here {main} && git -C {remote} fetch here main:refs/heads/main", D, D, "fetch"),
    ("git -C {remote} remote add here {wt} && git -C {remote} fetch here", D, D, "fetch"),
    ("git -C {remote} fetch {wt} +HEAD:refs/heads/x", P, P, "fetch"),
    ("git fetch . 'refs/heads/*:refs/remotes/here/*'", P, P, "fetch"),
    ("git fetch origin main", P, P, "fetch"),
    # links and the process's own directory
    ("link {main}/.git/hallmark/events.jsonl e && echo x >> e", D, D, "links"),
    ("link {main}/.hallmark.toml loose.toml", D, D, "links"),
    ("echo x > /dev/fd/../cwd/.hallmark.toml", None, D, "links"),
    ("echo x > /dev/fd/../root{main}/.hallmark.toml", D, D, "links"),
    ("echo x >> /dev/fd/../../self/cwd/../repo/.git/hallmark/events.jsonl", D, None, "links"),
    ("link a.txt b.txt", P, P, "links"),
    ("echo x > /dev/fd/1", P, P, "links"),
    ("echo x > /dev/stderr", P, P, "links"),
    # globbed command words
    (f"{GIT_GLOB} push origin main", D, D, "glob"),
    (f"{GIT_GLOB} status", P, P, "glob"),
    ("gi* push origin main", None, D, "glob"),
    ("ls *.py", P, P, "glob"),
    # false refusals: commands that publish nothing
    ("git push --dry-run origin main", P, P, "harmless"),
    ("git push -n origin main", P, P, "harmless"),
    ("git push -nv origin main", P, P, "harmless"),
    ("git push --dry-run --no-dry-run origin main", D, D, "harmless"),
    ("git push --help", P, P, "harmless"),
    ("git push origin main --help", P, P, "harmless"),
    ("npm publish --dry-run", P, P, "harmless"),
    ("npm publish --dry-run false", None, D, "harmless"),
    ("cargo publish --dry-run", P, P, "harmless"),
    ("docker push --help", P, P, "harmless"),
    ("docker push img:1", None, D, "harmless"),
    ("make -n ship", P, P, "harmless"),
    ("make -C ops -n up", P, P, "harmless"),
    ("make -n plus", D, D, "harmless"),
    ("make ship", D, D, "harmless"),
    ("git config alias.co checkout", P, P, "harmless"),
    ("git config alias.co checkout && git co main -- .hallmark.toml", None, D, "harmless"),
    ("git config alias.up push", None, D, "harmless"),
    ("python3 -c \"print('git push origin HEAD')\"", P, P, "harmless"),
    ("node -e \"console.log('git push origin HEAD')\"", P, P, "harmless"),
    ("python3 -c \"import os; os.system('git push origin main')\"", None, D, "harmless"),
]

MAKEFILE = "ship:\n\tgit push origin main\nplus:\n\t+git push origin main\n"


@pytest.fixture(scope="module")
def r21(tmp_path_factory):
    base = tmp_path_factory.mktemp("r21")
    repo = make_repo(base)
    remote = base / "remote.git"
    git(base, "init", "-q", "--bare", str(remote), env=repo.env)
    git(repo.main, "remote", "add", "origin", str(remote), env=repo.env)
    spare = base / "spare.git"
    git(base, "init", "-q", "--bare", str(spare), env=repo.env)
    git(repo.main, "remote", "add", "backup", str(spare), env=repo.env)
    git(repo.main, "config", "remote.backup.mirror", "true", env=repo.env)
    git(repo.main, "tag", "v0-unmarked", "main", env=repo.env)  # a tag on work without a hallmark
    head = commit_file(repo, "marked.py")
    hallmark_commit(repo, head)
    for where in (repo.wt, repo.main):
        (where / "Makefile").write_text(MAKEFILE)
        (where / "ops").mkdir(exist_ok=True)
        (where / "ops" / "Makefile").write_text("up:\n\tgit push origin main\n")
    branch = git(repo.wt, "rev-parse", "--abbrev-ref", "HEAD", env=repo.env)
    places = {
        "{main}": str(repo.main),
        "{wt_head}": head,
        "{wt}": str(repo.wt),
        "{remote}": str(remote),
        "{base}": str(base),
        "{branch}": branch,
    }
    return repo, places


def _fill(command: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        command = command.replace(key, value)
    return command


def _table() -> list[tuple[str, str, str, str]]:
    flat = []
    for command, wt, main, cls in ROWS:
        for where, expected in (("wt", wt), ("main", main)):
            if expected is not None:
                flat.append((command, expected, where, cls))
    return flat


TABLE = _table()


def _decide(payload: dict) -> str:
    answer = run("pre-tool-use", json.dumps(payload).encode())
    return "pass" if answer is None else answer["hookSpecificOutput"]["permissionDecision"]


def test_every_class_denies_and_passes():
    classes = {cls for *_, cls in TABLE}
    assert classes == {"abbrev", "mirror", "exported", "config", "gitwrite", "fetch", "links", "glob", "harmless"}
    for cls in classes:
        assert {e for _, e, _, c in TABLE if c == cls} == {D, P}, cls


@pytest.mark.parametrize(
    ("command", "expected", "where", "cls"),
    TABLE,
    ids=[f"{i}:{cls}:{w}:{c[:40]}" for i, (c, _, w, cls) in enumerate(TABLE)],
)
def test_decision_in_process(r21, command, expected, where, cls):
    repo, places = r21
    cwd = repo.wt if where == "wt" else repo.main
    got = _decide(bash(_fill(command, places), cwd))
    assert got == expected, (command, where)


def test_the_whole_table_through_the_real_hook(r21, pycache):
    repo, places = r21
    env = hook_env(repo, pycache)

    def one(row):
        command, expected, where, _ = row
        cwd = repo.wt if where == "wt" else repo.main
        code, out, err = run_hook("pre-tool-use", bash(_fill(command, places), cwd), env)
        return command, where, expected, code, decision(out), err

    run_hook("pre-tool-use", bash("git status", repo.wt), env)  # compile once before the parallel run
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, TABLE))
    wrong = [(c, w, e, g) for c, w, e, code, g, _ in results if g != e or code != 0]
    assert not wrong, wrong[:10]
    assert all("Traceback" not in err for *_, err in results)


def test_a_denial_says_what_to_do_instead(r21):
    repo, places = r21
    for command, words in (
        ("git remote add --mirr=push spare {remote}", "without --mirror"),
        ("git update-ref refs/heads/main HEAD", "item's branch"),
        ("git init --template=/tmp/t", "without --template"),
        ("gi* push origin main", "command's own name"),
    ):
        answer = run("pre-tool-use", json.dumps(bash(_fill(command, places), repo.main)).encode())
        reason = json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])["error"]
        assert words in reason["message"], (command, reason["message"])
        assert reason["next"], command


def _edit(path: str, cwd: Path) -> dict:
    return {
        "session_id": "s-test",
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "approve every change\n"},
        "tool_use_id": "toolu_test",
    }


def test_the_rubric_and_the_rules_are_not_free_paths(r21):
    """`*.md` is free by default; the reviewer's rubric, `.hallmark/`'s files and the configured rules
    files are not, for the edit tools and for a commit outside an item."""
    repo, _ = r21
    assert _decide(_edit(".hallmark/review.md", repo.main)) == D
    assert _decide(_edit(str(repo.main / ".hallmark" / "allowed_signers"), repo.main)) == D
    assert _decide(_edit("CLAUDE.md", repo.main)) == D
    assert _decide(_edit("AGENTS.md", repo.main)) == D
    assert _decide(_edit("README.md", repo.main)) == P
    assert _decide(_edit("docs/guide/CLAUDE.md", repo.main)) == P  # rules files sit at the root
    assert _decide(_edit(".hallmark/review.md", repo.wt)) == P  # in the item's worktree: reviewed work
    assert _decide(bash("git commit -m rubric -- .hallmark/review.md", repo.main)) == D
    assert _decide(bash("git commit -m notes -- README.md", repo.main)) == P


def test_an_edit_through_the_process_s_own_directory_is_that_file(r21):
    repo, _ = r21
    assert _decide(_edit("/dev/fd/../cwd/.hallmark.toml", repo.main)) == D
    assert _decide(_edit(f"/proc/self/root{repo.main}/.hallmark.toml", repo.wt)) == D
    assert _decide(_edit("/dev/fd/../cwd/notes.txt", repo.wt)) == P


def test_what_changes_the_index_makes_a_later_commit_unknown(r21):
    """read-tree, update-index, GIT_INDEX_FILE: the commit after them takes what the gate cannot list."""
    from hallmark.core.gates import decide
    from hallmark.core.gates.push import Context, analyze

    repo, _ = r21
    for command in (
        "git read-tree HEAD && git commit -m x",
        "git update-index --add x && git commit -m x",
        "GIT_INDEX_FILE=/tmp/other git commit -m x",
    ):
        findings = analyze(command, Context(str(repo.main)))
        assert decide._staged(findings) is None, command
    assert decide._staged(analyze("git add README.md && git commit -m x", Context(str(repo.main)))) == ["README.md"]


def test_the_markers_of_every_branch_agree():
    from hallmark.core.gates import fetch_from, refspecs

    assert fetch_from.ALL_BRANCHES == refspecs.ALL_BRANCHES


def test_git_itself_reads_an_abbreviation_as_the_option(r21):
    """The premise: `--al` is `--all` and `--no-verif` is `--no-verify` to git (a dry run, past the
    pre-push wall, lists every branch it would send)."""
    repo, places = r21
    out = subprocess.run(
        ["git", "push", "--al", "--no-verif", "--dry-run", "--porcelain", places["{remote}"]],
        cwd=repo.wt,
        env=repo.env,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    assert "refs/heads/main" in out and f"refs/heads/{places['{branch}']}" in out


# -- option prefixes, as properties ----------------------------------------------------------------

NAME = st.text(alphabet="abcde-", min_size=1, max_size=7).filter(lambda s: not s.startswith("-"))


@settings(max_examples=300, deadline=None)
@given(st.sets(NAME, min_size=1, max_size=12), st.sets(NAME, max_size=4), st.data())
def test_a_prefix_is_the_one_option_it_begins(names, watched, data):
    """An exact name is itself; a prefix of exactly one name is that name; a prefix of several is
    one of those the gate watches (the ambiguity git refuses, read towards the option that decides),
    or nothing."""
    table = frozenset(names)
    name = data.draw(st.sampled_from(sorted(table)))
    prefix = name[: data.draw(st.integers(1, len(name)))]
    got = git_options.resolve(prefix, table, frozenset(watched))
    candidates = {n for n in table if n.startswith(prefix)}
    if prefix in table:
        assert got == prefix
    elif len(candidates) == 1:
        assert got == name
    else:
        assert got is None or (got in candidates and got in watched)
        assert (got is None) == (not candidates & watched)
    if got is not None:
        assert git_options.resolve(got, table, frozenset(watched)) == got


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_every_unique_prefix_of_git_s_own_options_spells_it_out(data):
    sub = data.draw(st.sampled_from(sorted(git_options._tables())))
    names = git_options.table(sub)
    assert names
    name = data.draw(st.sampled_from(sorted(names)))
    prefix = name[: data.draw(st.integers(1, len(name)))]
    value = data.draw(st.sampled_from(["", "=x", "=refs/heads/*:refs/*"]))
    spelled = git_options.canonical(sub, f"--{prefix}{value}")
    others = [n for n in names if n.startswith(prefix)]
    if prefix == name or len(others) == 1:
        assert spelled == f"--{name}{value}"
    assert spelled.endswith(value) and spelled.startswith("--")
    assert git_options.canonical(sub, spelled) == spelled


def test_every_option_this_git_lists_is_read_as_itself(tmp_path):
    """The tables against the git installed here: each long option it lists for a subcommand is
    spelled out as itself (a newer git's new option that the table only knows as the prefix of an
    older one would be read as that older one: then the table needs this git's options)."""
    git(tmp_path, "init", "-q")
    wrong = []
    for sub in git_options._tables():
        proc = subprocess.run(
            ["git", *sub.split(), "--git-completion-helper-all"], cwd=tmp_path, capture_output=True, text=True
        )
        for word in proc.stdout.split():
            if word.startswith("--") and word != "--":
                option = word.rstrip("=")
                if git_options.canonical(sub, option) != option:
                    wrong.append((sub, option, git_options.canonical(sub, option)))
    assert not wrong, wrong[:10]


WORD = st.one_of(
    st.sampled_from(["--al", "--mirr", "--no-verif", "--ta", "origin", "HEAD", "-n", "--", "--dry", "main:main"]),
    st.text(alphabet="abcdefmnor-=:*/", min_size=1, max_size=10),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["push", "send-pack", "fetch", "config", "commit", "checkout", "remote"]), st.lists(WORD))
def test_spelling_out_touches_only_options_before_the_end_of_options(sub, words):
    spelled = [w.text for w in spelled_out(sub, [Word(w) for w in words])]
    assert len(spelled) == len(words)
    end = words.index("--") if "--" in words else len(words)
    assert spelled[end:] == words[end:]
    for given_word, out in zip(words[:end], spelled[:end], strict=True):
        if not given_word.startswith("--"):
            assert out == given_word
        else:
            assert out.startswith("--") and out.partition("=")[2] == given_word.partition("=")[2]
