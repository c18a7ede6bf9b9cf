"""The rules mode's shortcuts (issue 24: ≤ 10 ms a 2,000-token session) give what the
plain reading gives: a lexicon's hits, a turn's language, a pattern searched once a turn,
the sanitizer's shared guards."""

from __future__ import annotations

import random
import re

from memx_cli.privacy.patterns import Pattern
from memx_cli.privacy.sanitizer import Sanitizer
from memx_cli.reflector.signals import Signals, sentence_spans
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import Lexicon, language, words_of

PHRASES = ["fix", "turned out", "the fix is", "set the pool size", "root cause*", "retr*",
           "did not work", "the"]
WORDS = ["the", "fix", "is", "turned", "out", "set", "pool", "size", "root", "causes",
         "cause", "retrying", "retry", "did", "not", "work", "outer"]


def _plain(lexicon: Lexicon, text: str) -> list[tuple[str, int, int]]:
    """Every phrase read at every word, one by one: the oracle for ``Lexicon.find``."""
    words = words_of(text)
    found = []
    for phrase in lexicon.phrases:
        prefix = phrase.endswith("*")
        parts = phrase.rstrip("*").split()
        for i in range(len(words) - len(parts) + 1):
            said = [w.text for w in words[i:i + len(parts)]]
            if said[:-1] != parts[:-1]:
                continue
            if not (said[-1].startswith(parts[-1]) if prefix else said[-1] == parts[-1]):
                continue
            if any(text[words[k].end:words[k + 1].start].strip()
                   for k in range(i, i + len(parts) - 1)):
                continue
            found.append((phrase, words[i].start, words[i + len(parts) - 1].end))
    return sorted(found, key=lambda hit: (hit[1], hit[2], hit[0]))


def test_lexicon_hits_are_every_phrase_read_word_by_word() -> None:
    lexicon = Lexicon(PHRASES)
    rng = random.Random(24)
    hit_any = 0
    for _ in range(300):
        text = " ".join(rng.choice(WORDS) + rng.choice(["", "", "", ",", "."])
                        for _ in range(rng.randint(1, 14)))
        found = lexicon.find(words_of(text), text)
        got = sorted(((h.phrase, h.start, h.end) for h in found),
                     key=lambda hit: (hit[1], hit[2], hit[0]))
        assert got == _plain(lexicon, text), text
        assert [h.start for h in found] == sorted(h.start for h in found)
        hit_any += bool(found)
    assert hit_any > 100  # the texts do meet the phrases


def _phrases(lexicon: Lexicon, text: str) -> list[str]:
    return [h.phrase for h in lexicon.find(words_of(text), text)]


def test_a_phrase_needs_every_word_and_no_punctuation_between() -> None:
    lexicon = Lexicon(["set the pool size", "turned out"])
    assert _phrases(lexicon, "we set the pool size") == ["set the pool size"]
    assert _phrases(lexicon, "we set the pool limit") == []  # the last word differs
    assert _phrases(lexicon, "we set a pool size") == []  # a middle word differs
    assert _phrases(lexicon, "it turned out fine") == ["turned out"]
    assert _phrases(lexicon, "it turned, out") == []  # punctuation between


def test_the_language_of_the_turns_words_is_the_language_of_its_text() -> None:
    french = "Le test est rouge, mais avec la pool ça passe pour nous dans le CI. " * 3
    assert language(french, words_of(french)) == language(french) == "fr"
    english = "The checkout test is red again, can you look at it? " * 3
    assert language(english, words_of(english)) == language(english) == "en"
    # the sample's end cuts a word ("don't" read as "don"), non-ASCII text lowercases to
    # other offsets: both read the sample again
    for text in ("x " * 1998 + "don't " + "est la le " * 50,
                 "a" * 3998 + " le la les des est une pas " * 30,
                 "İ" * 10 + " le la les des est une pas pour avec " * 200,
                 "c’est la vie, c’est le code " * 3):
        assert language(text, words_of(text)) == language(text)


def _signals(text: str) -> Signals:
    return Signals(Turn(1, "user", text), text, words_of(text), "en", sentence_spans(text))


def test_a_pattern_searched_once_a_turn_answers_as_its_search() -> None:
    still = re.compile(r"(?i)\bstill\b")
    said = _signals("It still fails on CI.")
    assert said.says(still) and said.says(still)
    other = _signals("It passes now.")  # control: another turn, its own answer
    assert not other.says(still)
    assert not said.says(re.compile(r"passes"))


def test_a_guard_lets_its_pattern_run_on_the_text_it_is_found_in() -> None:
    shared = (Pattern("one", re.compile(r"q\d{3}"), guard=("zz", "yy")),
              Pattern("two", re.compile(r"w\d{3}"), guard=("yy",)))
    sanitizer = Sanitizer(more=shared)
    assert sanitizer.sanitize("q123 w456") == "q123 w456"  # no guard in the text: not run
    assert sanitizer.sanitize("yy q123 w456") == "yy [REDACTED:one] [REDACTED:two]"
    assert sanitizer.sanitize("zz q123 w456") == "zz [REDACTED:one] w456"
    # patterns set after the sanitizer was made are guarded by their own guards
    sanitizer.patterns = (Pattern("three", re.compile(r"k\d{3}"), guard=("vv",)),)
    assert sanitizer.sanitize("vv k123 q123") == "vv [REDACTED:three] q123"
    assert sanitizer.sanitize("k123") == "k123"
