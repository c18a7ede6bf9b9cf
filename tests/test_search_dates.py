"""Issue 16: dates named in a query, resolved against the moment of the search, and the
memories of those days found and ranked first (generator/temporal.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memx_cli.generator import temporal
from memx_cli.generator.temporal import resolve
from tests.conftest import Memx

NOW = datetime(2026, 6, 10, 9, 0, tzinfo=UTC)


def test_a_query_the_cheap_gate_passes_over_names_no_date(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Issue 29: the date patterns are compiled and run only for a query that could name a
    date; every query the patterns resolve must pass the gate (the gate off, each query of
    a grid of date words, numbers, cases and fillers is resolved as before)."""
    import itertools

    words = ["in", "last", "the", "two", "a", "couple of", "3", "2023", "12th", "ago",
             "before", "after", "weeks", "Day", "yesterday", "TONIGHT", "this", "month",
             "YEAR", "weekend", "past", "May", "may", "aUgust", "Sept", "of", "deploy", ","]
    queries = [" ".join(combo) for n in (1, 2, 3) for combo in itertools.product(words, repeat=n)]
    gated = {q: temporal.could_name_a_date(q) for q in queries}
    assert not temporal.could_name_a_date("deploy the billing service")
    assert temporal.could_name_a_date("部署")
    monkeypatch.setattr(temporal, "could_name_a_date", lambda query: True)
    found = [q for q in queries if resolve(q, NOW) is not None]
    assert len(found) > 1000  # the grid does reach the patterns
    assert [q for q in found if not gated[q]] == []


@pytest.mark.parametrize(("query", "first", "last", "phrase"), [
    ("what did we change in April 2026?", "2026-04-01", "2026-04-30", "April 2026"),
    ("who did Maria meet on May 3, 2023", "2023-05-03", "2023-05-03", "May 3, 2023"),
    ("what did Gina find on 1 February, 2023", "2023-02-01", "2023-02-01", "1 February, 2023"),
    ("deploys in 2025", "2025-01-01", "2025-12-31", "in 2025"),
    ("what broke yesterday", "2026-06-09", "2026-06-09", "yesterday"),
    ("what did Bob change last month", "2026-05-01", "2026-05-31", "last month"),
    ("outages last year", "2025-01-01", "2025-12-31", "last year"),
    ("the migration last May", "2026-05-01", "2026-05-31", "last May"),  # the latest May
    ("the migration in May", "2026-05-01", "2026-05-31", "in May"),
    ("the release in December", "2025-12-01", "2025-12-31", "in December"),
    ("a puppy two weeks before August 11, 2023", "2023-07-27", "2023-08-11",
     "two weeks before August 11, 2023"),
    ("what happened the week after May 3, 2023", "2023-05-03", "2023-05-11",
     "the week after May 3, 2023"),
    ("the flaky test three weeks ago", "2026-05-15", "2026-05-25", "three weeks ago"),
])
def test_a_date_in_the_query_becomes_a_range_of_days(query: str, first: str, last: str,
                                                     phrase: str) -> None:
    when = resolve(query, NOW)
    assert when is not None
    assert when.describe() == (f"{first} .. {last}" if first != last else first) + \
        f" (from {phrase!r})"


@pytest.mark.parametrize("query", [
    "timezone handling convention", "we may need a retry", "how does the march tool work",
    "release 2.0.1 notes", "port 2023 is closed",
    # outside the calendar: no range, and no error
    "in May 0000", "December 9999", "2 weeks after December 31, 9999",
    "the 99 weeks before May 3, 0001", "on December 30, 9999",
])
def test_no_date_no_range(query: str) -> None:
    assert resolve(query, NOW) is None


def test_explain_shows_the_range_and_the_date_factor(memx: Memx,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A memory of the named month ranks first although the query's words are in an
    older one too, and --explain says why; without a date nothing changes."""
    records = [{"content": "Rotated the deploy keys for staging", "created_at": "2026-03-03T10:00:00Z"},
               {"content": "Rotated the signing keys of the release pipeline",
                "created_at": "2026-04-21T10:00:00Z"}]
    (memx.cwd / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    memx.ok("import", "--raw", "m.jsonl")
    monkeypatch.setenv("MEMX_NOW", "2026-06-10T09:00:00Z")
    out = memx.ok("search", "keys rotated in April 2026", "--explain")
    lines = out.splitlines()
    assert lines[0] == "dates: 2026-04-01 .. 2026-04-30 (from 'April 2026')"
    assert lines[2] == "    Rotated the signing keys of the release pipeline"
    assert " x date 1.25 = " in lines[4]
    assert lines[5].startswith("    voices: keyword ")  # issue 25: every voice, then relevance
    assert lines[6].startswith("    relevance ")
    assert " x date 1.00 = " in lines[10]
    data = json.loads(memx.ok("search", "keys rotated in April 2026", "--json", "--explain"))
    assert data["dates"] == {"from": "2026-04-01", "until": "2026-04-30", "phrase": "April 2026"}
    assert [r["explain"]["factors"]["date"] for r in data["results"]] == [1.25, 1.0]
    plain = json.loads(memx.ok("search", "keys rotated", "--json", "--explain"))
    assert "dates" not in plain
    assert all("date" not in r["explain"]["factors"] for r in plain["results"])
