"""Issue 25: questions understood as questions. The grammar of a question ("how do I",
"where is", "which ... do we use", "why does ... fail"; Chinese too) is a mild prior toward
the memories whose form answers it (a command, a path, a rule, an error and its cause)."""

from __future__ import annotations

import json

import pytest

from memx_cli.generator import questions
from memx_cli.generator.questions import (
    CAUSE,
    CHOICE,
    LOCATION,
    OWNER,
    PROCEDURE,
    QUANTITY,
    answers,
    intent,
    read,
)

from .conftest import Memx, explained, import_texts


@pytest.mark.parametrize(("query", "asked"), [
    ("How do I deploy to staging?", PROCEDURE),
    ("how to rotate the signing key", PROCEDURE),
    ("so how are emails hidden from analysts?", PROCEDURE),
    ("where do the logs go", LOCATION),
    ("Where is the nginx config?", LOCATION),
    ("which formatter do we run?", CHOICE),
    ("what package manager do we use", CHOICE),
    ("what DI framework is used?", CHOICE),
    ("why does the docker build fail on the new laptops?", CAUSE),
    ("Why is the nightly export slow", CAUSE),
    ("如何部署到预发环境？", PROCEDURE),
    ("日志写在哪里？", LOCATION),
    ("我们用什么格式化工具？", CHOICE),
    ("为什么构建会失败？", CAUSE),
    ("who owns the billing service?", OWNER),
    ("Who do I ask for prod access", OWNER),
    ("谁负责计费服务？", OWNER),
    ("how many retries before a job is dropped?", QUANTITY),
    ("how long are the logs kept", QUANTITY),
    ("what should specs use to build records?", CHOICE),
    # no question memx reads: a statement, a yes/no question, a definition
    ("docker build fails on the new laptops", None),
    ("how long-lived tokens are issued", None),
    ("is the cache shared between workers?", None),
    ("what region is prod in", None),
])
def test_the_grammar_of_the_question(query: str, asked: str | None) -> None:
    assert intent(query) == asked


def test_a_query_the_cheap_check_passes_over_asks_nothing() -> None:
    """Issue 29: the intent patterns are compiled and run only for an ASCII query that
    holds a question word's start; no query of a grid of question words (any case),
    leads and fillers that the patterns match may fail that check."""
    import itertools

    words = ["so", "ok", "Why", "WHAT", "causes", "How", "come", "do", "to", "in", "which",
             "file", "Where", "is", "the", "way", "we", "use", "used", "deploy", "?", ","]
    queries = [" ".join(c) for n in (1, 2, 3) for c in itertools.product(words, repeat=n)]
    asked = [q for q in queries
             if any(p.search(q) for _, p in questions._intent_patterns())]
    assert len(asked) > 1000
    assert [q for q in asked if intent(q) is None] == []
    assert intent("deploy the billing service") is None and intent("为什么 会超时") == CAUSE


@pytest.mark.parametrize(("text", "shape"), [
    ("Release with `make release VERSION=x`", PROCEDURE),
    ("Install it:\n$ pip install -e .", PROCEDURE),
    ("Run `tox` before pushing", PROCEDURE),
    ("Logs are written to /var/log/app/ on each host", LOCATION),
    ("The lockfile is pnpm-lock.yaml", LOCATION),
    ("Dashboards: https://grafana.example.com", LOCATION),
    ("Use ruff for formatting.", CHOICE),
    ("- Never commit a .env file", CHOICE),
    ("We moved to uv instead of pip-tools", CHOICE),
    ("Imports fail with ModuleNotFoundError when the venv is stale", CAUSE),
    ("The export was slow because it read every partition", CAUSE),
    ("Billing is owned by the payments team", OWNER),
    ("Request write access in #data-access", OWNER),
    ("Jobs are retried 3 times, then dropped", QUANTITY),
    ("Sessions expire after two weeks", QUANTITY),
])
def test_the_shape_of_an_answer(text: str, shape: str) -> None:
    assert answers(shape, text)
    plain = "Billing meets on Tuesdays and the invoice service sends invoices monthly"
    assert not any(answers(other, plain)
                   for other in (PROCEDURE, LOCATION, CHOICE, CAUSE, OWNER, QUANTITY))


def test_a_digit_inside_a_name_is_no_quantity() -> None:
    assert not answers(QUANTITY, "Marts are built from fct_orders_v2 and dim_2fa tables")
    assert answers(QUANTITY, "Marts are rebuilt every 6 hours")


