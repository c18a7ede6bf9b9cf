"""Issue 25, vocabulary gaps: a question that names a tool's role ("which error tracking
service", "what's our formatter") finds the memory that names only the tool, through the
catalog of what developer tools are (memx_cli/generator/roles.py, roles.tsv)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memx_cli.generator import roles, rolevoice

from .conftest import Memx, explained, import_texts


def test_the_shipped_catalog_reads_and_is_broad() -> None:
    catalog = roles.catalog()
    names = {name for role in catalog.roles for name in catalog.spellings(role)}
    assert len(names) > 1500 and len(catalog.roles) > 300
    for role, tool in [("package manager", "pnpm"), ("formatter", "ruff"),
                       ("error tracking", "sentry"), ("orchestrator", "airflow"),
                       ("message broker", "rabbitmq"), ("vector database", "qdrant")]:
        key = tuple(sorted(role.split()))
        assert tool in catalog.spellings(key), role


def test_the_compiled_catalog_is_the_tsv_parsed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A query reads roles.json, built from roles.tsv by scripts/gen_roles.py: the same
    roles, groups and role words' heads as parsing the .tsv. The control: a catalog
    with one more role builds another file, and the script's check says it is stale."""
    text = roles.COMPILED.with_name("roles.tsv").read_text("utf-8")
    assert roles.COMPILED.read_text("utf-8") == roles.build(text)
    assert roles.catalog() == roles.parse(text.splitlines())
    said = " ".join(a or b for a, b in roles._ROLE_TEXT.findall(text))
    assert roles._role_heads() == {w[:3] for w in roles.query_terms(said,
                                                                    keep_stop_words=True)}
    grown = text + "\n[quantum compiler]\nqiskit\n"
    assert roles.build(grown) != roles.build(text) and "qua" in roles.build(grown)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    try:
        import gen_roles
    finally:
        sys.path.pop(0)
    assert gen_roles.main(["--check"]) == 0
    stale = tmp_path / "roles.json"
    stale.write_text(roles.build(grown), "utf-8")
    (tmp_path / "roles.tsv").write_text(text, "utf-8")
    monkeypatch.setattr(roles, "COMPILED", stale)
    assert gen_roles.main(["--check"]) == 1


def test_a_line_of_another_shape_is_refused_with_its_number() -> None:
    good = ["# a comment", "", "[linter | static analysis]", "ruff, ruff-lint\tformatter"]
    catalog = roles.parse(good)
    assert catalog.spellings(("linter",)) == {"ruff", "ruff-lint"}
    assert catalog.spellings(("formatter",)) == {"ruff", "ruff-lint"}
    assert catalog.spellings(("analysis", "static")) == {"ruff", "ruff-lint"}
    with pytest.raises(ValueError, match="line 2"):
        roles.parse(["[linter]", "Ruff Lint"])  # a name is lowercase, without spaces
    with pytest.raises(ValueError, match="line 1"):
        roles.parse(["ruff"])  # a tool before any section has no role


@pytest.mark.parametrize(("query", "role"), [
    ("which package manager do we use", ("manager", "package")),
    ("what's our formatter?", ("formatter",)),
    ("where do errors get reported", ("error", "reporting")),
    ("Which orchestrator runs the nightly job?", ("orchestrator",)),
])
def test_a_role_is_said_by_its_words_stemmed(query: str, role: tuple[str, ...]) -> None:
    assert role in roles.asked(query)


def test_a_query_of_no_role_says_none() -> None:
    assert roles.asked("the quick brown fox jumps over the lazy dog") == []
    assert roles.asked("what did Caroline say about her sister last summer?") == []


def test_the_roles_looked_at_by_their_first_word_are_every_role_said() -> None:
    """``said`` looks only at the roles filed under a head of the query's words (issue
    29); what it finds is what checking each of the catalog's roles finds."""
    catalog = roles.catalog()

    def every(query: str) -> list[tuple[str, ...]]:
        terms = roles.query_terms(query, keep_stop_words=True)
        found = [role for role in catalog.roles
                 if all(any(roles._inflected(word, t) for t in terms) for word in role)]
        return sorted(found, key=lambda role: (-len(role), role))

    for query in ["which package manager do we use", "what's our formatter?",
                  "where do errors get reported and who is on call",
                  "the CI runner and the container registry", "which orchestrator, linter "
                  "and test runner do we use", "the quick brown fox jumps over the lazy dog"]:
        assert catalog.said(query) == every(query)
    assert len(catalog.said("the CI runner and the container registry")) >= 2
    assert catalog.said("the quick brown fox jumps over the lazy dog") == []


@pytest.mark.parametrize(("query", "not_said"), [
    ("what important values does he teach?", ("imports",)),
    ("what did he say about a special experience?", ("experiments",)),
    ("what is his focus in local politics?", ("localization",)),
    ("when is the group performing?", ("performance",)),
])
def test_a_word_of_another_meaning_with_the_same_stem_says_no_role(
        query: str, not_said: tuple[str, ...]) -> None:
    """A Snowball stem joins derived words too (important, imports: "import"); a role
    word counts only as itself or an inflection of it (the control: "imports" says it)."""
    assert not_said not in roles.asked(query)
    assert not_said in roles.asked(query + " " + not_said[0])


