"""What a commit adds to its project's own documentation as a caveat or a rule (issue 24).

Many projects write the lesson of a change next to the option it concerns, in the readme
or the docs, not in the commit message ("Document streaming request body behavior" adds
"When retries are enabled, Ky clones the request body …" under a note marker). Only a
block whose *form* marks it as a caveat or a rule is read, never a word list over prose:

- a GitHub alert: ``> [!NOTE]``, ``> [!IMPORTANT]``, ``> [!WARNING]``, ``> [!CAUTION]``;
- a labelled paragraph: ``**Note:** …``, ``Warning: …``, ``**Security note:** …``, and the
  older ``> **Note**`` line over a quoted block;
- a reST directive: ``.. note::``, ``.. warning::`` and their kin, with its indented body;
- an admonition of MkDocs (``!!! warning``, ``??? note``) or a container of VitePress and
  Docusaurus (``::: warning`` … ``:::``).

The kinds are those the formats define for a caveat (note, important, warning, caution,
danger, attention); a tip or a hint suggests, it does not warn. The block must be new: its
marker and a line of its body are added lines, and its words are not those of lines the
commit takes out (a note moved or reworded is not this commit's lesson). A note that
teaches nothing (a link, "see X", code) is left out, and so is one in a page the commit
creates (one paragraph of the page that is its subject), one that points at its own page
("This readme is for the next version": about the document) or one that shares no word
with the commit's subject. One note a commit at most, scoped by the heading it sits under (the
nearest heading above it in the hunk, or git's hunk header), with the file it is in.

Changelogs and release notes are not documentation here: their entries repeat the
commits' subjects (``commit_fact`` reads them). Bounded: at most ``MAX_FILES`` files and
``MAX_CHARS`` characters of each diff are read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from memx_cli.reflector import commit_fact, routine
from memx_cli.reflector import commit_message as msg
from memx_cli.reflector.candidate import Candidate

DOC = re.compile(r"(?i)\.(?:md|mdx|markdown|rst|adoc)$")
MAX_FILES = 4
MAX_CHARS = 64_000
MAX_NOTE = 320  # characters of a note's sentences kept (the distiller fits the memory)
MIN_WORDS = 5  # words a note says outside its links: fewer is a pointer ("See [X](…).")
REWORDED = 0.5  # a note sharing half its words with lines taken out was moved or reworded
# The kinds the formats define for a caveat, most severe first (the one kept of several).
KINDS = ("danger", "caution", "warning", "important", "attention", "note")

ALERT = re.compile(r"^\s*>\s*\[!(\w+)\]\s*(.*)$")
# "**Note:** …", "**Note**: …", "Note: …", "*Security note:* …", "> **Warning**" alone
LABEL = re.compile(r"^\s*(?:>\s*)?(?:[-*+]\s+)?(\*\*|__|\*|_)?((?:[A-Za-z]+ ){0,2}([A-Za-z]+))"
                   r"(?:(?::\1|\1:|:)\s*(\S.*)|\1\s*$)")
DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(\w+)::\s*(.*)$")
MKDOCS = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s*(\w+)(?:\s+\"[^\"]*\")?\s*$")
CONTAINER = re.compile(r"^\s*:{3,}\s*(\w+)\b.*$")
CONTAINER_END = re.compile(r"^\s*:{3,}\s*$")
FENCE = re.compile(r"^\s*(?:>\s*)?(?:```|~~~)\s*(\S*)")
MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
UNDERLINE = re.compile(r"^([=~^*+#-])\1{2,}\s*$")
HUNK = re.compile(r"^@@ [^@]* @@ ?(.*)$")
# a heading that is a name in code: one word in lower case, with an inner capital, or with
# a dot, a bracket or an underscore ("retry", "NetworkError", "ky.query(input)"), not a
# capitalised word of prose ("Docker")
CODE_HEADING = re.compile(r"^(?=\S+$)(?!`)(?:[a-z][\w$-]*|.*[a-z][A-Z].*|.*[._()\[\]].*)$")

IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
REST_LINK = re.compile(r"`([^`<]+?)\s*<[^>]*>`_{1,2}")
REST_ROLE = re.compile(r":[\w:-]+:`~?([^`<]*?)\s*(?:<[^>`]*>)?`")
URL = re.compile(r"<?https?://[^\s`)>]+>?")
TAG = re.compile(r"</?[A-Za-z][^>]*>")
EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
WORDS = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Note:
    """A caveat or a rule a commit adds to a documentation file."""

    text: str
    path: str
    heading: str = ""
    kind: str = "note"


def is_doc(path: str) -> bool:
    """A documentation file by its format (Markdown, reST, AsciiDoc), not a changelog."""
    return bool(DOC.search(path)) and not commit_fact.is_changelog(path)


def note(diffs: Mapping[str, str], subject: str) -> Note | None:
    """The one caveat the commit adds to its documentation about what its ``subject``
    names (a word of it: "Add `retry.jitter` option" and "Jitter is not applied when …"),
    the most severe (the first among equals), or None. A note that shares no word with
    the subject ("Tweaks") is another change's, written by the way."""
    title = commit_fact.content_words(subject)
    found: list[Note] = []
    for path in [p for p in diffs if is_doc(p)][:MAX_FILES]:
        found.extend(n for n in _notes(path, diffs[path][:MAX_CHARS])
                     if commit_fact.content_words(n.text) & title)
    if not found:
        return None
    return min(found, key=lambda n: KINDS.index(n.kind))


