"""What well-known developer tools are (issue 25: vocabulary gaps).

People ask for a tool by its role ("which package manager do we use", "what's our
formatter", "where do errors get reported") of memories that name only the tool ("Use
pnpm", "ruff format", "Sentry"). The bundled model does not know tools by their role
(docs/search.md lists every model tried), so memx ships a catalog, ``roles.tsv`` beside
this module: about 1,900 tool, service and product names of every common stack under
the general words for what they are. It was written from general knowledge of the
software ecosystem, not from any evaluation set.

A query that says a role adds, as a weak keyword voice, the names of that role's tools
that the store's own words contain (a lookup of each name in the text index's term
dictionary): the memory that names one is found although it shares no word with the
question. The catalog is read only when a query holds a word some role starts with
(a first check against a small set of role words), once per process.

A role is said when each of its words (stop words too) is one of the query's or an
inflection of it: "where do errors get reported" says "error reporting", "what's
important" does not say "imports". A tool's name is present in a
store when each of its parts (a name splits at . - _ as the index does) is a word of
some memory's text, tags or tools; a memory then counts as naming
it when its text holds the parts in a row.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memx_cli.textproc import query_terms, stem

# The role voice's share of the keyword score: a memory that writes a tool of the asked
# role as a tool scores a quarter of what the tool's name would score as a word of the
# query. Weak: it orders the memories that name a tool of the role before others that
# match only by meaning or by a common word, and never outvotes the query's own rare
# words. Measured (docs/search.md): 0.125 gains half as much on vocabulary questions; at
# 0.5 and 1.0 paraphrases and plain questions lost first places. Before a name had to be
# written as a tool (as_tool), 0.25 cost a LoCoMo question to a conversation's everyday
# word that is also a tool's name; with it LoCoMo is unchanged at 0.25.
ROLE_WEIGHT = 0.25
# At most this many of the asked roles' names present in one store are searched (the
# rarest first): a store that names forty test tools gains nothing from the fortieth.
MAX_NAMES = 24
# A name as the catalog writes it, and a line's shape.
_NAME = re.compile(r"[a-z0-9][a-z0-9._+/-]*")
_SECTION = re.compile(r"\[([^\[\]]+)\]")
# The role text of the file: a section's heading, an entry's own roles.
_ROLE_TEXT = re.compile(r"^\[([^\[\]\n]+)\]$|\t([^\n]*)$", re.MULTILINE)


@dataclass(frozen=True)
class Catalog:
    """Role (its words, sorted) -> the groups of names of its tools, as the catalog
    spells them (a section's names are one group, shared by each of its roles)."""

    roles: dict[tuple[str, ...], list[tuple[str, ...]]]

    def spellings(self, role: tuple[str, ...]) -> set[str]:
        """The names of ``role``'s tools, as the catalog spells them."""
        return set().union(*self.roles.get(role, ()))

    def said(self, query: str) -> list[tuple[str, ...]]:
        """The roles each of whose words is a query word or its inflection, longest
        first. A Snowball stem keeps its word's first letters, so only a role whose every
        word starts as one of the query's does is looked at: those under the heads of the
        query's words (``by_head``), not each of the catalog's roles (issue 29)."""
        terms = query_terms(query, keep_stop_words=True)
        heads = {t[:3] for t in terms}
        by_head = self.by_head
        found = [role for head in heads for role in by_head.get(head, ())
                 if all(word[:3] in heads for word in role)
                 and all(any(_inflected(word, t) for t in terms) for word in role)]
        return sorted(found, key=lambda role: (-len(role), role))

    @functools.cached_property
    def by_head(self) -> dict[str, list[tuple[str, ...]]]:
        """The roles by the first three letters of their first word."""
        out: dict[str, list[tuple[str, ...]]] = {}
        for role in self.roles:
            if role:
                out.setdefault(role[0][:3], []).append(role)
        return out

    def names(self, roles: Iterable[tuple[str, ...]]) -> set[tuple[str, ...]]:
        """The tools of ``roles``, each as the index's terms of its name."""
        out: set[tuple[str, ...]] = set()
        for role in roles:
            for group in self.roles[role]:
                out |= _terms(group)
        return out


@functools.cache
def _terms(spelled: tuple[str, ...]) -> frozenset[tuple[str, ...]]:
    """Names as the index's terms (a warm process splits each role's names once)."""
    return frozenset(tuple(query_terms(name, keep_stop_words=True)) for name in spelled)


# What sets two forms of one word apart after their common start: an inflection, a
# dropped final e, an agent's -er/-or. A stem alone also joins derived words that mean
# something else (important/imports, experience/experiments, local/localization,
# performing/performance), and everyday questions are full of those.
_INFLECTIONS = frozenset({"", "s", "es", "e", "d", "ed", "ing", "er", "ers", "or", "ors",
                          "ion", "ions"})


@functools.cache
def _inflected(role_word: str, word: str) -> bool:
    """Whether ``word`` is ``role_word`` or one of its inflections (same stem, and what
    differs after their common start is an inflection on both sides)."""
    if role_word == word:
        return True
    if stem(role_word) != stem(word):
        return False
    common = next((i for i, (a, b) in enumerate(zip(role_word, word)) if a != b),
                  min(len(role_word), len(word)))
    return role_word[common:] in _INFLECTIONS and word[common:] in _INFLECTIONS


@functools.cache
def _roles_of(text: str) -> list[tuple[str, ...]]:
    """The roles of a section's heading or an entry's own (``role | role``), each as
    its words, sorted (stop words too: "on-call" is not "call")."""
    return [key for key in (tuple(sorted(set(query_terms(r, keep_stop_words=True))))
                            for r in text.split("|")
                            if r.strip()) if key]


def parse(lines: Iterable[str]) -> Catalog:
    """The catalog of ``lines`` (roles.tsv's format, described at its top). A line of
    another shape raises ValueError with its number: the file ships with memx."""
    roles: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    section: list[tuple[str, ...]] = []
    group: list[str] = []  # the names of the current section

    def close() -> None:
        if group:
            for role in section:
                roles.setdefault(role, []).append(tuple(group))

    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        heading = _SECTION.fullmatch(line.strip())
        if heading:
            close()
            section, group = _roles_of(heading.group(1)), []
            continue
        names, _, own = line.partition("\t")
        spellings = [n.strip() for n in names.split(",")]
        if not section or not all(_NAME.fullmatch(n) for n in spellings):
            raise ValueError(f"roles catalog line {number}: not 'name, name<TAB>roles'")
        group += spellings
        for role in _roles_of(own) if own else ():
            roles.setdefault(role, []).append(tuple(spellings))
    close()
    return Catalog(roles)


# The catalog as a query reads it, built from roles.tsv by scripts/gen_roles.py (and
# checked against it by tests/test_search_roles.py): parsing the .tsv cost a cold query
# that says a role word ~12 ms, reading this ~1 ms.
COMPILED = Path(__file__).with_name("roles.json")


def build(text: str) -> str:
    """roles.json's text for the catalog ``text`` (roles.tsv's format). Its first line
    is a JSON list of the first three letters of every role word (all a query that
    says none needs); the rest a JSON object: the groups of names and each role (its
    words) with its groups' numbers, a group or role a line, in the catalog's order."""
    import json

    built = parse(text.splitlines())
    said = " ".join(a or b for a, b in _ROLE_TEXT.findall(text))
    heads = sorted({w[:3] for w in query_terms(said, keep_stop_words=True)})
    number: dict[tuple[str, ...], int] = {}
    for groups in built.roles.values():
        for group in groups:
            number.setdefault(group, len(number))

    def lines(rows: Iterable[object]) -> str:
        return ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)

    roles = [[list(role), [number[g] for g in groups]] for role, groups in built.roles.items()]
    return (f'{json.dumps(heads)}\n{{"groups": [\n{lines(number)}],\n'
            f'"roles": [\n{lines(roles)}]}}\n')


