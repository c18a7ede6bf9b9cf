#!/bin/sh
# memx's main job on its embedded defaults, in a throwaway repository: no network, no
# configuration. Imports a small demo store and searches it. Run after installing memx
# (see README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cd "$demo"
git init -q
memx init
memx import "$here/demo/memories.jsonl"
for query in "which package manager do we use" "speed up the test suite" "redis" "连接池"; do
    echo
    echo "\$ memx search \"$query\""
    memx search "$query" --limit 3
done
echo
echo "\$ memx search \"MAX_POOL_SIZE\" --explain --limit 1"
memx search "MAX_POOL_SIZE" --explain --limit 1
