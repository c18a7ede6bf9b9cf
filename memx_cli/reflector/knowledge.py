"""Knowledge that is stated rather than learned by failing (issue 13): a person's
*Preference* (how they want work done), a team's *Convention* (a rule of the repository)
and a *Decision* (a choice, its reason, the alternative rejected).

Each is found sentence by sentence in what people say (never in the assistant's words,
never in a question): a marker of the kind, plus, for a preference, someone it is for
(I, me, please, 给我, ください, 주세요…) and, for a convention, a scope (our team, this
repo, 规范, このリポジトリ, 우리 팀, chez nous…). A decision takes its reason along when
the next sentence gives one. A wish addressed to the agent ("I want you to …") in the
message that opens a session is the task, not a way of working.
"""

from __future__ import annotations

import re

from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.names import PATH_RE
from memx_cli.reflector.signals import Signals
from memx_cli.reflector.vocab import Lexicon, negated, phrases

CODEISH = frozenset("-_./=`")  # "--prefer-offline" is a flag, not a preference
DECISION = Lexicon(phrases("""
we decided; decided to; decided on; we've decided; we have decided; we went with;
went with; we chose; we picked; we'll go with; we will go with; we're going with;
we are going with; settled on; opted for; we agreed to; agreed on; we'll stick with;
we will stick with; we stay on; we'll stay on
决定; 决定了; 选择了; 选定; 定下来; 敲定
決めました; 決めた; 決定し; 採用する; 採用し; ことにしました
결정했; 결정하였; 선택했; 정했; 채택했
décidé; avons choisi; on a choisi; opté pour; on part sur; nous partons sur; retenu
entschieden; entscheidung; haben uns für
decidimos; hemos decidido; decisión; elegimos; optamos por; nos quedamos con
decidimos; decidiu; decisão; escolhemos; optamos por
"""))
DECISION_SHAPE = re.compile(r"(?i)\b(?:decision|adr|entscheidung|decisión|decisão)\s*[:：]|\bthe decision to\b|决策[:：]")
REASON = Lexicon(phrases("""
because; since; reason; the reason; so that; 因为; 原因; 理由; 由于; ため; ので;
理由は; 때문; 이유; parce que; car; puisque; la raison; weil; da wir; porque; ya que; pois
"""))

# A rule by name: enough on its own.
CONVENTION_RULE = Lexicon(phrases("""
our convention; the convention; convention; conventions; team rule; house rule; our rule;
the rule is; style guide; coding standard; coding standards; we always; we never; our policy;
we should always; we should never; we must always; we must never
规范; 约定; 规定; ルール; 規約; 規則; 팀 규칙; 규칙; 컨벤션; la règle; notre convention;
nos conventions; règle d'équipe; konvention; unsere regel; teamregel; styleguide;
convención; nuestra regla; regla del equipo; convenção; nossa regra; regra do time
"""))
# A correction of the agent ("that is not correct, we don't squash"): with "we don't" in
# the same turn, the team's way.
CORRECTED = Lexicon(phrases("""
not correct; not right; that's wrong; that is wrong; incorrect; that's not how; not how we
"""))
WE_DONT = Lexicon(phrases("""
we don't; we do not; we dont
"""))
# A scope: needs a norm in the same sentence ("in this repo we use conventional commits").
CONVENTION_SCOPE = Lexicon(phrases("""
in this repo; in this repository; in this codebase; in this project; in our repo; our team;
in our team; here we
团队; 本仓库; 这个仓库; 这个项目; 项目里; 我们组; このリポジトリ; このプロジェクト; チームでは;
우리 팀; 이 저장소; 이 프로젝트; chez nous; dans ce dépôt; dans ce projet; notre équipe; ici on;
ici nous
in diesem repo; in diesem projekt; bei uns; unser team; en este repo; en este proyecto;
en nuestro equipo; aquí usamos; neste repo; neste projeto; no nosso time; aqui usamos
"""))
NORM = Lexicon(phrases("""
always; never; must; should; every; all; use; uses; need; needs; required; only; no
一律; 必须; 都; 统一; 不能; 不得; 所有; 必ず; すべて; 全て; 항상; 모든; 반드시; 꼭
doit; doivent; toujours; jamais; chaque; tous; toutes
immer; nie; niemals; muss; müssen; jede; alle; nur; siempre; nunca; debe; deben; cada;
todos; solo; sempre; nunca; deve; devem; cada; todos; só
"""))

