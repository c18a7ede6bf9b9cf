"""What a run's tools warned about its build (issue 24): the warnings worth a lesson.

A passing step's output holds the warnings of the tools the project runs. Most are noise
for a reader joining the project: a compiler's or linter's per-line warning about the code
(``PATH:L:C: warning: …``, Kotlin's ``w: FILE:L:C …``, Rust's ``warning: …`` with its
``--> PATH`` under it), counts (``3 warnings``), progress. Two kinds are kept, told by the
shape of the line and of what it names, not by a tool's phrases:

- a DEPRECATION of something the project uses: the tool says so (pip's ``DEPRECATION:``,
  Python's ``…DeprecationWarning`` / ``FutureWarning`` lines, also in pytest's warnings
  summary, ``npm WARN deprecated`` / pnpm's ``WARN deprecated``, Gradle's "Deprecated
  Gradle features were used …", a statement that a future version will stop accepting
  it), under a warning's head or as a sentence of its own;
- a warning about the build's CONFIGURATION: one placed in a configuration file (a
  manifest, a build script, a data format), or a tool's warning (``WARNING:``,
  ``warning:``, ``w:``, Maven's ``[WARNING]``, yarn's ``warning``, buildkit's ``WARN:``)
  that names a setting or a configuration file (``sdk.dir`` in ``local.properties``, an
  unused manifest key), a package manager's peer-dependency or engine check.

A warning about a part of the tool the step's own command turned off (``pytest -p
no:django`` then ``Unknown config option: DJANGO_SETTINGS_MODULE``: the setting is for the
plugin the run chose not to load) is the run's choice showing, not news: none.

The same warning said per module or per file is one, counted: its key is its message
with numbers, quoted paths and positions blanked. Warnings in an action's own step
(``uses:``) are the action's, not the project's tools'.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memx_cli.reflector.cipaths import OUTSIDE, inside, relative
from memx_cli.reflector.cishapes import RUST_AT
from memx_cli.reflector.cisteps import Line, Step
from memx_cli.reflector.citools import Diagnostic
from memx_cli.reflector.routine import CONFIG_EXT

MAX_SAID = 260
CONTINUED = 2  # lines under a head that ends with ':' (or says nothing) that carry its words
PROSE_WORDS = 8  # an unmarked line states a deprecation only as a sentence this long
# a tool's warning head, a program's name before it (``cc1: warning:``), a code in brackets
HEAD = re.compile(r"^(?:(?P<prog>[a-z][\w+-]{0,30}): )?(?:WARNING|Warning|warning|WARN|"
                  r"warn|w)(?:\[[^\]]{1,40}\])?:[ \t]*(?P<msg>.*)$")
BRACKETED = re.compile(r"^\[(?:WARNING|WARN|warn|warning)\][ \t]+(?P<msg>\S.*)$")  # Maven, sbt
SCALA = re.compile(r"^-- (?:\[E\d+\] )?[\w ]*Warning: (?P<msg>.*)$")  # Scala 3's ``-- Warning: PATH``
GUTTER = re.compile(r"^\s*(?:\d+\s*)?\||^\s*\^")  # a code warning's quoted source, under it
YARN = re.compile(r"^warning[ \t]+(?P<msg>\S.*)$")
NPM = re.compile(r"^npm (?:WARN|warn)[ \t]+(?P<msg>\S.*)$")
PNPM = re.compile(r"^[ \t]*WARN[ \t]+(?P<msg>\S.*)$")
PIP = re.compile(r"^DEPRECATION:[ \t]*(?P<msg>\S.*)$")
BUILDKIT = re.compile(r"^#\d+ (?:\d+(?:\.\d+)? )?")  # a docker build's step number and time
PY_WARNING = re.compile(r"^\s*(?P<path>\S+?\.py):(?P<line>\d+): (?P<cat>[A-Z]\w*Warning): "
                        r"(?P<msg>\S.*)$")
# a command turning a part of its tool off: pytest's ``-p no:NAME``, ``--no-NAME``,
# ``--disable-NAME``, ``--without-NAME``
TURNED_OFF = re.compile(r"(?:^|\s)(?:-p\s*no:|--(?:no|disable|without)-)(?P<name>[A-Za-z][\w]{2,40})")
WORD_SPLIT = re.compile(r"[^a-z0-9]+")
PY_KEPT = re.compile(r"Deprecation|Future|Config|^Pytest")  # categories about what is used
# a warning placed in a file: ``PATH:L[:C][-C]: warning: …``, ``PATH:L:C Warning:``
PLACED = re.compile(r"^(?:file://)?(?P<path>[^\s:()]+?\.[\w.]+)(?::(?P<line>\d+)[\d:-]*|"
                    r"\((?P<line2>\d+)[,:]\d+\)|:\[(?P<line3>\d+),\d+\])(?:[:\s]|$)")
PLACED_HEAD = re.compile(r"^(?:file://)?(?P<path>[^\s:()]+?\.[\w.]+)(?::(?P<line>\d+)[\d:-]*)"
                         r":?\s*(?:WARNING|Warning|warning)(?:\[[\w-]+\])?:?[ \t]*(?P<msg>.*)$")
BUILD_FILE = re.compile(r"(?i)(?:^|/)(?:[\w.-]*manifest[\w.-]*\.xml|pom\.xml|[\w.-]+\.gradle"
                        r"(?:\.kts)?|cmakelists\.txt|dockerfile[\w.-]*|[\w.-]*\.(?:lock|mk))$")
DEPRECATION = re.compile(r"(?i)\bdeprecat\w*|\bwill be removed\b|\bno longer (?:be )?"
                         r"(?:supported|maintained)\b|\bdiscontinued\b|\bend[- ]of[- ]life\b|"
                         r"\bscheduled (?:to be|for) remov|\bfuture (?:versions?|releases?)\b"
                         r"[^.]{0,80}\b(?:error|fail\w*|remov\w*)\b")
# what names the project's configuration: a configuration file, a setting (``sdk.dir``,
# ``android.x.y=true``, ``--flag``), a package manager's peer or engine requirement
# (a dotted setting's last part is a word, not a file's extension: ``sdk.dir``, not ``lib.so``)
CONFIG_NAME = re.compile(r"(?i)\b[\w.-]+\.(?:ya?ml|toml|ini|cfg|conf|properties|json|lock|"
                         r"gradle|kts|xml)\b|(?:^|\s)\.[\w-]+rc\b|\b[a-z][a-z\d_]*(?:\.[a-z][a-z\d_]*)"
                         r"{0,4}\.[a-z][a-z_]{2,}(?:=\S+)?(?=[\s'\"`),:;]|$)|(?:^|\s)--[a-z][\w-]+|"
                         r"\bpeer\b|\bengines?\b")
DOMAIN = re.compile(r"(?i)\.(?:com|org|net|io|dev|gov)\b")  # an address, not a setting
DEPRECATED_PACKAGE = re.compile(r"^deprecated (?P<package>\S+?):\s*(?P<why>\S.*)$")
COUNTED = re.compile(r"^\d+\s")  # "3 warnings", "2 deprecated packages": a count
NAMES = re.compile(r"['\"`‘][^'\"`’]{1,120}['\"`’]|\S+@\d|/")  # a quoted name, pkg@ver, a path
ADVICE = re.compile(r"^(?:You can|You may|Use |See |For more|Run |Try |Please |To |Consider )")
URL = re.compile(r"\s*(?:\(?see:?\s*)?https?://\S+\)?", re.IGNORECASE)
MORE_INFO = re.compile(r"\s*(?:See|For)\s+(?:more (?:information|details)[^.]*|[^.]* for more "
                       r"(?:information|details))\.?", re.IGNORECASE)
SENTENCES = re.compile(r"(?<=[.!])\s+(?=[A-Z])")
ITEM = re.compile(r"^\s*-\s+(?P<item>\S.*)$")
VERSIONED = re.compile(r"^[A-Za-z][\w.-]*?-v?\d+(?:\.\d+)+[\w.-]*$")  # a package's cache folder
ACTION = re.compile(r"^[\w.-]+/[\w.-]+(?:/[\w./-]+)?@\S+$")  # a step that runs ``uses:``
NPM_FACT = re.compile(r"^(?:While resolving|Found|Could not resolve dependency|Conflicting peer "
                      r"dependency|package|required|current):\s*(?P<said>.*)$")
PEER_TREE = re.compile(r"(?:unmet|missing) peer\b.*$")


PACKAGE = "package"
PACKAGES_SAID = 3  # deprecated packages named, at most


@dataclass
class Warned:
    """One warning of a run's tools: its words, what it concerns, where and how often."""

    message: str
    number: int
    kind: str  # deprecation, config, package (a deprecated package the install pulled in)
    where: str | None = None  # the configuration file it is placed in, or a package's
    named: int = 0  # the concrete things it names: files, settings, quoted names
    count: int = 1
    steps: list[tuple[str | None, str | None, str | None]] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    placed: bool = False  # ``where`` is a file of the project
    owned: bool = False  # one of its inputs is a file of the project
    packages: list[str] = field(default_factory=list)  # the other deprecated packages

    def said(self) -> str:
        """Its words, with what it concerns: a deprecated package list names its first."""
        if self.kind != PACKAGE:
            return self.message
        names = list(dict.fromkeys([self.message, *self.packages]))
        more = f" and {len(names) - PACKAGES_SAID} more" if len(names) > PACKAGES_SAID else ""
        return (f"{len(names)} deprecated packages were installed: " if len(names) > 1 else
                "a deprecated package was installed: ") + "; ".join(names[:PACKAGES_SAID]) + more

    @property
    def key(self) -> str:
        if self.kind == PACKAGE:  # the deprecated packages of an install are one list
            return PACKAGE
        return Diagnostic(self.message, self.number).key


