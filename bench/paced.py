"""One install's warm searches at an agent's pace, for bench/paired.py (issue 15).

    BIN/python bench/paced.py ROOT QUERY [QUERY ...]

Runs under the interpreter of the install being measured: one watched Searcher over the
store at ROOT (as the MCP server and the memx server hold one), a warm-up search, then
each query PACE_SECONDS after the previous one, recalls counted. Prints the times in
milliseconds as a JSON list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from user_paths import paced_warm


def main(argv: list[str]) -> int:
    root, queries = Path(argv[0]), argv[1:]
    print(json.dumps(paced_warm(root, queries, watched=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
