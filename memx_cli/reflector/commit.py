"""Rules for one commit: message, changed files, diff stat and the small diffs (SPEC 6).

- ErrorFix: a fix commit (``fix:``, "Fix …", 修复, corrige) whose message names the error;
  the memory says what failed, what the fix was and which files changed.
- ConfigChange: a setting whose value changed in a config or env file (``-KEY=old`` /
  ``+KEY=new`` in the diff).
- NewTool: a dependency added to a manifest (package.json, requirements, pyproject,
  Cargo.toml, go.mod, Gemfile), or a lock file of a package manager not used before.
Everything else in the message goes through the ordinary text rules.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memx_cli.reflector import lexicons as lx
from memx_cli.reflector.candidate import Candidate
from memx_cli.reflector.detector import PatternDetector
from memx_cli.reflector.signals import Signals, analyse
from memx_cli.reflector.turn import Turn
from memx_cli.reflector.vocab import language, words_of

FIX_SUBJECT = re.compile(r"^\s*(?:(?:fix|fixes|fixed|bugfix|hotfix)(?:\([^)]*\))?!?:\s*|"
                         r"(?:fix|fixes|fixed)\s+|(?:修复|修正|修改)(?:\([^)]*\))?[:：]?\s*|"
                         r"corrige[rs]?\s+|correction\s*:?\s+)", re.IGNORECASE)
CONFIG_FILE = re.compile(
    r"(?:^|/)(?:\.env(?:\.[\w-]+)?|[\w.-]*(?:config|settings|conf)[\w.-]*\.(?:ya?ml|json|toml|"
    r"ini|js|cjs|mjs|ts|py|properties)|application\.(?:ya?ml|properties)|[\w.-]+\.(?:ini|cfg|"
    r"conf|toml)|docker-compose[\w.-]*\.ya?ml|\.github/workflows/[\w.-]+\.ya?ml|"
    r"\.gitlab-ci\.ya?ml|\.npmrc|\.nvmrc|\.tool-versions|[\w@.-]+\.(?:service|socket|timer)|"
    r"(?:config|conf|settings|deploy|k8s|helm)/[\w./-]+\.(?:ya?ml|json|toml|ini|properties|conf))$")
UNIT_ENV = re.compile(r"^\s*Environment\s*=\s*(?=[A-Za-z_]\w*=)")
SETTING = re.compile(r"^\s*(?:export\s+)?[\"']?([A-Za-z_][\w.\-]*)[\"']?\s*[:=]\s*(.*?)\s*,?$")
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
FOOTER = re.compile(r"^\s*(?:[A-Z][\w-]+(?: [\w-]+)?: \S|BREAKING CHANGE: |Co-authored-by: |"
                    r"Signed-off-by: )")
TRIVIAL = re.compile(r"(?i)\b(?:typos?|spelling|whitespace|formatting|wording|grammar)\b")
SECRET_KEY = re.compile(r"(?i)secret|token|passw|api_?key|private|credential|_key$|^key$")
NOT_DEPENDENCIES = frozenset(["name", "version", "main", "module", "types", "type", "private", "description", "license", "node", "npm", "python", "requires-python", "edition", "packageManager"])


MANIFESTS = ("package.json", "pyproject.toml", "Cargo.toml", "go.mod", "Gemfile")


def wants_diff(path: str) -> bool:
    """A file whose small diff the commit rules read: config, env, manifests."""
    name = path.rsplit("/", 1)[-1]
    return bool(CONFIG_FILE.search(path) or name in MANIFESTS
                or (name.startswith("requirements") and name.endswith((".txt", ".in"))))


def _lines(diff: str, sign: str) -> list[str]:
    return [line[1:] for line in diff.splitlines()
            if line.startswith(sign) and not line.startswith(sign * 3)]


def _manifest_kind(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if re.fullmatch(r"requirements[\w.-]*\.(?:txt|in)", name):
        return "requirements"
    return name if name in DEPENDENCY else None


def _dependencies(kind: str, lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        match = DEPENDENCY[kind].match(line)
        if not match:
            continue
        groups = [g for g in match.groups()]
        name = groups[0] or (groups[2] if len(groups) > 2 else None)
        version = groups[1] or (groups[3] if len(groups) > 3 else None) or ""
        if name and name not in NOT_DEPENDENCIES:
            found[name] = version.strip("\" ")
    return found


def _settings(lines: list[str]) -> dict[str, tuple[str, str]]:
    """Settings a diff side holds: key -> (value, the line as written, to copy)."""
    found: dict[str, tuple[str, str]] = {}
    for line in lines:
        line = UNIT_ENV.sub("", line)  # systemd: Environment=KEY=value
        match = SETTING.match(line)
        if match and not line.lstrip().startswith("#"):
            value = match.group(2).strip("\"' ")
            if not value or value[0] in "{[(":
                continue  # a JSON/YAML block opens ("hooks": {): a structure, not a setting
            found[match.group(1)] = (value, line.strip().rstrip(","))
    return found


def _fix_commit(message: str, subject: str, changed: list[str], lang: str) -> Candidate:
    """"fix: <what>" + body → the problem (the body's cause sentences, or the subject when it
    names the failure) and the fix (the body's other sentences, else the subject); the
    changed files last. A body's last sentence is its fix unless it states a cause."""
    what = FIX_SUBJECT.sub("", subject, count=1).strip()
    what = what[:1].upper() + what[1:]
    body = unwrap("\n".join(line for line in message.strip().splitlines()[1:]
                            if not FOOTER.match(line)).strip())
    head = analyse(Turn(1, "text", what))
    rest = analyse(Turn(2, "text", body)) if body else None
    causes: list[str] = []
    fixes: list[str] = []
    if rest is not None:
        denied = {rest.sentence_of(h.start) for h in rest.deny}
        said = [n for n in range(len(rest.spans)) if rest.sentence(n) and n not in denied]
        remedies = {rest.sentence_of(h.start) for h in rest.remedy}
        for number in said:
            (causes if _states_cause(rest, number) else fixes).append(rest.sentence(number))
        if fixes and not causes and len(said) > 1:  # "what happened. what we do now."
            causes, fixes = fixes[:-1], fixes[-1:]
        told = [rest.sentence(n) for n in said if n in remedies]
        if told and any(f in told for f in fixes):  # "Compare against X instead": the fix,
            fixes = [f for f in fixes if f in told]  # not the attempt it replaced
    failed = bool(head.errors or head.error_lines)
    if causes:
        error: str | None = " ".join(causes[:2])
        fix = " ".join(fixes[:2]) or what
    else:
        error = what if failed and fixes else None
        fix = " ".join(fixes[:2]) if error else " ".join([what, *fixes[:1]])
    if changed:
        fix = fix.rstrip(".。;； ") + f" (changed {', '.join(changed)})"
    return Candidate("ErrorFix", 1, 1, lang, fix, error, files=tuple(changed))


LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s|^\s{2,}\S")


def unwrap(body: str) -> str:
    """A commit body is hard-wrapped at ~72 columns: join the lines of a paragraph (not
    list items or indented code), so a sentence cut by the wrap stays one sentence."""
    out: list[str] = []
    for line in body.splitlines():
        if out and out[-1].strip() and line.strip() and not LIST_ITEM.match(line) \
                and not out[-1].rstrip().endswith(":"):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _states_cause(sig: Signals, number: int) -> bool:
    """A sentence about what went wrong: error evidence, a cause, an effect."""
    start, end = sig.spans[number]
    inside = [h for h in sig.errors + sig.cause if start <= h.start < end]
    return bool(inside) or any(ln in sig.sentence(number) for ln in sig.error_lines) or \
        bool(lx.CAUSE_EFFECT.find(words_of(sig.sentence(number)), sig.sentence(number)))


def _masked(path: str, key: str) -> bool:
    """.env files and secret-looking keys: the change is kept, the values are not."""
    name = path.rsplit("/", 1)[-1]
    return name.startswith(".env") or bool(SECRET_KEY.search(key))


def candidates(message: str, files: Sequence[tuple[str, str]], diffstat: str,
               small_diffs: Mapping[str, str]) -> list[Candidate]:
    subject = message.strip().splitlines()[0] if message.strip() else ""
    lang = language(message)
    out: list[Candidate] = []
    changed = [p for _, p in files if p.rsplit("/", 1)[-1] not in LOCKFILES][:4]
    conventional = CONVENTIONAL.match(subject)
    kind = conventional.group(1).lower() if conventional else ""
    if TRIVIAL.search(subject):
        pass  # "fix: typo": nothing to learn from the fix itself
    elif kind in ("fix", "hotfix", "bugfix"):
        out.append(_fix_commit(message, subject, changed, lang))
    elif FIX_SUBJECT.match(subject) and not conventional:  # "Fix the login crash"
        sig = analyse(Turn(1, "text", message))
        if sig.error_lines or sig.errors:
            out.append(_fix_commit(message, subject, changed, lang))
    for status, path in files:
        name = path.rsplit("/", 1)[-1]
        diff = small_diffs.get(path, "")
        if status.startswith("A") and name in LOCKFILES:
            tool = LOCKFILES[name]
            out.append(Candidate("NewTool", 1, 1, lang, f"Started using {tool} ({path} "
                                 f"added): {subject}", commands=(tool,), files=(path,)))
            continue
        kind = _manifest_kind(path)
        if kind and diff:
            before = _dependencies(kind, _lines(diff, "-"))
            after = _dependencies(kind, _lines(diff, "+"))
            new = [f"`{n}`" + (f" ({v})" if v else "") for n, v in after.items() if n not in before]
            if new:
                label = "dependency" if len(new) == 1 else "dependencies"
                out.append(Candidate("NewTool", 1, 1, lang, f"Added the {label} "
                                     f"{', '.join(new[:5])} to {path}: {subject}",
                                     files=(path,)))
                continue
        if CONFIG_FILE.search(path) and diff:
            old, new_values = _settings(_lines(diff, "-")), _settings(_lines(diff, "+"))
            if kind:  # a manifest's own version is a release, not a setting
                old.pop("version", None)
                new_values.pop("version", None)
            moves = [f"{k} changed (value masked)" if _masked(path, k) else f"`{v[1]}` (was {old[k][0]})"
                     for k, v in new_values.items() if k in old and old[k][0] != v[0]]
            moves += [f"{k} set (value masked)" if _masked(path, k) else f"`{v[1]}`"
                      for k, v in new_values.items() if k not in old]
            moves += [f"{k} removed" for k in old if k not in new_values]
            if moves:
                out.append(Candidate("ConfigChange", 1, 1, lang,
                                     f"In {path}, {'; '.join(moves[:3])} ({subject}).",
                                     files=(path,)))
    if not out:  # the message itself, through the ordinary text rules
        detector = PatternDetector()
        out.extend(detector.feed(Turn(1, "text", message)))
        out.extend(detector.finish())
    return out
