#!/bin/sh
# memx's main job on its embedded defaults, in a throwaway repository: no network, no
# configuration. Run after installing memx (see README.md).
set -eu
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
cd "$demo"
git init -q
memx init
memx add "Use pnpm, not npm, in this repo: the lockfile is pnpm-lock.yaml" --tag tooling >/dev/null
memx add "Integration tests need REDIS_URL=redis://localhost:6379/15" --tag testing >/dev/null
memx add --kind policy --domain conventions "Every migration ships with a tested downgrade" >/dev/null
echo "--- memx list"
memx list
echo "--- memx validate"
memx validate
