"""Rules for one commit: message, changed files, diff stat and the small diffs (SPEC 6).

- What the message itself states (``commit_message``): a norm in the subject or a list
  item (Convention), a revert and its reason, a change and its "because" (Decision).
- ErrorFix: a fix commit (``fix:``, "Fix …", 修复, corrige) whose message names the error
  or its cause; the memory says what failed, what the fix was and which files changed. A
  fixed bug with neither (the subject restates the code change) teaches nothing.
- ConfigChange: a setting whose value changed in a configuration file (a non-code format,
  ``routine.is_config``), kept when the message names the setting or says why.
- NewTool: a dependency added to a manifest (package.json, requirements, pyproject,
  Cargo.toml, go.mod, Gemfile), or a lock file of a package manager not used before.
Routine commits (``routine``) keep nothing; every candidate turned down is returned with
its reason (``reviewed``). Anything else in the message goes through the text rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from memx_cli.reflector import commit_ci, commit_fact, commit_value, outside, routine
from memx_cli.reflector import commit_message as msg
from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.commit_value import value
from memx_cli.reflector.detector import PatternDetector
from memx_cli.reflector.names import CODE_SPAN, IDENT_RE, PATH_RE
from memx_cli.reflector.rules import EPISODES
from memx_cli.reflector.scorer import Scored
from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import language, words_of

FIX_SUBJECT = re.compile(r"^\s*(?:(?:fix|fixes|fixed|bugfix|hotfix)(?:\([^)]*\))?!?:\s*|"
                         r"(?:fix|fixes|fixed)\s+|(?:修复|修正|修改)(?:\([^)]*\))?[:：]?\s*|"
                         r"corrige[rs]?\s+|correction\s*:?\s+)", re.IGNORECASE)
DOCS = re.compile(r"(?i)\.(?:md|mdx|rst|txt|adoc)$|(?:^|/)docs?/")
CI = re.compile(r"^\.(?:github|gitlab|circleci|buildkite|azure-pipelines)/|^\.gitlab-ci\.yml$|"
                r"^\.pre-commit-config\.yaml$")
# A CI job's program, not its settings: a step's command, its label, its condition.
STEP_KEYS = frozenset(["run", "name", "if", "id", "description", "title", "script",
                       "before_script", "after_script", "steps", "needs"])
PLATFORM = routine.PLATFORM
DEPENDENCIES = re.compile(r"\b(?:deps?|dependenc(?:y|ies)|requirements?|packages?|extras?)\b")
UNIT_ENV = re.compile(r"^\s*Environment\s*=\s*(?=[A-Za-z_]\w*=)")
# A key and its value; a quoted key is closed by its own quote ("key": 1, 'key' = 1).
SETTING = re.compile(r"^\s*(?:export\s+)?(?P<quote>[\"']?)(?P<key>[A-Za-z_][\w.\-]*)(?P=quote)"
                     r"\s*[:=]\s*(?P<value>.*?)\s*,?$")
# A string that only starts with a word and a colon is an item of a list (a warning filter
# "ignore:The 'x' argument is deprecated:DeprecationWarning",): the item is the setting,
# whole, not a key "ignore" whose values are every filter of the list.
LIST_ITEM = re.compile(r"^\s*(?P<quote>[\"'])(?P<item>[A-Za-z_][\w.\-]*:.*)(?P=quote)\s*,?\s*$")
LOCKFILES = {"pnpm-lock.yaml": "pnpm", "yarn.lock": "yarn", "package-lock.json": "npm",
             "bun.lockb": "bun", "bun.lock": "bun", "uv.lock": "uv", "poetry.lock": "poetry",
             "Pipfile.lock": "pipenv", "Cargo.lock": "cargo", "go.sum": "go",
             "Gemfile.lock": "bundler", "composer.lock": "composer", "pdm.lock": "pdm"}
DEPENDENCY = {
    "package.json": re.compile(r"^\s*\"(@?[\w./-]+)\"\s*:\s*\"([~^<>=\d*][^\"]*|latest|"
                               r"workspace:[^\"]*)\""),
    "requirements": re.compile(r"^\s*([A-Za-z0-9][\w.\-]*(?:\[[\w,]+\])?)\s*([=<>!~]=?\s*[\w.*]+)?"
                               r"\s*(?:#.*)?$"),
    "pyproject.toml": re.compile(r"^\s*(?:\"([A-Za-z0-9][\w.\-]*)(?:\[[\w,]+\])?\s*([=<>!~]=?[^\"]*)?"
                                 r"\",?|([A-Za-z0-9][\w\-]*)\s*=\s*(\"[\^~<>=\d*][^\"]*\"|\{.*\}))\s*$"),
    "Cargo.toml": re.compile(r"^\s*([A-Za-z0-9][\w\-]*)\s*=\s*(\"[\^~<>=\d*][^\"]*\"|\{.*\})\s*$"),
    "go.mod": re.compile(r"^\s*(?:require\s+)?([\w.\-]+\.[a-z]{2,}/[\w.\-/]+)\s+(v[\w.\-+]+)"),
    "Gemfile": re.compile(r"^\s*gem\s+['\"]([\w\-]+)['\"](?:\s*,\s*['\"]([^'\"]+)['\"])?"),
}
CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\([^)]*\))?!?:\s*\S")
FOOTER = routine.FOOTER
TRIVIAL = re.compile(r"(?i)\b(?:typos?|spelling|whitespace|formatting|wording|grammar)\b")
SECRET_KEY = re.compile(r"(?i)secret|token|passw|api_?key|private|credential|_key$|^key$")
NOT_DEPENDENCIES = frozenset(["name", "version", "main", "module", "types", "type", "private", "description", "license", "node", "npm", "python", "requires-python", "edition", "packageManager"])


DEPENDENCY_SECTION = re.compile(r"(?im)^[ +-]?\s*(?:\[[\w.-]*(?:dependencies|requires)[\w.-]*\]|"
                                r"[\w-]*(?:dependencies|requires)\s*=)")
# Version pins: pre-commit's "rev:" (named by the hook repository above it) and Actions'
# "uses: owner/name@ref" (named by the action): which hook, which action, not "rev".
PRE_COMMIT_REPO = re.compile(r"^[ +-]\s*-?\s*repo:\s*['\"]?(\S+?)['\"]?\s*$")
PRE_COMMIT_REV = re.compile(r"^\s*rev:\s*['\"]?([^'\"\s#]+)")
ACTION_USES = re.compile(r"^\s*(?:-\s*)?uses:\s*([\w.\-/]+)@([^\s#]+)(?:\s*#\s*(\S+))?")


MANIFESTS = ("package.json", "pyproject.toml", "Cargo.toml", "go.mod", "Gemfile")


def wants_diff(path: str) -> bool:
    """A file whose small diff the commit rules read: configuration, env, manifests."""
    name = path.rsplit("/", 1)[-1]
    return bool(routine.is_config(path) or name in MANIFESTS
                or (name.startswith("requirements") and name.endswith((".txt", ".in"))))


def _lines(diff: str, sign: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith(sign) and not line.startswith(sign * 3)]


def _manifest_kind(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if re.fullmatch(r"requirements[\w.-]*\.(?:txt|in)", name):
        return "requirements"
    return name if name in DEPENDENCY else None


def _dependencies(kind: str, lines: list[str], diff: str = "") -> dict[str, str]:
    """Dependencies a diff side names. A bare quoted word in pyproject.toml is a
    dependency only in a hunk about dependencies or with a version specifier: tox
    environments ("py3.14t") and warning filters ("error") are lists of strings too."""
    about = bool(DEPENDENCY_SECTION.search(diff))
    found: dict[str, str] = {}
    for line in lines:
        match = DEPENDENCY[kind].match(line)
        if not match:
            continue
        groups = [g for g in match.groups()]
        name = groups[0] or (groups[2] if len(groups) > 2 else None)
        version = groups[1] or (groups[3] if len(groups) > 3 else None) or ""
        if kind == "pyproject.toml" and groups[0] and not version and not about:
            continue
        if name and name not in NOT_DEPENDENCIES:
            found[name] = version.strip("\" ")
    return found


def _settings(lines: list[str], diff: str = "") -> dict[str, tuple[str, str]]:
    """Settings a diff side holds: key -> (value, the line as written, to copy)."""
    found: dict[str, tuple[str, str]] = {}
    hooks = _hook_of(diff)
    for line in lines:
        uses = ACTION_USES.match(line)
        if uses:
            version = uses.group(3) or uses.group(2)
            found[f"the {uses.group(1)} action"] = (version, f"uses: {uses.group(1)}@{version}")
            continue
        rev = PRE_COMMIT_REV.match(line)
        if rev and hooks.get(line):
            hook = hooks[line]
            found[f"the {hook} hook"] = (rev.group(1), f"{hook} rev: {rev.group(1)}")
            continue
        line = UNIT_ENV.sub("", line)  # systemd: Environment=KEY=value
        item = LIST_ITEM.match(line)
        if item and not SETTING.match(line):
            found[item.group("item")] = (item.group("item"), line.strip().rstrip(","))
            continue
        match = SETTING.match(line)
        if match and not line.lstrip().startswith("#"):
            value = match.group("value").strip("\"' ")
            if not value or value[0] in "{[(":
                continue  # a JSON/YAML block opens ("hooks": {): a structure, not a setting
            if match.group("key").lower() not in STEP_KEYS:
                found[match.group("key")] = (value, line.strip().rstrip(","))
    return found


def _words(key: str) -> set[str]:
    """The words of a setting's key, singular ("sessions" names SESSION_TTL); a list item
    ("ignore:… is deprecated:DeprecationWarning") is named by its first word, what kind of
    item it is, not by the words of its text."""
    key = key.split(":", 1)[0]
    return {w.rstrip("s") for w in re.split(r"[^a-z0-9]+", key.lower())
            if len(w) >= 4 and w not in ("action", "hook")}


def _names(key: str, said: set[str], message: str) -> bool:
    """Whether the message names the setting ``key``: a word of its key ("pool" names
    POOL_SIZE); a pinned action or hook ("the actions/download-artifact action") by its
    whole name ("download-artifact"), not a word of it ("download" in "the download
    instructions")."""
    pinned = re.fullmatch(r"the (\S+) (?:action|hook)", key)
    if pinned:
        name = pinned.group(1).lower().rstrip("/").rsplit("/", 1)[-1]
        # pre-commit's naming of hook repositories: "ruff-pre-commit", "mirrors-mypy"
        name = re.sub(r"^mirrors-|-?pre-commit-?", "", name) or name
        return bool(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message))
    return bool(_words(key) & said)


