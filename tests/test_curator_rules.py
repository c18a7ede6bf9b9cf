"""The Curator's rules as functions: contradictions (English and Chinese), similarity,
the duplicate guards and merging (SPEC 3.2)."""

from __future__ import annotations

import pytest

from memx_cli.curator import Settings, is_duplicate, is_near_identical
from memx_cli.curator.contradiction import detect
from memx_cli.curator.merge import combined_text, merge, raised_confidence
from memx_cli.curator.similarity import Entry, Pool, Similarity, jaccard, word_set
from memx_cli.store.memory import Memory


@pytest.mark.parametrize(
    ("old", "new", "kind", "clear", "why"),
    [
        ("Redis pool size 10 is enough", "Redis pool size must be at least 50 for stability",
         "value", False, 'different values for "pool size": 10 vs 50'),
        ("set timeout to 300ms", "changed the timeout to 500ms", "value", True,
         'different values for "timeout": 300ms vs 500ms'),
        ("MAX_POOL_SIZE is 10", "We raised MAX_POOL_SIZE from 10 to 50", "value", True,
         'different values for "max_pool_size": 10 vs 50'),
        ("We build with Python 3.10", "Upgraded the build to Python 3.11", "value", True,
         'different values for "python": 3.10 vs 3.11'),
        ("Tests need REDIS_URL=redis://localhost:6379/15",
         "Tests need REDIS_URL=redis://localhost:6379/14", "value", False,
         'different values for "redis_url": redis://localhost:6379/15 vs '
         "redis://localhost:6379/14"),
        ("数据库连接池大小设置为50", "数据库连接池大小改为100", "value", True,
         'different values for "数据库连接池大小": 50 vs 100'),
        ("超时时间设为300毫秒", "超时时间设为500毫秒", "value", False,
         'different values for "超时时间": 300毫秒 vs 500毫秒'),
        ("Always run the linter before pushing", "Never run the linter before pushing",
         "negation", False, 'negation: one says "never run the linter", the other says the '
         "opposite"),
        ("We use npm for installs", "We no longer use npm for installs", "negation", True,
         'negation: one says "no longer use npm for installs", the other says the opposite'),
        ("The man is slicing a potato", "The man is not slicing the potato", "negation", False,
         'negation: one says "not slicing the potato", the other says the opposite'),
        ("用npm安装依赖", "不要用npm安装依赖", "negation", False,
         'negation: one says "不要用 npm 安装依赖", the other says the opposite'),
        ("Enable the build cache in CI jobs", "Disable the build cache in CI jobs", "opposite",
         False, 'opposite words: "enable" vs "disable"'),
        ("Turn on the feature flag in staging", "Turn off the feature flag in staging",
         "opposite", False, 'opposite words: "on" vs "off"'),
        ("启用构建缓存", "禁用构建缓存", "opposite", False, 'opposite words: "启用" vs "禁用"'),
    ],
)
def test_contradictions(old: str, new: str, kind: str, clear: bool, why: str) -> None:
    found = detect(old, new)
    assert found is not None
    assert (found.kind, found.clear, found.why) == (kind, clear, why)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("set timeout to 300ms", "set timeout to 0.3s"),          # the same value
        ("memory 0", "memory 1"),                                  # labels, not settings
        ("Use pnpm, not npm, in this repo", "Use pnpm not npm"),   # both negate npm
        ("don't use npm, use pnpm", "use pnpm"),                   # npm is not stated
        ("good", "bad"),                                           # nothing in common
        ("Put the book on the table", "Take the book off the table"),  # not a phrasal pair
        ("Jon: I never give up on my dance studio", "Gina: that studio is a dream, keep going"),
    ],
)
def test_not_contradictions(old: str, new: str) -> None:
    assert detect(old, new) is None


def test_jaccard_masks_numbers_so_a_changed_value_is_the_same_sentence() -> None:
    assert word_set("Timeout 300ms") == word_set("timeout 500ms") == frozenset({"timeout", "#ms"})
    assert jaccard(word_set("a b c"), word_set("a b d")) == 0.5
    assert word_set("连接池", mask_numbers=False) == frozenset({"连接", "接池"})