# Where a kind of file goes: with a path in the sentence, a rule of the repository ("our
# migrations live in db/migrate", "las flags van en config/flags.yaml").
PLACEMENT = Lexicon(phrases("""
live in; lives in; live under; lives under; go in; goes in; go under; goes under;
belong in; belongs in; belong under; belongs under; are kept in; is kept in
放在; 放到; に置く; に置きます; 에 둡니다; 에 둔다; vont dans; va dans; se trouvent dans
gehören in; gehören nach; gehört in; kommen in; kommt in; liegen in
van en; va en; viven en; se guardan en; vão em; vai em; ficam em; moram em
"""))
PREFER = Lexicon(phrases("""
i prefer; i'd prefer; i would prefer; i'd rather; i would rather; my preference; prefer
偏好; 更喜欢; 我喜欢用; 比较喜欢
好み; の方が好き
선호; 좋아해요; 좋아합니다
je préfère; j'aime mieux; je voudrais que; je préférerais
ich bevorzuge; ich mag lieber; mir ist lieber; prefiero; me gusta más; prefiro; eu prefiro
"""))
# A wish addressed to the agent: how the work should be done once it is under way ("I want
# you to make the output more verbose"), but in the message that opens a session, before the
# agent has said or done anything, it is the task itself ("I want you to review the docs").
WANT = Lexicon(phrases("""
i want you to; je voudrais que
"""))
# A standing request: "please ... always/never/don't", "from now on ... for me".
PLEASE = Lexicon(phrases("""
please; 请; 给我; 帮我; ください; お願い; 주세요; merci de; s'il te plaît; s'il vous plaît;
bitte; por favor
"""))
HABIT = Lexicon(phrases("""
always; never; don't; do not; from now on; going forward; in future; in the future;
whenever; 以后; 今后; 总是; 永远; 不要; 别; 一律; これから; 今後; 常に; 必ず; 앞으로; 항상; 절대;
désormais; à l'avenir; toujours; jamais; immer; nie; niemals; ab jetzt; künftig;
siempre; nunca; a partir de ahora; de ahora en adelante; sempre; nunca; daqui pra frente;
a partir de agora
"""))
FUTURE = Lexicon(phrases("""
from now on; going forward; in future; in the future; 以后; 今后; これから; 今後; 앞으로;
désormais; à l'avenir; ab jetzt; künftig; a partir de ahora; de ahora en adelante;
daqui pra frente; a partir de agora
"""))
FOR_ME = Lexicon(phrases("""
me; my; you; your; for me; 我; 你; 私; 저; 제; moi; tu; vous; mir; mich; du; ihr; sie;
yo; tú; usted; eu; você
"""))


def found(sig: Signals, skip: set[int], opening: bool = False) -> Candidate | None:
    """The first kind a turn states (Decision, Convention, Preference), with its sentences.
    ``opening``: the turn opens an agent's session (nothing answered yet): it sets the task."""
    if sig.turn.kind != "text" or sig.turn.role not in ("user", "text"):
        return None
    skip = skip | _variants(sig)
    for name, test in (("Decision", _decision), ("Convention", _convention),
                       ("Preference", _preference)):
        numbers = [n for n in range(len(sig.spans))
                   if n not in skip and test(sig, n)
                   and not (opening and name == "Preference" and _wish_only(sig, n))]
        if numbers:
            return _candidate(sig, name, numbers)
    return None


# A list item ("1. …", "- …") and its first words.
ITEM = re.compile(r"(?m)^[ \t]*(?:\d{1,2}[.)]|[-*•])[ \t]+(?P<item>\S[^\n]*)$")
OPENING = re.compile(r"[^\W\d_]+")
MIN_VARIANTS = 3  # items opening alike that make a list of cases


