"""One word tokeniser and one English stemmer (issue 11): memx_cli.textproc, shared by
the Curator, the index and search, and the same stems as tantivy's en_stem."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memx_cli import textproc
from memx_cli.curator import text as curator_text
from memx_cli.curator.similarity import word_set
from memx_cli.textproc import query_terms, stem, words

# Developer vocabulary and the forms where stemmers disagree most (-ies, -ing, -ed,
# -ational, -ness, possessives, doubled consonants, short words).
_VOCABULARY = """deploy deploys deployed deploying deployment deployments running runs ran
cached caching caches cache databases migrations migrating migrated services listening
listens linted linting formatted formatting generously relational conditional rational
valency hesitancy digitizer conformability radically differently analogously vileness
happiness hopeful goodness triplicate formative formalize electriciti electrical
hopefulness skies dying lying tying news innings outing canning herring earring
proceed exceed succeed configured configuration configurations dependencies dependency
tests testing tested retries retried retrying timeouts timeout connections connection
pooling pooled builds building built images imaging strictly enabled enabling disable
disabled rebased rebasing squashed committing committed pushes pushing merged merging
stability stable ponies caresses cats generate generates generated generation"""
WORDS = _VOCABULARY.split()


def _en_stem_terms(tmp_path: Path, vocabulary: list[str]) -> dict[str, bool]:
    """For each word: does a term query for memx's stem find the document that holds
    the word in a field tokenised by tantivy's en_stem (as the index's ``stem`` field)?"""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("n", stored=True, indexed=True)
    builder.add_text_field("stem", stored=False, tokenizer_name="en_stem", index_option="freq")
    schema = builder.build()
    index = tantivy.Index(schema, path=str(tmp_path))
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for n, word in enumerate(vocabulary):
        doc = tantivy.Document()
        doc.add_unsigned("n", n)
        doc.add_text("stem", word)
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    found = {}
    for n, word in enumerate(vocabulary):
        query = tantivy.Query.term_query(schema, "stem", stem(word), index_option="freq")
        hits = [searcher.doc(address)["n"][0] for _, address in searcher.search(query, 50).hits]
        found[word] = n in hits
    return found


def test_stem_matches_tantivy_en_stem(tmp_path: Path) -> None:
    found = _en_stem_terms(tmp_path, WORDS)
    assert [w for w, ok in found.items() if not ok] == []


@given(st.text(max_size=40))
def test_a_stem_starts_with_its_words_first_letter(text: str) -> None:
    """What search's word evidence relies on to stem only the words that can match
    (generator/relevance.py, issue 29): Snowball rewrites suffixes only."""
    for word in [*WORDS, *query_terms(text, keep_stop_words=True)]:
        assert stem(word)[:1] == word[:1], word


def test_stem_is_snowball_english() -> None:
    assert [stem(w) for w in ("Deployments", "caching", "ponies", "generously", "team's")] \
        == ["deploy", "cach", "poni", "generous", "team"]


def test_the_english_stemmer_loads_without_the_other_languages() -> None:
    """Issue 29: a fresh process that stems imports snowballstemmer's English module
    only (its package imports ~30 languages), and stems as the package's stemmer does."""
    import subprocess
    import sys

    code = ("import sys; from memx_cli.textproc import stem; "
            "got = [stem(w) for w in sys.argv[1:]]; "
            "loaded = sorted(m for m in sys.modules if m.endswith('_stemmer')); "
            "import snowballstemmer; s = snowballstemmer.stemmer('english'); "
            "print(got == [s.stemWord(w.lower()) for w in sys.argv[1:]], loaded)")
    out = subprocess.run([sys.executable, "-c", code, *WORDS], capture_output=True,
                         text=True, check=True).stdout.split(maxsplit=1)
    assert out[0] == "True"
    assert "german_stemmer" not in out[1] and "english_stemmer" in out[1]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_text_splits_as_the_cjk_aware_patterns_split_it(text: str) -> None:
    """Issue 29: ASCII text takes patterns without the CJK classes (cheap to compile);
    they must split it exactly as the full patterns do."""
    from memx_cli import textproc

    assert words(text) == textproc._word().findall(text)
    assert query_terms(text, keep_stop_words=True) == \
        textproc._term().findall(text.lower())


def test_one_tokeniser_for_curator_index_and_search() -> None:
    text = "Set max_connections to 100 in postgresql.conf; don't use v1.2 用npm安装依赖"
    assert words(text) == ["Set", "max_connections", "to", "100", "in", "postgresql.conf",
                           "don't", "use", "v1.2", "用", "npm", "安装依赖"]
    # The Curator's lexer reads the same words (numbers and units aside).
    lexed = [t.text for t in curator_text.tokenize(text) if t.kind in ("word", "number")]
    assert lexed == [w.lower() for w in words(text) if w.isascii()]
    # The Curator's word sets and search's query terms come from the same words.
    assert {"max_connections", "postgresql.conf", "安装", "装依", "依赖"} <= word_set(text)
    assert query_terms("max_connections in postgresql.conf") == [
        "max", "connections", "postgresql", "conf"]


@pytest.mark.parametrize("text, expected", [
    ("N'utilisez jamais le mode strict", ["ne", "utilisez", "jamais", "le", "mode", "strict"]),
    ("Keep coverage above 80%", ["keep", "coverage", "above", "80%"]),
])
def test_curator_lexer_details(text: str, expected: list[str]) -> None:
    assert [t.text for t in curator_text.tokenize(text)] == expected


@pytest.mark.parametrize("text, expected", [
    ("run compileDevDebugKotlin", "run compileDevDebugKotlin compile Dev Debug Kotlin"),
    ("ConnectionTimeoutError", "ConnectionTimeoutError Connection Timeout Error"),
    ("useQueryClient()", "useQueryClient use Query Client()"),
    ("XMLStreamParser", "XMLStreamParser XML Stream Parser"),
    ("oauth2Client", "oauth2Client oauth2 Client"),
    ("iOS", "iOS OS"),  # a single letter is no word
    # one name of a snake_case pair: the joiner already splits them
    ("max_poolSize", "max_poolSize pool Size"),
])
def test_a_name_written_together_gets_its_words(text: str, expected: str) -> None:
    assert textproc.with_name_words(text) == expected


@pytest.mark.parametrize("text", [
    # controls: plain words, plural acronyms, names split by joiners, a blob of mixed case
    "Use pnpm, never npm", "APIs, URLs and IDs", "Capitalised Words Stay", "HTTP 10GB",
    "max_connections spring.datasource.url pnpm-lock.yaml", "aB" * 30,
])
def test_other_words_are_left_as_written(text: str) -> None:
    assert textproc.with_name_words(text) == text
    assert textproc.joined_names(text) == []


def test_query_terms_read_a_name_as_the_index_does() -> None:
    assert query_terms("findByEmailIgnoreCase") == ["findbyemailignorecase"]
    assert query_terms("findByEmailIgnoreCase", name_parts=True) == [
        "findbyemailignorecase", "find", "email", "ignore", "case"]  # "by": a stop word
    assert textproc.index_text("see useQueryClient", name_parts=True) == \
        "see useQueryClient use Query Client"
    assert textproc.index_text("useQueryClient") == "useQueryClient"
