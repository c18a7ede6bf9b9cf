#!/bin/sh
# Install memx with its test dependencies into .venv, lint, type-check and run the whole
# test suite with coverage (child processes included). This is the README's test command;
# .ci/run runs it too. The tests run on every core, up to 4 (pytest-xdist: one worker a core; its
# workers are child processes, measured like the others). Extra arguments go to pytest
# (`-n 0` runs them in one process).
set -eu
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
echo "== ruff"
.venv/bin/ruff check memx_cli tests bench scripts
echo "== mypy"
.venv/bin/mypy memx_cli
echo "== pytest"
rm -f .coverage .coverage.*
# one worker a core, at most 4: more only adds pressure on the server-timing tests
workers=$(.venv/bin/python -c 'import os; print(min(4, os.cpu_count() or 1))')
.venv/bin/python -m coverage run -m pytest -q -n "$workers" "$@"
.venv/bin/python -m coverage combine -q
.venv/bin/python -m coverage report --sort=cover | tail -25
