"""Regenerate store_format/memory.schema.json from the field table in memx_cli/store/fields.py.

    python scripts/gen_schema.py          # rewrite the schema file
    python scripts/gen_schema.py --check  # exit 1 if the file is out of date

tests/test_schema_agreement.py runs the check, so the schema and the loader cannot drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memx_cli.store.schema_json import render

SCHEMA = Path(__file__).resolve().parent.parent / "store_format" / "memory.schema.json"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if SCHEMA.read_text(encoding="utf-8") != text:
            print(f"{SCHEMA.name} is out of date: run python scripts/gen_schema.py",
                  file=sys.stderr)
            return 1
        return 0
    SCHEMA.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