def _hook_of(diff: str) -> dict[str, str]:
    """Each ``rev:`` line of a pre-commit diff -> the hook repository it pins (its last
    path part), read from the nearest ``repo:`` line above it on either side."""
    found: dict[str, str] = {}
    repo = ""
    for line in diff.splitlines():
        match = PRE_COMMIT_REPO.match(line)
        if match:
            repo = match.group(1).rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
        elif repo and PRE_COMMIT_REV.match(line[1:]):
            found[line[1:]] = repo
    return found


def _fix_commit(message: str, subject: str, changed: list[str], lang: str,
                tests_only: bool = False) -> Candidate | None:
    """"fix: <what>" + body → the problem (the body's cause sentences, or the subject when it
    names the failure) and the fix (the body's other sentences, else the subject); the
    changed files last. None when the commit states neither a failure nor a cause nor a
    reason: "Handle malformed URI in the middleware" restates what the code shows."""
    bare = msg.PREFIX.sub("", subject, count=1) if msg.is_fix(subject) else subject
    what = msg.PR_NUMBER.sub("", FIX_SUBJECT.sub("", bare, count=1)).strip()
    what = what[:1].upper() + what[1:]
    body = unwrap("\n".join(line for line in msg.without_code_blocks(
        message.strip().splitlines()[1:]) if not FOOTER.match(line)).strip())
    head = analyse(Turn(1, "text", what))
    rest = analyse(Turn(2, "text", _closed(body))) if body else None
    failed = bool(head.errors or head.error_lines)
    causes: list[str] = []
    fixes: list[str] = []
    reasons: list[str] = []  # the fix's own why: said after the fix, or no failure
    if rest is not None:
        denied = {rest.sentence_of(h.start) for h in rest.deny}
        said = [n for n in range(len(rest.spans)) if routine.real_statement(rest.sentence(n))
                and n not in denied and not msg.code_like(rest.sentence(n))
                and (tests_only or not TEST_ACCOUNT.match(rest.sentence(n)))]
        remedies = {rest.sentence_of(h.start) for h in rest.remedy}
        # the body's first statement of the fix: an order or "the fix …"; a long body
        # goes on with why the fix is so, how it was tested, what was left alone
        done = next((n for n in said if (n in remedies or msg.imperative(rest.sentence(n)))
                     and not REPORT.match(rest.sentence(n))), None)
        for number in said:
            sentence = rest.sentence(number)
            # an order ("Add a lookahead so that …") is what the change does, never the cause
            cause = not msg.imperative(sentence) and _states_cause(rest, number)
            if cause and (REPORT.match(sentence)
                          or (not tests_only and CHECKS.search(sentence))):
                continue  # how the fix was checked: a test failing on the old code
            if cause and not _is_failure(rest, number, failed, done):
                # a "because" or "so that" that names no failure is the fix's reason
                # ("It has to happen there, because …"), never the Error
                reasons.append(sentence)
            elif cause:
                causes.append(sentence)
            elif not REPORT.match(sentence):  # "I ran the tests …": how, not what
                fixes.append(sentence)
        # "what happened. what we do now.": a short prose body (not a squash merge's list
        # of commits, not a long essay) puts the problem first and the fix last; when
        # some of its sentences are orders, they are the fix and the others the problem
        if fixes and not causes and 1 < len(said) <= 4 and not any(
                msg.BULLET.match(line) for line in body.splitlines()):
            orders = [f for f in fixes if msg.imperative(f)]
            if orders and len(orders) < len(fixes):
                causes, fixes = [f for f in fixes if f not in orders], orders
            else:
                causes, fixes = fixes[:-1], fixes[-1:]
        if causes and done is None and len(said) > 4:
            # a long body that tells the failure but states no fix (no order, no "the fix
            # …"): its other sentences are more of the problem, the title is the fix
            fixes = []
        fixes.sort(key=lambda f: not msg.imperative(f))  # the order first: what was done
        told = [rest.sentence(n) for n in said if n in remedies]
        if told and any(f in told for f in fixes):  # "Compare against X instead": the fix,
            fixes = [f for f in fixes if f in told]  # not the attempt it replaced
    # a failure named in the subject needs the body's fix in prose: a squash merge's
    # bullet list of commits ("* Add a test", "* Update CHANGES.md") explains nothing
    explained = failed and any(not msg.BULLET.match(line) and routine.real_statement(line)
                               for line in _before_list(body))
    # a subject alone teaches when it names the platform or the API it is about: that
    # is a fact a newcomer would rediscover ("Ignore `ERR_CLOSED_SERVER` in the scanner")
    concrete = bool(CODE_SPAN.search(what) or PLATFORM.search(what))
    # a title with no body that names the symptom's condition ("use a random port when
    # port is 0"): what broke and when, unless the commit changes tests only (a flaky
    # test's fix changes nothing a user sees)
    conditioned = routine.condition(what) and not tests_only
    if not (causes or explained or concrete or conditioned or routine.gives_reason(body)):
        return None
    if not (causes or explained or concrete or routine.gives_reason(body)):
        fixes = []  # the title alone teaches: a squash merge's list of commits is no fix
    topic = None
    if causes:
        error: str | None = " ".join(causes[:2])
        fix = " ".join(fixes[:2]) or what
        # the body's cause and fix may not say what the commit is about (its scope, the
        # names in its title): the title leads, or, when the fix is the title, its scope
        if _unnamed(subject, f"{error} {fix}"):
            if fixes:
                topic = msg.core(subject)
            else:
                scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
                fix = f"{scope.group(1)}: {what}" if scope else what
    else:
        error = what if failed and fixes else None
        # the subject is a title, not a sentence: it leads the body's first one, after
        # its scope ("server: Use a random port …"): what the title is about
        scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
        title = f"{scope.group(1)}: {what}" if scope and not error else what
        fix = " ".join(fixes[:2]) if error else ": ".join([title.rstrip(".:; "), *fixes[:1]])
    if changed:
        fix = fix.rstrip(".。;； ") + f" (changed {', '.join(changed)})"
    why = next((r for r in reasons if not error or r not in error), None)
    return Candidate("ErrorFix", 1, 1, lang, fix, error, files=tuple(changed), topic=topic,
                     cause=why)


FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def _unnamed(subject: str, text: str) -> list[str]:
    """The things the subject names that ``text`` leaves out: its scope ("fix(x):",
    "pkg/path:"), code spans, identifiers, paths and flags."""
    scope = msg.SCOPE.match(subject) or msg.PATH_SCOPE.match(subject)
    named = [scope.group(1)] if scope else []
    rest = msg.PR_NUMBER.sub("", msg.PREFIX.sub("", subject, count=1))
    for kind in (CODE_SPAN, IDENT_RE, PATH_RE, FLAG):
        named += [m.group(1) if kind.groups else m.group(0) for m in kind.finditer(rest)]
    return [n for n in dict.fromkeys(named) if not _starts_a_word(n, text)]


def _starts_a_word(name: str, text: str) -> bool:
    """Whether ``name`` starts a word of ``text`` ("cache" in "caches", not "auth" in
    "Unauthorized"; no pattern compiled a name: a history has thousands)."""
    start = text.find(name)
    while start != -1:
        before = text[start - 1] if start else " "
        if not (before.isalnum() or before in "_.-"):
            return True
        start = text.find(name, start + 1)
    return False


unwrap = msg.unwrap
_ENDS = (".", "!", "?", ":", ";", "。", "！", "？", "：", "；")


def _closed(body: str) -> str:
    """An unwrapped body's lines are its paragraphs and list items: each ends a sentence,
    so a list item is never stitched to the next one ("Use X everywhere * Remove …"), and
    its bullet is no part of a sentence."""
    items = (msg.BULLET.sub("", line).rstrip() for line in body.splitlines())
    return "\n".join(line if not line or line.endswith(_ENDS) else f"{line}."
                     for line in items)


