"""Which European language a short text in Latin letters is written in, by its function words.

A question's function words (articles, prepositions, pronouns, the question words and
the commonest verbs) carry its language even when it holds no accent and names only
English tools: "Wie wird der Cache geleert?", "Comment on lance les tests?", "Donde se
guardan los logs?". Running text in any of these languages is 40-50 % function words,
a question about a tool still a quarter or more; an English query holds almost none of
another language's, because a word English also uses as a small word (in, a, is, was,
no, on, so) never counts here. The lists are each language's commonest small words, from
general knowledge of the language, not from any query set.

This is for a query only (a sentence or two): the reflector's own detection over whole
texts is reflector/vocab.language.
"""

from __future__ import annotations

from collections.abc import Sequence

from memx_cli.textproc import STOP_WORDS

_FUNCTION_WORDS: dict[str, str] = {
    "de": "der die das den dem des ein eine einen einem einer und ist nicht zu mit von sich "
          "auf für wie wird werden wurde sind ich wir ihr sie er es auch noch nach bei aus "
          "wenn warum wo wann welche welcher welches kann können muss müssen oder aber "
          "in an am so was schon nur im vom zum zur beim gibt habe haben dass wer wieso "
          "weshalb unsere mein",
    "fr": "le la les un une des du de et est en que qui quoi dans pour par sur pas ne au "
          "aux ce cette ces il elle ils nous vous se sa ses mais ou où avec sont comment "
          "quand quel quelle quels quelles pourquoi faut peut être avoir qu l lors notre "
          "leur leurs a me",
    "es": "el la los las un una unos unas de del al y que qué en es se por para con sin "
          "como cómo donde dónde cuando cuándo cual cuál cuales cuáles cuanto cuánto su sus "
          "lo le les pero más está están hay puede hacer este esta estos esto ese esa nos "
          "muy ya porque quién quien nuestro nuestra a no me",
    "pt": "o os as um uma de da dos das em na nas nos e que é se por para com sem como "
          "onde quando qual quais porque não mais mas ao aos ser está estão são tem há foi "
          "pode seu sua isso este esta eu nós você nosso nossa a no do me",
    "it": "il lo la gli le un una uno di del della dei delle da con su tra fra e è "
          "che chi si come dove quando quale quali perché cosa sono sia ha hanno viene "
          "vengono essere ne nel nella al alla questo questa anche ma più può nostro a i in "
          "no mi",
    "nl": "de het een en van dat die niet op te met voor zijn er aan om hoe waar wanneer "
          "waarom wat welke wordt worden werd kan moet ook nog bij naar uit als maar dan je "
          "wij ik ze deze dit hebben heeft onze in is an was me",
}
# A word English also uses as a small word (in, a, is, was, no, me: spelled in the lists
# where the language has it) is evidence of neither language. Words a developer writes
# in English (Italian's "non", "per" and "ci": non-blocking, per request, CI) are left
# out of the lists.
_SPELLED: dict[str, frozenset[str]] = {
    lang: frozenset(spelled.split()) for lang, spelled in _FUNCTION_WORDS.items()
}
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    lang: words - STOP_WORDS for lang, words in _SPELLED.items()
}
# The best language's function words must be at least MIN_DISTINCT different words
# and at least SHARE of the query's words (a question in one of these languages about an
# English tool: 3 of "Wie wird der Cache geleert" 5), and outnumber its English small words.
MIN_DISTINCT = 2
SHARE = 0.25


def foreign_language(said: Sequence[str]) -> str | None:
    """The language (de, fr, es, pt, it, nl) whose function words make up a quarter or
    more of the words ``said`` (two different ones at least, more than the English
    stop words among them), or None: English, or too little to tell."""
    lowered = [word.lower() for word in said]
    if not lowered:
        return None
    best, best_count = None, 0
    for lang, markers in FUNCTION_WORDS.items():
        found = [word for word in lowered if word in markers]
        if (len(set(found)) < MIN_DISTINCT or len(found) <= best_count
                or len(found) < SHARE * len(lowered)):
            continue
        english = sum(word in STOP_WORDS and word not in _SPELLED[lang] for word in lowered)
        if len(found) > english:
            best, best_count = lang, len(found)
    return best