def candidate(found: Note, lang: str) -> Candidate:
    """The Fact of a note: the heading it is under (the option it concerns), its file and
    its sentences."""
    scope = found.heading
    if CODE_HEADING.match(scope):  # an option or an API name ("retry", "ky.retry()")
        scope = f"`{scope}`"
    where = f"{scope} ({found.path})" if scope else found.path
    text = found.text if found.text.endswith((".", "!", "?")) else found.text + "."
    return Candidate("Fact", 1, 1, lang, f"{where}: {text}", veracity="stated",
                     files=(found.path,))


def from_docs(found: Candidate) -> bool:
    """The candidate is a note read from a documentation page (``candidate``)."""
    return found.rule == "Fact" and bool(found.files) and all(map(is_doc, found.files))


def _notes(path: str, diff: str) -> list[Note]:
    if any(line.startswith("new file mode") for line in diff.splitlines()[:4]):
        return []  # a page the commit writes: the note is one paragraph of its subject
    removed = set()
    for line in diff.splitlines():
        if line.startswith("-") and not line.startswith("---"):
            removed |= commit_fact.content_words(line[1:])
    found: list[Note] = []
    for header, lines in _hunks(diff):
        found.extend(_in_hunk(path, header, lines, removed))
    return found


def _hunks(diff: str) -> list[tuple[str, list[tuple[str, bool]]]]:
    """Each hunk's header text and its new side: (line, added) pairs."""
    out: list[tuple[str, list[tuple[str, bool]]]] = []
    for line in diff.splitlines():
        hunk = HUNK.match(line)
        if hunk:
            out.append((hunk.group(1), []))
        elif out and line[:1] in (" ", "+") and not line.startswith("+++"):
            out[-1][1].append((line[1:], line[:1] == "+"))
        elif out and line == "":
            out[-1][1].append(("", False))
    return out


def _in_hunk(path: str, header: str, lines: list[tuple[str, bool]],
             removed: set[str]) -> list[Note]:
    heading = _heading_of(header)
    found: list[Note] = []
    fenced: bool | None = None  # unknown: the hunk may begin inside a code block
    i = 0
    while i < len(lines):
        text, added = lines[i]
        following = lines[i + 1][0] if i + 1 < len(lines) else ""
        fence = FENCE.match(text)
        if fence:
            # a fence with a language opens a block; a bare one closes the open block, or
            # the one the hunk began inside
            fenced = bool(fence.group(1)) or fenced is False
        elif fenced:
            pass
        elif MD_HEADING.match(text):
            heading = _plain(MD_HEADING.match(text).group(1))  # type: ignore[union-attr]
        elif text.strip() and UNDERLINE.match(following) and len(following.strip()) >= len(
                text.strip()) and not UNDERLINE.match(text):
            heading = _plain(text.strip())  # a reST or setext heading
        else:
            block = _block(lines, i)
            if block is not None:
                kind, body, end = block
                if added and any(a for _, a in lines[i:end]):
                    note_ = _said(path, heading, kind, body, removed)
                    if note_ is not None:
                        found.append(note_)
                i = max(end, i + 1)
                continue
        i += 1
    return found


