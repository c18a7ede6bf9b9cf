"""A user's factual correction the agent accepts (corrected.py, issue 24): "it's X, not Y"
where Y is what the agent said, answered without dispute and with no edit after it.
Sessions are written in Claude Code's record shapes and ingested with `memx ingest`."""

from __future__ import annotations

from pathlib import Path

import yaml

from memx_cli.reflector.corrected import terms

from .conftest import Memx
from .test_reflector_sessions import Session


def stored(repo: Path) -> list[tuple[str, str]]:
    mems = [yaml.safe_load(p.read_text()) for p in (repo / ".memx" / "memories").glob("*.yaml")]
    return sorted((m["type"], m["content"]) for m in mems)


def opening() -> Session:
    return (Session().user("why does the nightly export skip rows?")
            .run("grep -rn 'since' export/", "export/job.go:12: flag.String(\"since-date\", ...)",
                 False)
            .say("The job reads its start from the `--since-date` flag and skips rows "
                 "older than that."))


def test_a_correction_of_the_agents_term_it_accepts_is_a_fact(memx: Memx, repo: Path) -> None:
    name = (opening()
            .user("fyi: the cron passes `--from`, not `--since-date`; that one was removed")
            .say("Right - the cron passes `--from`, so the flag default never applies. "
                 "That explains the skipped rows.")
            .user("thanks, that's all")
            .write(repo))
    memx.ok("ingest", name)
    assert stored(repo) == [(
        "knowledge", "User correction: \"the cron passes `--from`, not `--since-date`; that "
        "one was removed\" Answer: Right - the cron passes `--from`, so the flag default "
        "never applies.")]


def test_a_disputed_or_acted_on_or_unrelated_contrast_is_no_fact(memx: Memx, repo: Path) -> None:
    name = (opening()
            .user("the cron passes `--from`, not `--since-date`")
            .say("Actually, `--from` is only the crontab's alias; the job reads `--since-date`.")
            .user("the cron passes `--from`, not `--since-date`")
            .say("You're right, it passes `--from`.")
            .edit("/repo/export/job.go", 'flag.String("since-date"', 'flag.String("from"')
            .user("use `make export`, not `go-run.sh` for this")
            .say("OK, `make export` it is.")
            .user("it does not build with `--from` yet")
            .say("Let me look at `--from` handling.")
            .write(repo))
    memx.ok("ingest", name)
    assert [c for kind, c in stored(repo) if c.startswith("User correction:")] == []


def test_terms_are_quoted_or_code_shaped_in_order() -> None:
    assert terms('is just "Checkpoint:" not `Entire-Checkpoint:` in pkg/x.go or fooBar') == [
        "Checkpoint:", "Entire-Checkpoint:", "pkg/x.go", "fooBar"]
    assert terms("plain words only, nothing here") == []