@pytest.mark.parametrize(("text", "name"), [
    ("run `black .` before pushing", "black"),  # in code
    ("black --check src", "black"),  # a command: a flag follows
    ("pinned black 24.3 in CI", "black"),  # beside a version
    ("we format with Black since 2023", "black"),  # a proper name inside a sentence
    ("Deploys go to Render.", "render"),
    ("the lockfile is poetry.lock", "poetry"),  # in a file's name
    ("Always build through the wrapper (`./gradlew`)", "gradle"),  # its wrapper script
    ("The Dockerfile uses alpine", "docker"),  # its build file
    ("lint settings are in .eslintrc", "eslint"),  # its run commands file
    ("Use pnpm, never npm", "pnpm"),  # no everyday word: written anywhere
    ("CI runs on GitHub Actions", "github-actions"),
])
def test_a_name_written_as_a_tool(text: str, name: str) -> None:
    assert roles.as_tool(text, tuple(roles.query_terms(name)))


@pytest.mark.parametrize(("text", "name"), [
    ("a black dog sleeps on the mat", "black"),
    ("Black coffee, no sugar", "black"),  # capitalised as a sentence starts
    ("render the scene again", "render"),
    ("poetry reading tonight", "poetry"),
    ("Actions taken in the incident are kept on GitHub", "github-actions"),  # not in a row
])
def test_an_everyday_word_is_no_tool(text: str, name: str) -> None:
    assert not roles.as_tool(text, tuple(roles.query_terms(name)))


STORE = [
    "Exceptions from the API are sent to Sentry; the project is acme-api",
    "Each service owns its database; no service reads the tables of another service",
    "Use UTC in every service and store timestamps as ISO 8601",
    "We use feature branches and squash merges",
    "CI runs on GitHub Actions: one workflow per package",
    "Actions taken during an incident are written down in the incident channel",
    "Use short-lived tokens for the admin API",
    "Use the staging database for load tests, never production",
    "Releases use the date as their version",
]


@pytest.fixture
def store(memx: Memx) -> Memx:
    return import_texts(memx, STORE)


