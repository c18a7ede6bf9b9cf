"""Text handling shared by the Curator, indexing and search: the one word tokeniser, the
one English stemmer, CJK bigrams, query terms, token estimates.

No tantivy-specific tokenizer needs registering: CJK runs are rewritten as overlapping
character bigrams ("超时时间" → "超时 时时 时间") before text reaches the index and before
a query is parsed, so every process that opens the index tokenises the same way
(SPEC 3.4: CJK text is tokenised as character bigrams).
"""

from __future__ import annotations

import functools
import re

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af"  # Hangul syllables
)


@functools.cache
def _cjk_run() -> re.Pattern[str]:
    # Compiled on first non-ASCII text only: the character class costs ~2 ms to compile.
    return re.compile(f"[{_CJK}]+")

# A word: letters and digits, joined by . _ ' ’ - ("max_connections", "v1.2", "don't"),
# never containing CJK characters (a CJK run is a token of its own).
WORD_BODY = rf"[^\W_{_CJK}]+(?:[._'’-][^\W_{_CJK}]+)*"


@functools.cache
def _word() -> re.Pattern[str]:
    return re.compile(rf"[{_CJK}]+|{WORD_BODY}")


# The same two patterns for ASCII text, where no CJK character can occur: the CJK
# classes above cost ~5 ms each to compile, a cost a process that sees only ASCII text
# (most searches, issue 29) need not pay.
@functools.cache
def _ascii_word() -> re.Pattern[str]:
    return re.compile(r"[^\W_]+(?:[._'-][^\W_]+)*")


@functools.cache
def _ascii_term() -> re.Pattern[str]:
    return re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """The words of ``text`` as written, in order: the one word tokeniser of memx (the
    Curator's lexer, the index's query terms and search all split words this way). A CJK
    run is one word here; ``cjk_bigrams`` first makes it overlapping bigrams."""
    return (_ascii_word() if text.isascii() else _word()).findall(text)


@functools.cache
def _stemmer() -> object:
    """The English stemmer, loaded on the first stem only. snowballstemmer's package
    imports the stemmers of all its ~30 languages (~20 ms of CPU, issue 29) unless the
    C PyStemmer is installed; memx needs one, so its module is loaded by itself, inside
    a private copy of the package name (``snowballstemmer`` itself stays unimported and
    whole for anyone else). Any surprise in that layout takes the package's own way."""
    import sys

    if "snowballstemmer" not in sys.modules:
        try:
            return _english_alone()
        except Exception:  # another layout of the package: its own loader below
            sys.modules.pop(_SNOWBALL, None)
    import snowballstemmer

    return snowballstemmer.stemmer("english")


_SNOWBALL = "memx_cli._snowball"


def _english_alone() -> object:
    import importlib
    import importlib.machinery
    import importlib.util
    import sys
    import types

    try:
        import Stemmer  # type: ignore[import-not-found]  # the C stemmer, when installed
    except ImportError:
        pass
    else:
        return Stemmer.Stemmer("english")
    spec = importlib.machinery.PathFinder.find_spec("snowballstemmer")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("snowballstemmer")
    package = types.ModuleType(_SNOWBALL)
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules[_SNOWBALL] = package
    english = importlib.import_module(f"{_SNOWBALL}.english_stemmer")
    return english.EnglishStemmer()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball English (Porter2) stem of ``word``, lowercased: the algorithm of
    tantivy's ``en_stem`` tokenizer, so the Curator and the index agree on what is the
    same word (tests/test_textproc.py checks both on a word list)."""
    return str(_stemmer().stemWord(word.lower().replace("’", "'")))  # type: ignore[attr-defined]

# Words that carry no retrieval signal in questions and notes. Kept short on purpose:
# BM25's idf already discounts common words; this list removes the question scaffolding
# ("what did ... do") that otherwise outweighs rare content words in short queries.
STOP_WORDS = frozenset(["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "ever", "also", "s", "t", "d", "ll", "m", "re", "ve"])


def cjk_bigrams(text: str) -> str:
    """Rewrite each CJK run as space-separated overlapping bigrams (a lone char stays)."""
    if text.isascii():
        return text
    def split(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    return _cjk_run().sub(split, text)


@functools.cache
def _term() -> re.Pattern[str]:
    """A CJK run, or a word's run of letters and digits between its joiners."""
    return re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")


