"""Word lists the contradiction rules read (English and Chinese, SPEC 3.2).

Kept apart from the rules so a reader can audit and extend them in one place.
"""

from __future__ import annotations

# Words that negate what follows them. Forms ending in "n't" are caught by suffix.
NEGATORS_EN = frozenset(
    ["not", "no", "never", "nobody", "none", "nothing", "neither", "nor", "without", "cannot", "nowhere",
     # French: "ne … pas", "n'… jamais" (the elided "n'" is read as "ne"), "sans"
     "ne", "jamais", "sans",
     # German and Spanish
     "nicht", "kein", "keine", "keinen", "keinem", "nie", "niemals", "ohne", "nunca", "jamás",
     "sin",
     # "avoid X" says not to do X, as "don't X" does
     "avoid", "avoids", "avoided", "avoiding"])
# "stop" negates a gerund after it ("stop caching the assets") and says it is a change.
STOP_VERBS = frozenset(["stop", "stops", "stopped", "stopping"])
# Chinese negation characters, and words that contain one without negating anything
# (非常 "very", 未来 "future", 不同 "different", ...), which are removed before counting.
NEGATORS_ZH = ("禁止", "不再", "不要", "没有", "不", "没", "别", "勿", "未", "无", "非")
# Japanese negates at the end of the verb: 有効にしない, 使いません, 禁止する.
NEGATIONS_JA = ("しない", "ない", "ません", "禁止", "なし")
NOT_NEGATIONS_ZH = ("非常", "未来", "不同", "不错", "无论", "别人", "别的", "不过", "不断",
                    "不少", "无线", "除非", "并非", "不仅", "无数")

# Words skipped when looking for what a negation applies to or what a number belongs to.
FILLER = frozenset(["a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "to", "of", "at", "least", "most", "by", "for", "from", "on", "in", "into", "with", "as", "it", "its", "this", "that", "these", "those", "there", "here", "than", "then", "so", "very", "really", "just", "about", "around", "approximately", "roughly", "only", "still", "also", "some", "any", "set", "sets", "setting", "changed", "change", "changes", "changing", "now", "updated", "update", "raised", "raise", "lowered", "lower", "increased", "increase", "decreased", "decrease", "reduced", "reduce", "bumped", "bump", "upgraded", "upgrade", "downgraded", "downgrade", "moved", "move", "switched", "switch", "must", "should", "shall", "will", "would", "can", "could", "may", "might", "need", "needs", "needed", "use", "uses", "used", "using", "keep", "keeps", "kept", "make", "makes", "made", "have", "has", "had", "get", "gets", "got", "equal", "equals", "exactly", "up", "down", "over", "under", "more", "less", "we", "you", "i", "they", "he", "she", "our", "your", "their", "my", "me", "us", "them", "please", "always", "maybe", "longer", "anymore", "stay", "stays", "remain", "remains",
    # French function words (a memory in French reads the same way)
    "le", "la", "les", "un", "une", "des", "du", "de", "et", "est", "sont", "sur", "pour", "dans", "au", "aux", "en", "on", "avec", "pas", "plus", "toujours", "chaque", "il", "elle", "nous", "vous", "ce", "cette", "ces", "par", "lieu", "désormais", "maintenant",
    # German and Spanish function words
    "der", "die", "das", "den", "dem", "ein", "eine", "einen", "ist", "sind", "wird", "wurde",
    "wurden", "von", "auf", "mit", "für", "zu", "und", "wir", "im", "jetzt", "nun", "el",
    "los", "las", "es", "son", "del", "con", "para", "por", "una", "unos", "se", "ya",
    "ahora"])

# Nouns that name a setting: a bare number after one of these is that setting's value.
SETTING_NOUNS = frozenset(["size", "limit", "timeout", "timeouts", "port", "version", "ver", "count", "max", "min", "maximum", "minimum", "retries", "retry", "attempts", "workers", "worker", "threads", "thread", "processes", "ttl", "interval", "delay", "threshold", "pool", "capacity", "length", "width", "height", "depth", "level", "rate", "quota", "budget", "concurrency", "parallelism", "replicas", "shards", "ratio", "percentage", "percent"])

