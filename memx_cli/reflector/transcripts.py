"""Agent transcript records → turns. One record is one JSON object (a JSONL line or an
element of a JSON array); ``parse`` returns its turns, ``[]`` for a record that is known
but carries nothing to read (metadata, thinking), or ``None`` for an unknown record.

Shapes read (as documented by their tools):
- OpenAI-style chat messages: ``{"role", "content"}`` where content is text or a list of
  ``{"type": "text", "text"}`` parts; ``tool_calls`` on assistant messages; ``role: tool``.
- Claude Code session files: ``{"type": "user"|"assistant", "sessionId", "message":
  {"role", "content"}}`` with content blocks ``text``, ``tool_use`` (``input.command`` for
  Bash, ``input.file_path`` for edits) and ``tool_result`` (``is_error``).
- Codex rollout files: ``{"type": "response_item", "payload": {...}}`` with payload types
  ``message``, ``function_call`` and ``function_call_output``; ``session_meta`` has the id.
- Gemini CLI chat recordings (``{"sessionId", "messages": [...]}``): messages
  ``{"type": "user"|"gemini", "content"}`` whose ``toolCalls`` carry ``name``, ``args``,
  ``status`` and the ``result`` / ``resultDisplay`` (issue 18: the Gemini session hook).

Two Claude Code tool results carry the user's word, not a tool's output (issue 24): a
rejected tool call ("The user doesn't want to proceed with this tool use. … the user
said:\n<words>") becomes a user turn marked ``rejected`` holding the words typed with it
(none for a bare rejection; a call the user stopped while it ran, whose whole result is
"[Request interrupted by user for tool use]", is one), and the answer to a question prompt (a tool call whose input
holds ``questions`` with ``options``; its result reads ``"<question>"="<answer>"``)
becomes a user turn marked ``picked`` per question: the question and the option chosen,
with that option's description, never the options not chosen; an option that runs one of
the harness's slash commands ("Run /plan_review") picks the session's next step, no
decision, and gives no turn. An edit the tool refused
(``is_error``, "String to replace not found") gives a failed result naming the edit's
files, an edit it accepted gives a result naming them as ``applied`` (``MultiEdit``'s
``edits`` read as one text replaced and one written), and edited files are named from the
session's ``cwd`` when they lie inside it. Texts the harness writes
in the user's name (``<local-command-stdout>``, ``[Request interrupted by user]``, the
``isCompactSummary`` retelling of the session when its context ran out, a
``<task-notification>`` carrying a background agent's report, which the assistant then
relays in its own words) are not the user's words and are skipped. A plan the user approved with "clear context" arrives as
a user message opening "Implement the following plan:"; it becomes a user turn marked
``planned``: the agent's proposal, the task about to be done.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from memx_cli.reflector.reruns import stage_error, unfiltered
from memx_cli.reflector.turn import EDIT_TEXT, Turn, clip

EXIT_RE = re.compile(r"(?:exit code|exit status|exited with code|Process exited with code)"
                     r"[:\s]+(-?\d+)", re.IGNORECASE)
IGNORED_TYPES = frozenset({
    "summary", "system", "file-history-snapshot", "queue-operation", "attachment",
    "ai-title", "pr-link", "last-prompt", "turn_context", "event_msg", "compacted",
    "session_meta",
})
MAX_TOOL_IDS = 512
# Claude Code's fixed texts for a tool call the user turned down, and where the words the
# user typed with it start.
REJECTED = re.compile(r"^\s*(?:Error:\s*)?The user doesn['’]t want to (?:proceed with this "
                      r"tool use|take this action right now)\b")
# The whole result of a tool call the user stopped while it ran (Escape): the call is
# turned down as a bare rejection would, and the user's next message says what instead.
INTERRUPTED = re.compile(r"^\s*\[Request interrupted by user(?: for tool use)?\]\s*$")
REJECTED_SAID = re.compile(r"(?i)\bthe user said:\s*|\breason for the rejection:\s*")
ANSWER_PAIR = re.compile(r'"((?:[^"\\]|\\.)+)"="((?:[^"\\]|\\.)*)"')
HARNESS = re.compile(r"^\s*(?:<(?:local-command-[\w-]+|command-name|command-message|"
                     r"command-args|system-reminder|task-notification)>"
                     r"|\[Request interrupted by user)")
# Claude Code's fixed opening when the user approves a plan and clears the context: the
# plan that follows is the agent's, written before any work.
PLAN = re.compile(r"^\s*Implement the following plan:[ \t]*\r?\n")
# A slash command of the agent's harness ("/plan_review", "/workflows:work"), not a path.
SLASH_COMMAND = re.compile(r"(?:^|\s)/[a-z][\w-]*(?::[\w-]+)*(?=$|\s|[.,;)])")
MAX_QUESTIONS = 8
MAX_OPTIONS = 12


@dataclass
class State:
    session: str | None = None
    # The folder the agent works in (Claude Code's ``cwd`` on every record): the files it
    # edits are named from there, as the project names them, not by a home-folder path.
    cwd: str | None = None
    commands: OrderedDict[str, str | None] = field(default_factory=OrderedDict)
    edits: OrderedDict[str, tuple[str, ...]] = field(default_factory=OrderedDict)
    # question prompts waiting for their answer: call id -> [(question, {label: description})]
    asked: OrderedDict[str, list[tuple[str, dict[str, str]]]] = field(
        default_factory=OrderedDict)

    def remember(self, call_id: Any, command: str | None,
                 files: tuple[str, ...] = ()) -> None:
        if isinstance(call_id, str):
            self.commands[call_id] = command
            while len(self.commands) > MAX_TOOL_IDS:
                self.commands.popitem(last=False)
            if files:
                self.edits[call_id] = files
                while len(self.edits) > MAX_TOOL_IDS:
                    self.edits.popitem(last=False)

    def ask(self, call_id: Any, args: Any) -> None:
        """A question prompt: the questions and their options, by shape (``questions``: a
        list of ``{"question", "options": [{"label", "description"}]}``)."""
        if not isinstance(call_id, str) or not isinstance(args, dict) \
                or not isinstance(args.get("questions"), list):
            return
        found: list[tuple[str, dict[str, str]]] = []
        for item in args["questions"][:MAX_QUESTIONS]:
            if not isinstance(item, dict) or not isinstance(item.get("question"), str) \
                    or not isinstance(item.get("options"), list):
                continue
            options = {str(o["label"]): str(o.get("description") or "")
                       for o in item["options"][:MAX_OPTIONS]
                       if isinstance(o, dict) and isinstance(o.get("label"), str)}
            found.append((item["question"], options))
        if found:
            self.asked[call_id] = found
            while len(self.asked) > MAX_TOOL_IDS:
                self.asked.popitem(last=False)


def parse(record: Any, number: int, state: State) -> list[Turn] | None:
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    if isinstance(record.get("sessionId"), str):
        state.session = state.session or record["sessionId"]
    if isinstance(record.get("cwd"), str) and record["cwd"].startswith("/"):
        state.cwd = record["cwd"].rstrip("/")
    if kind == "session_meta" and isinstance(record.get("payload"), dict):
        sid = record["payload"].get("id")
        state.session = state.session or (sid if isinstance(sid, str) else None)
    if kind == "response_item" and isinstance(record.get("payload"), dict):
        return _codex(record["payload"], number, state)
    if kind in ("user", "assistant") and isinstance(record.get("message"), dict):
        if record.get("isMeta") or record.get("isCompactSummary"):
            # the harness's own texts in the user's name: a skill's prompt, or the summary
            # of the conversation so far that it writes when the context runs out (a
            # retelling of turns this file already holds, in nobody's words)
            return []
        return _message(record["message"], number, state)
    if kind in ("user", "gemini") and "content" in record and "role" not in record:
        return _gemini(record, number, state)
    if isinstance(kind, str) and kind in IGNORED_TYPES:
        return []
    if "role" in record and ("content" in record or "tool_calls" in record):
        return _message(record, number, state)
    return None


def _message(msg: dict[str, Any], number: int, state: State) -> list[Turn] | None:
    role = msg.get("role")
    if not isinstance(role, str):
        return None
    role = {"human": "user", "ai": "assistant", "function": "tool"}.get(role, role)
    turns: list[Turn] = []
    content = msg.get("content")
    if role == "tool":
        text = _plain(content)
        command = state.commands.get(msg.get("tool_call_id", ""))
        return [Turn(number, "tool", clip(text), "tool_result", command=command,
                     failed=_failed(text, None))]
    if isinstance(content, str):
        if not (role == "user" and HARNESS.match(content)):
            turns.append(_said(number, role, content))
    elif isinstance(content, list):
        for block in content:
            turns.extend(_block(block, role, number, state))
    elif content is not None:
        return None
    for call in msg.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            turns.append(_tool_use(function.get("name"), _loads(function.get("arguments")),
                                   call.get("id"), number, state))
    return turns


def _block(block: Any, role: str, number: int, state: State) -> list[Turn]:
    if isinstance(block, str):
        return [Turn(number, role, clip(block))]
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind in ("text", "input_text", "output_text") and isinstance(block.get("text"), str):
        if role == "user" and HARNESS.match(block["text"]):
            return []
        return [_said(number, role, block["text"])]
    if kind == "tool_use":
        return [_tool_use(block.get("name"), block.get("input"), block.get("id"), number, state)]
    if kind == "tool_result":
        text = _plain(block.get("content"))
        said = rejection(text)
        if said is not None:
            return [Turn(number, "user", clip(said), rejected=True)]
        asked = state.asked.pop(block.get("tool_use_id", ""), None)
        if asked is not None and block.get("is_error") is not True:
            return [Turn(number, "user", t, picked=True) for t in answers(asked, text)]
        error = block.get("is_error")
        command = state.commands.get(block.get("tool_use_id", ""))
        edited = state.edits.pop(block.get("tool_use_id", ""), ())
        if edited and error is True:
            # the tool refused the edit ("String to replace not found in file"): the file
            # is as it was, and that edit is no attempt at anything
            return [Turn(number, "tool", clip(text), "tool_result", files=edited,
                         failed=True)]
        if error is False and command and unfiltered(command) != command:
            error = None  # `go test ./... | tail -30` exits with tail's status: read the output
        failed = _failed(text, error if isinstance(error, bool) else None)
        if not failed and command and stage_error(command, text):
            failed = True  # `… | grep -oP x | …`: "grep: invalid option -- P", status 0
        return [Turn(number, "tool", clip(text), "tool_result", command=command,
                     failed=failed, applied=edited if error is not True else ())]
    return []  # thinking, images, documents: nothing to learn from here


def _said(number: int, role: str, text: str) -> Turn:
    return Turn(number, role, clip(text), planned=role == "user" and bool(PLAN.match(text)))


def rejection(text: str) -> str | None:
    """The words a user typed when turning a tool call down ("" for a bare rejection), or
    None when ``text`` is not Claude Code's rejection."""
    if INTERRUPTED.match(text):
        return ""  # stopped while it ran: a rejection without words
    if not REJECTED.match(text[:200]):
        return None
    said = REJECTED_SAID.search(text)
    return text[said.end():].strip() if said else ""


