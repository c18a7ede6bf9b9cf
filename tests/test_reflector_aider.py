"""aider chat histories through `memx ingest` (aider.py, issue 24): the user's `#### ` lines
are what people say, aider's `> ` notes are output, and the code the model writes is no
error anyone saw."""

from __future__ import annotations

from pathlib import Path

import yaml

from .conftest import Memx

HISTORY = """
# aider chat started at 2026-03-02 09:15:41

> Aider v0.86.1
> Main model: some/model with diff edit format

#### /code

#### Write deploy.sh: it checks that DEPLOY_HOST is set and copies dist/ there.

Here is the script:

deploy.sh
```bash
#!/usr/bin/env bash
if [ -z "$DEPLOY_HOST" ]; then
  echo "Error: DEPLOY_HOST is not set."
  exit 1
fi
rsync -a dist/ "$DEPLOY_HOST:/srv/app/"
echo "Error: rsync failed" >&2
```

> Tokens: 1.2k sent, 310 received.
> Applied edit to deploy.sh
> Commit 3f2a9c1 feat: add deploy script
> DEPLOY_HOST=web1 ./deploy.sh
rsync --version
> Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: n

#### Keep it quiet by default. From now on I want every script you write for me to take a --verbose flag instead of printing each step.

I'll add a --verbose flag to deploy.sh.
"""


def test_an_aider_history_keeps_the_users_words_not_the_generated_code(
        memx: Memx, repo: Path) -> None:
    (repo / "chat.md").write_text(HISTORY)
    memx.ok("ingest", "chat.md")
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    assert sorted((m["type"], m["content"]) for m in mems) == [(
        "preference",
        "From now on I want every script you write for me to take a --verbose flag instead "
        "of printing each step.")]