def _clean(text: str) -> str:
    said = MORE_INFO.sub("", URL.sub("", text))
    said = " ".join(said.split()).rstrip(" :;,")
    return said if len(said) <= MAX_SAID else said[:MAX_SAID - 1].rstrip() + "…"


def _under(lines: Sequence[Line], i: int, limit: int = CONTINUED) -> tuple[int, list[str]]:
    """The lines under a head that carry its words, up to a blank line or another head."""
    said: list[str] = []
    end = i + 1
    while end < len(lines) and len(said) < limit:
        text = lines[end].text.strip()
        if not text or _head(text) is not None or text.startswith("> Task ") \
                or ADVICE.match(text):
            break
        said.append(text)
        end += 1
    return end, said


def _head(text: str) -> tuple[str, str] | None:
    """(the tool's shape, its message) when the line opens a tool's warning."""
    leveled = BRACKETED.match(text)
    if leveled is not None:  # Maven's and sbt's level: what follows is read as a line
        said = leveled.group("msg")
        if GUTTER.match(said):
            return "gutter", said
        return _head(said) or ("maven", said)
    for shape, pattern in (("npm", NPM), ("pip", PIP), ("placed", PLACED_HEAD),
                           ("tool", SCALA), ("tool", HEAD), ("yarn", YARN), ("pnpm", PNPM)):
        hit = pattern.match(text)
        if hit is not None:
            return shape, hit.group("msg") if shape != "placed" else hit.group(0)
    return None


