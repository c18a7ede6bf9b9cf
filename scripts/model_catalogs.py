"""English/translated string pairs from the gettext catalogs that packages ship (issue 25).

Many packages on the index carry their user interface translated: ``locale/<LANG>/LC_MESSAGES``
folders of ``.po`` (text) or ``.mo`` (compiled) catalogs, where each message's ``msgid`` is the
English string and its ``msgstr`` the translation. ``scripts/model_domain.py --catalogs`` reads
them as parallel text: the rows of a translated string are trained toward where the teacher puts
its English original.

Sources are a directory (searched for catalogs) or a wheel/zip (read in place, nothing
extracted). Everything read is treated as untrusted: a catalog over ``MAX_CATALOG_BYTES``, a
``.mo`` whose tables point outside the file, or text that is not UTF-8 is skipped whole; a
message is kept only when both sides are short prose once placeholders, markup and
accelerators are taken out. The language is the folder under ``locale`` (``zh_Hans`` -> ``zh``;
traditional Chinese folders, ``zh_Hant``/``zh_TW``/``zh_HK``, are left out).
"""

from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

MAX_CATALOG_BYTES = 8 << 20
MAX_WORDS = 40
_TRADITIONAL = {"hant", "tw", "hk", "mo"}

# printf-style (%s, %(name)s, %1$d), brace-style ({0}, {name}, {{x}}), markup tags, entities,
# then keyboard accelerators (&File, _Open) and ellipses.
_PLACEHOLDER = re.compile(
    r"%(\(\w+\))?[-+ #0]*\d*(\.\d+)?[sdifgxXrcueEoa%]|%\d+\$?[sd]?|\{\{?[^{}\s]*\}?\}|<[^<>]{0,200}>|&\w+;|&#\d+;")
_ACCELERATOR = re.compile(r"(?<=\s)[&_](?=\w)|^[&_](?=\w)|(?<=\w)&(?=\w)")
_HAS_LETTER = re.compile(r"[^\W\d_]")


def language_of(path: str) -> str | None:
    """The two-letter language of a catalog from its folders (``.../locale/fr_FR/LC_MESSAGES/x.po``)."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    for i, part in enumerate(parts[:-1]):
        if part == "LC_MESSAGES" and i > 0:
            tag = re.split(r"[_\-@.]", parts[i - 1])
            if not tag[0].isalpha() or not 2 <= len(tag[0]) <= 3:
                return None
            if tag[0].lower() == "zh" and any(t.lower() in _TRADITIONAL for t in tag[1:]):
                return None
            return tag[0].lower()
    return None


def clean_message(text: str) -> str:
    """A message with placeholders, tags, entities and accelerators taken out, whitespace collapsed."""
    text = _PLACEHOLDER.sub(" ", text)
    text = _ACCELERATOR.sub("", text)
    text = text.replace("…", " ").replace("...", " ")
    return " ".join(text.split())


def usable(english: str, translated: str) -> bool:
    """Both sides short prose with letters, and the translation not just the English again."""
    if not english or not translated or english.casefold() == translated.casefold():
        return False
    if not _HAS_LETTER.search(english) or not _HAS_LETTER.search(translated):
        return False
    return len(english.split()) <= MAX_WORDS and len(translated) <= 8 * MAX_WORDS


def parse_mo(data: bytes) -> dict[str, str]:
    """A compiled gettext catalog's messages (singular forms; the header and contexts left out)."""
    if len(data) < 28:
        raise ValueError("too short for a .mo catalog")
    magic = int.from_bytes(data[:4], "little")
    order: str
    if magic == 0x950412DE:
        order = "little"
    elif magic == 0xDE120495:
        order = "big"
    else:
        raise ValueError("not a .mo catalog (bad magic number)")

    def word(offset: int) -> int:
        return int.from_bytes(data[offset:offset + 4], order)  # type: ignore[arg-type]

    count, originals, translations = word(8), word(12), word(16)
    if count > len(data) // 16 or max(originals, translations) + 8 * count > len(data):
        raise ValueError("a .mo table points outside the file")

    def string(table: int, index: int) -> bytes:
        length, offset = word(table + 8 * index), word(table + 8 * index + 4)
        if offset + length > len(data):
            raise ValueError("a .mo string points outside the file")
        return data[offset:offset + length]

    out: dict[str, str] = {}
    for i in range(count):
        msgid, msgstr = string(originals, i), string(translations, i)
        if not msgid or b"\x04" in msgid:  # the header, or a message with a context
            continue
        out[msgid.split(b"\x00")[0].decode("utf-8")] = msgstr.split(b"\x00")[0].decode("utf-8")
    return out


_PO_LINE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[0\])?|msgstr\[\d+\])\s+(".*")\s*$')


def parse_po(text: str) -> dict[str, str]:
    """A text gettext catalog's messages: singular forms, fuzzy and obsolete entries left out."""
    out: dict[str, str] = {}
    entry: dict[str, str] = {}
    fuzzy = False
    field = ""

    def flush() -> None:
        msgid, msgstr = entry.get("msgid", ""), entry.get("msgstr", entry.get("msgstr[0]", ""))
        if msgid and msgstr and not fuzzy and "msgctxt" not in entry:
            out[msgid] = msgstr

    for raw in [*text.splitlines(), ""]:
        line = raw.strip()
        if not line:
            flush()
            entry, fuzzy, field = {}, False, ""
            continue
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        match = _PO_LINE.match(line)
        if match:
            if match.group(1) == "msgid" and "msgid" in entry:  # no blank line between entries
                flush()
                entry, fuzzy = {}, False
            field = match.group(1)
            entry[field] = _po_string(match.group(2))
        elif line.startswith('"') and field:
            entry[field] += _po_string(line)
    return out


def _po_string(quoted: str) -> str:
    try:
        value = ast.literal_eval(quoted)
    except (SyntaxError, ValueError):
        return ""
    return value if isinstance(value, str) else ""


def _catalog_files(source: Path) -> Iterator[tuple[str, bytes]]:
    """(path, bytes) of every .po/.mo catalog in a directory or a wheel/zip, in name order."""
    if source.is_dir():
        for path in sorted(p for p in source.rglob("*") if p.suffix in (".po", ".mo") and p.is_file()):
            if path.stat().st_size <= MAX_CATALOG_BYTES:
                yield str(path.relative_to(source)), path.read_bytes()
        return
    with zipfile.ZipFile(source) as archive:
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            if info.filename.endswith((".po", ".mo")) and info.file_size <= MAX_CATALOG_BYTES:
                yield info.filename, archive.read(info)


def catalog_pairs(sources: Iterable[Path], languages: set[str]) -> Iterator[tuple[str, str, str]]:
    """(language, English, translation) pairs of the catalogs in ``sources``, cleaned, in file order.

    A catalog that cannot be read is skipped whole; when a directory holds both a ``.po`` and
    the ``.mo`` compiled from it, the pairs come twice (the caller removes duplicates)."""
    for source in sources:
        for name, data in _catalog_files(source):
            language = language_of(name)
            if language not in languages:
                continue
            try:
                messages = parse_mo(data) if name.endswith(".mo") else parse_po(data.decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                continue
            for msgid, msgstr in messages.items():
                english, translated = clean_message(msgid), clean_message(msgstr)
                if usable(english, translated):
                    yield language, english, translated
