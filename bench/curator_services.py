"""The Curator on a store of many services (walk16): how many conflicts does it record?

    python bench/curator_services.py BIN [BIN ...]

Each BIN is the folder holding an install's executables (a virtual environment's bin/).
One list of synthetic memories is written through that install's Curator, in one batch,
into a fresh store: 20 statements said once for each of 10 services, each naming its
service by a path, a package, an environment variable or a module ("deployment/ledger",
"@app/ledger", "LEDGER_DATABASE_URL", "app.ledger.settings"), then 5 statements that
give one service's setting another value (a retry count, a memory limit): those 5 are
the only contradictions. Prints, per install, the decisions counted and the conflicts
and supersedes recorded, split into those between two services and those of one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

SERVICES = ("ledger", "reports", "payments", "cache", "gateway", "notifier", "search",
            "auth", "billing", "inventory")
TEMPLATES = (
    "Error: deployment/{s} crashes with OOMKilled after the nightly job. "
    "Fix: raise its memory limit to 1Gi.",
    "kubectl logs deployment/{s} --since=1h shows the last hour of requests",
    "@app/{s} runs its unit tests with vitest run",
    "pnpm --filter @app/{s} build emits dist/ for the {s} package",
    "services/{s}/Dockerfile copies the lockfile before the sources so the install "
    "layer is cached",
    "{S}_DATABASE_URL must be set before the migrations run",
    "Error: Cannot find module '@app/{s}/config'. Fix: add the package to the "
    "workspace's tsconfig paths.",
    "helm template charts/{s} renders the manifests for review",
    "The {s} service exposes its metrics on /metrics",
    "Error: tests in services/{s}/tests fail with ECONNREFUSED 127.0.0.1:5432. "
    "Fix: start postgres with docker compose up -d db first.",
    "go test ./internal/{s}/... needs the -race flag in CI",
    "app.{s}.settings reads its values from the environment",
    "Run make -C services/{s} lint before pushing",
    "{S}_LOG_LEVEL controls the verbosity of the {s} worker",
    "The {s} worker retries failed jobs 3 times",
    "docker compose up {s} starts the service with its dependencies",
    "Error: deployment/{s} rollout stuck in ImagePullBackOff. Fix: add the pull "
    "secret regcred to its service account.",
    "Changes to packages/{s}/src need a changeset entry",
    "The {s} API documentation lives in the wiki",
    "CODEOWNERS assigns services/{s}/ to the platform team",
)
# One service's setting with another value: what the Curator must still record.
CHANGED = (
    ("The {s} worker retries failed jobs 3 times", "The {s} worker retries failed jobs 5 times",
     "ledger"),
    ("Error: deployment/{s} crashes with OOMKilled after the nightly job. "
     "Fix: raise its memory limit to 1Gi.",
     "Error: deployment/{s} crashes with OOMKilled after the nightly job. "
     "Fix: raise its memory limit to 2Gi.", "payments"),
    ("{S}_LOG_LEVEL controls the verbosity of the {s} worker",
     "{S}_LOG_LEVEL no longer controls the verbosity of the {s} worker", "gateway"),
    ("helm template charts/{s} renders the manifests for review",
     "helm template charts/{s} never renders the manifests for review", "search"),
    ("The {s} API documentation lives in the wiki",
     "The {s} API documentation now lives in docs/api.md", "auth"),
)

CHILD = """
import collections, json, subprocess, sys
from pathlib import Path
from memx_cli.operations.write import write
from memx_cli.store.records import build
from memx_cli.store.repo import Repo, init

root = Path(sys.argv[1])
subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
repo = Repo(root)
init(repo)
texts = json.loads(Path(sys.argv[2]).read_text())
results = write(repo, [build(t) for t in texts])
by_id = {r.memory.id: t for r, t in zip(results, texts)}
counts = collections.Counter(r.action for r in results)
pairs = [(by_id.get(r.other, ""), by_id[r.memory.id]) for r in results
         if r.action in ("conflicts with", "supersedes")]
print(json.dumps({"counts": counts, "pairs": pairs}))
"""


def texts() -> list[str]:
    found = [t.format(s=s, S=s.upper()) for t in TEMPLATES for s in SERVICES]
    found += [new.format(s=s, S=s.upper()) for _, new, s in CHANGED]
    return found


def service_of(text: str) -> frozenset[str]:
    return frozenset(s for s in SERVICES if re.search(rf"(?<![a-z]){s}(?![a-z])", text.lower()))


def measure(bin_dir: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "texts.json"
        listed.write_text(json.dumps(texts()))
        root = Path(tmp) / "repo"
        root.mkdir()
        env = {"HOME": tmp, "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
        out = subprocess.run([str(bin_dir.absolute() / "python"), "-c", CHILD, str(root), str(listed)],
                             capture_output=True, text=True, check=True, env=env, cwd=tmp)
        found: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
        return found


def main(argv: Sequence[str]) -> None:
    print(f"{len(texts())} memories, {len(SERVICES)} services, {len(CHANGED)} contradictions\n")
    print("| install | decisions | recorded between two services | of one service |\n"
          "|---|---|---|---|")
    for name in argv:
        got = measure(Path(name))
        pairs = got["pairs"]
        assert isinstance(pairs, list)
        apart = sum(service_of(a) != service_of(b) for a, b in pairs)
        counted = got["counts"]
        assert isinstance(counted, dict)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(counted.items()))
        print(f"| {name} | {counts} | {apart} | {len(pairs) - apart} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
