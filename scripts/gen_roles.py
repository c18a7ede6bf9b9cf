"""Rebuild memx_cli/generator/roles.json, the form of the roles catalog a query reads,
from roles.tsv (the catalog as it is written and edited).

    python scripts/gen_roles.py          # rewrite roles.json
    python scripts/gen_roles.py --check  # exit 1 if roles.json is out of date

tests/test_search_roles.py runs the check, so the two cannot drift apart.
"""

from __future__ import annotations

import sys

from memx_cli.generator import roles


def main(argv: list[str]) -> int:
    wanted = roles.build(roles.COMPILED.with_name("roles.tsv").read_text("utf-8"))
    if "--check" in argv:
        if roles.COMPILED.read_text("utf-8") != wanted:
            print(f"{roles.COMPILED.name} is out of date: run python scripts/gen_roles.py",
                  file=sys.stderr)
            return 1
        return 0
    roles.COMPILED.write_text(wanted, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
