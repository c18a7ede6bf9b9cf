"""How well ``memx ingest --git-log`` ranks a history's candidates (issue 24).

The budget keeps the best-valued candidates (60 per 1,000 commits); which ones it keeps is
the ranking. This runs ``memx ingest --git-log RANGE --dry-run --json --budget 0`` on each
labelled git range of a real-world corpus (``lessons.json`` + ``git.json``, the layout of
the realworld scorer), orders the candidates as the budget does (lesson value, then the
newer first) and prints, for k candidates per 250 commits of the range, the precision of
the top k: the share whose commit is one of the range's ``lesson_commits``. It also prints
the share of the range's lesson commits that the top k reach (recall at k).

    python bench/gitlog_rank.py --memx VENV/bin/memx --mirrors DIR --corpus DIR [--show N]

``--mirrors`` holds ``<owner>+<name>/repo`` (or ``<owner>+<name>``) bare mirrors or clones.
``--show N`` lists each range's top N candidates with their verdict (+ lesson, - not).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

KS = (15, 30, 60)


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          check=False)


def _mirror(mirrors: Path, repo: str) -> Path | None:
    owner, name = repo.split("/")
    for path in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}",
                 mirrors / owner / name):
        if path.exists():
            return path
    return None


def candidates(memx: str, mirror: Path, head: str, rng: str, tmp: Path) -> list[dict[str, Any]]:
    """The range's candidates in the order the budget keeps them, best first."""
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_CONFIG_HOME": str(tmp / "cfg"),
           "XDG_CACHE_HOME": str(tmp / "cache"), "XDG_DATA_HOME": str(tmp / "data"),
           "GIT_CONFIG_GLOBAL": str(tmp / "gitconfig"), "MEMX_NO_SERVER": "1"}
    (tmp / "home").mkdir()
    repo = tmp / "repo"
    for cmd, cwd in ((["git", "clone", "-q", "--no-checkout", str(mirror), str(repo)], tmp),
                     (["git", "checkout", "-q", "--detach", head], repo),
                     ([memx, "init"], repo)):
        done = _run(cmd, cwd, env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[:3])}: {done.stderr.strip()[-300:]}")
    done = _run([memx, "ingest", "--git-log", rng, "--dry-run", "--json", "--budget", "0"],
                repo, env)
    if done.returncode != 0:
        raise SystemExit(f"memx ingest: {done.stderr.strip()[-300:]}")
    found = json.loads(done.stdout)["candidates"]
    # the budget's order: the higher value first, among equals the newer (later) one
    order = sorted(range(len(found)), key=lambda n: (found[n]["score"], n), reverse=True)
    return [found[n] for n in order]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memx", required=True)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--save", type=Path, help="write each range's ranked candidates "
                        "(JSON) to this file")
    args = parser.parse_args()
    items = json.loads((args.corpus / "lessons.json").read_text(encoding="utf-8"))["items"]
    ranges = {r["id"]: r for r in json.loads((args.corpus / "git.json").read_text(
        encoding="utf-8"))["repos"]}
    saved: dict[str, list[dict[str, Any]]] = {}
    totals = {k: [0, 0, 0] for k in KS}  # hits, taken, lesson commits
    print(f"{'range':<14}{'cands':>6}" + "".join(f"{f'P@{k}':>8}{f'R@{k}':>7}" for k in KS))
    for item in items:
        if item["kind"] != "git":
            continue
        spec = {**ranges.get(item["id"], {}), **item}
        mirror = _mirror(args.mirrors, spec["repo"])
        if mirror is None:
            print(f"{item['id']:<14} skipped: no mirror")
            continue
        lessons = {c[:10] for c in spec["lesson_commits"]}
        commits = spec.get("non_merge_commits", 250)
        with tempfile.TemporaryDirectory() as tmp:
            ranked = candidates(args.memx, mirror, spec["head"], spec["range"], Path(tmp))
        saved[item["id"]] = [{**c, "lesson": c["sha"][:10] in lessons} for c in ranked]
        row = f"{item['id']:<14}{len(ranked):>6}"
        for k in KS:
            top = ranked[:max(1, k * commits // 250)]
            hits = sum(1 for c in top if c["sha"][:10] in lessons)
            reached = len({c["sha"][:10] for c in top} & lessons)
            totals[k][0] += hits
            totals[k][1] += len(top)
            totals[k][2] += len(lessons)
            totals[k].append(reached)
            row += f"{hits / len(top):>8.2f}{reached / len(lessons):>7.2f}"
        print(row)
        for c in ranked[:args.show]:
            mark = "+" if c["sha"][:10] in lessons else "-"
            text = " ".join(c["content"].split())[:110]
            print(f"   {mark} {c['sha'][:10]} {c['rule']:<12}{c['score']:>3}  {text}")
    row = f"{'all':<14}{'':>6}"
    for k in KS:
        hits, taken, lessons_n, *reached = totals[k]
        row += f"{hits / max(1, taken):>8.2f}{sum(reached) / max(1, lessons_n):>7.2f}"
    print(row)
    if args.save:
        args.save.write_text(json.dumps(saved, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