def test_a_role_question_finds_the_tool(store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "where do crashes get reported?"
    found = explained(store, query)
    assert found[0]["content"] == STORE[0]
    assert found[0]["explain"]["voices"]["role"] > 0
    assert "(role " in store.ok("search", query, "--explain", "--closest")
    # the control: without the catalog no memory shares a word with the question, and
    # the one about Sentry is not the first by meaning
    monkeypatch.setattr(roles, "asked", lambda query: [])
    without = explained(store, query)
    assert [hit["content"] for hit in without][:1] != [STORE[0]]
    assert all(hit["explain"]["voices"]["role"] == 0 for hit in without)


def test_the_role_words_count_in_relevance_only_when_asked_to(
        store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """Off by default (ROLE_EVIDENCE 0: the role voice ranks, relevance does not hear
    it); at 1.0 the memory naming the tool is as relevant as if it said "crashes
    reported" itself, and the others' relevance does not move."""
    query = "where do crashes get reported?"
    unsaid = {hit["content"]: hit["relevance"] for hit in explained(store, query)}
    monkeypatch.setattr(roles, "asked", lambda query: [])
    unheard = {hit["content"]: hit["relevance"] for hit in explained(store, query)}
    assert {c: unsaid[c] for c in unheard if c in unsaid} == {
        c: unheard[c] for c in unsaid if c in unheard}
    monkeypatch.undo()
    monkeypatch.setattr(rolevoice, "ROLE_EVIDENCE", 1.0)
    said = {hit["content"]: hit["relevance"] for hit in explained(store, query)}
    assert said[STORE[0]] > unsaid[STORE[0]]
    assert {c: said[c] for c in unsaid if c != STORE[0] and c in said} == {
        c: unsaid[c] for c in said if c != STORE[0] and c in unsaid}


EVERYDAY = [
    "Format the Python code with `black`; CI runs it with --check",
    "A black dog sleeps on the mat by the door every afternoon",
    "The release notes are written by hand every Friday",
]


@pytest.mark.parametrize(("dog", "heard"), [
    (EVERYDAY[1], False),
    ("We format with Black since the dog ate the old config", True),  # the control
])
def test_an_everyday_word_is_heard_only_where_written_as_a_tool(
        memx: Memx, dog: str, heard: bool) -> None:
    texts = [EVERYDAY[0], dog, EVERYDAY[2]]
    import_texts(memx, texts)
    found = {hit["content"]: hit["explain"]["voices"]["role"]
             for hit in explained(memx, "which formatter do we use?")}
    assert found[EVERYDAY[0]] > 0
    assert (found.get(dog, 0.0) > 0) is heard


@pytest.mark.parametrize("suffixes", [roles.FILE_SUFFIXES, ()])
def test_a_tool_is_found_by_its_wrapper_script(memx: Memx, monkeypatch: pytest.MonkeyPatch,
                                               suffixes: tuple[str, ...]) -> None:
    """`./gradlew` names Gradle, though the store never says "gradle" (the control:
    without the tools' file suffixes nothing is found by the role)."""
    texts = ["Always build through the wrapper: `./gradlew assembleDebug`",
             "The design review happens on Thursdays", "Screenshots go in docs/img"]
    import_texts(memx, texts)
    monkeypatch.setattr(roles, "FILE_SUFFIXES", suffixes)
    found = {hit["content"]: hit["explain"]["voices"]["role"]
             for hit in explained(memx, "which build tool does the app use?")}
    assert (found.get(texts[0], 0.0) > 0) is bool(suffixes)


def test_a_name_of_parts_counts_only_in_a_row(store: Memx) -> None:
    found = {hit["content"]: hit["explain"]["voices"]["role"]
             for hit in explained(store, "what do we use for continuous integration?")}
    assert found[STORE[4]] > 0
    assert found.get(STORE[5], 0.0) == 0.0  # "actions" alone names no CI system


def test_a_role_whose_tools_the_store_lacks_changes_nothing(
        store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "which message broker carries the order events?"
    assert roles.asked(query)  # the role is said, and the store names none of its tools
    said = explained(store, query)
    monkeypatch.setattr(roles, "asked", lambda query: [])
    assert said == explained(store, query)


@pytest.mark.parametrize(("text", "names"), [
    ("Prod runs in us-east-1 (zone us-east-1a)", ["us-east-1", "us-east-1a"]),
    ("The cluster is in europe-west4-b, backups in europe-west1", ["europe-west4-b",
                                                                    "europe-west1"]),
    ("DR lives in eastus2 and westeurope; the UK copy in uksouth", ["eastus2", "westeurope",
                                                                     "uksouth"]),
    ("We moved east in 2021 and the west wing is closed", []),
    ("the key sub-us-east-1x and us-east-12 are not regions", []),
])
def test_a_cloud_region_is_known_by_its_shape(text: str, names: list[str]) -> None:
    assert [m.group() for m in roles.REGION.finditer(text)] == names


def test_a_region_is_asked_for_by_its_words() -> None:
    assert roles.asks_region("what region is prod in?")
    assert roles.asks_region("which availability zones does the database use")
    assert not roles.asks_region("what time zone are timestamps stored in?")


REGIONS = [
    "The cluster runs in europe-west4; nightly backups are copied to europe-west1",
    "An invoice's region field is the customer's billing country",
    "We deploy every Tuesday after the standup",
    "Logs are kept for 30 days",
]


def test_a_region_question_finds_the_region_name(memx: Memx,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import_texts(memx, REGIONS)
    query = "what region do we run in?"

    def roled() -> dict[str, float]:
        return {hit["content"]: hit["explain"]["voices"]["role"]
                for hit in explained(memx, query)}

    said = roled()
    assert said[REGIONS[0]] > 0
    assert said.get(REGIONS[1], 0.0) == 0.0  # the word "region" is no region's name
    # the control: a question that does not ask for a region gives it no role
    monkeypatch.setattr(roles, "asks_region", lambda query: False)
    assert all(value == 0.0 for value in roled().values())


def test_a_warm_searcher_hears_a_tool_the_store_names_after_its_first_search(
        store: Memx, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names of a role a store holds are kept per text index searcher (issue 29):
    the same searcher asks the term dictionary once, a change to the store (another
    searcher) asks again, so a tool named since is heard."""
    from memx_cli.freshness.journal import Watched, Watcher
    from memx_cli.generator.search import Searcher
    from memx_cli.store.repo import Repo

    monkeypatch.setenv("MEMX_NOW", "2026-12-01T12:00:00Z")
    query = "where do crashes get reported?"
    watcher = Watcher()
    try:
        warm = Searcher(Repo(store.cwd), freshness=Watched(watcher))

        def roled() -> list[str]:
            hits = warm.search(query, closest=True, record_recalls=False).hits
            return [h.doc["content"] for h in hits if "role" in h.layers]

        assert roled() == [STORE[0]]
        kept = {place: dict(names) for place, (_, names) in rolevoice._held_names.items()}
        assert kept and any(kept.values())
        assert roled() == [STORE[0]]
        assert all(rolevoice._held_names[place][1][role] is names  # asked once
                   for place, held in kept.items() for role, names in held.items())
        import_texts(store, ["The web client reports to Bugsnag (`bugsnag-js`)"])
        found = roled()
        assert any("Bugsnag" in text for text in found)
        fresh = Searcher(Repo(store.cwd)).search(query, closest=True, record_recalls=False)
        assert [h.id for h in warm.search(query, closest=True, record_recalls=False).hits] == [
            h.id for h in fresh.hits]
    finally:
        watcher.stop()