# Units after a number; the factor converts to a common base so 0.5s equals 500ms.
UNITS: dict[str, tuple[str, float]] = {
    "ms": ("time", 0.001), "millisecond": ("time", 0.001), "milliseconds": ("time", 0.001),
    "s": ("time", 1.0), "sec": ("time", 1.0), "secs": ("time", 1.0),
    "second": ("time", 1.0), "seconds": ("time", 1.0),
    "min": ("time", 60.0), "mins": ("time", 60.0), "minute": ("time", 60.0),
    "minutes": ("time", 60.0), "h": ("time", 3600.0), "hr": ("time", 3600.0),
    "hrs": ("time", 3600.0), "hour": ("time", 3600.0), "hours": ("time", 3600.0),
    "d": ("time", 86400.0), "day": ("time", 86400.0), "days": ("time", 86400.0),
    "b": ("bytes", 1.0), "kb": ("bytes", 1e3), "k": ("count", 1e3), "mb": ("bytes", 1e6),
    "m": ("count", 1e6), "gb": ("bytes", 1e9), "tb": ("bytes", 1e12),
    "kib": ("bytes", 1024.0), "mib": ("bytes", 1024.0**2), "gib": ("bytes", 1024.0**3),
    "ki": ("bytes", 1024.0), "mi": ("bytes", 1024.0**2), "gi": ("bytes", 1024.0**3),
    "ti": ("bytes", 1024.0**4),  # Kubernetes quantities: 512Mi, 1Gi
    "st": ("ordinal", 1.0), "nd": ("ordinal", 1.0), "rd": ("ordinal", 1.0),
    "th": ("ordinal", 1.0),  # the 1st / the 15th of the month
    "sekunden": ("time", 1.0), "minuten": ("time", 60.0), "stunden": ("time", 3600.0),
    "tage": ("time", 86400.0), "segundos": ("time", 1.0), "minutos": ("time", 60.0),
    "horas": ("time", 3600.0), "días": ("time", 86400.0),
    "%": ("percent", 1.0), "percent": ("percent", 1.0), "x": ("times", 1.0),
    "week": ("time", 604800.0), "weeks": ("time", 604800.0),
    "month": ("time", 2592000.0), "months": ("time", 2592000.0),
    "year": ("time", 31536000.0), "years": ("time", 31536000.0),
    "times": ("times", 1.0), "secondes": ("time", 1.0), "heures": ("time", 3600.0),
    "jours": ("time", 86400.0), "px": ("px", 1.0), "rps": ("rate", 1.0), "qps": ("rate", 1.0), "rpm": ("rpm", 1.0),
    "毫秒": ("time", 0.001), "秒": ("time", 1.0), "分钟": ("time", 60.0),
    "小时": ("time", 3600.0), "天": ("time", 86400.0), "个": ("count", 1.0),
    "次": ("count", 1.0), "兆": ("bytes", 1e6),
}

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
    "hundred": 100, "thousand": 1000,
}

# Chinese text before a number that only introduces the value ("设置为 50", "改成 500").
ZH_VALUE_CUES = ("设置为", "设置成", "设为", "改为", "改成", "调整为", "调整到", "调到",
                 "提高到", "提高至", "降低到", "降到", "降至", "增加到", "减少到", "升级到",
                 "至少", "最多", "不超过", "不少于", "大于", "小于", "等于", "为", "是", "到",
                 "成", "用")

# Words saying the newer text replaces an older value: a contradiction with one of these
# in the new memory is a supersede, not an open conflict (SPEC 3.2).
CHANGE_MARKERS_EN = frozenset(["changed", "now", "updated", "raised", "lowered", "increased", "decreased", "reduced", "bumped", "upgraded", "downgraded", "switched", "moved", "migrated", "replaced", "instead", "anymore", "renamed", "became", "stop", "stopped",
                               "désormais", "maintenant", "jetzt", "nun", "mittlerweile",
                               "ahora", "remplacé", "remplace", "migré", "ersetzt",
                               "umgestellt", "migriert", "reemplazó", "reemplaza",
                               "sustituyó", "migrado", "migramos", "cambiamos"])
CHANGE_PHRASES_EN = ("no longer", "from now on", "starting from", "as of", "au lieu de",
                     "ne plus", "n'est plus", "nicht mehr", "ya no", "en lugar de",
                     "en vez de")
CHANGE_MARKERS_ZH = ("改为", "改成", "现在", "调整", "升级", "降级", "更新", "提高", "降低",
                     "增加到", "减少到", "换成", "切换", "不再", "已改", "改用",
                     # Japanese: from now on, instead of, changed
                     "今後", "代わりに", "変更", "移行", "迁移到", "迁移至")

# Of those, the ones that say the new text *replaces* something ("instead of", 改用): a
# restatement that only adds words needs one to supersede ("changed src/app.py, cli.py"
# adds a file to a commit note and replaces nothing).
REPLACE_WORDS = frozenset(["instead", "replaced", "switched", "migrated", "moved", "renamed",
                           "became", "désormais", "remplacé", "remplace", "migré", "ersetzt",
                           "umgestellt", "migriert", "reemplazó", "reemplaza", "sustituyó",
                           "migrado", "migramos", "cambiamos"])
