#!/usr/bin/env bash
# The checkpoint flow an agent's skill runs (seed 004, Flow 1), in a throwaway git repository:
# create -> set-phase -> log-action -> log-commit -> (new process) find -> set-status completed.
# Prints each step's --json output as one JSON document per line; exits non-zero on any failure.
#
# Usage: scripts/checkpoint_flow.sh [REPO_DIR]   (default: a new temp dir; needs `kgraph` on PATH)
set -euo pipefail

KGRAPH=${KGRAPH:-kgraph}
repo=${1:-$(mktemp -d)}
mkdir -p "$repo" && cd "$repo"
[ -d .git ] || git init -q .
unset KGRAPH_DB  # the database must land at <git root>/.claude/execution-state.db

one_line() { python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))'; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }

created=$("$KGRAPH" workflow create 123 feat/issue-123 --json)
echo "$created" | one_line
id=$(echo "$created" | field id)
"$KGRAPH" workflow set-phase "$id" implement --json | one_line
"$KGRAPH" workflow log-action "$id" run-tests failed --metadata '{"failed": 3}' --json | one_line
"$KGRAPH" workflow log-commit "$id" abc123 "feat: add parser" --json | one_line
"$KGRAPH" workflow find 123 --json | one_line   # what an agent runs after compaction
"$KGRAPH" workflow set-status "$id" completed --json | one_line
test -f .claude/execution-state.db
