"""Import records checked field by field, duplicate ids refused, re-runs idempotent
(issue 14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import Memx

ID = "01m8s1y0j2w2vbtjyp73dwk2aa"


def _stored(repo: Path) -> dict[str, dict[str, object]]:
    return {p.stem: yaml.safe_load(p.read_text())
            for p in sorted((repo / ".memx" / "memories").glob("*.yaml"))}


@pytest.mark.parametrize(("payload", "message"), [
    ('[{"content": "a", "tags": [1]}]',
     "import: record 1: field 'tags': expected a list of text, got [1]"),
    ('[{"content": "a", "created_at": 12345}]',
     "import: record 1: field 'created_at': expected text, got 12345"),
    ('[{"content": "a", "created_at": "yesterday"}]',
     "import: record 1: field 'created_at': expected an ISO 8601 time such as "
     "2026-01-02T10:00:00Z, got \"yesterday\""),
    ('[{"content": "a", "scope": 5}]', "import: record 1: field 'scope': expected text, got 5"),
    ('[{"content": "ok"}, {"content": "a", "source": "cli"}]',
     "import: record 2: field 'source': expected an object, got \"cli\""),
    ('[{"content": "a", "source": {"x": ' + "[" * 900 + "]" * 900 + "}}]",
     "import: record 1: field 'source': nested more than 16 levels deep"),
    ("[" * 100_000 + "]" * 100_000, "import: JSON nested too deep; records are flat objects"),
    (f'[{{"id": "{ID}", "content": "one"}}, {{"content": "x"}}, {{"id": "{ID}", '
     '"content": "two"}]',
     f"import: records 1 and 3 have the same id {ID}; keep one of them"),
])
def test_a_bad_record_is_one_line_and_changes_nothing(memx: Memx, repo: Path, payload: str,
                                                      message: str) -> None:
    result = memx("import", "-", input=payload)
    assert (result.code, result.err) == (2, f"memx: error: {message}\n")
    assert _stored(repo) == {}


def test_running_an_import_again_adds_nothing(memx: Memx, repo: Path) -> None:
    records = [{"content": f"service {n} listens on port {8000 + n}"} for n in range(6)]
    records.append({"id": ID, "content": "the release branch is cut on Mondays"})
    records += [{"content": "Use pnpm, not npm, in this repo"},  # the Curator folds
                {"content": "use pnpm, not npm, in this repo"}]  # these two into one
    payload = "\n".join(json.dumps(r) for r in records)
    memx.ok("import", "-", input=payload)
    before = _stored(repo)
    assert len(before) == 8
    assert sorted(m["mention_count"] for m in before.values() if "mention_count" in m) == [2]
    result = memx("import", "-", input=payload)  # as after a crash: the same file again
    assert result.code == 0, result.err
    assert _stored(repo) == before  # no new file, no extra mention
    assert "Imported 0 memories" in result.out