def _before_list(body: str) -> list[str]:
    """The prose before a body's first list item: in a squash merge the paragraphs after
    it belong to the listed commits (their bodies, a bot's "for more information, see …"),
    and explain nothing about the subject's failure."""
    lines = body.splitlines()
    first = next((n for n, line in enumerate(lines) if msg.BULLET.match(line)), len(lines))
    return lines[:first]


# A failure's marks beyond the error words: a negated or deviant predicate ("is not valid
# shell", "never matches", "silently drops", "the wrong field").
SYMPTOM = re.compile(r"(?i)\b(?:not|never|no longer|cannot|\w+n't|neither|nor|without|"
                     r"wrong(?:ly)?|incorrect(?:ly)?|invalid|unexpected(?:ly)?|silently)\b")


# A sentence about the change's tests (a test's name, a test run, the suite): in a fix of
# the code, a failure it tells of is the check of the fix ("`TestX` fails without it",
# "`go test ./...` has one failure"), not the failure fixed.
CHECKS = re.compile(r"\bTest[A-Z]\w*|\btest_\w+|\b\w+_test\b|\b[\w-]+ test\s+\.{0,2}/|"
                    r"(?i:\b(?:tests?|suites?|mutation)\b|\bfail(?:s|ed)? (?:it|them|both)\b)")
