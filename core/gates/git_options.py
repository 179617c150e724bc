"""git's long options, read as git reads them: a unique prefix is the option (`--al` is `--all`).

git's parse-options accepts any unambiguous prefix of a long option, and `--no-<prefix>` of a
negatable one; git's own global options (`--git-dir`, `-C` …, read by git.c) take no abbreviation.
`canonical(sub, word)` gives the option a word names, written out in full, so each subcommand's
handler compares whole names. The tables are `git <sub> --git-completion-helper-all` of git 2.39
(`=`: the option takes a value; `!`: it has no `--no-` form), plus `--branches` (git 2.46).

A prefix this table finds ambiguous makes git refuse the command, unless the installed git has fewer
options than the table: then the prefix resolves to the candidate the gate watches (a git with
fewer options can only have resolved it to one of them), so the gate errs towards reading the
option that decides. Data and stdlib only; parsed on first need.
"""

from __future__ import annotations

_TABLE = """
push: verbose quiet repo= all mirror delete tags dry-run porcelain force force-with-lease force-if-includes
  recurse-submodules= thin receive-pack= exec= set-upstream progress prune no-verify follow-tags signed atomic
  push-option= ipv4 ipv6 verify branches
send-pack: verbose quiet receive-pack= exec= remote= all dry-run mirror force signed push-option= progress thin
  atomic stateless-rpc stdin helper-status force-with-lease force-if-includes no-verbose
fetch: verbose quiet all set-upstream append atomic upload-pack= force multiple tags jobs= prefetch prune
  prune-tags recurse-submodules dry-run write-fetch-head keep update-head-ok progress depth= shallow-since=
  shallow-exclude= deepen= unshallow! refetch! submodule-prefix= recurse-submodules-default= update-shallow
  refmap=! server-option= ipv4 ipv6 negotiation-tip= negotiate-only filter= auto-maintenance auto-gc
  show-forced-updates write-commit-graph stdin no-verbose
pull: verbose quiet progress recurse-submodules rebase stat summary log signoff squash commit edit cleanup= ff
  ff-only! verify verify-signatures autostash strategy= strategy-option= gpg-sign allow-unrelated-histories all
  append upload-pack= force tags prune jobs dry-run keep depth= shallow-since= shallow-exclude= deepen=
  unshallow! update-shallow refmap=! server-option= ipv4 ipv6 negotiation-tip= show-forced-updates set-upstream
  no-verbose
clone: verbose quiet progress reject-shallow no-checkout bare naked mirror local no-hardlinks shared
  recurse-submodules recursive jobs= template= reference= reference-if-able= dissociate origin= branch=
  upload-pack= depth= shallow-since= shallow-exclude= single-branch no-tags shallow-submodules separate-git-dir=
  config= server-option= ipv4 ipv6 filter= also-filter-submodules remote-submodules sparse bundle-uri= checkout
  hardlinks tags
init: template= bare shared! quiet separate-git-dir= initial-branch= object-format= no-template
config: global system local worktree file= blob= get get-all get-regexp get-urlmatch replace-all add unset
  unset-all rename-section remove-section list fixed-value edit get-color get-colorbool type= bool! int!
  bool-or-int! bool-or-str! path! expiry-date! null name-only includes show-origin show-scope default= no-global
commit: quiet verbose file= author= date= message= reedit-message= reuse-message= fixup= squash= reset-author
  trailer=! signoff template= edit cleanup= status gpg-sign all include interactive patch only no-verify dry-run
  short branch ahead-behind porcelain long null amend no-post-rewrite untracked-files pathspec-from-file=
  pathspec-file-nul allow-empty allow-empty-message verify post-rewrite
checkout: guess overlay quiet recurse-submodules progress merge conflict= detach track force orphan=
  overwrite-ignore ignore-other-worktrees ours! theirs! patch ignore-skip-worktree-bits pathspec-from-file=
  pathspec-file-nul no-guess
restore: source= staged worktree ignore-unmerged overlay quiet recurse-submodules progress merge conflict= ours!
  theirs! patch ignore-skip-worktree-bits pathspec-from-file= pathspec-file-nul no-source
switch: create= force-create= guess discard-changes quiet recurse-submodules progress merge conflict= detach
  track force orphan= overwrite-ignore ignore-other-worktrees no-create
reset: quiet no-refresh mixed soft hard merge keep recurse-submodules patch intent-to-add pathspec-from-file=
  pathspec-file-nul refresh
read-tree: index-output=! empty verbose trivial aggressive reset prefix=! exclude-per-directory=! dry-run
  no-sparse-checkout debug-unpack recurse-submodules quiet sparse-checkout
checkout-index: all ignore-skip-worktree-bits force quiet no-create index stdin temp prefix= stage=! create
update-ref: no-deref stdin create-reflog deref
symbolic-ref: quiet delete short recurse no-quiet
branch: verbose quiet track set-upstream set-upstream-to= unset-upstream color remotes contains no-contains
  with! without! abbrev all delete move copy list show-current create-reflog edit-description force merged
  no-merged column sort= points-at= ignore-case recurse-submodules format=
replace: list! delete! edit! graft! convert-graft-file! force raw format= no-force
rebase: onto= keep-base no-verify quiet verbose no-stat signoff committer-date-is-author-date reset-author-date
  ignore-date ignore-whitespace whitespace= force-rebase no-ff continue! skip! abort! quit! edit-todo!
  show-current-patch! apply! merge! interactive! preserve-merges rerere-autoupdate empty=! keep-empty autosquash
  update-refs gpg-sign autostash exec= allow-empty-message rebase-merges fork-point strategy= strategy-option=
  root reschedule-failed-exec reapply-cherry-picks verify stat ff
merge: stat summary log squash commit edit cleanup= ff ff-only! rerere-autoupdate verify-signatures strategy=
  strategy-option= message= file! into-name= verbose quiet abort quit continue allow-unrelated-histories
  progress gpg-sign autostash overwrite-ignore signoff no-verify verify
archive: output= remote= exec= no-output
ls-remote: quiet upload-pack= exec= tags heads refs get-url sort= exit-code symref server-option= no-quiet
difftool: gui dir-diff no-prompt prompt symlinks tool= tool-help trust-exit-code extcmd= no-index index
cherry-pick: quit! continue! abort! skip! cleanup= no-commit edit signoff mainline= rerere-autoupdate strategy=
  strategy-option= gpg-sign ff allow-empty allow-empty-message keep-redundant-commits commit
revert: quit! continue! abort! skip! cleanup= no-commit edit signoff mainline= rerere-autoupdate strategy=
  strategy-option= gpg-sign reference commit
am: interactive binary 3way quiet signoff utf8 keep keep-non-patch message-id keep-cr no-keep-cr scissors
  quoted-cr=! whitespace= ignore-space-change ignore-whitespace directory= exclude= include= patch-format=
  reject resolvemsg= continue! resolved! skip! abort! quit! show-current-patch! allow-empty!
  committer-date-is-author-date ignore-date rerere-autoupdate gpg-sign empty=! rebasing
apply: exclude=! include=! no-add stat allow-binary-replacement binary numstat summary check index intent-to-add
  cached unsafe-paths apply 3way build-fake-ancestor= whitespace= ignore-space-change ignore-whitespace reverse
  unidiff-zero reject allow-overlap verbose quiet inaccurate-eof recount directory= allow-empty add
update-index: ignore-submodules add replace remove unmerged refresh! really-refresh! cacheinfo! chmod=!
  assume-unchanged no-assume-unchanged skip-worktree no-skip-worktree ignore-skip-worktree-entries info-only
  force-remove stdin! index-info! unresolve! again! ignore-missing verbose clear-resolve-undo! index-version=
  split-index untracked-cache test-untracked-cache force-untracked-cache force-write-index fsmonitor
  fsmonitor-valid no-fsmonitor-valid
tag: list! delete! verify! annotate message=! file= edit sign cleanup= local-user= force create-reflog column
  contains no-contains with! without! merged no-merged sort= points-at format= color ignore-case
notes: ref= no-ref
remote add: fetch tags track= master= mirror= no-fetch
remote set-url: push add delete no-push
stash push: keep-index staged patch quiet include-untracked all message= pathspec-from-file= pathspec-file-nul
  no-keep-index
stash pop: quiet index no-quiet
stash apply: quiet index no-quiet
worktree add: force detach checkout lock reason= quiet track guess-remote no-force
notes add: message=! file=! reedit-message=! reuse-message=! allow-empty force no-allow-empty
notes copy: force stdin for-rewrite= no-force
notes append: message=! file=! reedit-message=! reuse-message=! allow-empty no-allow-empty
notes edit: message=! file=! reedit-message=! reuse-message=! allow-empty no-allow-empty
notes merge: verbose quiet strategy= commit! abort! no-verbose
notes remove: ignore-missing stdin no-ignore-missing
notes prune: dry-run verbose no-dry-run

"""
# the options some handler decides on: an ambiguous prefix resolves to one of these when it can
WATCHED = frozenset(
    """
all branches mirror tags delete no-verify dry-run repo receive-pack exec upload-pack recurse-submodules
refmap template separate-git-dir config stdin file blob edit add replace-all unset unset-all global system
worktree push prefix work-tree staged source force index cached all ref rename-section remove-section
pathspec-from-file include only interactive patch amend no-post-rewrite move copy create force-create
orphan detach track set-upstream-to onto root reset update-refs graft fetch
""".split()
)

