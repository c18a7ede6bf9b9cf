"""Write memx_cli/ascii.vocab, the bundled tokenizer's ASCII vocabulary for
memx_cli/wordpiece.py, from memx_cli/model/tokenizer.json (run after build_model.py).

    python scripts/ascii_vocab.py
"""

from __future__ import annotations

from pathlib import Path

from memx_cli.embed import bundled_model_path
from memx_cli.wordpiece import VOCAB_FILE, build


def main() -> int:
    VOCAB_FILE.write_bytes(build((Path(bundled_model_path()) / "tokenizer.json").read_bytes()))
    print(f"wrote {VOCAB_FILE.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