# A sentence whose subject is the change's test ("The regression ages the shared
# environment …", "Public regressions cover …", "A regression test proves …"): how the fix
# was checked, never the failure or the fix. A regression *in* something is a breakage.
TEST_ACCOUNT = re.compile(r"^(?:(?:the|a|an|this|these|new|public|two|both|one|another|each|"
                          r"added|existing)\s+)*(?:[\w-]+\s+)?regressions?(?:\s+tests?)?\s+"
                          r"(?!(?:in|from|since|was|is|were|are|has|had|that|which|of|"
                          r"introduced|caused)\b)[a-z]+\b", re.IGNORECASE)
# The author's account of their own work ("I ran the suite", "I produced the before and
# after …"): how the change was checked, never what it does.
REPORT = re.compile(r"^I\b(?!\.)")


def _is_failure(sig: Signals, number: int, failed: bool, done: int | None) -> bool:
    """Whether a cause sentence of a fix's body is about the failure: it shows one (error
    evidence, a diagnosis: anywhere in the body), or it comes before the body states its
    fix (the problem is told first), or, in a body that states no fix, it names one by its
    predicate (negated, deviant) or the subject does. Any other "since", "so that" is the
    fix's reason or the author's aside: "It comes from #6053 so that …", "The other
    formats are unaffected because …"."""
    start, end = sig.spans[number]
    sentence = sig.sentence(number)
    if any(start <= h.start < end for h in sig.errors + sig.cause) \
            or any(line in sentence for line in sig.error_lines):
        return True
    if done is not None:
        return number < done
    return failed or bool(SYMPTOM.search(CODE_SPAN.sub("``", sentence)))


def _states_cause(sig: Signals, number: int) -> bool:
    """A sentence about what went wrong: error evidence, a cause, an effect."""
    start, end = sig.spans[number]
    inside = [h for h in sig.errors + sig.cause if start <= h.start < end]
    return bool(inside) or any(ln in sig.sentence(number) for ln in sig.error_lines) or \
        bool(lx.CAUSE_EFFECT.find(words_of(sig.sentence(number)), sig.sentence(number)))


NO_SECRET = re.compile(r"(?:true|false|yes|no|on|off|null|none|~|)|\$\{\{[^}]*\}\}|\$\{?\w+\}?",
                       re.IGNORECASE)


def _masked(path: str, key: str, value: str) -> bool:
    """.env files and secret-looking keys: the change is kept, the values are not; a switch
    (``persist-credentials: false``) or a reference (``${{ secrets.TOKEN }}``, ``$TOKEN``)
    holds no secret and is shown."""
    if NO_SECRET.fullmatch(value.strip().strip("\"'")):
        return False
    name = path.rsplit("/", 1)[-1]
    return name.startswith(".env") or bool(SECRET_KEY.search(key))


@dataclass(frozen=True)
class Dropped:
    """A candidate the noise model or the scorer turned down, and why (``--dry-run``)."""

    rule: str
    content: str
    reason: str
    score: int = 0


# issue 24: no flood. One lesson a commit, the best-scored; only a changed setting and the
# dependency added with it are two (both read from the diff, neither restates the other).
DIFF_RULES = frozenset(["ConfigChange", "NewTool"])
TEXT_RULES_CHARS = 1500


def candidates(message: str, files: Sequence[tuple[str, str]], diffstat: str,
               small_diffs: Mapping[str, str]) -> list[Candidate]:
    """What one commit teaches, after the noise model (see ``reviewed``)."""
    return [entry.candidate for entry in reviewed(message, files, diffstat, small_diffs)[0]]