REPLACE_PHRASES = ("from now on", "no longer", "au lieu de", "改为", "改成", "改用", "换成",
                   "切换", "不再", "代わりに", "今後", "移行", "迁移到", "迁移至", "nicht mehr", "ya no",
                   "en lugar de", "en vez de")

# Words saying the new text adds to the old one rather than replacing it.
ADD_WORDS = frozenset(["also", "too", "additionally", "aussi"])
ADD_PHRASES = ("as well", "in addition", "也", "还要", "另外")


def _forms(word: str) -> set[str]:
    """A word and its regular inflections (enable, enables, enabled, enabling)."""
    forms = {word, word + "s", word + "es", word + "d", word + "ed", word + "ing"}
    if word.endswith("e"):
        forms.add(word[:-1] + "ing")
    forms.add(word + "ly")  # synchronously / asynchronously, locally / remotely
    if word.endswith("y"):
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if len(word) <= 4 and word[-1] not in "aeiouwy" and word[-2:-1] in tuple("aeiou"):
        forms |= {word + word[-1] + "ing", word + word[-1] + "ed"}  # hit -> hitting
    return forms


_PAIRS_EN = [
    ("enable", "disable"), ("always", "never"), ("true", "false"), ("allow", "deny"),
    ("allow", "forbid"), ("allow", "disallow"), ("accept", "reject"),
    ("include", "exclude"), ("increase", "decrease"), ("higher", "lower"),
    ("faster", "slower"), ("fast", "slow"), ("sync", "async"),
    ("synchronous", "asynchronous"), ("required", "optional"), ("mandatory", "optional"),
    ("succeed", "fail"), ("success", "failure"), ("work", "fail"), ("valid", "invalid"),
    ("safe", "unsafe"), ("secure", "insecure"), ("public", "private"),
    ("internal", "external"), ("inside", "outside"), ("in", "outside"), ("within", "outside"),
    ("indoors", "outdoors"),
    ("indoors", "outside"), ("inside", "outdoors"), ("big", "small"), ("large", "small"),
    ("long", "short"), ("good", "bad"), ("best", "worst"), ("correct", "wrong"),
    ("correct", "incorrect"), ("right", "wrong"), ("use", "avoid"), ("prefer", "avoid"),
    ("recommend", "discourage"), ("supported", "unsupported"), ("supported", "deprecated"),
    ("local", "remote"), ("deny", "grant"), ("reveal", "conceal"), ("hit", "miss"),
    ("strike", "miss"), ("crowded", "empty"), ("full", "empty"), ("win", "lose"),
    ("on", "off"), ("up", "down"), ("upper", "lower"),
    ("max", "min"), ("maximum", "minimum"), ("present", "absent"), ("online", "offline"),
    ("blocking", "non-blocking"), ("stable", "unstable"), ("stable", "flaky"),
    ("before", "after"), ("above", "below"), ("first", "last"), ("ascending", "descending"),
    ("encrypted", "unencrypted"), ("compressed", "uncompressed"),
]
# "on"/"off" and "up"/"down" are everyday prepositions: they only count after these verbs.
PARTICLE_VERBS = frozenset(["turn", "turned", "turns", "turning", "switch", "switched", "switches", "set", "sets", "toggle", "toggled", "flip", "flipped", "scale", "scaled", "spin", "spun"])
PARTICLES = frozenset({"on", "off", "up", "down"})
# Prepositions take no inflections ("in" / "outside": "ins", "ined" are not words).
_BARE = PARTICLES | {"in", "within"}
ANTONYMS_EN: list[tuple[frozenset[str], frozenset[str]]] = [
    (frozenset(_forms(a) if a not in _BARE else {a}),
     frozenset(_forms(b) if b not in _BARE else {b}))
    for a, b in _PAIRS_EN
]
# Phrasal opposites: "take off" / "put on".
PHRASES_EN = [("put on", "take off"), ("putting on", "taking off"), ("puts on", "takes off")]

ANTONYMS_ZH = [
    ("启用", "禁用"), ("开启", "关闭"), ("打开", "关闭"), ("总是", "从不"), ("允许", "禁止"),
    ("增加", "减少"), ("提高", "降低"), ("同步", "异步"), ("必须", "可选"), ("成功", "失败"),
    ("有效", "无效"), ("公开", "私有"), ("本地", "远程"), ("推荐", "避免"),
    ("开启", "禁用"), ("启用", "关闭"), ("更快", "更慢"),
]