def test_duplicate_guards() -> None:
    plain = Similarity(None)
    settings = Settings()
    assert is_duplicate("pool size 10", "pool size 10.", 1.0, plain, settings)
    assert not is_duplicate("pool size 10", "pool size 50", 1.0, plain, settings)
    assert not is_duplicate("a man is standing", "a man is running", 0.95, plain, settings)
    # Below the threshold only the same content words (in any order or form) are a copy.
    assert not is_duplicate("pool size 10", "pool size 10 per worker", 0.89, plain, settings)
    assert is_duplicate("pool size 10", "the size of the pool is 10", 0.6, plain, settings)
    # Polarity and subject come before any similarity (issue 12).
    assert not is_duplicate("Always enable strict mode", "Never enable strict mode", 1.0,
                            plain, settings)
    assert not is_duplicate("auth service uses port 80", "billing service uses port 80",
                            0.99, plain, settings)
    assert is_near_identical("Use pnpm, not npm.", "use pnpm not npm", 0.5)
    assert not is_near_identical("Use pnpm", "Use pnpm here", 0.97)


def test_word_swaps_are_judged_by_meaning_with_the_model() -> None:
    from memx_cli.embed import load_encoder

    model = Similarity(load_encoder(None))
    assert model.same_meaning_words("the server is big", "the server is large")
    assert not model.same_meaning_words("a dog is standing in the field",
                                        "a dog is running in the field")


def _mem(memory_id: str, content: str, **extra: object) -> Memory:
    return Memory(id=memory_id, content=content, created_at="2026-01-01T00:00:00Z",
                  updated_at="2026-01-01T00:00:00Z", **extra)  # type: ignore[arg-type]


def test_confidence_rule() -> None:
    imported = _mem("01aaaaaaaaaaaaaaaaaaaaaaaa", "x", veracity="imported", confidence=0.6)
    assert raised_confidence(imported, _mem("01bbbbbbbbbbbbbbbbbbbbbbbb", "x")) == 0.7
    assert raised_confidence(imported, _mem("01bbbbbbbbbbbbbbbbbbbbbbbb", "x",
                                            veracity="tool")) == 0.65
    full = _mem("01aaaaaaaaaaaaaaaaaaaaaaaa", "x", veracity="stated", confidence=1.0)
    assert raised_confidence(full, imported) == 1.0
    unset = _mem("01aaaaaaaaaaaaaaaaaaaaaaaa", "x", veracity="inferred")
    assert raised_confidence(unset, imported) == 0.76


def test_keep_best_prefers_instructivity_then_length() -> None:
    old = _mem("01aaaaaaaaaaaaaaaaaaaaaaaa", "short text", instructivity=80, tags=("a",))
    new = _mem("01bbbbbbbbbbbbbbbbbbbbbbbb", "a much longer text", instructivity=40, tags=("b",))
    kept = merge(old, new, "keep_best", "2026-02-01T00:00:00Z")
    assert (kept.id, kept.content, kept.tags, kept.mention_count, kept.instructivity) == (
        old.id, "short text", ("a", "b"), 2, 80)
    assert kept.updated_at == "2026-02-01T00:00:00Z"
    taken = merge(old.replace(instructivity=None), new.replace(instructivity=None), "keep_best",
                  "2026-02-01T00:00:00Z")
    assert taken.content == "a much longer text"


def test_combined_text_adds_only_new_sentences() -> None:
    assert combined_text("Run tests with pytest. Use -x to stop early.",
                         "Use -x to stop early. Add -q for quiet output.") == (
        "Run tests with pytest. Use -x to stop early. Add -q for quiet output.")
    assert combined_text("用 pytest 跑测试。", "加 -q 更安静。") == (
        "用 pytest 跑测试。加 -q 更安静。")


def test_pool_returns_the_nearest_kept_entries() -> None:
    pool = Pool(Similarity(None))
    for i, text in enumerate(["redis pool size", "redis pool timeout", "vite dev server"]):
        pool.add(Entry(_mem(f"01{'abc'[i] * 24}", text), word_set(text)))
    probe = Entry(_mem("01dddddddddddddddddddddddd", "redis pool size"),
                  word_set("redis pool size"))
    near = pool.nearest(probe, 0.3, 5, keep=lambda e: True)
    assert [(e.memory.content, round(s, 2)) for e, s in near] == [
        ("redis pool size", 1.0), ("redis pool timeout", 0.5)]
    assert pool.nearest(probe, 0.3, 5, keep=lambda e: "size" not in e.memory.content)[0][0] \
        .memory.content == "redis pool timeout"
