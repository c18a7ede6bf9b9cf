"""The body of the hidden ``memx agent-hook AGENT``: what an agent's lifecycle hook runs.

Claude Code (SessionEnd, PreCompact) and Gemini CLI (SessionEnd, PreCompress) hand their
hook a JSON object on standard input with ``transcript_path`` and ``cwd``. This starts
``memx ingest`` on that transcript in a new session (detached from the agent, its
terminal and its pipes) and returns at once, so the agent never waits for the Reflector.
Ingesting a session again stores only what is new, so a PreCompact followed by a
SessionEnd costs nothing twice. It never fails the agent: problems go to
``.memx/local/hooks.log`` (when there is a store to log in) and the hook exits 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from memx_cli.errors import MemxError
from memx_cli.store.repo import Repo


@dataclass(frozen=True)
class HookRun:
    started: int | None  # pid of the background ingest, None when nothing was started
    reason: str  # why (for the log)


def _fields(data: bytes) -> tuple[str | None, str | None, str]:
    try:
        event = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, None, "standard input is not a JSON object"
    if not isinstance(event, dict):
        return None, None, "standard input is not a JSON object"
    path, cwd = event.get("transcript_path"), event.get("cwd")
    name = str(event.get("hook_event_name") or "event")
    return (path if isinstance(path, str) and path else None,
            cwd if isinstance(cwd, str) and cwd else None, name)


def run(agent: str, data: bytes, cwd: Path) -> HookRun:
    transcript, event_cwd, event = _fields(data)
    base = Path(event_cwd) if event_cwd and Path(event_cwd).is_dir() else cwd
    try:
        repo = Repo.discover(base)
    except MemxError:
        return HookRun(None, f"{base} is not in a git repository")
    if not repo.store.exists():
        return HookRun(None, f"no memx store in {repo.worktree}")
    from memx_cli.githooks.impl import log_line

    hook = f"agent-hook {agent}"
    if transcript is None:
        log_line(repo, hook, f"{event}: no transcript_path on standard input; nothing to do")
        return HookRun(None, "no transcript path")
    path = Path(transcript)
    if not path.is_absolute():
        path = base / path
    if not path.is_file():
        log_line(repo, hook, f"{event}: transcript {path} not found; nothing to do")
        return HookRun(None, "transcript not found")
    log = repo.store.local_dir / "hooks.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "memx_cli", "-C", str(repo.worktree), "ingest", str(path),
             "--source", "transcript"],
            cwd=repo.worktree, env=dict(os.environ), stdin=subprocess.DEVNULL, stdout=out,
            stderr=out, start_new_session=True, close_fds=True)
    log_line(repo, hook, f"{event}: ingesting {path} in the background (pid {child.pid})")
    return HookRun(child.pid, "started")