def reviewed(message: str, files: Sequence[tuple[str, str]], diffstat: str,
             small_diffs: Mapping[str, str],
             min_score: int = 0, *, facts: bool = False) -> tuple[list[Scored], list[Dropped]]:
    """(kept, dropped): every candidate of the commit, through the noise model
    (``routine``), the per-candidate checks, the lesson value (``commit_value``: at least
    ``min_score``) and the one-per-commit cap. A kept candidate's score is its lesson
    value. ``facts``: a title that is the fact counts too (``commit_fact``): a history
    ingest ranks those under its budget; the post-commit hook, which has none, leaves
    them."""
    from memx_cli.reflector.scorer import classify

    message = msg.without_emoji(message)
    subject = message.strip().splitlines()[0] if message.strip() else ""
    # the entry the commit adds to a changelog for its own change, read once
    entry = commit_fact.own_entry(small_diffs, msg.core(subject))
    found, dropped = _found(message, files, small_diffs, facts, entry)
    why = routine.routine(message, files, small_diffs)
    if why == routine.BUMP and entry is not None and commit_fact.names_subject(entry, subject):
        # a bump the maintainers told users about ("upgrade watchdog" adding "Minimum
        # supported version of Watchdog is 6.0"): a raised floor is what users must know
        why = None
    if why:
        turned = [Dropped(d.rule, d.content, why) for d in dropped] + [
            Dropped(c.rule, c.text, why, value(c, message, outside.own_names(
                p for _, p in files))) for c in found]
        return [], turned or [Dropped("Commit", subject, why)]
    own = outside.own_names(p for _, p in files)
    users = entry is not None
    # what the maintainers told users is read from the message and the entry, not from
    # the diff: a setting or a dependency changed beside it gains nothing
    filed = commit_fact.filed(entry)
    rated = sorted(((value(c, message, own, users and c.rule not in DIFF_RULES, filed), n, c)
                    for n, c in enumerate(found)),
                   key=lambda e: (-e[0], e[1]))
    kept: list[Scored] = []
    for points, _, candidate in rated:
        if points < min_score:
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   f"lesson value {points} below {min_score}: "
                                   f"{_short_of(candidate, message)}", points))
        elif kept and not (len(kept) == 1 and _pair(kept[0].candidate, candidate)):
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   "another candidate of the same commit scored higher",
                                   points))
        else:
            kept.append(Scored(candidate, points, *classify(candidate)))
    return kept, dropped


def _pair(first: Candidate, second: Candidate) -> bool:
    """A changed setting and the dependency added with it: two memories of one commit, both
    read from its diff. A workflow the commit adds is the commit's tool on its own: the
    settings it moved elsewhere are by the way."""
    return (first.rule in DIFF_RULES and second.rule in DIFF_RULES
            and first.rule != second.rule
            and not any(commit_ci.is_pipeline(path) for c in (first, second)
                        if c.rule == "NewTool" for path in c.files))


def _short_of(candidate: Candidate, message: str) -> str:
    """What the memory lacks, in words (``--dry-run --all``)."""
    text = candidate.text
    lacks = []
    if not commit_value.why(text):
        lacks.append("no why")
    if not commit_value.from_body(text, "\n".join(message.strip().splitlines()[1:])):
        lacks.append("the title only")
    if not commit_value.things(text):
        lacks.append("names nothing concrete")
    return ", ".join(lacks) or "too short or a cut sentence"


