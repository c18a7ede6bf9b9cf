"""Dates in a query (issue 16): "in 2022", "last May", "on 8 May, 2023", "yesterday",
"three weeks ago", "two weeks before August 11, 2023" resolved to a range of days,
relative to the moment of the search; memories dated in the range rank higher.

A memory's date is its ``created_at``: for a transcript turn, when it was said. Things
are said on or after the day they happen ("I went camping last week"), so a memory
dated up to ``SLACK_DAYS`` after the range still counts as in it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memx_cli.clock import parse_timestamp
from memx_cli.generator.candidates import Hit
from memx_cli.generator.fusion import final_score

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
           "couple of": 2, "few": 3}
UNITS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
# How much a memory dated in the query's range gains (a factor of 1 + DATE_BOOST on its
# composite score), and how many days after the range a memory still counts as in it.
DATE_BOOST = 0.25
SLACK_DAYS = 7

_MONTH = r"(?P<month>" + "|".join(m.capitalize() for m in MONTHS) + r"|" + "|".join(
    m for m in MONTHS if m != "may") + r")"
_NUM = r"(?P<num>\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|weekend|month|year)s?"


class _Patterns:
    """The date expressions, compiled on the first query that could hold one: ~5 ms of
    compiling that a search naming no date never needs (issue 29)."""

    def __init__(self) -> None:
        self.day_first = re.compile(r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH
                                    + r",?\s+(?P<year>\d{4})\b")
        self.month_first = re.compile(r"\b" + _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+"
                                      r"(?P<year>\d{4})\b")
        self.month_year = re.compile(r"\b" + _MONTH + r",?\s+(?P<year>\d{4})\b")
        self.year = re.compile(r"\b(?:in|during|of|since|from|for)\s+(?P<year>(?:19|20)\d\d)\b")
        self.bare_month = re.compile(r"\b(?P<which>in|last|this|during|early|late|mid)\s+"
                                     + _MONTH + r"\b", re.IGNORECASE)
        self.ago = re.compile(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+ago\b", re.IGNORECASE)
        self.before = re.compile(r"\b(?:the\s+)?" + _NUM + r"?\s*" + _UNIT
                                 + r"\s+(?P<dir>before|after)\s+(?P<rest>.*)", re.IGNORECASE)
        self.relative = re.compile(r"\b(?P<word>yesterday|today|tonight|(?:last|this|past)\s+"
                                   r"(?:week|weekend|month|year))\b", re.IGNORECASE)


@functools.cache
def _patterns() -> _Patterns:
    return _Patterns()


# Every expression above needs a digit, a unit ("day" also in "today", "yesterday"), a
# month's name or "tonight"; an ASCII query holding none of them names no date. (Not
# ASCII: the patterns decide, as case-insensitive matching and \d reach past ASCII.)
_NEEDS = ("day", "week", "month", "year", "tonight", *MONTHS)


def could_name_a_date(query: str) -> bool:
    """False only for a query none of the date expressions can match."""
    if not query.isascii():
        return True
    low = query.lower()
    return any(c.isdigit() for c in query) or any(word in low for word in _NEEDS)


@dataclass(frozen=True)
class DateRange:
    start: datetime  # inclusive
    end: datetime  # exclusive
    phrase: str  # the words of the query it came from

    def contains(self, moment: datetime, slack_days: float = 0.0) -> bool:
        return self.start <= moment < self.end + timedelta(days=slack_days)

    def days(self, slack_days: int | None = None) -> tuple[int, int]:
        """First and last day (days since 1970), the last extended by the slack."""
        slack = SLACK_DAYS if slack_days is None else slack_days
        last = self.end - timedelta(days=1) + timedelta(days=slack)
        return (max(int(self.start.timestamp() // 86400), 0),
                max(int(last.timestamp() // 86400), 0))

    def describe(self) -> str:
        last = self.end - timedelta(days=1)
        span = self.start.date().isoformat()
        if last.date() != self.start.date():
            span += f" .. {last.date().isoformat()}"
        return f"{span} (from {self.phrase!r})"


def _day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _number(text: str | None) -> int:
    if not text:
        return 1
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else NUMBERS.get(text, 1)


def _anchor(text: str) -> DateRange | None:
    """An explicit day, month or year in ``text`` (the first one)."""
    p = _patterns()
    for pattern in (p.day_first, p.month_first):
        m = pattern.search(text)
        if m:
            start = _day(int(m["year"]), MONTHS.index(m["month"].lower()) + 1, int(m["day"]))
            if start is not None:
                return DateRange(start, start + timedelta(days=1), m[0])
    m = p.month_year.search(text)
    if m:
        return DateRange(*_month_range(int(m["year"]), MONTHS.index(m["month"].lower()) + 1),
                         m[0])
    m = p.year.search(text)
    if m:
        year = int(m["year"])
        return DateRange(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC),
                         m[0])
    return None


def resolve(query: str, moment: datetime) -> DateRange | None:
    """The range of days the query asks about, or None when it names no time (or one
    outside the calendar, "May 0000")."""
    try:
        when = _resolve(query, moment)
    except (ValueError, OverflowError):
        return None
    return when if when is None or when.end.year < 9000 else None  # room for the slack


def _resolve(query: str, moment: datetime) -> DateRange | None:
    if not could_name_a_date(query):
        return None
    p = _patterns()
    m = p.before.search(query)
    if m:
        anchor = _anchor(m["rest"])
        if anchor is not None:
            span = timedelta(days=_number(m["num"]) * UNITS[m["unit"].lower()])
            phrase = (m[0][:m.start("rest") - m.start()] + anchor.phrase).strip()
            if m["dir"].lower() == "before":
                return DateRange(anchor.start - span - timedelta(days=1), anchor.end, phrase)
            return DateRange(anchor.start, anchor.end + span + timedelta(days=1), phrase)
    anchor = _anchor(query)
    if anchor is not None:
        return anchor
    today = moment.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    m = p.ago.search(query)
    if m:
        days = _number(m["num"]) * UNITS[m["unit"].lower()]
        half = timedelta(days=max(1, min(days // 4, 182)))
        centre = today - timedelta(days=days)
        return DateRange(centre - half, centre + half + timedelta(days=1), m[0])
    m = p.relative.search(query)
    if m:
        word = " ".join(m["word"].lower().split())
        tomorrow = today + timedelta(days=1)
        if word in ("today", "tonight"):
            return DateRange(today, tomorrow, m[0])
        if word == "yesterday":
            return DateRange(today - timedelta(days=1), today, m[0])
        which, unit = word.split()
        if unit == "month":
            first = today.replace(day=1)
            if which == "last":
                prev = first - timedelta(days=1)
                return DateRange(*_month_range(prev.year, prev.month), m[0])
            return DateRange(first, tomorrow, m[0])
        if unit == "year":
            year = today.year - (which == "last")
            end = datetime(year + 1, 1, 1, tzinfo=UTC) if which == "last" else tomorrow
            return DateRange(datetime(year, 1, 1, tzinfo=UTC), end, m[0])
        days = UNITS[unit]
        back = timedelta(days=2 * days if which == "last" else days)
        return DateRange(today - back, tomorrow, m[0])
    m = p.bare_month.search(query)
    if m and (m["month"][0].isupper() or m["month"].lower() != "may"):
        month = MONTHS.index(m["month"].lower()) + 1
        year = today.year if month < today.month or (
            month == today.month and m["which"].lower() != "last") else today.year - 1
        return DateRange(*_month_range(year, month), m[0])
    return None


def date_factor(created_at: datetime, when: DateRange | None) -> float:
    """1 + DATE_BOOST for a memory dated in the query's range (with the slack), else 1."""
    if when is None:
        return 1.0
    return 1.0 + DATE_BOOST if when.contains(created_at, SLACK_DAYS) else 1.0


def apply(hits: list[Hit], when: DateRange | None) -> list[Hit]:
    """Each hit's ``date`` factor (shown by --explain), re-ranked; unchanged without a
    range. A memory dated in the range is not aged either: its age is what the query
    asks for, so its decay factor becomes 1 ("what did we change in April?" must not
    prefer May's memories because they are fresher)."""
    if when is None:
        return hits
    for hit in hits:
        factor = date_factor(parse_timestamp(hit.doc["created_at"]), when)
        decay = hit.factors.get("decay", 1.0)
        if factor != 1.0 and 0 < decay < 1.0:
            hit.composite /= decay
            hit.factors["decay"] = 1.0
        hit.factors["date"] = factor
        hit.composite *= factor
        hit.score = final_score(hit.composite)
    hits.sort(key=lambda h: (-h.composite, h.id))
    return hits
