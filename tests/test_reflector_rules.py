"""The five rules, the scorer, the distiller: word-level matching, languages, traces as
evidence, classification, self-contained text."""

from __future__ import annotations

import pytest

from memx_cli.reflector import reflect_text
from memx_cli.reflector.detector import CONFIDENCE, PatternDetector
from memx_cli.reflector.distiller import shorten, tidy
from memx_cli.reflector.pipeline import Item, Settings
from memx_cli.reflector.signals import analyse
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import Lexicon, words_of


def one(text: str, **settings: object) -> Item:
    items = reflect_text(text, Settings(**settings))  # type: ignore[arg-type]
    assert len(items) == 1, items
    return items[0]


def test_rule_confidences_are_the_specified_ones() -> None:
    assert CONFIDENCE == {"ErrorFix": 0.8, "RetrySuccess": 0.7, "ConfigChange": 0.6,
                          "NewTool": 0.65, "RepetitiveOp": 0.5, "Preference": 0.7,
                          "Convention": 0.75, "Decision": 0.75, "CIFailure": 0.7,
                          "WorkReport": 0.6, "Fact": 0.6}


def test_words_are_matched_whole_never_inside_other_words() -> None:
    lexicon = Lexicon(["use", "turned out", "résolu*", "오류", "报错"])
    found = lambda text: [h.phrase for h in lexicon.find(words_of(text), text)]  # noqa: E731
    assert found("because it is confusing, abuse, user, used") == []
    assert found("We use it") == ["use"]
    assert found("it turned  out fine") == ["turned out"]
    assert found("it turned, out") == []
    assert found("problème résolus hier") == ["résolu*"]
    assert found("오류가 났다") == ["오류"]
    assert found("启动就报错了") == ["报错"]


def test_error_fix_from_a_stack_trace_and_a_later_fix() -> None:
    text = ("User: the tests crash:\nTraceback (most recent call last):\n"
            "  File \"app/db.py\", line 12, in connect\n    pool = Pool(size)\n"
            "TypeError: 'NoneType' object cannot be interpreted as an integer\n\n"
            "Assistant: POOL_SIZE is unset in the test env, so `size` is None. "
            "The fix is to default it: `int(os.environ.get('POOL_SIZE', 10))`.")
    assert reflect_text(text) == []  # an unconfirmed suggestion is not a lesson (issue 13)
    item = one(text + "\n\nUser: that did it, thanks")
    assert (item.rule, item.section, item.type, item.confidence) == (
        "ErrorFix", "debugging", "pitfall", 0.8)
    assert item.content.startswith("Error: TypeError: 'NoneType' object cannot be interpreted as "
                                   "an integer. Fix: ")
    assert "`int(os.environ.get('POOL_SIZE', 10))`" in item.content
    assert "TypeError" in item.entities and item.score >= 80


