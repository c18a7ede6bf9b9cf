#!/bin/sh
# Install memx with its test dependencies into .venv and run the whole test suite.
# This is the README's test command; .ci/run runs it too.
set -eu
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
exec .venv/bin/python -m pytest -q "$@"
