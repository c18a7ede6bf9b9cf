"""The noise model of a commit (issue 24): what a history holds that teaches nothing.

Most commits of a real history are chores: a release, a dependency or pre-commit bump, an
action pinned to a new digest, a lockfile, a formatting run, a typo. Their changed
settings are not knowledge unless the message says *why* (a reason: "because…", "to work
around…", "caused by…"). Everything here reads the structure of a commit — its subject's
form, which kinds of files it touches, which kinds of lines its diffs change — never the
phrases of one project.

- ``routine(message, paths, diffs)``: why a commit is routine, or None.
- ``gives_cause(text)``: the text states a cause or a purpose (a Decision's why).
- ``gives_reason(text)``: that, or a breakage or deprecation (enough for a routine bump).
- ``breakage(text)``: a breakage or deprecation ("incompatible", "would break X").
- ``is_config(path)``: a non-code configuration file outside test data.
- ``machine_written(diff)``: a schema or a generated file, config-shaped but no settings.
- ``pin_line(line)``: a diff line that only moves a version pin (``rev:``, ``uses: x@y``).
- ``real_statement(text)``: words a memory can stand on (not an issue number or a rule).
- ``condition(title)``: the circumstance a title states ("… when port is 0", "… on Windows").
- ``trivial(subject)``: a typo or wording fix, or whitespace or formatting changed alone.
- ``is_test(path)``: a test file or test data (a fix of tests only changes no behaviour).
- ``breaking(message)``: the commit marks itself a breaking change (``feat!:``, a trailer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.vocab import Lexicon, phrases, words_of

# A purpose or a cause, beyond the lexicon's cause words: "to work around", "to avoid".
PURPOSE = Lexicon(phrases("""
to work around; work around; as a workaround; in order to; to prevent; which broke
"""))
# What makes a routine change worth a line even without a "because": it broke, or the
# thing it moves away from is going away.
BREAKAGE = Lexicon(phrases("""
breaks; broke; broken; incompatible; regression; no longer; does not support;
doesn't support; not supported; deprecated; vulnerability; security; cve
"""))
# The base verb after what makes it one ("would break", "sequences that break pexpect",
# "… and break subsequent parsing"): a noun ("a clean break", "exit via break") or a line
# break ("break before a comparator") is none.
BREAK_VERB = re.compile(r"(?i)\b(?:would|will|could|can|may|might|to|that|which|and|"
                        r"not|n't)\s+break\s+(?!(?:before|after|out|up|down|even|lines?|"
                        r"statements?)\b)[\w`'\"]")
VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?(?:[-.+]?[\w.]+)?\b")
CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\(([^)]*)\))?!?:\s*")
# "Bump x from 1 to 2", "Update dependency x to v3", "chore(deps): update all non-major…"
BUMP_SUBJECT = re.compile(
    r"^(?:\S+:\s*)?(?:bump|update|upgrade|pin)\b.*\bto\s+v?\d|"
    r"^(?:\S+:\s*)?(?:bump|update|upgrade)\s+(?:all\s+)?(?:\S+\s+)?(?:dependencies|deps|"
    r"digests?|lock ?files?|pre-commit(?: hooks)?)\b|\bautoupdate\b|"
    r"^(?:\S+:\s*)?(?:bump|update|upgrade)\s+[\w.@/-]+(?:\s+(?:version|dependency))?"
    r"(?:\s*\((?:[\w.-]+/[\w.-]+)?#\d+\))?\s*$", re.IGNORECASE)
RELEASE_WORD = re.compile(r"(?i)\b(?:release[ds]?|prepare|publish(?:ed)?|tag(?:ged)?|"
                          r"changelog|notes|news)\b")
TRIVIAL = re.compile(r"(?i)\b(?:typos?|spelling|misspell\w*|reformat\w*|"
                     r"wording|grammar|lint(?:ing)? fix\w*|format(?:ted)? (?:code|with|files))\b")
# Whitespace or formatting as the change itself, not as what a behaviour acts on: the
# object of the subject's first words ("fix formatting", "Remove trailing whitespace in
# docs/api.rst", "fix whitespace with ruff"), nothing after it but the files or the tool.
# "split on whitespace", "Make `epilog` formatting consistent …", "Fix formatting in
# `Option.format_message()`" and "fix trailing whitespace in WWW-Authenticate bearer" name
# what the program does with whitespace or formatting: a behaviour.
LAYOUT_ONLY = re.compile(
    r"(?i)^(?:(?!(?:on|at|by|about|into|to|from|in|of|for|with|without|between|around|"
    r"within|when|if|is|are|was|be)\b)[^\W\d_][\w'-]*,?\s+){0,6}(?:whitespace|formatting)"
    r"(?:\s+(?:in|of|across|throughout|for)\s+(?:[\w-]*[/.][\w./-]*\w|[A-Za-z]+)"
    r"|\s+(?:with|using|via|by)\s+(?:`[^`]+`|[\w.-]+))?\s*[.!]?$")
# What leads a subject before its words: a "[tag] ", a "type(scope): ", an emoji.
LEAD = re.compile(r"^(?:\s*\[[^\]]{1,40}\]|\s*[A-Za-z]+(?:\([^)]*\))?!?:|[^\w`\[]+)+\s*")
REVERTED = re.compile(r"(?i)\brevert")
ROUTINE_TYPES = frozenset(["release", "style"])
DEPENDENCY_SCOPES = frozenset(["deps", "deps-dev", "dependencies", "dependency"])
CHANGELOG = re.compile(r"(?i)(?:^|/)(?:change(?:s|log)|history|news|release[-_]?notes)"
                       r"(?:\.\w+)?$|(?:^|/)changelog(?:\.d)?/|(?:^|/)changes/")
LOCKFILE = re.compile(r"(?:^|/)(?:[\w.-]+\.lock|[\w.-]+-lock\.(?:json|yaml)|go\.sum|"
                      r"npm-shrinkwrap\.json|bun\.lockb)$")
# Version pins in YAML: pre-commit's "rev:", Actions' "uses: owner/name@ref", an image tag.
PIN = re.compile(r"^\s*(?:-\s*)?(?:rev|uses|image|version)\s*:\s*\S+|"
                 r"^\s*(?:-\s*)?[\w.-]*version\s*:\s*['\"]?[\d.x*]+['\"]?\s*(?:#.*)?$")
# Files that configure rather than run: structured data formats and dotfiles of tools.
CONFIG_EXT = re.compile(r"\.(?:ya?ml|toml|ini|cfg|conf|properties|json|jsonc|json5|env|"
                        r"service|socket|timer)$|(?:^|/)\.env(?:\.[\w-]+)?$|"
                        r"(?:^|/)\.(?:npmrc|nvmrc|yarnrc|node-version|python-version|"
                        r"tool-versions|editorconfig|flake8|pylintrc|coveragerc)$")
# Test data, examples and playgrounds hold files shaped like config that configure nothing.
TEST_DATA = re.compile(r"(?i)(?:^|/)(?:tests?|testing|__tests__|spec|specs|e2e|fixtures?|"
                       r"testdata|test-data|playground|examples?|samples?|benchmarks?|"
                       r"__snapshots__|snapshots|vendor|node_modules)/")
# The circumstance a title names (issue 24): a subordinate clause ("… when the port is 0",
# "… after a failed build") or a platform ("… on Windows"). A subject-only fix that states
# it names the symptom's condition, which the code alone does not tell.
CONDITION = re.compile(r"(?i)\S\s+(?:when|whenever|if|unless|while|after|before|during|"
                       r"once|until)\s+\S+")
PLATFORM = re.compile(r"\b(?:Windows|macOS|Linux|WSL|FreeBSD|iOS|Android|PyPy|CPython|"
                      r"Node(?:\.js)? \d+|Python \d[\d.]*|Safari|Firefox|Chromium|"
                      r"musl|glibc|ARM64|aarch64|32-bit)\b")
TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_tests?\.\w+|[^/]*\.(?:test|spec)\.\w+|"
                       r"conftest\.py)$")
ISSUE_REF = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|\bgh-\d+\b|https?://\S+|[-=*_~]{3,}")


def is_config(path: str) -> bool:
    """A configuration file: a non-code format (or a tool's dotfile), not test data, not a
    lockfile. ``conftest.py`` and ``vite.config.ts`` are code; ``app/db.yaml`` is config."""
    return bool(CONFIG_EXT.search(path)) and not TEST_DATA.search(path) \
        and not LOCKFILE.search(path) and not CHANGELOG.search(path)


# A schema describes configuration, it configures nothing: JSON Schema's and OpenAPI's own
# keywords as keys ("$schema", "properties", "additionalProperties", "oneOf"), JSON or YAML.
SCHEMA_KEY = re.compile(r"^[ +-]\s*[\"']?(\$schema|\$ref|\$defs|\$id|properties|"
                        r"additionalProperties|patternProperties|oneOf|anyOf|allOf|"
                        r"definitions)[\"']?\s*:", re.MULTILINE)
# A tool's mark on a file it writes, in a comment: Go's "// Code generated … DO NOT EDIT.",
# "# @generated", "# This file is autogenerated by …".
GENERATED = re.compile(r"(?im)^[ +-]\s*(?:#|//|/\*|\*|;|<!--)[^\n]*?(?:\bcode generated\b|"
                       r"@generated\b|\bauto-?generated\b|\bgenerated (?:by|from)\b|"
                       r"\bdo not edit\b)")


def machine_written(diff: str) -> bool:
    """A config-shaped file that is no configuration, read from its diff: a schema (two
    kinds of its keywords, or ``$schema``/``$ref``) or a file a tool marks as written by
    it. Its lines are definitions and defaults, not settings anyone chose."""
    keys = {m.group(1) for m in SCHEMA_KEY.finditer(diff)}
    return bool(keys & {"$schema", "$ref", "$defs", "$id"} or len(keys) >= 2
                or GENERATED.search(diff))


def trivial(subject: str) -> bool:
    """A typo, spelling or wording fix, a reformat, or a change of layout only."""
    return bool(TRIVIAL.search(subject)) or layout_only(subject)


def layout_only(subject: str) -> bool:
    """The subject changes whitespace or formatting and nothing else ("Fix formatting",
    "style: remove trailing whitespace"), read after its tag or type and without its pull
    request number; a subject naming what a behaviour does to them is no such change."""
    left = ISSUE_REF.sub(" ", LEAD.sub("", subject, count=1))
    return bool(LAYOUT_ONLY.match(re.sub(r"\s*\(\s*\)\s*$", "", left).strip()))


def is_test(path: str) -> bool:
    return bool(TEST_DATA.search(path) or TEST_FILE.search(path))


def condition(title: str) -> bool:
    """The title states when its change matters: a subordinate clause after its first
    words, or a platform ("Use a random port when port is 0", "Unwatch … on Windows")."""
    left = ISSUE_REF.sub(" ", title)
    return bool(CONDITION.search(left) or PLATFORM.search(left))


# Conventional Commits' mark of a breaking change: "feat!:", "build(deps)!:", or a
# "BREAKING CHANGE:" trailer. What users must know, whatever the commit's type.
BREAKING = re.compile(r"^\s*[A-Za-z]+(?:\([^)]*\))?!:|^BREAKING[ -]CHANGE:", re.MULTILINE)


def breaking(message: str) -> bool:
    return bool(BREAKING.search(message.strip()))


def pin_line(line: str) -> bool:
    return bool(PIN.match(line))


def gives_cause(text: str) -> bool:
    """The text says why: a cause ("because", "caused by") or a purpose ("to work around")."""
    words = words_of(text)
    return bool(lx.CAUSE_EFFECT.find(words, text) or lx.CAUSE.find(words, text)
                or PURPOSE.find(words, text))


def gives_reason(text: str) -> bool:
    """A cause or purpose, or a breakage ("incompatible", "deprecated", "CVE"): enough to
    make a routine bump worth keeping."""
    return gives_cause(text) or breakage(text)


def breakage(text: str) -> bool:
    """The text tells of a breakage: a word of ``BREAKAGE`` or "break" as a verb."""
    return bool(BREAKAGE.find(words_of(text), text) or BREAK_VERB.search(text))


def real_statement(text: str) -> bool:
    """At least three words once issue numbers, links and separator rules are gone:
    "Fix #355" and "---------" state nothing."""
    left = ISSUE_REF.sub(" ", text)
    return len(re.findall(r"[^\W\d_]{2,}", left)) >= 3


def _changed(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))
            and line[1:].strip() and not line[1:].lstrip().startswith("#")]


def routine(message: str, files: Sequence[tuple[str, str]],
            diffs: Mapping[str, str]) -> str | None:
    """Why this commit is a routine chore (None when it may teach something). ``files``
    are (status, path) pairs. A routine commit whose message gives a reason is not
    routine: the reason is the lesson."""
    subject = message.strip().splitlines()[0] if message.strip() else ""
    paths = [path for _, path in files]
    switched = any(status[:1] in "AD" and LOCKFILE.search(path) for status, path in files)
    if switched or REVERTED.search(subject):  # a new package manager; a bump taken back
        return None
    why = _kind(subject, paths, diffs)
    if why and (gives_reason(_without_footers(message)) or breaking(message)):
        return None
    if why == PINS_ONLY and PLATFORM.search(subject):
        return None  # "use node 24.15 for Windows CI": a platform's fact, not a bump
    return why


PINS_ONLY = "routine: only version pins changed"
BUMP = "routine: a dependency or pin bump"


def _kind(subject: str, paths: Sequence[str], diffs: Mapping[str, str]) -> str | None:
    conventional = CONVENTIONAL.match(subject)
    kind = conventional.group(1).lower() if conventional else ""
    scope = (conventional.group(2) or "").lower() if conventional else ""
    if kind in ROUTINE_TYPES:
        return f"routine: a {kind} commit"
    if scope in DEPENDENCY_SCOPES or BUMP_SUBJECT.search(subject):
        return BUMP
    if VERSION.search(subject) and RELEASE_WORD.search(subject):
        return "routine: a release"
    if trivial(subject):
        return "routine: a typo or formatting change"
    if paths and all(CHANGELOG.search(p) or LOCKFILE.search(p) for p in paths):
        return "routine: changelog or lockfiles only"
    lines = [line for path in paths for line in _changed(diffs.get(path, ""))]
    if paths and lines and all(path in diffs for path in paths) and all(map(pin_line, lines)):
        return PINS_ONLY
    return None


# A trailer of a message ("Refs: #12", "Co-authored-by: …"), and the line ``git
# cherry-pick -x`` writes ("(cherry picked from commit 664deb6…)"): metadata, not what it says.
FOOTER = re.compile(r"^\s*(?:[A-Z][\w-]+(?: [\w-]+)?: \S|BREAKING CHANGE: |Co-authored-by: |"
                    r"Signed-off-by: |\(cherry picked from commit [0-9a-f]{7,64}\)\s*$)")


def _without_footers(message: str) -> str:
    return "\n".join(line for line in message.splitlines() if not FOOTER.match(line))