_PARSED: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def _tables() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """{sub: (every accepted spelling, the spellings that take a value)}, parsed once."""
    if _PARSED:
        return _PARSED
    entries: dict[str, list[str]] = {}
    key = ""
    for line in _TABLE.strip().splitlines():
        if not line.startswith(" "):
            key, _, line = line.partition(": ")
            entries[key] = []
        entries[key] += line.split()
    for sub, words in entries.items():
        names: set[str] = set()
        valued: set[str] = set()
        for word in words:
            noneg = word.endswith("!")
            word = word.rstrip("!")
            takes = word.endswith("=")
            name = word.rstrip("=")
            names.add(name)
            if takes:
                valued.add(name)
            if noneg:
                continue
            if name.startswith("no-"):
                names.add(name[3:])  # `--verify` unsets a declared `--no-verify`
            else:
                names.add("no-" + name)
        _PARSED[sub] = (frozenset(names), frozenset(valued))
    return _PARSED


def table(sub: str) -> frozenset[str] | None:
    """Every long option spelling `git <sub>` accepts in full (None: no table for it)."""
    found = _tables().get(sub)
    return found[0] if found else None


def takes_value(sub: str, name: str) -> bool:
    found = _tables().get(sub)
    return found is not None and name in found[1]


def resolve(name: str, names: frozenset[str], watched: frozenset[str] = WATCHED) -> str | None:
    """The option `--<name>` means among `names`: itself when exact, the one name it is a prefix of,
    or, when it is a prefix of several, the first (in order) of those the gate watches; else None."""
    if name in names:
        return name
    if not name:
        return None
    candidates = sorted(n for n in names if n.startswith(name))
    if len(candidates) == 1:
        return candidates[0]
    for candidate in candidates:
        if candidate in watched:
            return candidate
    return None


def canonical(sub: str, text: str) -> str:
    """A word of `git <sub>` with its long option written out (`--al` -> `--all`, `--mirr=x` ->
    `--mirror=x`); any other word as it is."""
    if not text.startswith("--") or len(text) == 2:
        return text
    names = table(sub)
    if names is None:
        return text
    name, eq, value = text[2:].partition("=")
    full = resolve(name, names)
    return text if full is None or full == name else f"--{full}{eq}{value}"