def answers(asked: list[tuple[str, dict[str, str]]], text: str) -> list[str]:
    """Each question answered, as ``"question" → answer (its option's description)``."""
    options = dict(asked)
    out: list[str] = []
    for match in ANSWER_PAIR.finditer(text[:8000]):
        question, answer = match.group(1).strip(), match.group(2).strip()
        if not answer or question not in options:
            continue
        labels = _labels(answer, options[question])
        if all(SLASH_COMMAND.search(label) for label in labels):
            continue  # "Run /plan_review": which command the session runs next, no decision
        described = [f"{label} ({options[question][label]})" if options[question].get(label)
                     else label for label in labels]
        out.append(f"\"{question}\" → {', '.join(described) or answer}")
    return out


def _labels(answer: str, options: dict[str, str]) -> list[str]:
    """The options an answer names (several for a multi-select, joined by commas); the
    answer itself when the user typed their own."""
    if answer in options:
        return [answer]
    parts = [p.strip() for p in answer.split(",")]
    return parts if all(p in options for p in parts) else [answer]


def _codex(payload: dict[str, Any], number: int, state: State) -> list[Turn] | None:
    kind = payload.get("type")
    if kind == "message":
        return _message(payload, number, state)
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        args = _loads(payload.get("arguments") or payload.get("input") or payload.get("action"))
        return [_tool_use(payload.get("name") or "shell", args, payload.get("call_id"),
                          number, state)]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = payload.get("output")
        code = None
        if isinstance(output, str) and output.startswith("{"):
            data = _loads(output)
            if isinstance(data, dict):
                meta = data.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                output = data.get("output", output)
        text = _plain(output)
        failed = code != 0 if isinstance(code, int) else _failed(text, None)
        return [Turn(number, "tool", clip(text), "tool_result",
                     command=state.commands.get(payload.get("call_id", "")), failed=failed)]
    if kind in ("reasoning",):
        return []
    return None