@pytest.mark.parametrize(("query", "plain"), [
    ("How do I deploy to staging?", "How deploy to staging?"),
    ("where do the logs go", "where the logs go"),
    ("which formatter do we use?", "which formatter ?"),
    ("what DI framework is used?", "what DI framework ?"),
    ("what should specs use to build records?", "what specs to build records?"),
    ("which test runner does this project use?", "which test runner this project ?"),
    ("who do I ask for prod access", "who ask for prod access"),
    ("how many retries before a job is dropped?", "how retries before a job is dropped?"),
    ("how fast must the app start", "how fast must the app start"),  # the measure stays
    ("how did we fix the flaky test?", "how did fix the flaky test?"),  # the past stays
    # kept whole: no question, a question in another language, a question that is all form
    ("deploy to staging", "deploy to staging"),
    ("我们用什么格式化工具？", "我们用什么格式化工具？"),
    ("comment déployer en préproduction ?", "comment déployer en préproduction ?"),
    ("why?", "why?"),
])
def test_the_form_words_of_a_question_are_left_out(query: str, plain: str) -> None:
    """The auxiliary, the asker and "do we use" go; the question word and a past tense's
    auxiliary stay."""
    assert read(query) == (intent(query), plain)


# Two memories on each subject: one that answers the question's kind (a command, a path,
# a cause), one about the same thing that shares as many of its words but answers
# nothing. Without the prior the second ranked first (checked on the code before it).
STORE = [
    "Deploying to staging: staging deploys go out from the main branch, and every deploy "
    "to staging is announced in #releases",
    "To deploy a branch to staging: `make deploy ENV=staging`",
    "The nightly export job writes one CSV per tenant and the nightly export emails a "
    "summary to finance",
    "The nightly export used to time out because it read every partition; it now filters "
    "on the export date",
]


@pytest.fixture
def store(memx: Memx) -> Memx:
    return import_texts(memx, STORE)


def _first(memx: Memx, query: str) -> dict:
    found = explained(memx, query)
    assert found, query
    return found[0]


def test_a_how_question_prefers_the_command(store: Memx) -> None:
    top = _first(store, "how do I deploy to staging?")
    assert top["content"] == STORE[1]
    assert top["explain"]["factors"]["question"] == questions.QUESTION_FACTOR
    assert "x question 1.15" in store.ok("search", "how do I deploy to staging?", "--explain")


def test_a_why_question_prefers_the_cause(store: Memx) -> None:
    assert _first(store, "why does the nightly export fail?")["content"] == STORE[3]


def test_a_statement_gets_no_prior(store: Memx) -> None:
    """The same words without the question's grammar: no factor, the words decide."""
    top = _first(store, "deploy to staging")
    assert "question" not in top["explain"]["factors"]


def test_the_prior_orders_but_never_makes_relevant(store: Memx) -> None:
    """Relevance (the "nothing relevant" answer) is the same with and without the prior."""
    def relevance(query: str) -> dict[str, float]:
        out = json.loads(store.ok("search", query, "--json", "--closest", "--limit", "4"))
        return {r["content"]: r["relevance"] for r in out["results"]}

    assert relevance("how do I deploy to staging?") == relevance("deploy to staging")


# The form of a question leans the meaning of the whole toward memories that say it: "do
# we use" toward the shared config "we use". The meaning layer gets the question without
# it; the words keep "use", which a rule's "Use pnpm" still matches. The team's memory
# answers "who".
FORMS = [
    "The linter config is shared: every service uses the same rules, and we use them in CI",
    "Lint Python with ruff, the linter of the repository, and format with ruff format",
    "Warehouse access is read-only for analysts, and access logs are kept for a year",
    "Write access to the warehouse is granted by the data platform team; request it in "
    "#data-access",
    "Deploying to staging: staging deploys go out from the main branch",
    "Use pnpm, never npm; the lockfile is pnpm-lock.yaml.",
    "Postgres is the primary database; Redis caches sessions",
]


@pytest.fixture
def forms(memx: Memx) -> Memx:
    return import_texts(memx, FORMS)


def _ranking(memx: Memx, query: str) -> list[str]:
    out = json.loads(memx.ok("search", query, "--json", "--closest", "--limit", "3"))
    return [r["content"] for r in out["results"]]


def test_a_choice_question_means_without_its_form(forms: Memx) -> None:
    """Before: the shared-config memory ranked first (0.54 vs 0.45)."""
    asked = _ranking(forms, "which linter do we use?")
    assert asked[0] == FORMS[1]
    # the control: the statement ranks the two linter memories the same way ("use" still
    # matches a rule below them)
    assert asked[:2] == _ranking(forms, "linter")[:2]


def test_a_choice_question_keeps_its_words(forms: Memx) -> None:
    """"use" is still a word searched: the rule naming the package manager answers,
    not the memory nearest in meaning (the database; it came first with "use" left out of
    the words too)."""
    assert _ranking(forms, "which package manager do we use")[0] == FORMS[5]


def test_a_who_question_prefers_the_owner(forms: Memx) -> None:
    top = _first(forms, "who do I ask for warehouse access?")
    assert top["content"] == FORMS[3]
    assert top["explain"]["factors"]["question"] == questions.QUESTION_FACTOR
    statement = _first(forms, "warehouse access")  # the control: no question, no factor
    assert "question" not in statement["explain"]["factors"]