def _block(lines: list[tuple[str, bool]], i: int) -> tuple[str, list[str], int] | None:
    """(kind, body lines, index after the block) of a caveat block opening at ``i``."""
    text = lines[i][0]
    alert = ALERT.match(text)
    if alert and alert.group(1).lower() in KINDS:
        end = _while(lines, i + 1, lambda t: t.lstrip().startswith(">"))
        body = [alert.group(2)] + [re.sub(r"^\s*>\s?", "", t) for t, _ in lines[i + 1:end]]
        return alert.group(1).lower(), body, end
    directive = DIRECTIVE.match(text) or MKDOCS.match(text)
    if directive and directive.group(2).lower() in KINDS:
        indent = len(directive.group(1))
        end = _while(lines, i + 1, lambda t: not t.strip() or len(t) - len(t.lstrip()) > indent)
        rest = directive.group(3) if directive.re is DIRECTIVE else ""
        return directive.group(2).lower(), [rest] + [t for t, _ in lines[i + 1:end]], end
    container = CONTAINER.match(text)
    if container and container.group(1).lower() in KINDS:
        end = _while(lines, i + 1, lambda t: not CONTAINER_END.match(t))
        return container.group(1).lower(), [t for t, _ in lines[i + 1:end]], end + 1
    label = LABEL.match(text)
    if label and label.group(3).lower() in KINDS and (label.group(1) or label.group(4)):
        quoted = text.lstrip().startswith(">")
        end = _while(lines, i + 1, lambda t: bool(t.strip()) and (
            t.lstrip().startswith(">") or not quoted) and not _opens(t))
        rest = [re.sub(r"^\s*>\s?", "", t) for t, _ in lines[i + 1:end]]
        return label.group(3).lower(), [label.group(4) or ""] + rest, end
    return None


def _opens(text: str) -> bool:
    """A line that starts another block: a heading, a list item, a fence, a marker."""
    return bool(MD_HEADING.match(text) or FENCE.match(text) or re.match(r"^\s*[-*+]\s", text)
                or ALERT.match(text) or DIRECTIVE.match(text))


def _while(lines: list[tuple[str, bool]], start: int, keep: object) -> int:
    end = start
    while end < len(lines) and keep(lines[end][0]):  # type: ignore[operator]
        end += 1
    return end


def _said(path: str, heading: str, kind: str, body: list[str],
          removed: set[str]) -> Note | None:
    """The note of a block's body, or None when it teaches nothing or was moved."""
    prose: list[str] = []
    fenced = False
    for line in body:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            prose.append(line.strip())
    text = _plain(" ".join(p for p in prose if p))
    outside_links = LINK.sub(" ", REST_LINK.sub(" ", " ".join(prose)))
    if len(WORDS.findall(URL.sub(" ", outside_links))) < MIN_WORDS:
        return None  # a pointer: "See [the guide](…) for details."
    if not routine.real_statement(text) or msg.code_like(text) or text.endswith(":"):
        return None  # states nothing, is code, or leads into what follows it
    words = commit_fact.content_words(text)
    if words and len(words & removed) >= REWORDED * len(words):
        return None  # moved or reworded: the lesson is older than this commit
    if _own_page(path, text):
        return None  # "This readme is for the next version": about the document, not
        # about what the project does
    return Note(commit_fact.sentences_within(text, MAX_NOTE), path, heading, kind)


def _own_page(path: str, text: str) -> bool:
    """The note points at the file it is in by name ("this readme" in readme.md, "this
    guide" in guide.rst); "the workers module" in workers.rst is what the page is about."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", " ").replace("-", " ")
    return bool(re.search(rf"(?i)\bthis {re.escape(stem)}\b", text))


def _heading_of(header: str) -> str:
    """The heading git's hunk header names (a Markdown heading line), else ""."""
    heading = MD_HEADING.match(header)
    return _plain(heading.group(1)) if heading else ""


def _plain(text: str) -> str:
    """Markup left out: images, link targets, tags, emphasis; reST roles and links to
    their text; code spans kept."""
    text = IMAGE.sub("", text)
    text = LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = REST_LINK.sub(r"\1", text)
    text = REST_ROLE.sub(r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    text = URL.sub("", TAG.sub("", text))
    text = EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)
    return re.sub(r"\s+", " ", text).strip()