def _gemini(record: dict[str, Any], number: int, state: State) -> list[Turn]:
    role = "user" if record["type"] == "user" else "assistant"
    turns: list[Turn] = []
    text = _plain(record.get("content"))
    if text:
        turns.append(Turn(number, role, clip(text)))
    for call in record.get("toolCalls") or ():
        if not isinstance(call, dict):
            continue
        turns.append(_tool_use(call.get("name"), call.get("args"), call.get("id"), number, state))
        shown = call.get("resultDisplay")
        output = shown if isinstance(shown, str) else _gemini_result(call.get("result"))
        status = call.get("status")
        flag = status == "error" if status in ("error", "success") else None
        turns.append(Turn(number, "tool", clip(output), "tool_result",
                          command=state.commands.get(call.get("id", "")),
                          failed=_failed(output, flag)))
    return turns


def _gemini_result(result: Any) -> str:
    """Text of a Gemini tool result: parts holding ``functionResponse.response``."""
    parts = result if isinstance(result, list) else [result]
    texts: list[str] = []
    for part in parts:
        response = part.get("functionResponse", {}).get("response") \
            if isinstance(part, dict) else None
        if isinstance(response, dict):
            texts.extend(str(response[k]) for k in ("output", "error") if response.get(k))
        else:
            texts.append(_plain(part))
    return "\n".join(t for t in texts if t)