def _configures(path: str) -> bool:
    return bool(CONFIG_EXT.search(path) or BUILD_FILE.search(path))


def _outside(path: str) -> str | None:
    """The package a path outside the project belongs to: its versioned folder in a cache
    (``terminal-emulator-v0.118.3``), or the folder under ``site-packages``."""
    parts = path.replace("\\", "/").split("/")
    for part in reversed(parts[:-1]):
        if VERSIONED.match(part):
            return part
    for n, part in enumerate(parts[:-1]):
        if part in ("site-packages", "dist-packages", "node_modules") and n + 1 < len(parts) - 1:
            return parts[n + 1]
    return None


def _short(path: str) -> str:
    """A project's path by its top folder and its file (``app/…/libtermux.so``)."""
    parts = path.split("/")
    return path if len(parts) <= 3 else f"{parts[0]}/…/{parts[-1]}"


def _inputs(lines: Sequence[Line], i: int) -> tuple[int, list[str], bool]:
    """The files a warning lists under an ``Inputs:``-like label: the project's by their
    path, the others by the package they come from; and whether one is the project's."""
    end = i
    if end < len(lines) and lines[end].text.strip().endswith(":") \
            and len(lines[end].text.split()) == 1:
        end += 1
    found: list[str] = []
    owned = False
    while end < len(lines) and (item := ITEM.match(lines[end].text)) is not None:
        path = item.group("item").strip()
        own = inside(path)
        name = _short(relative(path)) if own else _outside(path)
        if name and name not in found:
            found.append(name)
            owned = owned or own
        end += 1
    return (end, found, owned) if found else (i, [], False)