# Ordering words: the same words on their two sides, swapped, reverse the statement
# ("prefer X over Y" / "prefer Y over X"). Two-word forms are read as one.
ORDER_WORDS = frozenset(["over", "than", "before", "after", "gegenüber", "statt", "anstatt",
                         "avant", "après"])
ORDER_PHRASES = frozenset(["rather than", "instead of", "plutôt que", "en vez", "en lugar",
                           "antes de", "después de", "vor dem", "nach dem"])
ORDER_WORDS_CJK = ("而不是", "而非", "优先于", "胜过", "之前", "之后", "より")

# Quantities: "all services" against "only some services" (or always / sometimes).
UNIVERSAL_EN = frozenset(["all", "every", "each", "always", "everything", "everywhere",
                          "toujours", "tous", "toutes", "alle", "immer", "todos", "todas",
                          "siempre"])
PARTIAL_EN = frozenset(["some", "sometimes", "occasionally", "rarely", "seldom", "usually",
                        "often", "only", "few", "several", "partially", "parfois",
                        "manchmal", "nur", "einige", "solo", "algunos", "algunas"])
UNIVERSAL_CJK = ("所有", "全部", "每个", "总是", "始终", "一律", "すべて", "全て", "常に")
PARTIAL_CJK = ("部分", "有些", "有时", "只有", "仅", "某些", "偶尔", "一部", "時々")

# Time-zone phrases for "local time" (UTC, GMT, CET ... and Region/City are read by form).
LOCAL_TIME = ("local time", "localtime", "本地时间", "当地时间", "ローカル時間", "現地時間",
              "heure locale", "ortszeit", "lokalzeit", "hora local")

# Environments a statement can be about: the same statement for two of them is two facts.
ENVIRONMENTS = {"ci": "ci", "locally": "local", "staging": "staging", "production": "production",
                "prod": "production", "dev": "development", "development": "development",
                "qa": "qa", "lokal": "local"}
# "local" is an environment in "in local", "local development", "en local".
LOCAL_BEFORE = frozenset(["in", "on", "en", "for"])
LOCAL_AFTER = frozenset(["dev", "development", "environment", "env", "machine", "machines",
                         "runs", "run", "setup", "builds"])
ENVIRONMENTS_CJK = (("本地", "local"), ("测试环境", "test"), ("生产环境", "production"),
                    ("线上", "production"), ("预发", "staging"), ("开发环境", "development"),
                    ("ローカル", "local"), ("本番", "production"), ("ステージング", "staging"))

# Closed sets whose members exclude each other as the value of one setting: one of them
# swapped for another, the rest of the statement word for word the same, is a changed
# value ("Rotate the logs hourly" / "... daily"). Word -> the set's name in a reason.
_EXCLUSIVE_SETS = {
    "frequencies": "hourly daily nightly weekly biweekly fortnightly monthly quarterly "
                   "yearly annually",
    "weekdays": "monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays "
                "friday fridays saturday saturdays sunday sundays",
    "months": "january february march april june july august september october november "
              "december",
    "log levels": "trace debug info notice warn warning error critical fatal",
    "quote styles": "single double backtick backticks",
    "indentation": "tab tabs space spaces",
    "case styles": "camelcase pascalcase snakecase kebabcase lowercase uppercase titlecase",
    "sort orders": "ascending descending asc desc",
    "line endings": "lf crlf",
    "transports": "http https ssh",
    "merge methods": "squash rebase fast-forward",
    "deploy strategies": "blue-green canary rolling recreate",
    "JavaScript package managers": "npm pnpm yarn bun",
    "Python package managers": "pip pipenv poetry uv conda",
}
EXCLUSIVE = {word: name for name, members in _EXCLUSIVE_SETS.items()
             for word in members.split()}
# Sets of common words that are values only where the text is about their setting: a
# word of the text starts with one of these ("Fix the error" / "Fix the warning" is two
# tasks; "Log at error level" / "Log at warning level" is one setting).
EXCLUSIVE_CONTEXT = {"log levels": ("log", "level", "verbos"), "quote styles": ("quot", "string"),
                     "indentation": ("indent",)}
# Singular forms of the members written in the plural, so "tab" / "tabs" is one value.
EXCLUSIVE_SAME = {"mondays": "monday", "tuesdays": "tuesday", "wednesdays": "wednesday",
                  "thursdays": "thursday", "fridays": "friday", "saturdays": "saturday",
                  "sundays": "sunday", "tabs": "tab", "spaces": "space", "backticks": "backtick"}
# Request methods count only written in capitals ("GET" / "POST", not the verbs).
HTTP_METHODS = frozenset(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
