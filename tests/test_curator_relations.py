"""The Curator's relation rules (curator/relations.py): order, quantity, prefixed
opposites, time zones, paths and flags, counts, environments; each through the real
write path (`memx add` twice in a temporary repository), and as a rule with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.curator.contradiction import detect

from .conftest import Memx


def add(memx: Memx, text: str) -> tuple[str, str]:
    result = memx("add", text)
    assert result.code == 0, result.err
    return result.out.strip(), result.err


def stored(repo: Path) -> int:
    return len(list((repo / ".memx" / "memories").glob("*.yaml")))


@pytest.mark.parametrize(
    ("old", "new", "action"),
    [
        # order: the same words swapped around "over" / "rather than" / 而不是
        ("Prefer composition over inheritance", "Prefer inheritance over composition",
         "conflicts with"),
        ("Use named exports rather than default exports",
         "Use default exports rather than named exports", "conflicts with"),
        ("优先使用组合而不是继承", "优先使用继承而不是组合", "conflicts with"),
        # quantity
        ("All services must emit JSON logs", "Only some services emit JSON logs",
         "conflicts with"),
        ("Always rebase before merging", "Sometimes rebase before merging", "conflicts with"),
        ("所有服务都必须输出JSON日志", "只有部分服务输出JSON日志", "conflicts with"),
        # a word and its negative form
        ("Lock the main branch during releases", "Unlock the main branch during releases",
         "conflicts with"),
        ("Our images run as a non-root user", "Our images run as root", "conflicts with"),
        # time zones
        ("Nightly backups run at 02:00 UTC", "Nightly backups run at 02:00 local time",
         "conflicts with"),
        ("Log timestamps are in UTC", "Log timestamps are in Europe/Berlin time",
         "conflicts with"),
        # paths and flags
        ("The app config lives in config/app.yaml", "The app config lives in config/app.yml",
         "conflicts with"),
        ("Migrations live in db/migrations", "Migrations now live in src/db/migrations",
         "supersedes"),
        ("In CI, install with pnpm install --frozen-lockfile",
         "In CI, install with pnpm install --no-frozen-lockfile", "conflicts with"),
        ("Run pytest with -x", "Run pytest without -x", "conflicts with"),
        # values: versions without the v, Kubernetes units, ordinals, glued versions, counts
        ("Pin the terraform provider to v3.2", "Pin the terraform provider to 3.3",
         "conflicts with"),
        ("The worker pod memory limit is 512Mi", "The worker pod memory limit is 1Gi",
         "conflicts with"),
        ("Dependency updates are batched on the 1st of each month",
         "Dependency updates are batched on the 15th of each month", "conflicts with"),
        ("Build images with Go 1.21", "Build images with go1.22", "conflicts with"),
        ("Every PR needs two approvals", "Every PR needs one approval", "conflicts with"),
        ("El puerto de Redis es 6379", "El puerto de Redis es 6380", "conflicts with"),
        # a version joined by a hyphen or a colon, or after a bare "v"
        ("The base image is postgres:15-alpine", "The base image is postgres:16-alpine",
         "conflicts with"),
        ("Runners use ubuntu-22.04", "Runners use ubuntu-24.04", "conflicts with"),
        ("Use v2 of the payments API", "Use v3 of the payments API", "conflicts with"),
        # negation and opposites in more forms and languages
        ("Run migrations in a transaction", "Run migrations outside a transaction",
         "conflicts with"),
        ("The service is stateless", "The service is stateful", "conflicts with"),
        ("Store the DB session in a module-level global",
         "Avoid storing the DB session in a module-level global", "conflicts with"),
        ("Send notification emails synchronously", "Send notification emails asynchronously",
         "conflicts with"),
        ("Wir nutzen MySQL für die Datenbank",
         "Die Datenbank wurde von MySQL auf Postgres umgestellt", "supersedes"),
    ],
)
def test_contradiction_is_kept_through_memx_add(memx: Memx, repo: Path, old: str, new: str,
                                                action: str) -> None:
    first, said = add(memx, old)
    assert said == ""
    _, said = add(memx, new)
    assert said == f"{action} {first}\n"
    assert stored(repo) == 2


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        # the same value written another way: one memory
        ("The worker memory limit is 1Gi", "The worker memory limit is 1024Mi", "merged into"),
        ("The CLI is pinned to v2.4.1", "The CLI is pinned to 2.4.1", "merged into"),
        # the same statement about two environments: two memories, no conflict
        ("Debug logging is enabled in staging", "Debug logging is disabled in production", ""),
        ("In CI, install with pnpm install --frozen-lockfile",
         "Locally, run pnpm install without --frozen-lockfile", ""),
        ("在CI中开启缓存", "在本地关闭缓存", ""),
        # two directories for two things
        ("Store uploads in /data/uploads", "Store logs in /data/logs", ""),
    ],
)
def test_same_value_or_other_scope(memx: Memx, repo: Path, old: str, new: str,
                                   said: str) -> None:
    first, _ = add(memx, old)
    _, told = add(memx, new)
    assert told == (f"{said} {first}\n" if said else "")
    assert stored(repo) == (1 if said else 2)


@pytest.mark.parametrize(
    ("old", "new", "kind", "why"),
    [
        ("Prefer composition over inheritance", "Prefer inheritance over composition",
         "order", 'order: the sides of "over" are swapped'),
        ("Review all migrations manually", "Review only destructive migrations manually",
         "quantity", "quantity: one says all or always, the other only some"),
        ("Encrypt backups at rest", "Store backups unencrypted at rest", "opposite",
         'opposite words: "encrypt" vs "unencrypted"'),
        ("Cron schedules are written in UTC", "Cron schedules are written in local time",
         "value", "different time zones: UTC vs local"),
        ("The deploy freeze starts Friday 16:00 UTC", "The deploy freeze starts Friday 16:00 CET",
         "value", "different time zones: UTC vs CET"),
        ("Push rebased branches with --force-with-lease", "Push rebased branches with --force",
         "value", 'different paths or flags: "--force-with-lease" vs "--force"'),
        ("Before merging: rebase, get one approval, squash",
         "Before merging: rebase, get two approvals, squash", "value",
         "different counts: one vs two"),
    ],
)
def test_relation_reasons(old: str, new: str, kind: str, why: str) -> None:
    found = detect(old, new)
    assert found is not None
    assert (found.kind, found.why) == (kind, why)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Run make lint before pushing", "Before you push, run make lint"),  # not swapped
        ("Prefer composition over inheritance", "Composition is preferred over inheritance"),
        ("Store uploads in /data/uploads", "Store logs in /data/logs"),
        ("config/dev.yaml sets the log level to debug", "config/prod.yaml sets the log level to warn"),
        ("Timestamps are stored in UTC", "Timestamps are stored in UTC."),
        ("Run the migrations in CI", "Run the migrations locally"),
    ],
)
def test_no_relation_contradiction(old: str, new: str) -> None:
    assert detect(old, new) is None


def test_digits_inside_words_keep_two_statements(memx: Memx, repo: Path) -> None:
    # Not a value to the rules (no contradiction is claimed), but not one statement either.
    add(memx, "The edge proxy speaks h2 to the backends")
    _, said = add(memx, "The edge proxy speaks h3 to the backends")
    assert said == ""
    assert stored(repo) == 2
