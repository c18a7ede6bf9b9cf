#!/bin/sh
# memx-hook: @HOOK@ shim written by `memx hooks install` (shim version @VERSION@).
# `memx hooks uninstall` removes it and puts back the hook it replaced, if any.
# Skip memx for one command: MEMX_SKIP_HOOKS=1 git commit ...
MEMX_HOOK=@HOOK@
MEMX_PYTHON=@PYTHON@
# Runs the hidden `memx hook-impl` command with the Python that installed this shim, through
# the executables' entry (one BLAS thread, a flushed fast exit); exits quietly if memx has
# since been removed from that Python. The background post-commit run leaves git's session
# (where `setsid` is missing) so that ending git's process group does not end it.
MEMX_RUN='import os, sys
if sys.argv[1:2] == ["post-commit"] and os.getsid(0) != os.getpid():
    try:
        os.setsid()
    except OSError:
        pass
try:
    from memx_cli.cli import entry
except ModuleNotFoundError as exc:
    if exc.name != "memx_cli":
        raise
    sys.exit(0)
sys.argv[1:] = ["hook-impl", *sys.argv[1:]]
entry()'

# A hook that was here before memx is kept beside this file and runs first.
status=0
if [ -x "$0.memx-legacy" ]; then
    "$0.memx-legacy" "$@" || status=$?
    if [ "$MEMX_HOOK" = pre-commit ] && [ "$status" -ne 0 ]; then
        exit "$status"
    fi
fi

# Nothing to do: skipped on request, no store in this work tree, or no such Python.
if [ -n "${MEMX_SKIP_HOOKS:-}" ] || [ ! -d .memx ] || [ ! -x "$MEMX_PYTHON" ]; then
    exit "$status"
fi

case "$MEMX_HOOK" in
pre-commit)
    # Fast path: nothing staged under .memx/ means nothing to check.
    if git diff --cached --quiet --diff-filter=ACMR -- .memx/ 2>/dev/null; then
        exit 0
    fi
    exec "$MEMX_PYTHON" -c "$MEMX_RUN" "$MEMX_HOOK" "$@"
    ;;
post-commit)
    # Queue the commit and return at once; memx reflects on it in the background (the
    # Reflector costs more than a commit should wait) and unqueues it once its memories
    # are written. Commits a rebase, cherry-pick or revert replays were queued when made.
    gitdir=$(git rev-parse --git-dir 2>/dev/null) || exit "$status"
    for busy in rebase-merge rebase-apply CHERRY_PICK_HEAD REVERT_HEAD sequencer; do
        if [ -e "$gitdir/$busy" ]; then exit "$status"; fi
    done
    sha=$(git rev-parse --verify --quiet HEAD) || exit "$status"
    mkdir -p .memx/local/queue 2>/dev/null && : > ".memx/local/queue/$sha" || exit "$status"
    # (git's index variable may name a temporary index that is gone by then; `setsid`: a
    # session of its own from the start, so killing git's process group spares it)
    detach=
    if command -v setsid >/dev/null 2>&1; then detach=setsid; fi
    (unset GIT_INDEX_FILE; $detach "$MEMX_PYTHON" -c "$MEMX_RUN" "$MEMX_HOOK" </dev/null >/dev/null 2>&1 &)
    ;;
*)
    # post-merge, post-checkout, post-rewrite never fail the git command; memx logs its
    # own errors to .memx/local/hooks.log.
    "$MEMX_PYTHON" -c "$MEMX_RUN" "$MEMX_HOOK" "$@" </dev/null || true
    ;;
esac
exit "$status"
