"""The Reflector's rules, one ``Rule`` record each: what a rule is called, how much its
finding is trusted, where its memory is filed, how it is tagged and how fast it fades.

Every other stage reads this table (the detector for the confidence, the scorer for the
section and knowledge type, the distiller for the tag, the write path for the memory type
that picks a decay curve); a new rule is one more record here plus its detector.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str
    confidence: float  # SPEC 3.1: the rule's base confidence
    section: str  # default section; the scorer may refine it from the words
    type: str  # knowledge type
    tag: str
    detects: str
    # Decay (SPEC 3.3, ace.decay.types): a memory of this rule gets ``memory_type`` and,
    # unless the configuration gives that type a curve, this half-life in days (None: the
    # default curve, ace.decay.half_life).
    memory_type: str | None = None
    half_life: float | None = None
    suggests_policy: bool = False  # review proposes it as a policy; never made one by itself


RULES: dict[str, Rule] = {r.name: r for r in (
    Rule("ErrorFix", 0.8, "debugging", "pitfall", "error-fix",
         "a problem and what fixed it, confirmed"),
    Rule("RetrySuccess", 0.7, "debugging", "trick", "retry-success",
         "failed attempts, then the one that worked, confirmed"),
    Rule("ConfigChange", 0.6, "general", "knowledge", "config-change",
         "a setting changed, with its key"),
    Rule("NewTool", 0.65, "tools", "knowledge", "new-tool", "first use of / switch to a tool"),
    Rule("RepetitiveOp", 0.5, "workflow", "method", "repetitive-op",
         "a chore done every time"),
    # How a person wants work done: it holds until they say otherwise.
    Rule("Preference", 0.7, "preferences", "preference", "preference",
         "how a person wants work done", "preference", 180.0),
    # A team or repository rule: stable, and a candidate policy for review.
    Rule("Convention", 0.75, "patterns", "convention", "convention",
         "a team or repository rule", "convention", 365.0, suggests_policy=True),
    # A CI failure with the line that explains it (issue 24): a log holds no fix.
    Rule("CIFailure", 0.7, "debugging", "pitfall", "ci-failure",
         "a CI job's failure, with its step and the diagnostic that explains it"),
    # What a piece of agent work changed and found out, in the agent's report after a check
    # passed (issue 24): facts of the code base a newcomer would otherwise dig up again.
    Rule("WorkReport", 0.6, "general", "knowledge", "work-report",
         "what verified work changed and established, as the agent reported it"),
    # A behaviour, library or platform fact a commit's title states, or a user's factual
    # correction the agent accepts in a session (issue 24).
    Rule("Fact", 0.6, "general", "knowledge", "fact",
         "a behaviour of the project, a library or a platform, as a commit or a user's "
         "accepted correction states it"),
    # A choice with its reason: it does not fade like a log line.
    Rule("Decision", 0.75, "architecture", "decision", "decision",
         "a choice, its reason, the alternative rejected", "decision", 730.0),
)}
NAMES = tuple(RULES)
EPISODES = ("ErrorFix", "RetrySuccess")


def rule(name: str) -> Rule | None:
    return RULES.get(name)


def decay_defaults() -> dict[str, float]:
    """memory_type → half-life (days) for the types the rules write."""
    return {r.memory_type: r.half_life for r in RULES.values()
            if r.memory_type and r.half_life}