def _named(message: str, where: str | None) -> int:
    said = DOMAIN.sub("", message)
    return len(NAMES.findall(said)) + len(CONFIG_NAME.findall(said)) + (where is not None)


def _kept(message: str, where: str | None, deprecated: bool) -> Warned | None:
    said = _clean(message)
    if not said or (COUNTED.match(said) and not NAMES.search(said)):
        return None
    if deprecated or DEPRECATION.search(said):
        kind = "deprecation"
    elif where is not None or CONFIG_NAME.search(DOMAIN.sub("", said)):
        kind = "config"
    else:
        return None
    return Warned(said, 0, kind, where, _named(said, where))


def _npm_block(lines: Sequence[Line], i: int, message: str) -> tuple[int, str]:
    """npm's warning block: its code and words, then the facts it lists under them."""
    facts: list[str] = []
    label: str | None = None  # a fact whose words are on the line under it
    end = i + 1
    while end < len(lines) and (hit := NPM.match(lines[end].text.strip())) is not None:
        said = hit.group("msg").split(None, 1)
        words = (said[1] if len(said) > 1 and said[0].isupper() and said[0].startswith("E")
                 else hit.group("msg")).strip()
        fact = NPM_FACT.match(words)
        if fact is None and DEPRECATED_PACKAGE.match(words):
            break
        if label is not None and fact is None:
            facts.append(f"{label} {words}")
        elif fact is not None and fact.group("said").strip() not in ("", "{"):
            facts.append(words.rstrip(","))
        label = words if fact is not None and not fact.group("said").strip() else None
        end += 1
    if facts:
        message = message.rstrip(" {") + " — " + "; ".join(facts[:3])
    return end, message


def _read(lines: Sequence[Line], i: int) -> tuple[int, Warned | None]:
    """The warning a line opens, if it is one worth keeping, and the lines it spans."""
    text = BUILDKIT.sub("", lines[i].text.strip())
    python = PY_WARNING.match(text)
    if python is not None:
        if not PY_KEPT.search(python.group("cat")):
            return 1, None
        path = python.group("path")
        inside = not OUTSIDE.search(path)
        origin = f"{relative(path)}:{python.group('line')}" if inside else _outside(path)
        found = _kept(f"{python.group('cat')}: {python.group('msg')}", origin,
                      "Deprecation" in python.group("cat") or "Future" in python.group("cat"))
        if found is not None:
            found.placed = inside
        return 1, found
    head = _head(text)
    if head is None:
        return _prose(lines, i, text)
    shape, message = head
    if shape == "gutter":
        return 1, None
    if shape == "placed":  # (what sbt's level marker wrapped)
        text = message
    deprecated = shape == "pip"
    where: str | None = None
    placed = PLACED_HEAD.match(text) if shape == "placed" else None
    if placed is not None:
        path = relative(placed.group("path"))
        if not _configures(path):  # a compiler's or linter's warning about the code
            return 1, None
        where, message = f"{path}:{placed.group('line')}", placed.group("msg")
    elif PLACED.match(message):  # ``w: FILE:L:C …``, ``[WARNING] FILE:[L,C] …``
        spot = PLACED.match(message)
        assert spot is not None
        path = relative(spot.group("path"))
        if not _configures(path):
            return 1, None
        where, message = path, message[spot.end():]
    if shape == "tool" and i + 1 < len(lines) and RUST_AT.match(lines[i + 1].text):
        return 1, None  # rustc's code warning, placed on the line under it
    end = i + 1
    if shape == "npm" and (code := message.split(None, 1)) and code[0].isupper():
        end, message = _npm_block(lines, i, message)
    elif not message.strip() or message.rstrip().endswith(":"):
        end, said = _under(lines, i, 1 if where else CONTINUED)
        message = (message.rstrip() + " " + " ".join(said)).strip()
    if shape in ("npm", "pnpm", "yarn") and (package := DEPRECATED_PACKAGE.match(message)):
        found = Warned(f"{package.group('package')} ({_clean(package.group('why')).rstrip('.')})",
                       lines[i].number, "package", named=1)
        return end - i, found
    if shape == "pnpm" and "peer dep" in message.lower():
        tree = [hit.group(0) for line in lines[i + 1:i + 40]
                if (hit := PEER_TREE.search(line.text))]
        message = message + (": " + "; ".join(tree[:2]) if tree else "")
    found = _kept(message, where, deprecated)
    if found is not None:
        found.placed = where is not None
    return end - i, found


