"""Two memories that say the same words about two named things (curator/statement.py
``named_apart``): a service's path, a package, an environment variable, a module. They
are two facts, neither a conflict nor a copy; the same name with another value after a
cue ("lives in X", "is X") is still a contradiction (walk16: 87 conflicts recorded in a
store of 200 memories of many services)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.curator.contradiction import detect
from memx_cli.curator.statement import named_apart
from memx_cli.operations.write import write
from memx_cli.store.records import build
from memx_cli.store.repo import Repo

from .conftest import Memx


@pytest.mark.parametrize(
    ("old", "new", "names"),
    [
        # the name opens the text, follows a verb or a noun, or stands in the Error part
        ("kubectl rollout restart deployment/ledger picks up a changed ConfigMap",
         "kubectl rollout restart deployment/reports picks up a changed ConfigMap",
         ("deployment/ledger", "deployment/reports")),
        ("@app/payments builds with tsc --build before its tests run",
         "@app/cache builds with tsc --build before its tests run",
         ("@app/payments", "@app/cache")),
        ("The ledger service reads DATABASE_URL from .env.local",
         "The ledger service reads REDIS_URL from .env.local", ("DATABASE_URL", "REDIS_URL")),
        ("Error: ImportError: cannot load 'app.billing'. Fix: reinstall with pip install -e .",
         "Error: ImportError: cannot load 'app.search'. Fix: reinstall with pip install -e .",
         ("app.billing", "app.search")),
        ("Error: tests fail in services/ledger/tests. Fix: start the database first.",
         "Error: tests fail in services/reports/tests. Fix: start the database first.",
         ("services/ledger/tests", "services/reports/tests")),
        # words that repeat a part of the name follow it
        ("Run pnpm --filter @app/payments test to test only the payments package",
         "Run pnpm --filter @app/cache test to test only the cache package",
         ("@app/payments", "@app/cache")),
        # after a cue, but the statement goes on about the name: its subject
        ("Changes to packages/ledger/src need a changeset entry",
         "Changes to packages/reports/src need a changeset entry",
         ("packages/ledger/src", "packages/reports/src")),
        # controls: a name after a cue that ends its clause is the value given
        ("The app config lives in config/app.yaml", "The app config lives in config/app.yml",
         None),
        ("The CI workflow is .github/workflows/ci.yml",
         "The CI workflow is .github/workflows/test.yml", None),
        ("Service logs are written to /var/log/app in production",
         "Service logs are written to /var/log/api in production", None),
        ("Use DATABASE_URL", "Use POSTGRES_URL", None),
        # ... in the Fix part too: the same failure fixed another way
        ("Error: the build fails. Fix: point PYTHONPATH to src/app",
         "Error: the build fails. Fix: point PYTHONPATH to lib/app", None),
        # controls: a flag, a version, a plain word, or a name with another word changed
        ("Push rebased branches with --force-with-lease", "Push rebased branches with --force",
         None),
        ("The ledger service pins python 3.11", "The ledger service pins python 3.12", None),
        ("deployment/ledger runs 2 replicas", "deployment/reports runs 4 replicas", None),
        ("The ledger service listens on port 8081", "The ledger service listens on port 8081",
         None),
        ("Run pnpm --filter @app/payments test to test only the payments package",
         "Run pnpm --filter @app/cache test to test only the search package", None),
    ],
)
def test_named_apart(old: str, new: str, names: tuple[str, str] | None) -> None:
    assert named_apart(old, new) == names
    if names is not None:
        assert detect(old, new) is None


def test_detect_keeps_a_value_of_the_same_name() -> None:
    """The pairs above named apart were contradictions before; a changed value of one
    named thing still is."""
    found = detect("The app config lives in config/app.yaml",
                   "The app config lives in config/app.yml")
    assert found is not None and found.kind == "value"
    found = detect("deployment/ledger exposes port 8081", "deployment/ledger exposes port 9090")
    assert found is not None and "8081" in found.why


def test_a_store_of_many_services_records_only_the_real_conflicts(memx: Memx,
                                                                   repo: Path) -> None:
    """The same statements said of several services are added side by side; a setting of
    one service said with another value is recorded as a conflict, a changed one
    supersedes (controls)."""
    services = ("ledger", "reports", "payments", "cache")
    texts = [t.format(s=s, S=s.upper()) for s in services for t in (
        "Error: deployment/{s} crashes with OOMKilled after the nightly job. "
        "Fix: raise its memory limit to 1Gi.",
        "pnpm --filter @app/{s} build emits dist/ for the {s} package",
        "{S}_DATABASE_URL must be set before the migrations run",
        "helm template charts/{s} renders the manifests for review",
        "The {s} worker retries failed jobs 3 times",
    )]
    texts += ["Error: deployment/cache crashes with OOMKilled after the nightly job. "
              "Fix: raise its memory limit to 2Gi.",
              "The ledger worker now retries failed jobs 5 times"]
    results = write(Repo(repo), [build(t) for t in texts])
    actions = [r.action for r in results]
    assert actions[:20] == ["added"] * 20
    assert actions[20:] == ["conflicts with", "supersedes"]
    by_id = {r.memory.id: t for r, t in zip(results, texts)}
    assert "1Gi" in by_id[results[20].other or ""] and "cache" in by_id[results[20].other or ""]
    assert "ledger worker retries" in by_id[results[21].other or ""]
