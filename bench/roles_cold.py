"""The role catalog's cost to a cold query (issue 29), two installs interleaved.

    python bench/roles_cold.py BEFORE_BIN AFTER_BIN [--runs 21]

BEFORE_BIN and AFTER_BIN are the folders holding each install's Python (a virtual
environment's bin/). Each run is a fresh process that imports the query tokenizer (as a
search has by then), then times ``roles.asked(QUERY)`` in CPU: for a query that says a
role (the catalog is read) and one that says none (only the role words' heads are
read). Prints the medians of each install.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

PROBE = r"""
import json, sys, time
from memx_cli.textproc import query_terms
from memx_cli.generator import roles
query_terms("warm up the tokenizer", keep_stop_words=True)
start = time.process_time()
roles.asked(sys.argv[1])
print((time.process_time() - start) * 1e3)
"""
QUERIES = ("which package manager do we use", "zzqq xxyy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    for query in QUERIES:
        spent: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for name in spent:
                python = getattr(args, name) / "python"
                out = subprocess.run([str(python), "-c", PROBE, query], capture_output=True,
                                     text=True, check=True, cwd="/").stdout
                spent[name].append(float(out))
        before, after = (statistics.median(spent[n]) for n in ("before", "after"))
        print(f"{query!r}: before {before:.2f} ms, after {after:.2f} ms CPU "
              f"(medians of {args.runs})")


if __name__ == "__main__":
    main()
