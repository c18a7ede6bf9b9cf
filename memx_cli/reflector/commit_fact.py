"""A commit whose subject is the fact (issue 24): most of what a history teaches is said by a
title alone — "Respect NO_COLOR by disabling ANSI output", "feat(css): minify style tag",
"Accept MarkDecorator as get_closest_marker default" — a behaviour of the project that a
newcomer would otherwise find by reading the code. Neither a norm, a revert, a reason, a fix
nor a diff rule reads it, so it is read last, when nothing else in the commit taught anything.

Read from the form of the commit, never from its words:

- not a fix (a fixed bug's title restates the code), a revert or a squash merge of a fork's
  advisory ("Merge commit from fork": a title that names nothing);
- not of a housekeeping type or tag (``docs:``, ``test:``, ``chore:``, ``ci:``, ``build:``,
  ``style:``, ``refactor:``, ``release:``, ``[docs]``…), unless marked breaking (``build!:``,
  a ``BREAKING CHANGE:`` trailer), and not of documentation files only;
- a statement: the title, without its type, tag and pull request number, is at least three
  words and does not start inside a sentence;
- with its own entry among those the commit adds (or, when it adds several, none that
  names what the subject names: no neighbour's news) to a changelog (``CHANGES.md``,
  ``CHANGELOG.rst``, ``HISTORY``, ``NEWS``, a towncrier or changesets fragment such as
  ``changelog/1234.bugfix.rst`` or ``.changeset/x.md``): written for users, it says what
  the change means where a subject is short, a body empty or a squash merge's body only
  lists commits; the release heading above it, when the diff shows one, names the
  version the change lands in ("… (in 3.1.6)");
- else with the first sentences of the body's prose that fit in 300 characters (the
  paragraphs before a squash merge's list of commits; trailers, links and quoted code
  left out, and a sentence that only says the title again).

The memory is a ``Fact``. A commit that adds its own entry is a change the maintainers told
users about: its Fact is read even when the rules found a setting or a dependency in its
diff (the two compete on their value), it has a weak why at least (``commit_value``), and a
fix's title whose entry gives the reason ("…, to avoid issues with names that contain
f-string syntax") is kept as one (``from_entry``). Without an entry, a title's value has no
reason to add, so under the history budget it ranks below what explains itself. The kind
an entry is filed under (``filed``: a towncrier type, a section heading above it) says
whether users must act on it (deprecated, removed, breaking, security) or nothing they do
changes (performance, documentation, misc).

What maintainers write in a changelog besides its entries is the commit's own ``note``: a
release's paragraphs under the heading it adds, or items nested later under an entry
already there; its Fact (``from_note``) is read even in a release or changelog-only commit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from memx_cli.reflector import commit_message as msg
from memx_cli.reflector import outside, routine
from memx_cli.reflector.candidate import Candidate

HOUSEKEEPING = msg.HOUSEKEEPING  # types and tags of housekeeping (docs, tests, CI, …)
TRAILER_BREAKING = msg.BREAKING_TRAILER
TAGS = re.compile(r"\[([^\]]{1,40})\]")
MIN_SENTENCE = 20
TITLE_AGAIN = 0.8  # a sentence whose words are mostly the title's says it again
MAX_ENTRY = 300
# a sentence about the commit's own change ("These tests exist to …"), not the outside
THE_CHANGE = re.compile(r"^(?:This|These|That|Those)\b")
OUTSIDE_SENTENCES = 6  # a housekeeping body's first sentences read for an outside fact
# an exception's name: what a platform or library raised ("… with SyntaxError")
EXCEPTION_NAME = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b")
REWORDED = 0.5  # an added entry sharing half its words with a removed one rewords it
STEM = 5
# A changelog by its name (keep-a-changelog, GNU NEWS, …) or a fragment in a changelog
# folder (towncrier's changelog/ and newsfragments/, changesets' .changeset/).
CHANGELOG = re.compile(r"(?i)(?:^|/)(?:CHANGES|CHANGELOG|HISTORY|NEWS|RELEASE[-_]?NOTES)"
                       r"(?:\.(?:md|rst|txt|markdown|adoc))?$|(?:^|/)(?:changelog|changelog\.d|"
                       r"changes|newsfragments|\.changeset)/[^/]+\.(?:md|rst|txt)$")
HEADING = re.compile(r"^\s*(?:#{1,6}\s|[=~^*-]{3,}\s*$|\.\.\s)")
# A release's heading: "Version 3.1.6" (rst, underlined below), "## [1.2.0] - 2024-05-01"
# (keep-a-changelog), "24.1.0", "v2.0.0 (2024-01-01)"; never an indented line, an entry's
# wrapped text.
VERSION_HEADING = re.compile(r"(?i)^(?:#{1,6}\s*)?\[?(?:version\s+|release\s+|v(?=\d))?"
                             r"(\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc|\.dev|\.post)\d+)?)\]?"
                             r"(?=$|\s|[-(:,])")
HUNK = re.compile(r"^@@ [^@]* @@ ?(.*)$")
MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
UNDERLINE = re.compile(r"^([=~^*-])\1{2,}\s*$")
# The kinds of a changelog's sections and fragments, the whole heading ("### Deprecated",
# "Removals and backward incompatible breaking changes", "Performance improvements"):
# words inside an entry's prose never are one.
ACT, ROUTINE = "act", "routine"
ACT_SECTION = re.compile(r"(?i)^\W*(?:deprecat\w*|remov\w*|breaking|security|backwards?[- ]"
                         r"incompatible|incompatible)\b[\w ,&-]{0,60}$")
ROUTINE_SECTION = re.compile(r"(?i)^\W*(?:improved )?(?:perf|performance|docs?|documentation|misc|"
                             r"miscellaneous|trivial|internal|chores?|contrib)\b"
                             r"(?: (?:changes|improvements|updates|and \w+))?\W*$")
# git's own titles of a merge: "Merge branch 'x'", "Merge pull request #1 from …", "Merge
# remote-tracking branch …", "Merge tag 'v1'", "Merge commit from fork", "Merge 'x' into y",
# "Merge develop into main"; "merge any number of slashes" or "merge headers into one dict"
# is a change whose verb is merge
MERGE_TITLE = re.compile(r"(?i)^merge\s+(?:(?:remote-tracking\s+)?branch(?:es)?|pull\s+request|"
                         r"tags?|commits?|changes\s+from|['\"]|[\w.-]+/[\w.-]+\b|\S+\s+into\s+\S+\s*$)")
PR_REF = re.compile(r"\s*\((?:[^()]*#\d+[^()]*)\)|\s*\[#\d+\]\([^)]*\)|"
                    r"\s*:(?:issue|pr|user):`[^`]*`|\s+--\s*by\b.*$")
# Sphinx roles closing an entry, after its last sentence: its references (":issue:`1792`,
# :ghsa:`gmj6-6f8f-6699`"), whatever their role's name; a role inside the text
# (":class:`~pytest.FixtureDef`") is what the entry is about.
TRAILING_ROLES = re.compile(r"(?:[\s,;]*:[\w-]+:`[^`]*`)+[\s,;]*$")


# An entry's closing credit: "PR [#1774](…) by [@svlandeg](…).", "by @user", "(#12, @user)".
CREDIT = re.compile(r"\s*(?:\bPR\s+)?(?:\[#\d+\]\([^)]*\)\s*)?\bby\s+\[?@[\w-]+\]?(?:\([^)]*\))?"
                    r"(?:\s*(?:,|and)\s*\[?@[\w-]+\]?(?:\([^)]*\))?)*\.?\s*$")

# A closing link to the commit or pull request ("… requests [fd038f3](https://…/commit/…).")
LINKED = re.compile(r"\s*\(?\[[^\]]{1,40}\]\(https?://[^)\s]*\)\)?(?=\.?\s*$)")


def is_changelog(path: str) -> bool:
    return bool(CHANGELOG.search(path))


@dataclass(frozen=True)
class Entry:
    """The entry a commit adds to a changelog for its own change: what it means for users,
    in the words the maintainers wrote for them."""

    text: str
    path: str
    version: str = ""  # the release heading above it, when the diff shows one
    section: str = ""  # the kind it is filed under, when the changelog says (``filed``)


def own_entry(diffs: Mapping[str, str], subject: str = "") -> Entry | None:
    """The entry a commit adds to a changelog: its added lines, headings, code fences and
    what they hold left out, a list item's wrapped lines joined, its bullet and pull
    request references dropped, with the version of the release heading above it when
    the diff shows one (a context line or git's hunk header). An entry the commit only
    rewords (it also takes out one mostly of the same words, and what it adds names
    nothing of ``subject``) is not its own. When it adds several, the one that shares
    the most words with ``subject`` is its own (the first among equals); none when none
    shares a word: a release's or a merged branch's entries are other commits' news."""
    found: list[Entry] = []
    title = content_words(subject)
    for path, diff in diffs.items():
        if not is_changelog(path):
            continue
        removed = [content_words(text) for text, _, _ in _entries(diff, "-")]
        fragment = _fragment_type(path)
        for text, version, section in _entries(diff, "+"):
            text = TRAILING_ROLES.sub("", PR_REF.sub("", text)).strip()
            if not routine.real_statement(text) or msg.code_like(text):
                continue
            words = content_words(text)
            if any(len(words & old) >= REWORDED * len(words | old)
                   and not (words - old) & title for old in removed):
                continue  # reworded, and not to say what the subject does
            found.append(Entry(text, path, version, fragment or section))
    if not found:
        return None
    best = max(found, key=lambda entry: len(content_words(entry.text) & title))
    if len(found) > 1 and not content_words(best.text) & title:
        return None
    return replace(best, text=sentences_within(best.text, MAX_ENTRY))


def note(diffs: Mapping[str, str]) -> Entry | None:
    """What the maintainers wrote in a changelog besides its entries, the note of a
    release or of an entry: the paragraphs under the one release heading the commit adds,
    before that release's first entry or section ("From version 1.0 our async support is
    now optional, …"; a paragraph that leads into a list, "… the following changes:",
    is the list's), or the items the commit nests under an entry already there (its
    author explaining it later: "Typer no longer depends on Click …"). The entries of a
    release are each one's own commit's news (``own_entry``); a note is this commit's.
    None when there is no note, or the commit adds more than one release (a changelog
    written or moved whole)."""
    found: list[Entry] = []
    for path, diff in diffs.items():
        if is_changelog(path) and not _fragment_type(path):
            found.extend(_notes(path, diff))
    return found[0] if len(found) == 1 else None


def _notes(path: str, diff: str) -> list[Entry]:
    releases = 0
    release = ""  # the version of the release heading this diff adds, while its note lasts
    noted = ""  # the version the release note is about
    within = ""  # the version of the release the commit adds, until the next heading of one
    entries: list[str] = []  # that release's entries
    prose: list[list[str]] = []  # the release note's paragraphs, each a list of lines
    parent = ""  # the entry already there (a context line) that added items nest under
    items: dict[str, list[str]] = {}
    previous = ""
    for line in diff.splitlines():
        if HUNK.match(line) or line[:1] not in (" ", "+") or line.startswith("+++"):
            parent = "" if HUNK.match(line) else parent
            continue
        added, text = line[:1] == "+", line[1:]
        if UNDERLINE.match(text) or MD_HEADING.match(text) or version_of(text):
            if UNDERLINE.match(text) and not version_of(previous) and prose and prose[-1] \
                    and prose[-1][-1] == previous:
                prose[-1].pop()  # an rst section's heading, read as prose a line ago
            version = version_of(text) or (version_of(previous) if UNDERLINE.match(text) else "")
            if version and version != within:
                within = version if added else ""
            if added and version and version != release:
                releases += 1
                release = version
            elif not (UNDERLINE.match(text) and version):
                release = ""  # a section of the release: its entries follow, not its note
            parent, previous = "", text.strip()
            continue
        previous = text.strip()
        bullet = msg.BULLET.match(text)
        indent = len(text) - len(text.lstrip())
        if not text.strip():
            prose.append([])
        elif bullet and indent == 0:
            release = ""  # the release's entries begin: its note has ended
            entries.extend([_entry_text(msg.BULLET.sub("", text))] if added and within else [])
            parent = "" if added else _entry_text(msg.BULLET.sub("", text))
        elif bullet and added and parent:
            items.setdefault(parent, []).append(msg.BULLET.sub("", text).strip())
        elif added and within and entries and indent and not bullet:
            entries[-1] = _entry_text(f"{entries[-1]} {text.strip()}")  # its wrapped lines
        elif added and release and indent == 0:
            noted = release
            prose.append(prose.pop() + [text.strip()] if prose else [text.strip()])
    notes = [Entry(f"{lead.rstrip('.:;')}: {' '.join(said)}", path)
             for lead, said in items.items() if routine.real_statement(" ".join(said))]
    # a paragraph with a line that leads into what follows ("… the following changes:",
    # "You can view the full security advisory:" + a link) is what follows it
    paragraphs = [" ".join(p) for p in prose if p and not any(x.endswith(":") for x in p)]
    told = [p for p in paragraphs if routine.real_statement(p) and not msg.code_like(p)
            and not p.startswith(("<", "..", ":", "{", "["))]
    if told and releases == 1:
        # a release of one change: the note says what it means, the entry what it is
        # ("This release fixes a DoS via multipart requests" and "Add max_part_size …")
        said = " ".join(told)
        said = f"{said.rstrip('.')}: {entries[0]}" if len(entries) == 1 else said
        notes.append(Entry(said, path, noted))
    return [replace(n, text=sentences_within(n.text, MAX_ENTRY)) for n in notes]


def _entry_text(text: str) -> str:
    """An entry without its pull request, its credit ("PR [#1774](…) by [@user](…)"), a
    closing link to its commit and its leading emoji."""
    text = CREDIT.sub("", msg.without_emoji(text))
    return LINKED.sub("", TRAILING_ROLES.sub("", PR_REF.sub("", text))).strip()


def from_note(note_: Entry, lang: str) -> Candidate:
    """The Fact of a changelog's note (``note``), with the release it is about."""
    text = note_.text.rstrip(":;, ")
    if note_.version:
        text = f"{text.rstrip('.')} (in {note_.version})"
    text += "" if text.endswith((".", "!", "?")) else "."
    return Candidate("Fact", 1, 1, lang, text, veracity="stated", files=(note_.path,))


def names_subject(entry: Entry, subject: str) -> bool:
    """The entry names what the subject names ("upgrade watchdog" and "Minimum supported
    version of Watchdog is 6.0"): the news of this change, not of a neighbour's."""
    return bool(content_words(entry.text) & content_words(msg.core(subject)))


def news(entry: Entry | None, subject: str) -> str:
    """What the entry tells beyond the subject (its text; "" when there is none or it
    only says the title again): the why of a rule the subject states ("use sha3-256
    instead of sha-1" and "… SHA-1 is not available under FIPS 140")."""
    if entry is None or _repeats(entry.text, msg.core(subject)):
        return ""
    return entry.text


def version_of(heading: str) -> str:
    """The version a changelog heading names ("Version 3.1.6", "## [1.2.0] - 2024-05-01",
    "24.1.0"), "" for any other line."""
    match = VERSION_HEADING.match(heading)
    return match.group(1) if match else ""


def _entries(diff: str, sign: str) -> list[tuple[str, str, str]]:
    """The entries of a changelog diff's lines marked ``sign`` ("+" added, "-" removed),
    each with the version of the release heading the diff shows above it and the
    section heading it is filed under ("### Deprecated", "Bug fixes" underlined; "" when
    the diff shows none). A list nested under an entry (a bullet indented deeper than the
    entry's own, after "… has been adjusted.") is that entry's details: the first
    sentence of each item follows it."""
    other = "-" if sign == "+" else "+"
    entries: list[tuple[str, str, str]] = []
    parent_of: dict[int, int] = {}  # a nested item's index -> its entry's index
    parent: tuple[int, int] | None = None  # the last entry opened: index, bullet's indent
    fenced = False
    version = section = previous = ""
    for line in diff.splitlines():
        hunk = HUNK.match(line)
        if hunk:  # git names the heading above the hunk when it starts with a letter
            version = version_of(hunk.group(1))
            section = "" if version else hunk.group(1).strip()
        elif line[:1] in (" ", "+") and not line.startswith("+++"):
            text = line[1:]
            heading = MD_HEADING.match(text)
            if version_of(text):
                version, section = version_of(text), ""
            elif UNDERLINE.match(text) and previous and not version_of(previous):
                section = previous  # an rst heading: its text, then a line of = - ~ ^
            elif heading:
                section = heading.group(2).strip()
                if len(heading.group(1)) <= 2:
                    version = ""  # a section of its own ("## Unreleased", "## Fixed" under none)
            previous = text.strip()
        if not line.startswith(sign) or line.startswith(sign * 3):
            if entries and entries[-1][0] and not line.startswith(other):
                entries.append(("", "", ""))  # an unchanged line ends the entry
            if line[1:].strip() and not line.startswith(other):
                parent = None  # nor can a later item be nested in it
            continue
        text = line[1:]
        if text.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or HEADING.match(text) or version_of(text):
            continue
        bullet = msg.BULLET.match(text)
        indent = len(text) - len(text.lstrip())
        if not text.strip():
            entries.append(("", "", ""))
        elif bullet and parent is not None and indent > parent[1]:
            parent_of[len(entries)] = parent[0]
            entries.append((msg.BULLET.sub("", text).strip(), version, section))
        elif bullet or not entries or not entries[-1][0]:
            parent = (len(entries), indent) if bullet else None
            entries.append((msg.BULLET.sub("", text).strip(), version, section))
        else:
            last, release, filed_under = entries[-1]
            entries[-1] = (f"{last} {text.strip()}", release, filed_under)
    for index, entry in sorted(parent_of.items()):
        lead, release, filed_under = entries[entry]
        # the entry's own references close it before its details ("… code: :pr:`3099`")
        lead = TRAILING_ROLES.sub("", PR_REF.sub("", lead)).strip()
        item = msg.SENTENCE.split(TRAILING_ROLES.sub("", entries[index][0]).strip())[0]
        joint = " " if lead.endswith((".", ":", ";")) or not lead else ". "
        entries[entry] = (f"{lead}{joint}{item}".strip(), release, filed_under)
    return [entry for n, entry in enumerate(entries) if entry[0] and n not in parent_of]


def _fragment_type(path: str) -> str:
    """A towncrier fragment's type, named in its file name after the issue number
    ("changelog/1234.removal.rst", "changelog.d/1856.bugfix.2.md"): "" for a changelog."""
    folder, _, name = path.rpartition("/")
    if not folder or is_changelog(name):
        return ""
    kinds = [part for part in name.split(".")[1:-1] if part.isalpha()]
    return kinds[0].lower() if kinds else ""


def filed(entry: Entry | None) -> str:
    """What the kind an entry is filed under says of it (its section or fragment type,
    named as the common conventions name them: Keep a Changelog, towncrier's types):
    ``ACT`` when users must act on it (deprecated, removed, breaking, security),
    ``ROUTINE`` when it changes nothing users do (performance, documentation, misc,
    trivial, internal), else "" (added, fixed, a feature, any other heading or none)."""
    section = entry.section if entry else ""
    if ACT_SECTION.match(section):
        return ACT
    return ROUTINE if ROUTINE_SECTION.match(section) else ""


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry content, cut to a stem ("headers" and "header",
    "deprecated" and "deprecate" agree)."""
    words = re.findall(r"[^\W\d_]{4,}", text.lower())
    return {word[:STEM] for word in words if word not in msg.CLOSED}


def sentences_within(text: str, limit: int) -> str:
    """The entry's first sentences that fit in ``limit`` characters (at least one, cut)."""
    out = ""
    for sentence in msg.SENTENCE.split(text):
        if out and len(out) + 1 + len(sentence) > limit:
            listed = _list_within(sentence, limit - len(out) - 1)
            return f"{out} {listed}" if listed else out
        out = f"{out} {sentence}".strip()
    return out[:limit]


def _list_within(sentence: str, room: int) -> str:
    """A sentence that ends in a list after a colon ("… are deprecated: ``a``, ``b``, …")
    with as many of its items as fit in ``room`` characters, and "…" for the rest; ""
    when it has no such list or not even one item fits."""
    lead, colon, listed = sentence.partition(": ")
    items = [item.strip() for item in listed.rstrip(".").split(",")]
    if not colon or len(items) < 3:
        return ""
    kept: list[str] = []
    for item in items:
        if len(f"{lead}: {', '.join([*kept, item])}, …") > room:
            break
        kept.append(item)
    return f"{lead}: {', '.join(kept)}, …" if kept else ""


def stated(message: str, kind: str, lang: str, entry: Entry | None = None,
           own: frozenset[str] = frozenset()) -> Candidate | None:
    """The fact a commit's subject states, with its body's first sentences; None when the
    commit is of a kind whose title teaches nothing (see the module's docstring). ``kind``:
    the subject's Conventional Commits type, lower case ("" when it has none); ``entry``:
    the commit's own changelog entry (``own_entry``), if any; ``own``: the project's own
    names (``outside.own_names``); the caller has left out fixes, typo fixes and commits
    of documentation only."""
    lines = message.strip().splitlines()
    if not lines:
        return None
    subject = lines[0].strip()
    tags = {t.strip().lower() for t in TAGS.findall(subject[:80])}
    housekeeping = bool(kind in HOUSEKEEPING or tags & HOUSEKEEPING)
    if msg.REVERT.match(subject):
        return None
    if housekeeping and not routine.breaking(message):
        # a breaking change of any type is what users must know; else the title of a
        # test, CI or refactoring commit teaches nothing, but its body may say what the
        # platform or a library does that made the change necessary
        return outside_fact(message, lang, own)
    head = msg.core(subject)
    # "Merge commit from fork", "Merge branch 'x'": a merge's title names no change
    # a short title ("upgrade watchdog") stands on the entry it adds for users; a title
    # that is a release's heading ("Version 0.27.0") adds the release's notes: others' news
    stands = routine.real_statement(head) or bool(entry and news(entry, subject)
                                                  and routine.real_statement(entry.text)
                                                  and not version_of(head))
    if not stands or MERGE_TITLE.match(msg.PREFIX.sub("", subject, count=1)):
        return None
    # the entry the maintainers wrote for users says what the change means; the body's
    # prose, written for reviewers, tells it when there is none
    # a squash merge's footer belongs to the listed commit it closes, read on its own
    footer = "" if msg.subcommits(message) else breaking_note(lines[1:])
    told = "" if entry else (footer or _first_prose(lines[1:], head))
    return _memory(head, entry, told, lang)


def breaking_note(body: list[str]) -> str:
    """The text of a body's ``BREAKING CHANGE:`` (or ``BREAKING-CHANGE:``) footer, its
    wrapped lines joined: what users of the change must now do, which the title of a
    breaking change leaves to it ("`useRef()` with no argument no longer type-checks;
    pass `undefined` explicitly"); "" when there is none."""
    for n, line in enumerate(body):
        if TRAILER_BREAKING.match(line):
            note = [TRAILER_BREAKING.sub("", line).strip()]
            for more in body[n + 1:]:
                if not more.strip() or msg.FOOTER.match(more):
                    break
                note.append(more.strip())
            return " ".join(note).strip()
    return ""


def outside_fact(message: str, lang: str, own: frozenset[str] = frozenset()) -> Candidate | None:
    """A housekeeping commit's body sentence about something outside the project that
    made the change necessary ("testing: fix … for Python 3.15" + "Python 3.15b1 no longer
    sets `module.__cached__`."): a sentence of its prose (before any list of commits, no
    quoted code) that names a platform, a standard, a tool, a module or a versioned name
    other than the project's own and says why, what broke or what went away, or names
    the exception it raised. None when no sentence does: a refactoring's or a test's own
    account ("Extract marker line parsing into …") is the project's code again."""
    lines = message.strip().splitlines()
    head = msg.core(lines[0]) if lines else ""
    prose: list[str] = []
    for line in lines[1:]:
        if msg.BULLET.match(line):
            break  # a squash merge's list of commits: each item is a commit's own title
        prose.append(line)
    kept = [(p, s) for p, s in msg.placed("\n".join(prose))
            if len(s) >= MIN_SENTENCE and not msg.code_like(s)][:OUTSIDE_SENTENCES]
    told = [s for _, s in kept]
    for n, sentence in enumerate(told):
        if THE_CHANGE.match(sentence) or not (outside.named(sentence, own) and (routine.gives_reason(sentence)
                                                  or EXCEPTION_NAME.search(sentence))):
            continue
        # the sentence after it, when it carries it on ("But `module.__spec__.cached` is
        # still set, …", "`fileURLToPath` is correct on all platforms."): what to do instead
        more = msg.carried_on(told, n, [p for p, _ in kept], code_alone=True)
        said = f"{sentence} {more}".strip() if len(sentence) + len(more) < MAX_ENTRY else sentence
        text = msg.led(head, said) if head else said
        return Candidate("Fact", 1, 1, lang, text, veracity="stated")
    return None


def from_entry(message: str, entry: Entry, lang: str) -> Candidate:
    """A fix whose own changelog entry gives its reason ("Escape the template name …, to
    avoid issues with names that contain f-string syntax"): the subject with that entry."""
    subject = message.strip().splitlines()[0] if message.strip() else ""
    return _memory(msg.core(subject), entry, "", lang)


def _memory(head: str, entry: Entry | None, told: str, lang: str) -> Candidate:
    """The Fact: the subject, what the entry or the body says, the release it lands in."""
    said = entry.text if entry and not _repeats(entry.text, head) else told
    text = msg.led(head.rstrip("."), said)
    # a sentence that led into a quoted block ("… in two cases:") ends the memory
    text = text.rstrip(":;, ")
    if entry and entry.version:
        text = f"{text.rstrip('.')} (in {entry.version})"
    text += "" if text.endswith((".", "!", "?")) else "."
    # the changelog the entry comes from is named: the memory says more than its title
    return Candidate("Fact", 1, 1, lang, text, veracity="stated",
                     files=(entry.path,) if entry and said == entry.text else ())


def _repeats(sentence: str, head: str) -> bool:
    """The sentence is the title again ("Improve annotations for …" as both)."""
    words = set(re.findall(r"\w+", sentence.lower()))
    title = set(re.findall(r"\w+", head.lower()))
    return bool(words) and len(words & title) / len(words) >= TITLE_AGAIN


def _first_prose(body: list[str], head: str) -> str:
    """The first sentences of the body's prose before any list of commits, as many as fit
    in ``MAX_ENTRY`` characters (a body often sets the scene before it says what changed),
    not the title again and not a quoted line of code."""
    prose: list[str] = []
    for line in body:
        if msg.BULLET.match(line):
            break  # a squash merge's list of commits: each item is a commit's own title
        prose.append(TRAILER_BREAKING.sub("", line))  # its text is for users: prose
    kept: list[str] = []
    for sentence in msg.sentences("\n".join(prose)):
        if len(sentence) < MIN_SENTENCE or msg.code_like(sentence):
            continue
        if _repeats(sentence, head):
            continue  # the title again, as a sentence
        if kept and len(" ".join([*kept, sentence])) > MAX_ENTRY:
            break
        kept.append(sentence)
    return " ".join(kept)
