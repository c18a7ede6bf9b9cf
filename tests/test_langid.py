"""Which European language a short query is written in, by its function words
(memx_cli/generator/langid.py, issue 25): the e5 voice's ``auto`` reads such a question with e5
even when it holds no accent."""

from __future__ import annotations

import pytest

from memx_cli.generator.langid import foreign_language
from memx_cli.generator.relevance import words

# Written for this test: short questions about a repository, one or two per language,
# none with an accent.
FOREIGN = [("Wie wird der Cache geleert?", "de"),
           ("Welche Python Version nutzen wir im Build", "de"),
           ("Comment on lance les tests?", "fr"),
           ("Quel est le port du serveur", "fr"),
           ("Donde se guardan los logs?", "es"),
           ("Como se configura el proxy para staging", "es"),
           ("Onde ficam os logs do servidor?", "pt"),
           ("Come si avviano i test in locale?", "it"),
           ("Hoe worden de logs opgeslagen?", "nl")]

# Controls: English keywords, tool names and identifiers, and English sentences holding
# words other languages use as small words (die, per, non, CI, de, la, los, van).
ENGLISH = ["pnpm install", "deploy rollback", "sidekiq retry config", "los_angeles timezone",
           "die on startup", "set_value del key", "la la land", "de dupe logs",
           "es modules os support", "comment syntax in c", "per request timeout non zero",
           "van der waals", "ci(workflow): make typescript check non-blocking temporarily",
           "Non-interactive ECR lookup; add per-agent outputs",
           "where do the logs go", "Whose birthday did Melanie celebrate recently?",
           "What did Caroline and Melanie do in the park on Sunday?"]


@pytest.mark.parametrize(("query", "language"), FOREIGN)
def test_a_question_without_accents_is_told_by_its_function_words(query: str,
                                                                    language: str) -> None:
    assert foreign_language(words(query)) == language


@pytest.mark.parametrize("query", ENGLISH)
def test_english_is_never_read_as_another_language(query: str) -> None:
    assert foreign_language(words(query)) is None


def test_one_function_word_or_a_small_share_is_too_little() -> None:
    assert foreign_language(words("Cache leeren")) is None  # no function word at all
    assert foreign_language(words("der Cache")) is None  # one: too little to tell
    assert foreign_language(words("der Cache und")) == "de"  # two different ones
    # two in a long run of names: under a quarter of the words
    assert foreign_language(words("der redis sidekiq postgres kafka cache und nginx helm")) is None
    assert foreign_language(words("")) is None