EDIT_NAMES = ("edit", "write", "patch", "replace", "create", "insert")
EDIT_KEYS = ("new_string", "content", "new_str", "file_text", "patch", "diff")
PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add) File: (.+)$", re.MULTILINE)
MAX_CHANGE = 120
MIN_EXTENDED = 8  # characters of an old line a longer new line must start with to extend it
MAX_EDITS = 32


def _tool_use(name: Any, args: Any, call_id: Any, number: int, state: State) -> Turn:
    """A tool call: the shell command it runs, or the files it edits and the new text
    (``Edit``/``Write``/``MultiEdit``, ``apply_patch``, ``write_file``…); reads of a file
    are neither."""
    tool = name if isinstance(name, str) else "tool"
    command: str | None = None
    files: list[str] = []
    change: str | None = None
    replaced: str | None = None
    edited: tuple[str, str] | None = None
    editing = any(word in tool.lower() for word in EDIT_NAMES)
    if isinstance(args, str) and editing:  # apply_patch: the patch itself is the input
        files = PATCH_FILE.findall(args)
        change, replaced = _added(args), _added(args, "-")
    elif isinstance(args, dict):
        raw = args.get("command") or args.get("cmd")
        if isinstance(raw, list):
            parts = [str(p) for p in raw]
            # Codex wraps commands as ["bash", "-lc", "..."]
            command = parts[-1] if len(parts) == 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
        elif isinstance(raw, str):
            command = raw
        new = next((args[k] for k in EDIT_KEYS if isinstance(args.get(k), str)), None)
        if editing or new is not None:
            for key in ("file_path", "path", "notebook_path"):
                if isinstance(args.get(key), str):
                    files.append(args[key])
            old = args.get("old_string") or args.get("old_str")
            if isinstance(new, str):
                change = _added(new) if new.startswith("*** Begin Patch") else (
                    _short(new) or _new_lines(new, old if isinstance(old, str) else ""))
                files = files or PATCH_FILE.findall(new)
            replaced = _short(old) if isinstance(old, str) else None
            if isinstance(new, str):
                edited = ((old if isinstance(old, str) else "")[:EDIT_TEXT], new[:EDIT_TEXT])
            elif isinstance(args.get("edits"), list):
                edited = _multi(args["edits"])
    files = [_within(f, state.cwd) for f in files]
    state.remember(call_id, command, tuple(files))
    state.ask(call_id, args)
    text = f"{tool}: {command}" if command else f"{tool} {' '.join(files)}".strip()
    return Turn(number, "assistant", text, "tool_use", command=command, files=tuple(files),
                change=change, replaced=replaced, edited=edited)