def _found(message: str, files: Sequence[tuple[str, str]], small_diffs: Mapping[str, str],
           facts: bool = False, entry: commit_fact.Entry | None = None
           ) -> tuple[list[Candidate], list[Dropped]]:
    subject = message.strip().splitlines()[0] if message.strip() else ""
    lang = language(message)
    out: list[Candidate] = []
    dropped: list[Dropped] = []
    changed = [p for _, p in files if p.rsplit("/", 1)[-1] not in LOCKFILES][:4]
    conventional = CONVENTIONAL.match(subject)
    kind = conventional.group(1).lower() if conventional else ""
    said = msg.read(message, lang, commit_fact.news(entry, subject))
    out.extend(said.found)
    dropped.extend(Dropped(rule, text, why) for rule, text, why in said.dropped)
    if said.found or msg.REVERT.match(subject):
        pass  # a norm, a revert or a reason: the message's own lesson comes first (a
        # revert without its reason teaches nothing, its "fix:" type notwithstanding)
    elif TRIVIAL.search(subject):
        pass  # "fix: typo": nothing to learn from the fix itself
    elif files and all(DOCS.search(p) for _, p in files):
        pass  # a fix of the documentation only: a link, a sentence, an example
    elif kind in ("fix", "hotfix", "bugfix") or msg.is_fix(subject) or (
            FIX_SUBJECT.match(subject) and not conventional):
        fix = _fix_commit(message, subject, changed, lang,
                          bool(files) and all(routine.is_test(p) for _, p in files))
        if fix is None and facts and entry and commit_value.why(entry.text):
            # the entry written for users says why ("…, to avoid issues with names that
            # contain f-string syntax"): what the title alone does not
            out.append(commit_fact.from_entry(message, entry, lang))
        elif fix is None:
            dropped.append(Dropped("ErrorFix", msg.core(subject), "a fixed bug with no cause, rule or "
                                   "fact stated (the code says as much)"))
        else:
            out.append(fix)
    unnamed: list[Candidate] = []  # dependencies added that the message does not name
    for status, path in files:
        name = path.rsplit("/", 1)[-1]
        diff = small_diffs.get(path, "")
        if status.startswith("A") and name in LOCKFILES:
            tool = LOCKFILES[name]
            out.append(Candidate("NewTool", 1, 1, lang, f"Started using {tool} ({path} "
                                 f"added): {subject}", commands=(tool,), files=(path,)))
            continue
        pipeline = commit_ci.new_pipeline(path, diff, subject, lang) if (
            status.startswith("A") and diff and commit_ci.is_pipeline(path)) else None
        if pipeline is not None:  # a workflow added: what it runs, not its settings
            out.append(pipeline)
            continue
        manifest = _manifest_kind(path)
        if manifest and diff:
            before = _dependencies(manifest, _lines(diff, "-"), diff)
            after = _dependencies(manifest, _lines(diff, "+"), diff)
            new = [f"`{n}`" + (f" ({v})" if v else "") for n, v in after.items() if n not in before]
            if new:
                label = "dependency" if len(new) == 1 else "dependencies"
                added = Candidate("NewTool", 1, 1, lang, f"Added the {label} "
                                  f"{', '.join(new[:5])} to {path}: {subject}",
                                  files=(path,), cause=_reason_of(message))
                out.append(added)
                if not _named_dependency([n for n in after if n not in before], message):
                    unnamed.append(added)
                continue
        if routine.is_config(path) and diff and routine.machine_written(diff):
            dropped.append(Dropped("ConfigChange", f"In {path} ({subject})", "a schema or a "
                                   "generated file: definitions, not settings"))
        elif routine.is_config(path) and diff:
            _config_change(path, diff, message, subject, lang, bool(manifest), out, dropped)
    if unnamed and (kind in commit_fact.HOUSEKEEPING or any(
            c.rule != "NewTool" for c in out)):
        # added for the commit's other change (a docs page, a dropped Python version's
        # setting, a norm), as a pin the message does not name is
        out = [c for c in out if c not in unnamed]
        dropped.extend(Dropped(c.rule, c.text, "a dependency the message does not name: its "
                               "reason is the commit's other change") for c in unnamed)
    if not out:  # the message itself, through the text rules: only what it states (a
        # decision, a new tool); an error and a fix need the fix rule's evidence
        # the subject and the first paragraph: where a message states its point (a long
        # body's details are read by the rules above; reading them all here is slow)
        # unwrapped: a hard-wrapped line is no sentence ("``set()`` created the … there.")
        head = unwrap("\n\n".join(message.strip().split("\n\n")[:2]))[:TEXT_RULES_CHARS]
        detector = PatternDetector()
        said_too = [*detector.feed(Turn(1, "text", head)), *detector.finish()]
        out.extend(c for c in said_too if c.rule not in EPISODES)
        dropped.extend(Dropped(c.rule, c.text, "an episode read from prose: a commit's "
                               "fix is read by the fix rule") for c in said_too
                       if c.rule in EPISODES)
    fixed = kind in ("fix", "hotfix", "bugfix") or msg.is_fix(subject) or \
        bool(FIX_SUBJECT.match(subject))  # a fixed bug's title restates the code
    docs_only = bool(files) and all(DOCS.search(p) for _, p in files)
    # a commit that adds its own changelog entry told users what it changed: that entry
    # competes with what the rules read from its diff (a setting, a dependency)
    diff_only = bool(out) and all(c.rule in DIFF_RULES for c in out)
    told_users = diff_only and entry is not None
    if facts and (not out or told_users) and not fixed and not docs_only \
            and not TRIVIAL.search(subject):
        fact = commit_fact.stated(message, kind, lang, entry,  # a title that is the fact
                                  outside.own_names(p for _, p in files))
        if fact and _plumbing(files) and not commit_value.from_body(
                fact.text, "\n".join(message.strip().splitlines()[1:]), subject):
            dropped.append(Dropped("Fact", fact.text, "a title about the project's tests, "
                                   "CI or docs only: no behaviour of what it ships"))
        else:
            out.extend([fact] if fact else [])
    out = _setting_is_the_fix(out)
    kept = []
    for candidate in out:
        if routine.real_statement(candidate.fix):
            kept.append(candidate)
        else:
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   "states nothing (an issue number, a link or a rule line)"))
    return kept, dropped