def _variants(sig: Signals) -> set[int]:
    """The sentences of list items that open with the same words as two others or more
    ("1. Prompt runs, changes files, user commits" / "4. Prompt runs, changes files, user
    decided to split …"): cases of one thing to describe or test, told in parallel, not
    something the speaker states or decided."""
    groups: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for match in ITEM.finditer(sig.text):
        opening = tuple(w.lower() for w in OPENING.findall(match.group("item"))[:2])
        if len(opening) == 2:
            groups.setdefault(opening, []).append(match.span("item"))
    spans = [span for found in groups.values() if len(found) >= MIN_VARIANTS for span in found]
    return {n for n, (start, end) in enumerate(sig.spans)
            if any(first <= start and end <= last for first, last in spans)}


def _hits(sig: Signals, lexicon: Lexicon, number: int, negations: bool = True,
          unless: re.Pattern[str] | None = None) -> bool:
    """The lexicon is hit in the sentence; ``unless``: not where the sentence's words
    before the hit match it."""
    start, end = sig.spans[number]
    text = sig.text
    plea = lexicon is PLEASE or not negations  # "without emoji please" is still a request
    return any(start <= h.start < end and (plea or not negated(h, sig.words, text))
               and text[h.start - 1:h.start] not in CODEISH
               and not _glued(text[h.end:h.end + 2])
               and not (unless is not None and unless.search(text[start:h.start]))
               for h in sig.find(lexicon))


def _glued(after: str) -> bool:
    """The hit continues as code: "prefer-offline", "prefer_x", "prefer.x"."""
    return bool(after) and after[0] in CODEISH and (after[0] != "." or after[1:2].isalnum())


def _usable(sig: Signals, number: int) -> bool:
    text = sig.sentence(number)
    return not sig.is_question(number) and len(text) >= 12


# A decision referred to, not stated: "write down what we went with", "whichever we chose".
REFERRED = re.compile(r"(?i)\b(?:what|which|whatever|whichever|whether|how)\s+(?:we\s+)?$")


def _decision(sig: Signals, number: int) -> bool:
    if not _usable(sig, number):
        return False
    return _hits(sig, DECISION, number, unless=REFERRED) \
        or bool(DECISION_SHAPE.search(sig.sentence(number)))


def _convention(sig: Signals, number: int) -> bool:
    if not _usable(sig, number):
        return False
    if _hits(sig, WE_DONT, number, negations=False) and sig.find(CORRECTED):
        return True
    return _hits(sig, CONVENTION_RULE, number) or (
        _hits(sig, CONVENTION_SCOPE, number) and _hits(sig, NORM, number)) or (
        _hits(sig, PLACEMENT, number) and bool(PATH_RE.search(sig.sentence(number))))


def _preference(sig: Signals, number: int) -> bool:
    if not _usable(sig, number):
        return False
    if _hits(sig, PREFER, number) or _hits(sig, WANT, number):
        return True
    if _hits(sig, PLEASE, number) and _hits(sig, HABIT, number):
        return True
    return _hits(sig, FUTURE, number) and _hits(sig, FOR_ME, number)


def _wish_only(sig: Signals, number: int) -> bool:
    """The sentence is a preference only by a wish addressed to the agent."""
    return _hits(sig, WANT, number) and not _hits(sig, PREFER, number) \
        and not (_hits(sig, PLEASE, number) and _hits(sig, HABIT, number)) \
        and not (_hits(sig, FUTURE, number) and _hits(sig, FOR_ME, number))


def _candidate(sig: Signals, name: str, numbers: list[int]) -> Candidate:
    chosen = numbers[:3]
    following = chosen[-1] + 1
    if following < len(sig.spans) and not sig.is_question(following) \
            and following not in numbers:
        short = len(sig.sentence(chosen[-1])) < 60
        if name == "Decision" and _hits(sig, REASON, following):
            chosen.append(following)  # the reason: "... because the Redis locks lost jobs"
        elif name == "Convention" and short:
            chosen.append(following)  # "Team rule: no pushes to main; everything via a PR"
        elif name == "Preference" and (short or _hits(sig, PLEASE, following)):
            # "I prefer full names. Please write user, not usr."; "I want the output more
            # verbose. Show me each request you run."
            chosen.append(following)
    content = " ".join(sig.sentence(n) for n in chosen)
    return Candidate(name, sig.turn.index, sig.turn.last, sig.lang, content,
                     veracity="stated", context=sig.text[:1500])