def test_a_trace_alone_or_a_question_is_nothing_to_learn() -> None:
    assert reflect_text("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                        "ValueError: bad value") == []
    assert reflect_text("How do I fix `TypeError: x is not a function`?") == []
    assert reflect_text("Is it fixed now?") == []


def test_negated_fixes_do_not_count() -> None:
    assert reflect_text("The deploy fails with `ECONNREFUSED`. Restarting did not fix it.") == []
    assert reflect_text("构建报错 `Cannot find module 'x'`，还是没解决。") == []


def test_retry_success_in_one_message_and_across_turns() -> None:
    item = one("The build broke after the upgrade. Tried `npm cache clean` and a fresh clone, "
               "neither worked; pinning node to 20.11 in .nvmrc fixed it.")
    assert (item.rule, item.type, item.content) == (  # the lesson is what worked, only that
        "RetrySuccess", "trick", "Error: The build broke after the upgrade. Fix: pinning node "
        "to 20.11 in .nvmrc fixed it.")
    turns = ("User: the migration keeps failing with a lock timeout\n\n"
             "Assistant: Try running it outside the transaction.\n\n"
             "User: tried that, still fails\n\n"
             "Assistant: Then set `lock_timeout = '10s'` and retry at night.\n\n"
             "User: that worked on the third attempt")
    items = reflect_text(turns)
    assert [i.rule for i in items] == ["RetrySuccess"]  # the proposal is not a ConfigChange too
    assert "`lock_timeout = '10s'`" in items[0].content


@pytest.mark.parametrize(("text", "rule"), [
    ("Raised MAX_POOL_SIZE from 10 to 50 after the load test.", "ConfigChange"),
    ("把 Redis 连接池大小从 10 改成 50。", "ConfigChange"),
    ("ワーカー数を 4 から 8 に変更した。", "ConfigChange"),
    ("nginx의 worker_connections 설정을 1024에서 4096으로 변경했다.", "ConfigChange"),
    ("J'ai passé la variable d'environnement WORKERS de 2 à 8.", "ConfigChange"),
    ("First time using pnpm, much faster than npm.", "NewTool"),
    ("第一次用 uv 管理依赖，比 pip 快多了。", "NewTool"),
    ("初めて Bun を使ってみた。", "NewTool"),
    ("처음으로 pnpm을 써봤는데 빠르다.", "NewTool"),
    ("Première fois que j'utilise Playwright, très stable.", "NewTool"),
    ("Every deploy I have to clear the cache by hand.", "RepetitiveOp"),
    ("每次部署都要手动清缓存。", "RepetitiveOp"),
    ("毎回デプロイのたびに手動でキャッシュを削除しないといけない。", "RepetitiveOp"),
    ("배포할 때마다 수동으로 캐시를 지워야 한다.", "RepetitiveOp"),
    ("À chaque déploiement, il faut vider le cache à la main.", "RepetitiveOp"),
])
def test_each_rule_in_each_language(text: str, rule: str) -> None:
    assert one(text).rule == rule


def test_sections_and_types_follow_the_content() -> None:
    assert one("We switched to ruff, it is much faster than flake8.").type == "trick"
    assert one("Set `strict: true` in tsconfig.json from now on, we changed it from false.") \
        .section == "tools"
    assert one("Whenever you change the schema, you have to run `npm run codegen`.") \
        .section == "commands"
    assert one("I prefer to raise `MAX_WORKERS` from 4 to 8 on deploy.").section == "preferences"


def test_min_score_drops_weak_candidates() -> None:
    text = "Every time I have to do it by hand."
    assert one(text).score < 40
    assert reflect_text(text, Settings(min_score=40)) == []


def test_distilled_text_is_cut_at_a_sentence_boundary() -> None:
    text = "First sentence here. Second one is longer than the first. Third."
    assert shorten(text, 40) == "First sentence here."
    assert shorten(text, 200) == text
    assert len(shorten("word " * 200, 60)) <= 60
    long = ("The build fails with `TypeError: x`. The fix was to pin typescript to 5.4, " * 20)
    assert len(one(long, max_length=120).content) <= 120


def test_one_error_yields_one_memory() -> None:
    detector = PatternDetector()
    found = [detector.feed(Turn(i, role, text)) for i, (role, text) in enumerate([
        ("user", "pytest fails: `ImportError: cannot import name 'x'`"),
        ("assistant", "The issue is a circular import; moving the import into the function "
                      "fixes it."),
        ("user", "that fixed it, thanks!")], 1)]
    # an episode's lesson is held to the session's end: a later fix may overturn it
    found.append(detector.finish())
    assert [[c.rule for c in f] for f in found] == [[], [], [], ["ErrorFix"]]
    assert found[3][0].fix.startswith("The issue is a circular import")


def test_tool_output_is_evidence_not_a_statement() -> None:
    sig = analyse(Turn(3, "tool", "fixed 3 files\nerror: could not lock config file",
                       "tool_result", command="git config x y", failed=True))
    assert sig.has_error and not sig.has_fix
    assert sig.key_error == "error: could not lock config file"


def test_system_prompts_and_successful_tool_output_are_not_knowledge() -> None:
    system = analyse(Turn(1, "system", "Every time you edit a file you must run `make test`."))
    assert system.repeat == [] and not system.has_fix
    read = analyse(Turn(2, "tool", "def check(x):\n    raise ValueError('bad value')\n",
                        "tool_result", command=None, failed=False))
    assert not read.has_error
    unknown = analyse(Turn(3, "tool", "the error handler logs errors\nTypeError: boom",
                           "tool_result", failed=None))
    assert (unknown.errors, unknown.key_error) == ([], "TypeError: boom")


def test_a_glob_keeps_its_double_star_while_bold_marks_go() -> None:
    # a formatter's command quoted from a log: `prettier --check "src/**/*.ts"` lost its
    # "**" with the bold marks and read "src//*.ts"
    assert tidy('runs `prettier --check "src/**/*.{ts,tsx}"` and **/*.md') == \
        'runs `prettier --check "src/**/*.{ts,tsx}"` and **/*.md'
    # control: Markdown's bold marks around words still go
    assert tidy("- **Note:** use **pnpm**, never npm") == "Note: use pnpm, never npm"