# A name whose words are written together, told apart by their capitals (camelCase,
# PascalCase: compileDevDebugKotlin, useQueryClient, oauth2Client, XMLStreamParser): a
# lower-case letter (and digits) before a capital, or a run of capitals before a
# capitalised word of two or more lower-case letters (so APIs, URLs and IDs stay whole),
# ASCII letters and digits. Joiners (. _ - ') already split a name into words: the
# index's tokenizer and ``query_terms`` cut at them. Up to MAX_NAME characters: a longer
# run of mixed case is data (an encoded blob), not a name.
MAX_NAME = 48
# A word of such a name: a capitalised or lower-case word, or a run of capitals (an
# acronym) not followed by a lower-case letter; digits stay with the word before them.
_PART = r"[A-Z]?[a-z]+\d*|[A-Z]+\d*(?![a-z])|\d+"


@functools.cache
def _pattern(source: str) -> re.Pattern[str]:
    """``source`` compiled, once a process (on its first name)."""
    return re.compile(source)


def _lower(char: str) -> bool:
    return "a" <= char <= "z"


def _joined_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text``'s names written together are (start, end). Found from its
    capitals, few in prose, and the letters around each: one pattern of the whole name
    tried at every position cost ~3 times as much (each memory indexed, each hit's
    words weighed by relevance)."""
    spans: list[tuple[int, int]] = []
    end, size = 0, len(text)
    for capital in _pattern("[A-Z]").finditer(text):
        at = capital.start()
        if at < end:
            continue  # inside the name found last
        before = at - 1
        while before >= 0 and "0" <= text[before] <= "9":
            before -= 1
        if not ((before >= 0 and _lower(text[before]))
                or (at + 3 < size and "A" <= text[at + 1] <= "Z" and _lower(text[at + 2])
                    and _lower(text[at + 3]))):
            continue
        start = at
        while start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
            start -= 1
        end = (_pattern("[A-Za-z0-9]*").match(text, at) or capital).end()  # always matches
        if 3 <= end - start <= MAX_NAME:
            spans.append((start, end))
    return spans


def name_words(name: str) -> list[str]:
    """The words a name written together is made of (``useQueryClient``: use, Query,
    Client); single letters are left out (``iOS``: OS)."""
    return [part for part in _pattern(_PART).findall(name) if len(part) > 1]


def joined_names(text: str) -> list[str]:
    """The names of ``text`` written together (``with_name_words`` adds their words)."""
    return [text[start:end] for start, end in _joined_spans(text)]


def with_name_words(text: str) -> str:
    """``text`` with the words of each name written together added after the name,
    which stays as written: "call useQueryClient()" → "call useQueryClient use Query
    Client()". So the name is still matched whole, and a question in words ("the query
    client") finds it too."""
    pieces: list[str] = []
    last = 0
    for start, end in _joined_spans(text):
        named = name_words(text[start:end])
        if named:
            pieces += [text[last:end], " ", " ".join(named)]
            last = end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def index_text(text: str, name_parts: bool = False) -> str:
    """``text`` as a field of the index reads it: CJK as bigrams and, with
    ``name_parts``, each name written together followed by its words."""
    return cjk_bigrams(with_name_words(text) if name_parts else text)


def query_terms(text: str, keep_stop_words: bool = False,
                name_parts: bool = False) -> list[str]:
    """Lowercased search terms of a query, CJK as bigrams, stop words dropped; with
    ``name_parts``, a name written together is followed by its words (``with_name_words``).

    When every word is a stop word ("what is it"), they are kept: some query beats none.
    """
    # the words split at their joiners (. _ ' ’ -): one findall of what lies between
    # them (search scores every hit's text this way: a split per word cost ~2 ms a search)
    text = cjk_bigrams(with_name_words(text) if name_parts else text).lower()
    terms: list[str] = (_ascii_term() if text.isascii() else _term()).findall(text)
    kept = [w for w in terms if keep_stop_words or w not in STOP_WORDS]
    return kept or terms


def estimate_tokens(text: str) -> int:
    """SPEC 3.4: about 1.5 CJK characters or 4 other characters per token."""
    cjk = 0 if text.isascii() else sum(len(run) for run in _cjk_run().findall(text))
    other = len(text) - cjk
    return max(1, round(cjk / 1.5 + other / 4.0))


def clean_text(text: str) -> str:
    """Text made safe to store, index and send (issue 14): surrogate pairs joined, lone
    surrogates (undecodable bytes of an argument, ``"\\ud800"`` in JSON) become U+FFFD,
    NUL characters are dropped. Everything else is kept as typed."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