@functools.cache
def _compiled() -> tuple[bytes, bytes]:
    """roles.json's first line (the heads) and the rest (the catalog)."""
    heads, _, rest = COMPILED.read_bytes().partition(b"\n")
    return heads, rest


@functools.cache
def catalog() -> Catalog:
    """The shipped catalog, read on first use."""
    import json

    data = json.loads(_compiled()[1])
    groups = [tuple(group) for group in data["groups"]]
    return Catalog({tuple(role): [groups[i] for i in numbers]
                    for role, numbers in data["roles"]})


@functools.cache
def _role_heads() -> frozenset[str]:
    """The first three letters of every role word, so a query that says no role does
    not read the catalog."""
    import json

    return frozenset(json.loads(_compiled()[0]))


def asked(query: str) -> list[tuple[str, ...]]:
    """The roles ``query`` says (see the module's docstring)."""
    if not {t[:3] for t in query_terms(query, keep_stop_words=True)} & _role_heads():
        return []
    return catalog().said(query)


def present(names: Iterable[tuple[str, ...]], has_term: Callable[[str], bool],
            exclude: Sequence[str] = (), suffixes: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The ``names`` a store holds, each part a word of some memory (``has_term``: its
    text, tags or tools; a one-word name also by its own files' words, the name with one
    of ``suffixes``: `gradlew`), but none with a part that is one of the query's own
    words (``exclude``: the query searches those already)."""
    skip = set(exclude)

    def held(name: tuple[str, ...]) -> bool:
        if all(map(has_term, name)):
            return True
        return len(name) == 1 and any(has_term(name[0] + suffix) for suffix in suffixes)

    return sorted(name for name in names if name and not skip.intersection(name) and held(name))


# Cloud regions and zones are named by a shape, not listed: AWS `us-east-1` (and its zone
# `us-east-1a`), Google Cloud `europe-west4` (`europe-west4-b`), Azure `eastus2`,
# `westeurope`, `uksouth`. A question that says "region" or "availability zone" is
# answered by a memory holding one. The index splits `us-east-1` into three words, so
# the search looks for a word of the shape's compass part (``REGION_TERM``: `east`,
# `west4`, `eastus2`, `uksouth`) and the memory's text is then checked whole
# (``REGION``).
_COMPASS = r"(?:north|south)?(?:east|west)|north|south|central"
_GEO = (r"uk|japan|australia|canada|brazil|korea|france|germany|switzerland|norway|uae|"
        r"india|southafrica|sweden|poland|italy|qatar|israel|mexico|spain")
REGION_TERM = (rf"(?:{_COMPASS})[0-9]{{0,2}}|(?:(?:north|south|west|east)?central|{_COMPASS})"
               rf"(?:us|europe|asia)[0-9]?|(?:{_GEO})(?:{_COMPASS})[0-9]?")
REGION = re.compile(
    rf"(?<![\w-])(?:(?:us|eu|ap|sa|ca|me|af|il|mx|cn)-(?:gov-)?(?:{_COMPASS})-[0-9][a-f]?"
    rf"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:{_COMPASS})"
    rf"[0-9]{{1,2}}(?:-[a-f])?"
    rf"|(?:(?:north|south|west|east)?central|{_COMPASS})(?:us|europe|asia)[0-9]?"
    rf"|(?:{_GEO})(?:{_COMPASS})[0-9]?)(?![\w-])", re.IGNORECASE)
# A query says the role by these words (stemmed), and relevance hears these.
_REGION_ROLES = (("region",), ("avail", "zone"))
REGION_WORDS = frozenset({"region", "availability", "zone"})


def asks_region(query: str) -> bool:
    """Whether ``query`` says "region" or "availability zone"."""
    terms = query_terms(query)
    if not any(t.startswith(("region", "avail")) for t in terms):
        return False
    stems = {stem(t) for t in terms}
    return any(stems.issuperset(role) for role in _REGION_ROLES)



# ---------------------------------------------------------------- a name written as a tool
#
# Many tools are named by everyday words (black, render, yarn, poetry, stripe, spring): a
# conversation's "a black dog" or "render the scene" names no formatter or host. A memory
# counts as naming a tool only where it writes the name as a tool is written, read from
# the shape of its own text (what follows is checked per occurrence):
# - in code: inside a code span or block (an odd number of backticks before it);
# - in a path, file or address: its token holds a '/' or a '.' before a letter
#   (`pnpm-lock.yaml`, `.eslintrc.json`, `src/black`, `sentry.io`), or it is the name
#   with the suffix of a tool's own file: a wrapper script (`gradlew`, `mvnw`), a run
#   commands file (`.eslintrc`, `.nvmrc`) or a build file (`Dockerfile`, `Jenkinsfile`);
# - beside a version: `Airflow 2.9`, `node 20`, `ruff@0.4`, `v3`;
# - as a command: followed by a flag (`black --check`) or after another tool's name,
#   a flag between or not (`pnpm dlx x`, `pip -m x`);
# - as a proper name: capitalised inside a sentence (`we use Black`), or with a capital
#   inside (`GitHub`), or an acronym;
# - or anywhere when the name is no everyday word: the bundled model's vocabulary (its
#   tokenizer's whole words, some 50,000 of many languages) does not hold it ("pnpm",
#   "sentry", "rubocop"); "black", "render", "yarn" it holds.

# A tool's own files: its wrapper script, its run commands file, its build file.
FILE_SUFFIXES = ("w", "rc", "file")
_VERSION = re.compile(r"(?:\s+|@|==|>=|~>|\^)v?[0-9]+(?:\.[0-9]+)*(?![\w.])")
_FLAG = re.compile(r"\s+--?[a-z]", re.IGNORECASE)
# The word before an occurrence, a flag between or not (`python -m pytest`).
_BEFORE = re.compile(r"([\w.+-]+)\s+(?:--?[\w-]+\s+)?$")
_PATHLIKE = re.compile(r"[/\\]|\.[^\W\d_]")
_EDGE = "\"'()[]{}<>,;:!?*"


@functools.cache
def _vocabulary() -> str:
    """The bundled model's tokenizer file (a dictionary of whole words), or ''."""
    path = Path(__file__).resolve().parents[1] / "model" / "tokenizer.json"
    try:
        return path.read_text("utf-8")
    except OSError:
        return ""


@functools.cache
def everyday(part: str) -> bool:
    """Whether ``part`` is a whole word of the bundled model's vocabulary (an entry
    ``"part": id`` of its WordPiece vocabulary; a piece inside a word has ``##``)."""
    return f'"{part}":' in _vocabulary()


@functools.cache
def _single_names() -> frozenset[str]:
    """Every one-word name of the catalog (a command's wrapper is often one)."""
    return frozenset(name for spelled in catalog().roles.values() for group in spelled
                     for name in group if name.isalnum())


@functools.cache
def _occurrence(name: tuple[str, ...]) -> re.Pattern[str]:
    """An occurrence of a name of the index's terms in raw text: its parts joined as the
    index splits them, a one-word name with a tool's file suffix or not."""
    body = r"[\s._'’-]+".join(map(re.escape, name))
    suffix = "(?P<suffix>" + "|".join(FILE_SUFFIXES) + ")?" if len(name) == 1 else ""
    return re.compile(rf"(?<![^\W_]){body}{suffix}(?![^\W_])", re.IGNORECASE)


def _starts_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'(*#>-")
    return not before or before[-1] in ".!?:;\n"


def as_tool(text: str, name: tuple[str, ...]) -> bool:
    """Whether ``text`` writes ``name`` (the index's terms of a catalog name) as a tool
    somewhere (see above)."""
    coined = not all(everyday(part) for part in name)
    for match in _occurrence(name).finditer(text):
        start, end = match.span()
        if coined or match.groupdict().get("suffix"):
            return True
        if text.count("`", 0, start) % 2:
            return True
        left = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start)) + 1
        right = min((i for i in (text.find(" ", end), text.find("\n", end)) if i >= 0),
                    default=len(text))
        token = text[left:right].strip(_EDGE).rstrip(".")
        if token.lower() != match.group().lower() and _PATHLIKE.search(token):
            return True
        if _VERSION.match(text, end) or _FLAG.match(text, end):
            return True
        before = _BEFORE.search(text, 0, start)
        if before and before.group(1).lower() in _single_names():
            return True
        written = match.group()
        if (any(c.isupper() for c in written[1:]) or (written.isupper() and len(written) > 2)
                or (written[0].isupper() and not _starts_sentence(text, start))):
            return True
    return False