def _prose(lines: Sequence[Line], i: int, text: str) -> tuple[int, Warned | None]:
    """A sentence of its own saying something the project uses is deprecated ("Deprecated
    Gradle features were used …", a future version that will fail on it), with the files
    it lists under it."""
    if len(text.split()) < PROSE_WORDS or not (text[0].isupper() or text[0].isdigit()) \
            or ADVICE.match(text) or not DEPRECATION.search(text):
        return 1, None
    sentences = [part for part in SENTENCES.split(text) if not ADVICE.match(part)]
    told = next((n for n, part in enumerate(sentences) if DEPRECATION.search(part)), 0)
    # what it is, and what will come (or what replaces it, when the first sentence said so)
    said = " ".join(dict.fromkeys(sentences[:1] + sentences[told:told + 1 + (told == 0)]))
    end, listed, owned = _inputs(lines, i + 1)
    found = Warned(_clean(said), 0, "deprecation", None, _named(said, None), inputs=listed,
                   owned=owned)
    found.named += len(listed)
    return max(1, end - i), found


def read(step: Step) -> list[Warned]:
    """The warnings worth keeping in one passing step's output, each once with its count."""
    if step.setup or step.failed or (len(step.script) == 1 and ACTION.match(step.script[0])):
        return []
    lines = list(step.output)
    found: dict[str, Warned] = {}
    i = 0
    while i < len(lines):
        spans, warned = _read(lines, i)
        if warned is not None:
            warned.number = lines[i].number
            same = found.get(warned.key)
            if same is None:
                found[warned.key] = warned
            else:
                same.count += 1
                if warned.kind == PACKAGE and warned.message not in same.packages:
                    same.packages.append(warned.message)
        i += max(1, spans)
    return list(found.values())


def _turned_off(command: str | None, message: str) -> bool:
    """Does the warning name a part of the tool the command turned off (a word of the
    setting it is about, ``DJANGO_SETTINGS_MODULE``, is what ``-p no:django`` left out)?"""
    names = {hit.group("name").lower() for hit in TURNED_OFF.finditer(command or "")}
    return bool(names) and not names.isdisjoint(WORD_SPLIT.split(message.lower()))


def gather(into: dict[str, Warned], step: Step, command: str | None) -> None:
    """Adds a step's warnings to a run's, each warning once with every step that said it
    (none the step's own command caused by turning a part of its tool off)."""
    for warned in read(step):
        if _turned_off(command, warned.message):
            continue
        same = into.setdefault(warned.key, warned)
        if same is not warned:
            same.count += warned.count
            same.packages += [p for p in [warned.message, *warned.packages]
                              if p not in same.packages and p != same.message]
        place = (step.job, step.name, command)
        if place not in same.steps:
            same.steps.append(place)


def ranked(warned: Iterable[Warned], room: int, passed: bool, most: int) -> list[Warned]:
    """The most specific first: placed in a file of the project, then naming its
    configuration (a file, a setting), then naming the most, a list of deprecated packages
    last; among equals the first said; at most ``most``, and past that only those about a
    file of the project (placed in it, or listing it among their inputs: a native library
    packaged twice), all within ``room``. A package manager lists every deprecated package
    of the tree, mostly ones the project never chose: beside a failure such a list is no
    lesson."""
    kept = [item for item in warned if passed or item.kind != PACKAGE]
    order = [item for _, item in sorted(enumerate(kept), key=lambda pair: (
        pair[1].kind == PACKAGE, not pair[1].placed, not CONFIG_NAME.search(DOMAIN.sub("", pair[1].message)),
        -pair[1].named, pair[0]))]
    return [item for n, item in enumerate(order)
            if n < most or item.placed or item.owned][:max(0, room)]