def _multi(edits: list[Any]) -> tuple[str, str] | None:
    """MultiEdit's ``edits`` (``[{"old_string", "new_string"}]``) as one text replaced and
    one written."""
    pairs: list[tuple[str, str]] = []
    for item in edits[:MAX_EDITS]:
        old, new = (item.get("old_string"), item.get("new_string")) \
            if isinstance(item, dict) else (None, None)
        if isinstance(new, str):
            pairs.append((old if isinstance(old, str) else "", new))
    if not pairs:
        return None
    return ("\n".join(o for o, _ in pairs)[:EDIT_TEXT], "\n".join(n for _, n in pairs)[:EDIT_TEXT])


def _within(path: str, cwd: str | None) -> str:
    """``path`` from the agent's working folder when it lies inside it."""
    if cwd and path.startswith(cwd + "/") and len(path) > len(cwd) + 1:
        return path[len(cwd) + 1:]
    return path


def _added(patch: str, sign: str = "+") -> str | None:
    """The lines a patch adds (or, with ``sign`` "-", removes), short."""
    lines = [ln[1:] for ln in patch.splitlines()
             if ln.startswith(sign) and not ln.startswith(sign * 3)]
    return _short("\n".join(lines)) if lines else None


def _new_lines(new: str, old: str) -> str | None:
    """A long edit shown by the lines it brings that the old text did not have, as many
    of the first as fit in ``MAX_CHANGE``."""
    before = {ln.strip() for ln in old.splitlines()}
    kept: list[str] = []
    for line in (ln.strip() for ln in new.splitlines()):
        if line and line not in before:
            if len(" ".join(kept + [line])) > MAX_CHANGE:
                # too long to show whole: a line that only adds to the end of an old one
                # (a `//nolint:…` or noqa directive after a signature) shows what it adds
                line = _added_tail(line, before) or line
                if any(line in shown for shown in kept):
                    continue  # the same directive on the next parameter says nothing new
            if len(" ".join(kept + [line])) > MAX_CHANGE:
                break
            kept.append(line)
    return _short(" ".join(kept)) if old and kept else None


def _added_tail(line: str, before: set[str]) -> str | None:
    """What a line adds after the old line it extends (the longest old line it starts
    with, of MIN_EXTENDED characters or more), or None."""
    extended = max((old for old in before if len(old) >= MIN_EXTENDED and line.startswith(old)
                    and len(line) > len(old)), key=len, default=None)
    return line[len(extended):].strip() or None if extended else None


def _short(text: str) -> str | None:
    text = " ".join(text.split())
    return text if 0 < len(text) <= MAX_CHANGE else None


def _plain(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [_plain(c.get("text") if isinstance(c, dict) else c) for c in content]
        return "\n".join(p for p in parts if p)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    return ""


def _failed(text: str, flag: bool | None) -> bool | None:
    if flag is not None:
        return flag
    found = EXIT_RE.search(text[-2000:])
    return int(found.group(1)) != 0 if found else None


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read
            return value
    return value
