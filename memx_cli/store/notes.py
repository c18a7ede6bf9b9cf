"""Working notes (SPEC 5): a private free-text notepad per agent name, kept in
``.memx/local/notes/<agent>.md`` (per clone, never committed) and injected verbatim into
that agent's context preamble. ``memx notes`` and the MCP tools ``update_my_notes`` /
``record_observation`` both come here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from memx_cli.clock import now_iso
from memx_cli.errors import MemxError, shown
from memx_cli.fsutil import Masked, write_text
from memx_cli.privacy import mask
from memx_cli.store.repo import Repo
from memx_cli.textproc import clean_text

DEFAULT_AGENT = "default"
AGENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# Notes go into every preamble of their agent: past this they crowd out the task.
MAX_NOTES_CHARS = 8000


def agent_name(agent: str | None = None) -> str:
    """``agent`` (a flag), else ``MEMX_AGENT``, else ``default``; one safe word."""
    if agent == "":  # `--agent "$NAME"` left empty: not another agent's notes in silence
        raise MemxError("empty agent name; pass one word (letters, digits, . _ -), or leave "
                        "--agent out for $MEMX_AGENT or 'default'")
    name = agent or os.environ.get("MEMX_AGENT") or DEFAULT_AGENT
    if not AGENT_RE.match(name):
        raise MemxError(f"invalid agent name {shown(name)}: use one word (letters, digits, . _ -)")
    return name


def notes_path(repo: Repo, agent: str) -> Path:
    return repo.store.local_dir / "notes" / f"{agent_name(agent)}.md"


def read(repo: Repo, agent: str | None = None) -> str:
    """The agent's notes; empty when it has none."""
    try:
        return notes_path(repo, agent_name(agent)).read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise MemxError(f"cannot read the notes of {agent_name(agent)}: {exc}") from None


def _check(text: str) -> str:
    if "\x00" in text:
        raise MemxError("notes contain NUL bytes; pass text")
    text = clean_text(text)  # lone surrogates (undecodable bytes) become U+FFFD (issue 14)
    if len(text) > MAX_NOTES_CHARS:
        raise MemxError(f"notes would be {len(text)} characters (limit {MAX_NOTES_CHARS}); "
                        "keep them short: memx notes set or clear, promote lasting facts "
                        "with memx add")
    return text


def _masked(repo: Repo, text: str) -> Masked:
    """Secrets out before anything else (issue 12): notes reach every preamble."""
    from memx_cli.privacy.sanitizer import for_config

    return mask(text, for_config(repo.config))


def write(repo: Repo, text: str, agent: str | None = None) -> str:
    """Replace the agent's notes with ``text`` (masked); returns what is stored now."""
    repo.require_store()
    body = _masked(repo, _check(text.rstrip() + "\n" if text.strip() else ""))
    path = notes_path(repo, agent_name(agent))
    with repo.store.lock():
        write_text(path, body)
    return body


def append(repo: Repo, text: str, agent: str | None = None, stamp: bool = True) -> str:
    """Add ``text`` as a new line (a dated observation by default); returns the notes."""
    repo.require_store()
    if not text.strip():
        raise MemxError("nothing to add; pass the text of the note")
    line = " ".join(_masked(repo, text).split())  # mask, then fold onto one line
    entry = f"- {now_iso()} {line}" if stamp else line
    with repo.store.lock():
        current = read(repo, agent)
        body = _check(current + ("" if not current or current.endswith("\n") else "\n")
                      + entry + "\n")
        # the new line is masked above; the notes already there were masked when written
        write_text(notes_path(repo, agent_name(agent)), Masked(body))
    return body


def clear(repo: Repo, agent: str | None = None) -> bool:
    """Delete the agent's notes; False when there were none."""
    repo.require_store()
    path = notes_path(repo, agent_name(agent))
    with repo.store.lock():
        try:
            path.unlink()
        except FileNotFoundError:
            return False
    return True
