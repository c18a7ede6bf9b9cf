"""Every reply and message that echoes text from outside is masked (issue 26): the MCP
`remember` reply, `memx remember`'s answer, the warning of `memx source update` (it
names the source's URL, which may carry a password) and the memories of a source
repository, written unmasked by a collaborator (`--raw`), wherever they are shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import Memx, git
from .test_mcp import call, run_session

TOKEN = "Zq8vK2mLp9Xr4tBw7YcN"
LINE = f"the deploy script exports DEPLOY_TOKEN={TOKEN} before the upload"


def test_the_remember_reply_is_masked(memx: Memx, repo: Path) -> None:
    async def script(client: Any) -> dict[str, Any]:
        return await call(client, "remember", content=LINE)

    reply = run_session(repo, script)
    assert TOKEN not in json.dumps(reply)
    assert reply["remembered"]["text"] == ("the deploy script exports "
                                           "DEPLOY_TOKEN=[REDACTED:password] before the upload")
    answer = memx.ok("remember", LINE, "--json")
    assert TOKEN not in answer


def test_source_memories_are_shown_masked(memx: Memx, repo: Path, tmp_path: Path) -> None:
    team = tmp_path / "team-memory"
    team.mkdir()
    git(team, "init", "-q", "-b", "main")
    memx.ok("init", cwd=team)
    memx.ok("add", "--raw", LINE, cwd=team)  # a collaborator's memory, stored unmasked
    git(team, "add", ".memx")
    git(team, "commit", "-q", "-m", "team memory")
    memx.ok("source", "add", "team", str(team))
    shown = memx.ok("search", "deploy script upload token", "--json")
    hits = json.loads(shown)["results"]
    assert [h["store"] for h in hits] == ["source:team"]
    assert TOKEN not in shown and "DEPLOY_TOKEN=[REDACTED:password]" in hits[0]["content"]
    assert TOKEN not in memx.ok("context", "change the deploy script upload")


def test_the_source_update_warning_masks_the_url(memx: Memx, repo: Path,
                                                 tmp_path: Path) -> None:
    team = tmp_path / "team"
    team.mkdir()
    git(team, "init", "-q", "-b", "main")
    memx.ok("init", cwd=team)
    memx.ok("add", "The staging cluster is named kestrel", cwd=team)
    git(team, "add", ".memx")
    git(team, "commit", "-q", "-m", "team memory")
    memx.ok("source", "add", "team", str(team))
    config = repo / ".memx" / "config.yaml"
    url = f"https://deploy:{TOKEN}@127.0.0.1:9/team.git"  # nothing listens on port 9
    config.write_text(config.read_text().replace(str(team), url))
    result = memx("source", "update")  # a URL not approved: named, masked, not fetched
    assert result.code == 0
    assert result.err.startswith("memx: warning: source team (https://deploy:"
                                 "[REDACTED:password]@127.0.0.1:9/team.git) is not approved")
    assert TOKEN not in result.err
    memx.ok("source", "approve", "team")
    result = memx("source", "update")
    assert result.code == 0
    assert result.err.startswith("memx: warning: source team: cannot fetch https://deploy:"
                                 "[REDACTED:password]@127.0.0.1:9/team.git (")
    assert TOKEN not in result.err
