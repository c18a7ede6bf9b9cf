"""The privacy census corpus (tests/data/privacy_census.json) and the scan that finds a
secret anywhere memx keeps bytes (issue 12).

Secrets are stored as fragments and joined here, so the repository never holds a
provider-shaped literal. Every carrier line ends with a reference word (``zq07x``) that
no pattern touches: finding it in the store proves the line reached it, so a write path
that silently stores nothing cannot pass the census.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "privacy_census.json"


@dataclass(frozen=True)
class Secret:
    number: int
    kind: str
    value: str
    line: str  # the value inside ordinary text, with the reference word at the end
    heldout: bool

    @property
    def ref(self) -> str:
        return f"zq{self.number:02d}x"

    @property
    def needles(self) -> tuple[str, ...]:
        """What must never appear: the value, or each long line of a multi-line value."""
        parts = [p for p in self.value.splitlines() if len(p) >= 12 and "-----" not in p]
        return tuple(parts) or (self.value,)

    @property
    def single_line(self) -> bool:
        return "\n" not in self.value


def _load() -> tuple[list[Secret], list[str]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    secrets = []
    for number, entry in enumerate(data["secrets"]):
        value = "".join(entry["parts"])
        line = entry["line"].replace("{}", value) + f" (ref zq{number:02d}x)"
        secrets.append(Secret(number, entry["kind"], value, line, bool(entry.get("heldout"))))
    return secrets, list(data["clean"])


SECRETS, CLEAN = _load()


def files_under(*roots: Path) -> list[Path]:
    return [p for root in roots if root.exists() for p in sorted(root.rglob("*")) if p.is_file()]


def scan(*roots: Path) -> tuple[list[Secret], list[Secret]]:
    """(leaked, reached): secrets whose value is in some file under ``roots``, and secrets
    whose reference word is (their line got there, masked or not)."""
    blobs = [p.read_bytes() for p in files_under(*roots)]
    lowered = [b.lower() for b in blobs]

    def found(text: str) -> bool:
        raw, low = text.encode("utf-8"), text.lower().encode("utf-8")
        escaped = json.dumps(text)[1:-1].encode("ascii")  # JSON files written ensure_ascii
        return any(raw in b or escaped in b for b in blobs) or any(low in b for b in lowered)

    leaked = [s for s in SECRETS if any(found(n) for n in s.needles)]
    reached = [s for s in SECRETS if found(s.ref)]
    return leaked, reached
