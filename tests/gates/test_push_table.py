"""The push gate's command table: every construct the issue lists, deny and pass.

Each row is checked in-process (one test per row, for a readable failure) and the whole table
again through the real `hall-hook pre-tool-use` process (the decision must be identical). The
commands are only strings handed to the hook; none of them is ever run.

where: "wt" = the item's worktree (strict mode applies), "main" = the main checkout.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from gatehelp import bash, decision, hook_env, run_hook
from hallmark.hooks.main import run

D, P = "deny", "pass"

TABLE: list[tuple[str, str, str]] = [
    # plain publishing
    ("git push", D, "wt"),
    ("git push origin main", D, "wt"),
    ("git push -u origin HEAD", D, "wt"),
    ("git push --force-with-lease", D, "wt"),
    ("git push origin refs/notes/hallmark", D, "wt"),
    ("git send-pack origin main", D, "wt"),
    ("git http-push https://x/y main", D, "wt"),
    ("git subtree push --prefix=lib origin main", D, "wt"),
    ("git subtree push -P lib origin main", D, "wt"),
    ("gh pr create --fill", D, "wt"),
    ("gh pr create --title t --body b", D, "wt"),
    ("gh pr merge 12 --squash", D, "wt"),
    ("gh -R o/r pr merge 3", D, "wt"),
    ("gh release create v1.0", D, "wt"),
    ("gh api -X POST repos/o/r/pulls -f title=x -f head=b -f base=main", D, "wt"),
    ("gh api repos/o/r/pulls -f title=x", D, "wt"),
    ("gh api --method PUT repos/o/r/pulls/3/merge", D, "wt"),
    ("gh api -X PATCH repos/o/r/git/refs/heads/main -f sha=abc", D, "wt"),
    ("gh api -X DELETE repos/o/r/git/refs/heads/x", D, "wt"),
    ("gh api -XPOST repos/o/r/merges -f base=main", D, "wt"),
    ("gh api -X PUT repos/o/r/contents/a.txt -f message=m", D, "wt"),
    ("gh api graphql -f query='mutation { mergePullRequest(input:{}) { clientMutationId } }'", D, "wt"),
    ("git svn dcommit", D, "wt"),
    ("git lfs push origin main", D, "wt"),
    # the main checkout has no hallmark either
    ("git push origin main", D, "main"),
    ("gh pr create --fill", D, "main"),
    ("cd /tmp && git push", D, "main"),
    # compound commands
    ("git add -A && git push", D, "wt"),
    ("false || git push", D, "wt"),
    ("echo a; git push", D, "wt"),
    ("git status | git push", D, "wt"),
    ("git push &", D, "wt"),
    ("sleep 1 & git push", D, "wt"),
    ("echo a\ngit push", D, "wt"),
    ("(git push)", D, "wt"),
    ("( cd . && git push )", D, "wt"),
    ("{ git push; }", D, "wt"),
    ("{ echo a; git push origin main; }", D, "wt"),
    ("if true; then git push; fi", D, "wt"),
    ("if false; then :; else git push; fi", D, "wt"),
    ("if git push; then :; fi", D, "wt"),
    ("for i in 1 2; do git push; done", D, "wt"),
    ("while true; do git push; break; done", D, "wt"),
    ("until git push; do sleep 1; done", D, "wt"),
    ("case x in x) git push;; esac", D, "wt"),
    ("f() { git push; }; f", D, "wt"),
    ("function f { git push; }; f", D, "wt"),
    ("! git push", D, "wt"),
    ("[[ -n x ]] && git push", D, "wt"),
    ("test -d . && git push", D, "wt"),
    ("echo $((1+2)) && git push", D, "wt"),
    # leading cd, assignments, keywords
    ("cd /tmp && git push", D, "wt"),
    ("cd .. && cd - && git push", D, "wt"),
    ("FOO=1 git push", D, "wt"),
    ("A=1 B=2 git push", D, "wt"),
    ("a+=1 git push", D, "wt"),
    ("PATH+=:/x git push", D, "wt"),
    ("GIT_TRACE=1 git push origin main", D, "wt"),
    ("time git push", D, "wt"),
    ("time -p git push", D, "wt"),
    ("export X=1; git push", D, "wt"),
    # git global options
    ("git -C . push", D, "wt"),
    ("git -C /tmp push", D, "wt"),
    ("git -c user.name=x push", D, "wt"),
    ("git --no-pager push", D, "wt"),
    ("git -P push", D, "wt"),
    ("git --git-dir=.git push", D, "wt"),
    ("git --work-tree . push", D, "wt"),
    ("git --git-dir .git --work-tree . push", D, "wt"),
    ("git --no-replace-objects push", D, "wt"),
    ("git --literal-pathspecs push", D, "wt"),
    ("git -c core.pager=cat -C . --no-pager push origin main", D, "wt"),
    ("git --namespace=x push", D, "wt"),
    ("git -Csub push", D, "wt"),
    # full paths and quoted command words
    ("/usr/bin/git push", D, "wt"),
    ("/usr/local/bin/git push", D, "wt"),
    ("\\git push", D, "wt"),
    ("'git' push", D, "wt"),
    ('"git" push', D, "wt"),
    ("git 'push'", D, "wt"),
    ('git "push" origin', D, "wt"),
    ("g''it push", D, "wt"),
    ("gi\\t pu\\sh", D, "wt"),
    ("$'\\x67it' push", D, "wt"),
    ("$'git' $'push'", D, "wt"),
    ("/usr/bin/gh pr create", D, "wt"),
    # wrappers
    ("env git push", D, "wt"),
    ("env -i git push", D, "wt"),
    ("env -i PATH=/usr/bin git push", D, "wt"),
    ("env A=1 git push", D, "wt"),
    ("env -u HOME git push", D, "wt"),
    ("env -S 'git push' origin", D, "wt"),
    ("env -S'git push'", D, "wt"),
    ("env --split-string='git push'", D, "wt"),
    ("env -C /tmp git push", D, "wt"),
    ("command git push", D, "wt"),
    ("command -p git push", D, "wt"),
    ("exec git push", D, "wt"),
    ("exec -a name git push", D, "wt"),
    ("sudo git push", D, "wt"),
    ("sudo -u bob git push", D, "wt"),
    ("sudo -E -H git push", D, "wt"),
    ("sudo env git push", D, "wt"),
    ("nohup git push", D, "wt"),
    ("nohup git push > /dev/null 2>&1 &", D, "wt"),
    ("timeout 10 git push", D, "wt"),
    ("timeout -s KILL 10s git push", D, "wt"),
    ("timeout --kill-after=5 10 git push", D, "wt"),
    ("nice git push", D, "wt"),
    ("nice -n 19 git push", D, "wt"),
    ("nice -5 git push", D, "wt"),
    ("ionice -c3 git push", D, "wt"),
    ("ionice -c 2 -n 7 git push", D, "wt"),
    ("caffeinate git push", D, "wt"),
    ("caffeinate -i git push", D, "wt"),
    ("stdbuf -oL git push", D, "wt"),
    ("stdbuf -o L -e L git push", D, "wt"),
    ("xargs git push", D, "wt"),
    ("echo origin | xargs git push", D, "wt"),
    ("xargs -I{} git push {}", D, "wt"),
    ("xargs -n1 -P2 git push", D, "wt"),
    ("nix develop --command git push", D, "wt"),
    ("nix develop .#dev --command git push", D, "wt"),
    ("nix shell nixpkgs#git -c git push", D, "wt"),
    ("direnv exec . git push", D, "wt"),
    ("direnv exec /tmp git push", D, "wt"),
    ("sudo -u bob env A=1 nice -n 5 timeout 10 stdbuf -oL git push", D, "wt"),
    ("builtin command git push", D, "wt"),
    ("find . -maxdepth 0 -exec git push \\;", D, "wt"),
    ("uv run git push", D, "wt"),
    ("poetry run git push", D, "wt"),
    ("flock /tmp/l git push", D, "wt"),
    ("flock /tmp/l -c 'git push'", D, "wt"),
    ("watch -n 5 git push", D, "wt"),
    # shells with -c and option clusters
    ("sh -c 'git push'", D, "wt"),
    ("bash -c 'git push'", D, "wt"),
    ("zsh -c 'git push'", D, "wt"),
    ("bash -ec 'git push'", D, "wt"),
    ("bash -xc 'git push'", D, "wt"),
    ("bash -lc 'git push'", D, "wt"),
    ("bash -euxo pipefail -c 'git push'", D, "wt"),
    ("bash -O extglob -c 'git push'", D, "wt"),
    ("bash --norc -c 'git push'", D, "wt"),
    ("dash -c 'git push'", D, "wt"),
    ("/bin/bash -c 'git push'", D, "wt"),
    ('sh -c "cd . && git push"', D, "wt"),
    ("bash -c 'bash -c \"git push\"'", D, "wt"),
    ("sh -c 'sh -c \"sh -c git\\ push\"'", D, "wt"),
    ("env bash -c 'git push'", D, "wt"),
    # eval, command and process substitution
    ("eval 'git push'", D, "wt"),
    ('eval "git push origin main"', D, "wt"),
    ("eval git push", D, "wt"),
    ("echo $(git push)", D, "wt"),
    ("echo `git push`", D, "wt"),
    ("x=$(git push)", D, "wt"),
    ('local_var="$(git push 2>&1)"', D, "wt"),
    ("diff <(git push) /dev/null", D, "wt"),
    ("cat >(git push)", D, "wt"),
    ('echo "$(git push)"', D, "wt"),
    ("ls $(head $(git push))", D, "wt"),
    ("export A=$(git push)", D, "wt"),
    ("[[ $(git push) ]]", D, "wt"),
    # heredocs and here-strings read by a shell
    ("bash <<EOF\ngit push\nEOF", D, "wt"),
    ("sh <<'EOF'\ngit push origin main\nEOF", D, "wt"),
    ("bash <<-EOF\n\tgit push\n\tEOF", D, "wt"),
    ("cat <<EOF | bash\ngit push\nEOF", D, "wt"),
    ("cat <<'EOF' | sh\ngit push\nEOF", D, "wt"),
    ("bash <<< 'git push'", D, "wt"),
    ('sh <<< "git push"', D, "wt"),
    ("echo 'git push' | bash", D, "wt"),
    ("printf 'git push\\n' | sh", D, "wt"),
    ("echo $'\\x67it push' | sh", D, "wt"),
    ("cat <<EOF\n$(git push)\nEOF", D, "wt"),
    # git aliases
    ("git -c alias.p=push p", D, "wt"),
    ("git -c alias.x='push origin' x main", D, "wt"),
    ("git -c 'alias.p=!git push' p", D, "wt"),
    ("git -c alias.P=push P", D, "wt"),
    ("git -c alias.a=b -c alias.b=push a", D, "wt"),
    ("git p", D, "wt"),
    ("git p origin main", D, "wt"),
    ("git sp", D, "wt"),
    ("git pp", D, "wt"),
    ("git -C . p", D, "wt"),
    ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.q GIT_CONFIG_VALUE_0=push git q", D, "wt"),
    ("X=push git --config-env=alias.q=X q", D, "wt"),
    # commands git runs itself
    ("git rebase -x 'git push' main", D, "wt"),
    ("git rebase --exec 'git push' main", D, "wt"),
    ("git rebase --exec='git push' main", D, "wt"),
    ("git bisect run git push", D, "wt"),
    ("git bisect run sh -c 'git push'", D, "wt"),
    ("git submodule foreach 'git push'", D, "wt"),
    ("git submodule foreach --recursive git push", D, "wt"),
    ("git filter-branch --tree-filter 'git push' HEAD", D, "wt"),
    # scripts
    ("./deploy.sh", D, "wt"),
    ("sh deploy.sh", D, "wt"),
    ("bash ./deploy.sh", D, "wt"),
    ("source deploy.sh", D, "wt"),
    (". ./deploy.sh", D, "wt"),
    ("./deploy.sh", D, "main"),
    # the ship command from .hallmark.toml (default: git push … && gh pr create …)
    ("git push -u origin hm/H-0001-gate-test && gh pr create --base main", D, "wt"),
    # the note gate
    ("git notes --ref=hallmark add -m '{}' HEAD", D, "wt"),
    ("git notes add -m x", D, "wt"),
    ("git notes --ref hallmark append -m x", D, "wt"),
    ("git notes copy HEAD~1 HEAD", D, "wt"),
    ("git notes --ref=hallmark edit", D, "wt"),
    ("git notes remove HEAD", D, "wt"),
    ("git notes merge other", D, "wt"),
    ("git notes prune", D, "wt"),
    ("git update-ref refs/notes/hallmark abc123", D, "wt"),
    ("git update-ref -d refs/notes/hallmark", D, "wt"),
    ("git update-ref --stdin", D, "wt"),
    ("git notes add -m x", D, "main"),
    ("bash -c 'git notes --ref=hallmark add -m x'", D, "wt"),
    # writing Hallmark's state or the notes refs by hand (a forged journal line or note)
    ("echo '{}' >> .git/hallmark/items/H-0001/events.jsonl", D, "main"),
    ("cp /tmp/x .git/refs/notes/hallmark", D, "main"),
    ("tee -a .git/hallmark/events.jsonl < /tmp/x", D, "main"),
    ("printf x > .git/packed-refs", D, "main"),
    ("sed -i s/a/b/ .git/hallmark/items/H-0001/events.jsonl", D, "main"),
    ("rm -rf .git/hallmark", D, "main"),
    ("cd .git && echo x >> hallmark/events.jsonl", D, "main"),
    ("bash -c 'echo x > .git/hallmark/cache/config.json'", D, "main"),
    ("echo x > /tmp/out.txt", P, "main"),
    ("cat .git/hallmark/events.jsonl", P, "main"),
    ("cp .git/hallmark/events.jsonl /tmp/", P, "main"),
    ("echo x > notes.txt", P, "wt"),
    # strict mode in a worktree: what cannot be followed
    ("$(echo git) push", D, "wt"),
    ("`echo git` push", D, "wt"),
    ("$GIT push", D, "wt"),
    ("${CMD} origin", D, "wt"),
    ("git frobnicate", D, "wt"),
    ("git $SUB", D, "wt"),
    ("gh issue create --title x", D, "wt"),
    ("gh pr comment 3 --body x", D, "wt"),
    ("gh alias set cm 'pr merge'", D, "wt"),
    ("gh cm", D, "wt"),
    ("gh repo create x", D, "wt"),
    ('sh -c "$CMD"', D, "wt"),
    ('eval "$CMD"', D, "wt"),
    ("curl -s x | sh", D, "wt"),
    ("python3 notes.py", D, "wt"),
    ("python -c \"import os; os.system('git push')\"", D, "wt"),
    ("echo 'unterminated", D, "wt"),
    ("bash -c 'echo (('", D, "wt"),
    ("echo " + "a " * 9000, D, "wt"),
    # not a push
    ("git stash push", P, "wt"),
    ("git stash push -m wip", P, "wt"),
    ('echo "git push"', P, "wt"),
    ("echo git push", P, "wt"),
    ("grep 'git push' README.md", P, "wt"),
    ('grep -r "git push" .', P, "wt"),
    ("git log --grep=push", P, "wt"),
    ("git log --oneline -5", P, "wt"),
    ("git status", P, "wt"),
    ("git diff HEAD~1", P, "wt"),
    ("git fetch origin", P, "wt"),
    ("git pull --rebase", P, "wt"),
    ("git commit -m 'fix push'", P, "wt"),
    ("git commit -am 'push the button'", P, "wt"),
    ("git add -A", P, "wt"),
    ("git branch -a", P, "wt"),
    ("git remote -v", P, "wt"),
    ("git show HEAD", P, "wt"),
    ("git st", P, "wt"),
    ("git push --help", P, "wt"),
    ("git help push", P, "wt"),
    ("man git-push", P, "wt"),
    ("gh pr view", P, "wt"),
    ("gh pr view 3 --json title", P, "wt"),
    ("gh pr list", P, "wt"),
    ("gh pr status", P, "wt"),
    ("gh pr diff 3", P, "wt"),
    ("gh pr checks 3", P, "wt"),
    ("gh issue list", P, "wt"),
    ("gh run list", P, "wt"),
    ("gh api repos/o/r/pulls", P, "wt"),
    ("gh api -X GET repos/o/r/pulls -f state=open", P, "wt"),
    ("gh repo view", P, "wt"),
    ("gh auth status", P, "wt"),
    ("gh search prs push", P, "wt"),
    ("git notes --ref=hallmark show HEAD", P, "wt"),
    ("git notes list", P, "wt"),
    ("git notes", P, "wt"),
    ("git log --notes=hallmark -1", P, "wt"),
    ("git notes --ref hallmark show", P, "wt"),
    ("cat <<'EOF'\ngit push\nEOF", P, "wt"),
    ("cat <<EOF > notes.txt\ngit push origin main\nEOF", P, "wt"),
    ("cat <<'EOF' > /tmp/x.sh\ngit push\nEOF", P, "wt"),
    ("tee /tmp/x <<< 'git push'", P, "wt"),
    ("command -v git", P, "wt"),
    ("command -V git push", P, "wt"),
    ("which git", P, "wt"),
    ("type git", P, "wt"),
    ("sh build.sh", P, "wt"),
    ("./build.sh", P, "wt"),
    ("bash -c 'echo hi'", P, "wt"),
    ("ls -la", P, "wt"),
    ("pytest -q", P, "wt"),
    ("npm test", P, "wt"),
    ("make test", P, "wt"),
    ("echo push", P, "wt"),
    ("printf 'git push\\n' > cmd.txt", P, "wt"),
    ("git config --get remote.origin.pushurl", P, "wt"),
    ("git rebase -i main", P, "wt"),
    ("git bisect start", P, "wt"),
    ("git submodule update --init", P, "wt"),
    ("git update-ref refs/heads/x HEAD", P, "wt"),
    ("git reset --hard", P, "wt"),
    ("git tag v1", P, "wt"),
    ("git worktree list", P, "wt"),
    ("echo $(git rev-parse HEAD)", P, "wt"),
    ("x=$(git status)", P, "wt"),
    ("sudo -l", P, "wt"),
    ("env", P, "wt"),
    ("time", P, "wt"),
    ("nohup sleep 1 &", P, "wt"),
    ("xargs echo", P, "wt"),
    ("timeout 5 pytest", P, "wt"),
    # outside a worktree, strict mode does not apply (but definite pushes still deny)
    ("$(echo git) status", D, "main"),
    ("git frobnicate", P, "main"),
    ("gh issue create", P, "main"),
    ("git stash push", P, "main"),
    ("echo 'git push'", P, "main"),
]


def _where(gate_repo, where: str):
    return gate_repo.wt if where == "wt" else gate_repo.main


def test_table_is_large_enough():
    assert len(TABLE) >= 200
    assert {e for _, e, _ in TABLE} == {D, P}


@pytest.mark.parametrize(
    ("command", "expected", "where"), TABLE, ids=[f"{i}:{c[:40]}" for i, (c, _, _) in enumerate(TABLE)]
)
def test_decision_in_process(gate_repo, command, expected, where):
    answer = run("pre-tool-use", json.dumps(bash(command, _where(gate_repo, where))).encode())
    got = "pass" if answer is None else answer["hookSpecificOutput"]["permissionDecision"]
    assert got == expected, answer


def test_whole_table_through_the_real_process(gate_repo, pycache):
    env = hook_env(gate_repo, pycache)

    def one(row):
        command, expected, where = row
        code, out, err = run_hook("pre-tool-use", bash(command, _where(gate_repo, where)), env)
        return command, expected, code, decision(out), err

    run_hook("pre-tool-use", bash("git status", gate_repo.wt), env)  # compile once before the parallel run
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, TABLE))
    wrong = [(c, e, g) for c, e, code, g, _ in results if g != e or code != 0]
    assert not wrong, wrong[:10]
    assert all("Traceback" not in err for *_, err in results)


def test_note_writers_may_write_notes(gate_repo, pycache):
    for actor, expected in (("assayer", "pass"), ("shipper", "pass"), ("agent", "deny"), ("you", "deny")):
        env = hook_env(gate_repo, pycache, HALL_ACTOR=actor)
        _, out, _ = run_hook("pre-tool-use", bash("git notes --ref=hallmark add -m '{}' HEAD", gate_repo.wt), env)
        assert decision(out) == expected, actor


def test_an_inline_actor_does_not_count(gate_repo):
    answer = run("pre-tool-use", json.dumps(bash("HALL_ACTOR=assayer git notes add -m x", gate_repo.wt)).encode())
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_denial_names_the_check_and_the_next_step(gate_repo):
    answer = run("pre-tool-use", json.dumps(bash("git push origin main", gate_repo.wt)).encode())
    reason = json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])
    assert reason["error"]["code"] == "GATE_DENIED"
    assert "has no hallmark" in reason["error"]["message"]
    assert "hall ready" in reason["error"]["next"]
