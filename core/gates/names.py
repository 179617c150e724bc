"""Which rule module reads which command word: the push gate's dispatch table, import-free.

push.py consults these sets before it imports a rule module, so `git push` never loads the forge,
runner or file-writing rules (the hook runs on every tool call). Each rule module keeps its own
detailed table keyed by the same names; tests/gates check the two agree.
"""

from __future__ import annotations

FORGES = frozenset({"glab", "hub", "tea", "sl", "gt", "jj", "az", "git-town"})  # forges.FORGE_PUBLISH
REGISTRIES = frozenset(
    {  # forges.REGISTRY
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "twine",
        "poetry",
        "uv",
        "flit",
        "hatch",
        "pdm",
        "maturin",
        "cargo",
        "gem",
        "docker",
        "podman",
        "buildah",
        "helm",
        "nuget",
        "dotnet",
        "vsce",
        "ovsx",
        "dart",
        "flutter",
        "mix",
        "cabal",
        "anaconda",
        "mvn",
        "gradle",
        "gradlew",
        "./gradlew",
        "skopeo",
        "crane",
        "oras",
        "goreleaser",
        "semantic-release",
        "changeset",
        "lerna",
        "jf",
        "jfrog",
        "swift",
    }
)
HTTP_CLIENTS = frozenset({"curl", "wget", "http", "https", "xh", "xhs", "curlie", "httpie"})
REMOTE_COPY = frozenset(
    {"scp", "sftp", "rsync", "rclone", "ftp", "lftp", "aws", "gsutil", "gcloud", "az", "s3cmd", "mc"}
)
RUNNERS = frozenset({"make", "gmake", "just", "npm", "pnpm", "yarn", "bun"})  # runners.RUNNER_FILES
OPAQUE_RUNNERS = frozenset(
    {  # runners.OPAQUE_RUNNERS
        "task",
        "rake",
        "invoke",
        "inv",
        "fab",
        "nox",
        "tox",
        "mage",
        "gulp",
        "grunt",
        "cake",
        "earthly",
        "pants",
        "bazel",
        "ninja",
        "cargo-make",
        "makers",
        "doit",
        "poe",
        "scons",
        "waf",
    }
)
INTERPRETERS = frozenset(
    {
        "python",
        "python2",
        "python3",
        "pypy",
        "pypy3",
        "node",
        "nodejs",
        "ruby",
        "perl",
        "php",
        "deno",
        "bun",
        "pwsh",
        "powershell",
        "tclsh",
        "lua",
        "luajit",
        "Rscript",
        "osascript",
        "julia",
        "groovy",
        "kotlin",
        "scala",
        "elixir",
        "erl",
        "escript",
        "swift",
        "java",
        "jshell",
        "dotnet-script",
        "tsx",
        "ts-node",
        "npx-ts",
        "awk",
        "gawk",
        "mawk",
        "nawk",
        "busybox-awk",
    }
)
INTERPRETER_PATTERN = r"python3(\.\d+)?|node\d*|ruby\d*|perl\d*|php\d*"
WRITERS = frozenset(
    {  # writes.VALUE_OPTIONS, and sponge
        "cp",
        "mv",
        "install",
        "ln",
        "link",
        "rsync",
        "tee",
        "rm",
        "touch",
        "truncate",
        "shred",
        "chmod",
        "chown",
        "chgrp",
        "setfacl",
        "mkdir",
        "sed",
        "perl",
        "dd",
        "sort",
        "curl",
        "wget",
        "tar",
        "unzip",
        "zip",
        "patch",
        "mktemp",
        "split",
        "ed",
        "ex",
        "vim",
        "vi",
        "nvim",
        "sqlite3",
        "chattr",
        "sponge",
        "unlink",
        "rmdir",
        "scp",
    }
)
NETWORK_SHELLS = frozenset({"ssh", "nc", "ncat", "netcat", "socat", "telnet", "openssl"})

# the command words the gate reads: a pattern matching one of them as a command word is denied
COMMAND_WORDS = (
    frozenset({"git", "gh", "hall", "hall-hook", "eval", "source", "env", "xargs", "sudo", "exec", "command"})
    | FORGES
    | REGISTRIES
    | RUNNERS
    | INTERPRETERS
    | HTTP_CLIENTS
    | REMOTE_COPY
    | frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "busybox"})
)
