"""Concrete things in developer text: tools, commands, paths, identifiers, values.

The scorer counts them (specificity, SPEC 3.1), the distiller files them under ``tools``
and ``entities``, and NewTool checks that "switched to X" names a tool at all.
"""

from __future__ import annotations

import re

from memx_cli.reflector.tools import KNOWN_TOOLS

# Package manager → the ecosystem tag a memory about it gets.
ECOSYSTEM = {
    "pip": "python", "pip3": "python", "uv": "python", "poetry": "python", "pytest": "python",
    "conda": "python", "pipx": "python", "ruff": "python", "mypy": "python", "tox": "python",
    "npm": "javascript", "pnpm": "javascript", "yarn": "javascript", "bun": "javascript",
    "node": "javascript", "npx": "javascript", "jest": "javascript", "vitest": "javascript",
    "eslint": "javascript", "tsc": "typescript", "cargo": "rust", "rustc": "rust", "go": "go",
    "gem": "ruby", "bundler": "ruby", "composer": "php", "dotnet": "dotnet", "docker": "docker",
    "kubectl": "kubernetes", "helm": "kubernetes", "terraform": "terraform",
}

CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
PATH_RE = re.compile(
    r"(?<![\w/.:@-])((?:\.{0,2}/)?(?:[\w.@-]+/)+[\w.@-]+|[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|rb|"
    r"java|kt|c|h|cpp|hpp|cs|php|swift|json|ya?ml|toml|ini|cfg|conf|env|lock|md|txt|sql|sh|"
    r"gradle|xml|properties|dockerfile)|Dockerfile|Makefile|\.env(?:\.\w+)?)(?![\w/])"
)
# CamelCase, snake_case with an underscore, dotted.names, SCREAMING_CASE, f() calls.
IDENT_RE = re.compile(
    r"(?<![\w.$-])([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|"
    r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-zA-Z_]\w*(?:\.[a-zA-Z_]\w*)+(?:\(\))?|[a-z_]\w*\(\))"
    r"(?![\w-])"
)
ERROR_NAME_RE = re.compile(r"\b([A-Z][A-Za-z0-9]*(?:Error|Exception))\b|\b(E[A-Z]{3,}|E\d{4})\b")
VALUE_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?:\s?(?:ms|s|m|h|kb|mb|gb|%|x))?(?![\w.])",
                      re.IGNORECASE)
INSTALL_RE = re.compile(
    r"\b(pip3?|uv(?: pip)?|poetry|pipx|npm|pnpm|yarn|bun|cargo|brew|go|gem|apt(?:-get)?|dnf|"
    r"composer|dotnet)\s+(?:install|add|i|get|require|package)\s+((?:-{1,2}[\w-]+(?:=\S+)?\s+)*)"
    r"([@\w][\w.\-/@]*)"
)
COMMAND_START = re.compile(r"^\s*(?:\$\s*)?(?:sudo\s+)?([a-z][\w.+-]*)")
GENERIC_WORDS = frozenset(["it", "this", "that", "the", "a", "an", "them", "those", "these", "its", "something", "main", "master", "branch", "version", "new", "old", "production", "prod", "staging", "dev", "home", "work", "one", "way", "approach", "method", "code", "file", "files", "thing", "use", "using", "it's", "we", "i", "you", "he", "she", "they", "our", "my", "your", "his", "her", "their", "there", "here", "what", "which"])


def code_spans(text: str) -> list[str]:
    return [m.group(1).strip() for m in CODE_SPAN.finditer(text)]


def program_of(command: str) -> str | None:
    """The program a shell command runs: ``sudo npm ci`` → npm."""
    found = COMMAND_START.match(command)
    if not found:
        return None
    name = found.group(1).rsplit("/", 1)[-1]
    if name in ("python", "python3") and " -m " in command:
        module = command.split(" -m ", 1)[1].split()
        return module[0] if module else name
    return name


def is_tool_name(name: str) -> bool:
    low = name.lower().strip("`'\".,:;()")
    if not low or low in GENERIC_WORDS or len(low) < 2:
        return False
    return low in KNOWN_TOOLS


def tools_in(text: str, commands: tuple[str, ...] = ()) -> list[str]:
    """Tool names, in order of appearance: known tools, programs of commands, installs."""
    found: list[str] = []
    for command in commands:
        prog = program_of(command)
        if prog and prog in KNOWN_TOOLS and prog not in found:
            found.append(prog)
    lowered = text.lower()
    for match in re.finditer(r"[a-z][\w.+-]*", lowered):
        word = match.group().rstrip(".")
        if word in KNOWN_TOOLS and word not in found:
            found.append(word)
    return found


def entities_in(text: str) -> list[str]:
    """Code identifiers, file paths, package names and error names, in order."""
    found: list[str] = []

    def keep(value: str) -> None:
        value = value.strip("`'\".,:;")
        if 2 < len(value) <= 80 and value not in found and not value.startswith("[REDACTED"):
            found.append(value)

    for match in ERROR_NAME_RE.finditer(text):
        keep(match.group(1) or match.group(2))
    for match in PATH_RE.finditer(text):
        if "://" not in text[max(0, match.start() - 8):match.start()]:
            keep(match.group(1))
    for match in INSTALL_RE.finditer(text):
        keep(match.group(3))
    for match in IDENT_RE.finditer(text):
        keep(match.group(1))
    return found
