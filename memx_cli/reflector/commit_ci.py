"""A CI pipeline a commit adds (issue 24): a new workflow is a tool the project now runs on
every push or on a schedule ("CI: add a zizmor workflow", "ci: add semgrep"), and its message
rarely says more than its title. What it runs is in the added file, read by its structure,
never by the names of the tools:

- the file is a new GitHub Actions workflow (``.github/workflows/*.yml``), a new composite
  action (``.github/actions/…/action.yml``) or a new GitLab or CircleCI configuration;
- its top-level ``name:``, the events it runs on (the keys under ``on:``), the actions its
  steps use (``uses: owner/name@ref``, without the ref; GitHub's own building blocks under
  ``actions/`` checkout, set up and cache for every workflow, so they name nothing), the
  container images it runs in (without tag or digest) and the first line of its first
  commands (``run:``, ``script:``);
- nothing when the file names no action, image or command of its own: a workflow that
  only checks out and sets up runs nothing worth a line.

The memory is a ``NewTool`` naming the file; the commit's title says why it was added.
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate

PIPELINE = re.compile(r"^\.github/workflows/[^/]+\.ya?ml$|^\.github/actions/(?:[^/]+/)*"
                      r"action\.ya?ml$|^\.gitlab-ci\.yml$|^\.circleci/config\.ya?ml$")
KEY = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[\w-]+)\s*:\s*(?P<value>.*?)\s*$")
USES = re.compile(r"^(?:docker://)?(?P<name>[\w.-]+/[\w./-]+?)(?::[\w.-]+)?(?:@[^\s#]*)?"
                  r"(?:\s*#.*)?$")
IMAGE = re.compile(r"^[\"']?(?P<name>[\w./-]+?)(?::[\w.-]+)?(?:@sha256:\w+)?[\"']?(?:\s*#.*)?$")
BLOCK = re.compile(r"^[|>][+-]?\d*$")
# the shell's own grammar and builtins around a script's programs: a line that branches,
# loops, sets, echoes or moves runs no tool ("if [ -n "$X" ]; then", "set -eu", "cd docs")
SHELL = re.compile(r"^(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|set|export|"
                   r"cd|echo|printf|source|\.|\[\[?|\{|\}|#)(?:\s|;|$)")
PLATFORM_OWNER = "actions/"  # GitHub's own actions: checkout, setup-*, cache, artifacts
MAX_NAMED = 3
MAX_COMMAND = 60
MAX_TEXT = 360


def is_pipeline(path: str) -> bool:
    """A CI workflow or composite action file."""
    return bool(PIPELINE.match(path))


def _added(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith("+") and not line.startswith("+++")]


def _uncommented(value: str) -> str:
    return re.sub(r"\s+#.*$", "", value).strip().strip("\"'")


def read(lines: list[str]) -> tuple[str, list[str], list[str], list[str]]:
    """(name, events, actions and images, commands) of a workflow's lines."""
    name = ""
    events: list[str] = []
    used: list[str] = []
    commands: list[str] = []
    in_on = False  # inside the block of ``on:``: its first keys are the events
    event_indent = -1
    script_indent = -1  # inside a block of commands (``run: |``) deeper than this
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if script_indent >= 0:
            if indent > script_indent:  # the block's first line that runs a program
                if not SHELL.match(line.strip()):
                    commands.append(line.strip())
                    script_indent = -1
                continue
            script_indent = -1
        match = KEY.match(line)
        if in_on and indent > 0:
            event_indent = indent if event_indent < 0 else event_indent
            if match and indent == event_indent and len(events) < MAX_NAMED:
                events.append(match.group("key"))
            continue
        in_on = False
        if match is None:
            continue
        key, value = match.group("key"), _uncommented(match.group("value"))
        if indent == 0 and key == "on":
            if value.startswith("["):
                events.extend(e.strip() for e in value.strip("[]").split(",") if e.strip())
            elif value:
                events.append(value)
            else:
                in_on = True
        elif indent == 0 and key == "name" and value:
            name = value
        elif key == "uses" and not value.startswith(PLATFORM_OWNER):
            found = USES.match(value)
            if found and found.group("name") not in used:
                used.append(found.group("name"))
        elif key == "image" and value:
            found = IMAGE.match(value)
            if found and found.group("name") not in used:
                used.append(found.group("name"))
        elif key in ("run", "script"):
            if BLOCK.match(value) or not value:
                script_indent = indent
            elif not SHELL.match(value):
                commands.append(value)
    return name, events, used, commands


def new_pipeline(path: str, diff: str, subject: str, lang: str) -> Candidate | None:
    """The pipeline the commit adds at ``path`` (``diff``: its whole text, added), named by
    what it runs; None when it runs nothing of its own."""
    name, events, used, commands = read(_added(diff))
    commands = [c[:MAX_COMMAND].rstrip() + ("…" if len(c) > MAX_COMMAND else "")
                for c in commands if not c.startswith("$")][:2]
    if not used and not commands:
        return None
    parts = [f"uses {', '.join(used[:MAX_NAMED])}"] if used else []
    parts += [f"runs {', '.join(f'`{c}`' for c in commands)}"] if commands else []
    if events:
        parts.append(f"on {', '.join(events)}")
    kind = "CI action" if path.rsplit("/", 1)[-1].startswith("action.") else "CI workflow"
    titled = f" \"{name}\"" if name and name.lower() not in subject.lower() else ""
    text = f"Added the {kind} {path}{titled} ({subject}): {'; '.join(parts)}."
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT - 2].rstrip() + "…)"
    return Candidate("NewTool", 1, 1, lang, text, files=(path,))
