"""Rules for one commit: message, changed files, diff stat and the small diffs (SPEC 6).

- What the message itself states (``commit_message``): a norm in the subject or a list
  item (Convention), a revert and its reason, a change and its "because" (Decision).
- ErrorFix (``commit_fix``): a fix commit (``fix:``, "Fix …", 修复, corrige) whose message
  names the error or its cause; the memory says what failed, what the fix was and which
  files changed. A fixed bug with neither (the subject restates the code change) teaches
  nothing.
- ConfigChange (``commit_diff``): a setting whose value changed in a configuration file (a
  non-code format, ``routine.is_config``), kept when the message names the setting or
  says why.
- NewTool (``commit_diff``): a dependency added to a manifest (package.json, requirements,
  pyproject, Cargo.toml, go.mod, Gemfile), or a lock file of a package manager not used
  before.
Routine commits (``routine``) keep nothing; every candidate turned down is returned with
its reason (``reviewed``). Anything else in the message goes through the text rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memx_cli.reflector import commit_ci, commit_fact, commit_value, docnotes, outside, routine
from memx_cli.reflector import commit_message as msg
from memx_cli.reflector.candidate import Candidate, Dropped
from memx_cli.reflector.commit_diff import (
    LOCKFILES,
    changed_lines,
    config_change,
    dependencies,
    manifest_kind,
    named_dependency,
    reason_of,
)
from memx_cli.reflector.commit_fix import FIX_SUBJECT, fix_commit
from memx_cli.reflector.commit_value import value
from memx_cli.reflector.detector import PatternDetector
from memx_cli.reflector.names import CODE_SPAN
from memx_cli.reflector.rules import EPISODES
from memx_cli.reflector.scorer import Scored
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import language

DOCS = re.compile(r"(?i)\.(?:md|mdx|rst|txt|adoc)$|(?:^|/)docs?/")
CI = re.compile(r"^\.(?:github|gitlab|circleci|buildkite|azure-pipelines)/|^\.gitlab-ci\.yml$|"
                r"^\.pre-commit-config\.yaml$")
CONVENTIONAL = re.compile(r"^\s*([A-Za-z]+)(?:\([^)]*\))?!?:\s*\S")
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
    # a caveat the commit writes into its documentation (``docnotes``); the other rules
    # read settings, manifests and changelogs only
    written = docnotes.note(small_diffs, msg.core(subject))
    small_diffs = {p: d for p, d in small_diffs.items() if not docnotes.is_doc(p)}
    # the entry the commit adds to a changelog for its own change, read once
    entry = commit_fact.own_entry(small_diffs, msg.core(subject))
    # what the maintainers wrote besides the entries: a release's note, an entry's
    note = commit_fact.note(small_diffs) if facts else None
    found, dropped = _found(message, files, small_diffs, facts, entry, note, written)
    why = None if note else routine.routine(message, files, small_diffs)
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
    users = entry is not None or note is not None
    # what the maintainers told users is read from the message and the entry, not from
    # the diff: a setting or a dependency changed beside it gains nothing
    filed = commit_fact.filed(entry)
    read = [(c, message) for c in found] + _from_subcommits(message, files, facts)
    rated = sorted(((value(c, said, own, users and c.rule not in DIFF_RULES and said is message,
                           filed, ranked=facts), n, c, said)
                    for n, (c, said) in enumerate(read)),
                   key=lambda e: (-e[0], e[1]))
    kept: list[Scored] = []
    for points, _, candidate, said in rated:
        if points < min_score:
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   f"lesson value {points} below {min_score}: "
                                   f"{_short_of(candidate, said)}", points))
        elif kept and not (len(kept) == 1 and _pair(kept[0].candidate, candidate)):
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   "another candidate of the same commit scored higher",
                                   points))
        else:
            kept.append(Scored(candidate, points, *classify(candidate)))
    return kept, dropped


def _from_subcommits(message: str, files: Sequence[tuple[str, str]],
                     facts: bool) -> list[tuple[Candidate, str]]:
    """What the commits of a squash merge teach, each read as a commit of its own (its
    title, its body): the lesson may sit in a later commit of the pull request ("* fix:
    accept an array return in the type layer" and why) or in its ``BREAKING CHANGE:``
    footer, where the whole body, read as one, gives its first sentences to the first
    commit. Only what a commit's body adds counts: its title alone is an item of the list
    the whole message is read with; a chore (a bot's autofix, a bump) is no lesson. Each
    candidate comes with the message it was read from, which its lesson value reads."""
    out: list[tuple[Candidate, str]] = []
    for sub in msg.subcommits(message):
        title, _, body = sub.partition("\n")
        if not _tells(body) or routine.routine(sub, [], {}):
            continue
        found, _ = _found(sub, files, {}, facts, prose_rules=False)
        out.extend((c, sub) for c in found if c.rule not in DIFF_RULES
                   and commit_value.from_body(c.text, body, title))
    return out


TOLD_WORDS = 4  # words beyond closed-class ones and references: a sentence says something


def _tells(body: str) -> bool:
    """The body of a listed commit says something of its own: a sentence that is no line
    of code and, its references (an issue, a link) left out, has ``TOLD_WORDS`` words
    that are no closed-class words; "for more information, see <link>" under a bot's
    autofix and "Follow up to #12" say nothing."""
    for sentence in msg.sentences(body):
        if msg.code_like(sentence):
            continue
        words = re.findall(r"[^\W\d_]{2,}", routine.ISSUE_REF.sub(" ", sentence))
        if len([w for w in words if w.lower() not in msg.CLOSED]) >= TOLD_WORDS:
            return True
    return False


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
           facts: bool = False, entry: commit_fact.Entry | None = None,
           note: commit_fact.Entry | None = None,
           written: docnotes.Note | None = None,
           prose_rules: bool = True) -> tuple[list[Candidate], list[Dropped]]:
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
    elif routine.trivial(subject):
        pass  # "fix: typo": nothing to learn from the fix itself
    elif files and all(DOCS.search(p) for _, p in files):
        pass  # a fix of the documentation only: a link, a sentence, an example
    elif kind in ("fix", "hotfix", "bugfix") or msg.is_fix(subject) or (
            FIX_SUBJECT.match(subject) and not conventional):
        fix = fix_commit(message, subject, changed, lang,
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
    code_too = any(_code(p) for _, p in files)  # what a reason may be about besides settings
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
        if pipeline is not None:  # a workflow added: what it runs, not its settings, with
            # the body's reason as a setting or a dependency carries it
            out.append(replace(pipeline, cause=reason_of(message)))
            continue
        manifest = manifest_kind(path)
        if manifest and diff:
            before = dependencies(manifest, changed_lines(diff, "-"), diff)
            after = dependencies(manifest, changed_lines(diff, "+"), diff)
            new = [f"`{n}`" + (f" ({v})" if v else "") for n, v in after.items() if n not in before]
            if new:
                label = "dependency" if len(new) == 1 else "dependencies"
                added = Candidate("NewTool", 1, 1, lang, f"Added the {label} "
                                  f"{', '.join(new[:5])} to {path}: {subject}",
                                  files=(path,), cause=reason_of(message))
                out.append(added)
                if not named_dependency([n for n in after if n not in before], message):
                    unnamed.append(added)
                continue
        if routine.is_config(path) and diff and routine.machine_written(diff):
            dropped.append(Dropped("ConfigChange", f"In {path} ({subject})", "a schema or a "
                                   "generated file: definitions, not settings"))
        elif routine.is_config(path) and diff:
            config_change(path, diff, message, subject, lang, bool(manifest), out, dropped,
                          code_too)
    if unnamed and (kind in commit_fact.HOUSEKEEPING or any(
            c.rule != "NewTool" for c in out)):
        # added for the commit's other change (a docs page, a dropped Python version's
        # setting, a norm), as a pin the message does not name is
        out = [c for c in out if c not in unnamed]
        dropped.extend(Dropped(c.rule, c.text, "a dependency the message does not name: its "
                               "reason is the commit's other change") for c in unnamed)
    if not out and prose_rules:  # the message itself, through the text rules: only what it states (a
        # decision, a new tool); an error and a fix need the fix rule's evidence
        # the subject and the first paragraph: where a message states its point (a long
        # body's details are read by the rules above; reading them all here is slow)
        # unwrapped: a hard-wrapped line is no sentence ("``set()`` created the … there.")
        head = msg.unwrap("\n\n".join(message.strip().split("\n\n")[:2]))[:TEXT_RULES_CHARS]
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
            and not routine.trivial(subject):
        fact = commit_fact.stated(message, kind, lang, entry,  # a title that is the fact
                                  outside.own_names(p for _, p in files))
        if fact and _plumbing(files) and not commit_value.from_body(
                fact.text, "\n".join(message.strip().splitlines()[1:]), subject):
            dropped.append(Dropped("Fact", fact.text, "a title about the project's tests, "
                                   "CI or docs only: no behaviour of what it ships"))
        else:
            out.extend([fact] if fact else [])
    if note:  # it competes with what the rules read: one lesson a commit, the best-valued
        out.append(commit_fact.from_note(note, lang))
    if written:  # so does a caveat written into the docs
        out.append(docnotes.candidate(written, lang))
    out = _setting_is_the_fix(out)
    kept = []
    for candidate in out:
        if routine.real_statement(candidate.fix):
            kept.append(candidate)
        else:
            dropped.append(Dropped(candidate.rule, candidate.text,
                                   "states nothing (an issue number, a link or a rule line)"))
    return kept, dropped


def _code(path: str) -> bool:
    """A file of the project's code: not configuration, documentation, a manifest, a
    lockfile or a changelog."""
    return not (routine.is_config(path) or DOCS.search(path) or manifest_kind(path)
                or routine.LOCKFILE.search(path) or routine.CHANGELOG.search(path))


def _plumbing(files: Sequence[tuple[str, str]]) -> bool:
    """The commit changes the project's plumbing only (its docs, tests, CI): what a
    housekeeping type says ("Use `pytestmark` to simplify test suite", "Group dependabot
    updates" in a history without types)."""
    return bool(files) and all(DOCS.search(p) or routine.is_test(p) or CI.search(p)
                               for _, p in files)


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

