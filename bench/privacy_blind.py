"""How well the masker generalises: the blind secret corpus (tests/data/privacy_blind.json,
written before the masker was read) through the sanitizer every store write uses.

    python bench/privacy_blind.py              # dev set: leaks and changed clean lines
    python bench/privacy_blind.py --heldout    # the held-out set too (aggregates only)
    python bench/privacy_blind.py --show       # which dev lines fail (never held-out ones)
    python bench/privacy_blind.py --paths      # also through memx add, notes, ingest and
                                               # post-commit in a temporary repository
    python bench/privacy_blind.py --speed      # sanitizer time per 1 KB line
    python bench/privacy_blind.py --speed-pair OLD/bin/python NEW/bin/python
                                               # the same in two installs, alternating

A secret *leaks* when its joined value survives the mask (for a multi-line value: any of
its lines of 12+ characters, the census's definition; a value under 8 characters, such as a
PIN, as a token of its own: "6489" inside a commit id is chance); it leaks *partly* when, for a value
of 12+ characters, any 8-character run of it survives that the line around it does not
already hold (for a whole store: that no line of the corpus holds outside its secret, such
as "https://"). A clean line is *changed* when the sanitizer returns anything else.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "privacy_blind.json"
CENSUS = DATA.with_name("privacy_census.json")


@dataclass(frozen=True)
class Secret:
    number: int
    kind: str
    value: str
    line: str
    set: str

    @property
    def needles(self) -> tuple[str, ...]:
        parts = [p for p in self.value.splitlines() if len(p) >= 12 and "-----" not in p]
        return tuple(parts) or (self.value,)

    def runs(self, around: str = "") -> tuple[str, ...]:
        """Every 8-character run of the value that neither its line nor ``around`` (text
        the corpus holds outside any secret, for a scan of a whole store) holds."""
        if len(self.value) < 12:
            return ()
        around = self.line.replace(self.value, "\0") + "\0" + around
        return tuple({r for i in range(len(self.value) - 7)
                      if "\n" not in (r := self.value[i:i + 8]) and r not in around})

    def leaked(self, out: str) -> bool:
        if len(self.value) < 8:  # a PIN or "hunter2": as a token, not inside a commit id
            return re.search(r"(?<![A-Za-z0-9])" + re.escape(self.value) + r"(?![A-Za-z0-9])",
                             out) is not None
        return any(n in out for n in self.needles)

    def partly(self, out: str, around: str = "") -> bool:
        return self.leaked(out) or any(r in out for r in self.runs(around))


def load(path: Path = DATA) -> tuple[list[Secret], list[tuple[str, str]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    secrets = []
    for number, entry in enumerate(data["secrets"]):
        value = "".join(entry["parts"])
        kind_set = entry.get("set") or ("heldout" if entry.get("heldout") else "dev")
        secrets.append(Secret(number, entry["kind"], value, entry["line"].replace("{}", value),
                              kind_set))
    clean = [(c["line"], c["set"]) if isinstance(c, dict) else (c, "dev") for c in data["clean"]]
    return secrets, clean


@dataclass
class Measure:
    secrets: int
    leaked: list[Secret]
    partly: list[Secret]
    clean: int
    changed: list[str]

    def row(self, name: str) -> str:
        return (f"| {name} | {self.secrets} | {len(self.leaked)} | {len(self.partly)} | "
                f"{self.clean} | {len(self.changed)} |")


def measure(secrets: list[Secret], clean: list[str], mask: Callable[[str], str]) -> Measure:
    outs = {s.number: mask(s.line) for s in secrets}
    return Measure(len(secrets), [s for s in secrets if s.leaked(outs[s.number])],
                   [s for s in secrets if s.partly(outs[s.number])],
                   len(clean), [c for c in clean if mask(c) != c])


def inputs() -> dict[str, list[str]]:
    """1 KB chunks: developer prose with code (memx's own docs), the clean traps (dense
    with credential words), and lines holding secrets."""
    secrets, clean = load()
    docs = sorted((DATA.parent.parent.parent / "docs").glob("*.md"))
    prose = " ".join(p.read_text(encoding="utf-8") for p in docs)
    texts = {"developer docs": prose, "clean traps": " ".join(c for c, _ in clean),
             "with secrets": " ".join(s.line for s in secrets if "\n" not in s.value)}
    return {name: [text[i:i + 1024] for i in range(0, len(text) - 1024, 1024)][:24]
            for name, text in texts.items()}


def speed(rounds: int = 15) -> dict[str, float]:
    """Median sanitizer time (µs) per 1 KB chunk, each chunk timed ``rounds`` times."""
    from memx_cli.privacy import default

    sanitize = default().sanitize
    out = {}
    for name, chunks in inputs().items():
        sanitize(chunks[0])  # compile the patterns outside the timing
        times = []
        for _ in range(rounds):
            for chunk in chunks:
                start = time.perf_counter()
                sanitize(chunk)
                times.append((time.perf_counter() - start) * 1e6)
        out[name] = statistics.median(times)
    return out


def speed_pair(before: str, after: str, runs: int = 6) -> list[str]:
    """The same timing in two interpreters (two installs), alternating, ``runs`` each: the
    medians of their medians and the ratio after/before."""
    import subprocess

    got: dict[str, list[dict[str, float]]] = {before: [], after: []}
    for _ in range(runs):
        for python in (before, after):
            done = subprocess.run([python, str(Path(__file__).resolve()), "--speed-json"], capture_output=True,
                                  text=True, check=True, cwd="/")
            got[python].append(json.loads(done.stdout))
    rows = []
    for name in got[before][0]:
        old = statistics.median(r[name] for r in got[before])
        new = statistics.median(r[name] for r in got[after])
        rows.append(f"| {name} | {old:.0f} | {new:.0f} | {new / old:.2f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heldout", action="store_true", help="also the held-out set")
    parser.add_argument("--show", action="store_true", help="list the failing dev lines")
    parser.add_argument("--paths", action="store_true", help="also real write paths")
    parser.add_argument("--speed", action="store_true", help="sanitizer time per 1 KB")
    parser.add_argument("--speed-pair", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="time two installs' pythons, alternating")
    parser.add_argument("--speed-json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.speed_json:
        print(json.dumps(speed()))
        return 0
    if args.speed_pair:
        print("| sanitizer input (1 KB) | before µs | after µs | after/before |")
        print("|---|---|---|---|")
        print("\n".join(speed_pair(*args.speed_pair)))
        return 0
    from memx_cli.privacy import default

    sanitize = default().sanitize
    sets = ["dev", "heldout"] if args.heldout else ["dev"]
    secrets, clean = load()
    census_secrets, census_clean = load(CENSUS)
    print("| set | secrets | leaked | partly leaked | clean lines | clean changed |")
    print("|---|---|---|---|---|---|")
    results = {}
    for name in sets:
        results[name] = measure([s for s in secrets if s.set == name],
                                [c for c, s in clean if s == name], sanitize)
        print(results[name].row(name))
    census = measure(census_secrets, [c for c, _ in census_clean], sanitize)
    print(census.row("census (all)"))
    if args.show:
        dev = results["dev"]
        for s in dev.partly:
            tag = "LEAK" if s in dev.leaked else "part"
            print(f"{tag} {s.number:3d} {s.kind}: {sanitize(s.line)!r}", file=sys.stderr)
        for c in dev.changed:
            print(f"MANGLED {c!r} -> {sanitize(c)!r}", file=sys.stderr)
    if args.speed:
        print("\n| sanitizer input (1 KB) | median µs |\n|---|---|")
        print("\n".join(f"| {name} | {us:.0f} |" for name, us in speed().items()))
    if args.paths:
        from privacy_paths import run_paths  # bench/ is on sys.path when run as a script

        print("\n| write path | set | secrets | reached the store | leaked | partly leaked |")
        print("|---|---|---|---|---|---|")
        for line in run_paths([s for s in secrets if s.set in sets]):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