def _named_dependency(names: list[str], message: str) -> bool:
    """Whether the message names a dependency added (``winloop`` for "add winloop
    support", ``sass`` for "… Sass @import") or its subject is about dependencies
    ("build(deps): …", "Add test requirements")."""
    said = message.lower()
    # a word that begins the name says it too ("HTTP client" for httpx)
    words = set(re.findall(r"[a-z][a-z0-9]{3,}", said)) - msg.CLOSED
    for name in names:
        base = re.split(r"[\[<>=!~;@ ]", name.lower(), maxsplit=1)[0]
        parts = [base, *(p for p in re.split(r"[-_.]", base) if len(p) >= 4)]
        if any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", said) for p in parts):
            return True
        if any(part.startswith(word) for part in parts for word in words):
            return True
    subject = said.strip().splitlines()[0] if said.strip() else ""
    return bool(DEPENDENCIES.search(subject))


def _plumbing(files: Sequence[tuple[str, str]]) -> bool:
    """The commit changes the project's plumbing only (its docs, tests, CI): what a
    housekeeping type says ("Use `pytestmark` to simplify test suite", "Group dependabot
    updates" in a history without types)."""
    return bool(files) and all(DOCS.search(p) or routine.is_test(p) or CI.search(p)
                               for _, p in files)


def _reason_of(message: str) -> str | None:
    """The body's first sentence that says why, for a change read from the diff (a
    setting, a dependency): the memory carries its reason, not only the subject."""
    body = "\n".join(message.strip().splitlines()[1:])
    told = msg.sentences(body)
    for n, sentence in enumerate(told):
        if routine.gives_reason(sentence):  # with the sentence it leans on, if it does
            return f"{told[n - 1]} {sentence}" if n and msg.LEANS.search(sentence) else sentence
    return None


def _setting_is_the_fix(found: list[Candidate]) -> list[Candidate]:
    """A fix whose words name the setting the commit changed: the setting is the fix, and
    the fix's problem is why it was set ("… weil glibc …" + ``MALLOC_ARENA_MAX=2``)."""
    fixes = [c for c in found if c.rule == "ErrorFix" and c.error]
    settings = [c for c in found if c.rule == "ConfigChange"]
    if len(fixes) != 1 or not settings:
        return found
    fix = fixes[0]
    for setting in settings:
        keys = [re.split(r"\s*[:=]", span, maxsplit=1)[0].strip("\"' ")
                for span in CODE_SPAN.findall(setting.fix)]
        if any(len(k) > 2 and k in fix.text for k in keys):
            merged = replace(setting, cause=fix.error)
            return [merged if c is setting else c for c in found if c is not fix]
    return found


def _config_change(path: str, diff: str, message: str, subject: str, lang: str,
                   manifest: bool, out: list[Candidate], dropped: list[Dropped]) -> None:
    """A changed setting. It is kept when the message says why, or names it (a version pin
    needs the reason); a pin (``rev:``, ``uses:``) is named by what it pins (which hook,
    which action)."""
    old = _settings(_lines(diff, "-"), diff)
    new_values = _settings(_lines(diff, "+"), diff)
    if manifest:  # a manifest's own version is a release, not a setting
        old.pop("version", None)
        new_values.pop("version", None)
    # named: a word of the key ("pool" of POOL_SIZE, "checkout" of actions/checkout); when
    # the message names some of the settings, those are the ones the memory is about
    said = {w.rstrip("s") for w in re.split(r"[^a-z0-9]+", message.lower())}
    named = {k for k in [*new_values, *old] if _names(k, said, message.lower())}
    if named:
        old = {k: v for k, v in old.items() if k in named}
        new_values = {k: v for k, v in new_values.items() if k in named}
    moves = [f"{k} changed (value masked)" if _masked(path, k, v[0]) else
             f"`{v[1]}` (changed from {old[k][0]})"
             for k, v in new_values.items() if k in old and old[k][0] != v[0]]
    moves += [f"{k} set (value masked)" if _masked(path, k, v[0]) else f"`{v[1]}`"
              for k, v in new_values.items() if k not in old]
    moves += [f"{k} removed" for k in old if k not in new_values]
    if not moves:
        return
    text = f"In {path}, {'; '.join(moves[:3])} ({subject})."
    pins = all(routine.pin_line(v[1]) or k.startswith("the ") for k, v in new_values.items())
    if pins and not named and any(c.rule != "ConfigChange" for c in out):
        # the message's reason is that of the change it tells (a fix, a decision): a pin
        # moved in the same commit is by the way ("restore the zipapp" + actions bumped)
        dropped.append(Dropped("ConfigChange", text, "a version pin the message does not "
                               "name: its reason is the commit's other change"))
        return
    # a pin for one platform ("use node 24.15 for Windows CI") is that platform's fact
    if routine.gives_reason(message) or (named and (not pins or PLATFORM.search(subject))):
        out.append(Candidate("ConfigChange", 1, 1, lang, text, files=(path,),
                             cause=_reason_of(message)))
    else:
        dropped.append(Dropped("ConfigChange", text, "a setting changed by the way: the "
                               "message neither names it nor says why"))
