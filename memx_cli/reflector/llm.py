"""The optional LLM stage (SPEC 3.1 ``hybrid`` and ``llm`` modes) over any OpenAI-compatible
chat-completions endpoint, with the standard library only (urllib: no new dependency).

Prompts ask for one JSON object; replies wrapped in prose or code fences are accepted,
anything else is an ``LLMError``. The pipeline turns every ``LLMError`` into a fallback
to rules, so an outage never loses input. Only sanitized text is sent (SPEC 10).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol

from memx_cli.reflector.rules import NAMES as RULES
from memx_cli.store.memory import KNOWLEDGE_TYPES, SECTIONS

MAX_REPLY_BYTES = 1 << 20


class LLMError(Exception):
    """The endpoint failed, timed out or replied with something unusable."""


@dataclass(frozen=True)
class LLMSettings:
    base_url: str
    model: str
    api_key_env: str | None = None
    timeout: float = 30.0


class ChatClient(Protocol):
    """What the pipeline needs from a model service (tests pass a fake)."""

    def chat(self, system: str, user: str) -> tuple[str, int]:
        """The reply text and the number of prompt tokens sent."""


class HttpChatClient:
    def __init__(self, settings: LLMSettings):
        self.settings = settings
        self.url = settings.base_url.rstrip("/")
        if not self.url.endswith("/chat/completions"):
            self.url += "/chat/completions"
        self.api_key: str | None = None
        if settings.api_key_env:
            self.api_key = os.environ.get(settings.api_key_env)
            if not self.api_key:
                raise LLMError(f"environment variable {settings.api_key_env} "
                               "(ace.reflector.llm.api_key_env) is not set")
        host = urllib.parse.urlsplit(self.url).hostname or ""
        handlers = [urllib.request.ProxyHandler({})] if _loopback(host) else []
        self._opener = urllib.request.build_opener(*handlers)

    def chat(self, system: str, user: str) -> tuple[str, int]:
        body = {"model": self.settings.model, "temperature": 0,
                "messages": [{"role": "system", "content": system},
                             {"role": "user", "content": user}]}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, json.dumps(body).encode("utf-8"), headers,
                                         method="POST")
        try:
            with self._opener.open(request, timeout=self.settings.timeout) as response:
                raw = response.read(MAX_REPLY_BYTES)
        except urllib.error.HTTPError as exc:
            raise LLMError(f"HTTP {exc.code} from {self.url}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, (TimeoutError, socket.timeout)):
                raise LLMError(f"no reply from {self.url} within {self.settings.timeout:g}s") from None
            raise LLMError(f"cannot reach {self.url} ({reason})") from None
        except TimeoutError:
            raise LLMError(f"no reply from {self.url} within {self.settings.timeout:g}s") from None
        except OSError as exc:
            raise LLMError(f"cannot reach {self.url} ({exc})") from None
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"{self.url} did not answer as a chat-completions endpoint") from None
        if not isinstance(text, str):
            raise LLMError(f"{self.url} sent a reply without text")
        usage = data.get("usage") if isinstance(data, dict) else None
        tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        if not isinstance(tokens, int):
            tokens = (len(system) + len(user)) // 4
        return text, tokens


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def reply_json(text: str) -> dict[str, Any]:
    """The JSON object in a reply, also when wrapped in ```json fences or prose."""
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        raise LLMError("the model's reply has no JSON object")
    try:
        data = json.loads(text[start:end + 1])
    except ValueError:
        raise LLMError("the model's reply is not valid JSON") from None
    if not isinstance(data, dict):
        raise LLMError("the model's reply is not a JSON object")
    return data


@dataclass(frozen=True)
class Verdict:
    score: int
    content: str | None = None
    section: str | None = None
    type: str | None = None
    rule: str | None = None


_LABELS = (f"section: one of {', '.join(SECTIONS)}; type: one of {', '.join(KNOWLEDGE_TYPES)}")
EVALUATE = (
    "You review one candidate memory for a coding agent's long-term project memory. A good "
    "memory is a reusable, specific lesson: what failed and what fixed it, what finally "
    "worked after failed attempts, a configuration change and its value, a new tool and what "
    "it is for, or a chore done every time. Reply with one JSON object only: "
    '{"score": 0-100 (how instructive and reusable), "content": the lesson in at most '
    "{limit} characters, self-contained, in the language of the candidate, keeping exact "
    'commands, names and values, "section": ..., "type": ...}. ' + _LABELS + "."
)
EXTRACT = (
    "You extract reusable lessons from developer activity (chat transcript, commit or log) "
    "for a coding agent's long-term project memory: what failed and what fixed it, what "
    "finally worked after failed attempts, configuration changes, first use of a tool, and "
    "chores repeated every time. Ignore chit-chat and anything not reusable. Reply with one "
    'JSON object only: {"memories": [{"content": at most {limit} characters, '
    'self-contained, in the language of the input, "rule": one of '
    + ", ".join(RULES) + ' or Other, "score": 0-100, "section": ..., "type": ...}]}; '
    'an empty list when there is nothing to learn. ' + _LABELS + "."
)


def _verdict(item: dict[str, Any]) -> Verdict:
    score = item.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 100:
        raise LLMError("the model's reply has no score from 0 to 100")
    content = item.get("content")
    section, kind, rule = item.get("section"), item.get("type"), item.get("rule")
    return Verdict(round(score),
                   content.strip() if isinstance(content, str) and content.strip() else None,
                   section if section in SECTIONS else None,
                   kind if kind in KNOWLEDGE_TYPES else None,
                   rule if rule in RULES else None)


def evaluate(client: ChatClient, rule: str, candidate: str, context: str,
             limit: int) -> tuple[Verdict, int]:
    """The model's verdict on one rule candidate, and the prompt tokens it cost."""
    user = f"Rule: {rule}\nCandidate:\n{candidate}\n\nContext:\n{context}"
    text, tokens = client.chat(EVALUATE.replace("{limit}", str(limit)), user)
    return _verdict(reply_json(text)), tokens


def extract(client: ChatClient, chunk: str, limit: int) -> tuple[list[Verdict], int]:
    """Every lesson the model finds in one chunk of input, and the prompt tokens sent."""
    text, tokens = client.chat(EXTRACT.replace("{limit}", str(limit)), chunk)
    data = reply_json(text)
    items = data.get("memories")
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise LLMError('the model\'s reply has no "memories" list')
    verdicts = [_verdict(item) for item in items]
    if any(v.content is None for v in verdicts):
        raise LLMError("the model's reply has a memory without content")
    return verdicts, tokens
