"""What a commit's small diffs change (SPEC 6): a setting in a configuration file
(ConfigChange, kept when the message names it or says why; a secret's value masked), a
dependency added to a manifest or a lock file of a package manager (NewTool), and which
files' diffs are read at all (``wants_diff``)."""

from __future__ import annotations

import re

from memx_cli.reflector import routine
from memx_cli.reflector.candidate import Candidate, Dropped
from memx_cli.reflector.commit_fix import FIX_SUBJECT
from memx_cli.reflector.commit_message import CLOSED, LEANS, sentences

# A CI job's program, not its settings: a step's command, its label, its condition.
STEP_KEYS = frozenset(["run", "name", "if", "id", "description", "title", "script",
                       "before_script", "after_script", "steps", "needs"])
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
SECRET_KEY = re.compile(r"(?i)secret|token|passw|api_?key|private|credential|_key$|^key$")
NOT_DEPENDENCIES = frozenset(["name", "version", "main", "module", "types", "type", "private", "description", "license", "node", "npm", "python", "requires-python", "edition", "packageManager"])
DEPENDENCY_SECTION = re.compile(r"(?im)^[ +-]?\s*(?:\[[\w.-]*(?:dependencies|requires)[\w.-]*\]|"
                                r"[\w-]*(?:dependencies|requires)\s*=)")
# Version pins: pre-commit's "rev:" (named by the hook repository above it) and Actions'
# "uses: owner/name@ref" (named by the action): which hook, which action, not "rev".
PRE_COMMIT_REPO = re.compile(r"^[ +-]\s*-?\s*repo:\s*['\"]?(\S+?)['\"]?\s*$")
PRE_COMMIT_REV = re.compile(r"^\s*rev:\s*['\"]?([^'\"\s#]+)")
ACTION_USES = re.compile(r"^\s*(?:-\s*)?uses:\s*([\w.\-/]+)@([^\s#]+)(?:\s*#\s*(\S+))?")
# A name of code: with an underscore, a dot between words or a capital inside it.
IDENTIFIER = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[A-Za-z]\.[A-Za-z]|[a-z][A-Z]")
MANIFESTS = ("package.json", "pyproject.toml", "Cargo.toml", "go.mod", "Gemfile")


def wants_diff(path: str) -> bool:
    """A file whose small diff the commit rules read: configuration, env, manifests."""
    name = path.rsplit("/", 1)[-1]
    return bool(routine.is_config(path) or name in MANIFESTS
                or (name.startswith("requirements") and name.endswith((".txt", ".in"))))


def changed_lines(diff: str, sign: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith(sign) and not line.startswith(sign * 3)]


def manifest_kind(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if re.fullmatch(r"requirements[\w.-]*\.(?:txt|in)", name):
        return "requirements"
    return name if name in DEPENDENCY else None


def dependencies(kind: str, lines: list[str], diff: str = "") -> dict[str, str]:
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


def _names_a_value(settings: list[tuple[str, str]], message: str) -> bool:
    """Whether the message names an identifier the settings' lines hold (a warning
    filter's ``allow_redirects`` in "Remove deprecated `allow_redirects` …"): a name with
    an underscore, a dot or an inner capital, not an everyday word ("command")."""
    said = set(re.findall(r"[\w.]+", message))
    return any(name in said for _, line in settings
               for name in re.findall(r"[\w.]{4,}", line) if IDENTIFIER.search(name))


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


def named_dependency(names: list[str], message: str) -> bool:
    """Whether the message names a dependency added (``winloop`` for "add winloop
    support", ``sass`` for "… Sass @import") or its subject is about dependencies
    ("build(deps): …", "Add test requirements")."""
    said = message.lower()
    # a word that begins the name says it too ("HTTP client" for httpx)
    words = set(re.findall(r"[a-z][a-z0-9]{3,}", said)) - CLOSED
    for name in names:
        base = re.split(r"[\[<>=!~;@ ]", name.lower(), maxsplit=1)[0]
        parts = [base, *(p for p in re.split(r"[-_.]", base) if len(p) >= 4)]
        if any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", said) for p in parts):
            return True
        if any(part.startswith(word) for part in parts for word in words):
            return True
    subject = said.strip().splitlines()[0] if said.strip() else ""
    return bool(DEPENDENCIES.search(subject))


URL = re.compile(r"^(?:https?|wss?|ftp)://\S+$")


def _relinked(old: dict[str, tuple[str, str]], new: dict[str, tuple[str, str]]) -> bool:
    """Every setting the change is about went from one address to another (nothing set
    anew, nothing removed)."""
    return bool(new) and set(new) == set(old) and all(
        URL.match(old[k][0]) and URL.match(v[0]) for k, v in new.items() if old[k][0] != v[0])


def reason_of(message: str) -> str | None:
    """The body's first sentence that says why, for a change read from the diff (a
    setting, a dependency): the memory carries its reason, not only the subject."""
    body = "\n".join(message.strip().splitlines()[1:])
    told = sentences(body)
    for n, sentence in enumerate(told):
        if routine.gives_reason(sentence):  # with the sentence it leans on, if it does
            return f"{told[n - 1]} {sentence}" if n and LEANS.search(sentence) else sentence
    return None


def config_change(path: str, diff: str, message: str, subject: str, lang: str,
                   manifest: bool, out: list[Candidate], dropped: list[Dropped],
                   code_too: bool = False) -> None:
    """A changed setting. It is kept when the message says why, or names it (a version pin
    needs the reason); a pin (``rev:``, ``uses:``) is named by what it pins (which hook,
    which action). ``code_too``: the commit changes code as well, so a reason the message
    gives is about the setting only when the message names it or its file."""
    old = _settings(changed_lines(diff, "-"), diff)
    new_values = _settings(changed_lines(diff, "+"), diff)
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
    if code_too and not named and not _words(path) & said and not _names_a_value(
            [*new_values.values(), *old.values()], message):
        # "fix: retry the webhook …, because …" committed with an agent's config file:
        # the reason is the code's, and the setting is no part of what the message tells
        dropped.append(Dropped("ConfigChange", text, "a setting the message names neither "
                               "by its key nor its file, in a commit that changes code: "
                               "its reason is the code's"))
        return
    if FIX_SUBJECT.match(subject) and _relinked(old, new_values) \
            and not routine.gives_reason(message):
        # "Fix GitHub link in docs": a wrong address corrected, as a typo is (a link moved
        # with what it points at, "Move changelog to release notes", says where it lives)
        dropped.append(Dropped("ConfigChange", text, "a wrong link corrected (each value "
                               "changed is an address) and the message says no why"))
        return
    # a pin for one platform ("use node 24.15 for Windows CI") is that platform's fact
    if routine.gives_reason(message) or (named and (not pins or routine.PLATFORM.search(subject))):
        out.append(Candidate("ConfigChange", 1, 1, lang, text, files=(path,),
                             cause=reason_of(message)))
    else:
        dropped.append(Dropped("ConfigChange", text, "a setting changed by the way: the "
                               "message neither names it nor says why"))

