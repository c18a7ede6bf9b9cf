"""CI logs of other shapes (issue 24): a GitLab job log read by its stages, the finding a
failing step closes with when no tool format says why, and a raw log pasted in pieces of
several runs; each with a control."""

from __future__ import annotations

from .test_reflector_cilog import learned, raw


def gitlab(script: list[str], verdict: str = "ERROR: Job failed: exit code 1",
           after: list[str] | None = None) -> str:
    """A GitLab job log: the runner's stages around the job's script, then its verdict."""
    lines = ["Running with gitlab-runner 17.2.0 (6428c288)", "  on shared-runner-7 xY9z, system ID: s_1a2b",
             "section_start:1717000000:prepare_executor", "Preparing the \"docker\" executor",
             "Using docker image sha256:ab12 for python:3.12-slim ...",
             "section_end:1717000004:prepare_executor",
             "section_start:1717000004:get_sources", "Fetching changes with git depth set to 20...",
             "$ git remote set-url origin \"${CI_REPOSITORY_URL}\" || echo 'skipping'",
             "section_end:1717000006:get_sources",
             "section_start:1717000006:step_script",
             "Executing \"step_script\" stage of the job script", *script,
             "section_end:1717000040:step_script"]
    if after is not None:
        lines += ["section_start:1717000040:after_script", "Running after_script", *after,
                  "section_end:1717000041:after_script"]
    lines += ["section_start:1717000041:cleanup_file_variables",
              "Cleaning up project directory and file based variables",
              "section_end:1717000042:cleanup_file_variables", "", verdict]
    return "".join(f"{line}\n" for line in lines)


RELEASE = ["$ pip install -q build", "$ python -m build --wheel",
           "* Building wheel...", "Successfully built harbor-2.1.0-py3-none-any.whl",
           "$ ./scripts/publish.sh dist/", "Uploading harbor-2.1.0-py3-none-any.whl",
           "Checking index for an existing release...",
           "repository harbor-internal: unknown credential \"deploy_token\""]


def test_a_gitlab_job_is_its_failing_command_and_the_finding_it_ended_on() -> None:
    [memory] = learned(gitlab(RELEASE))
    assert "`./scripts/publish.sh dist/`" in memory  # the last command the runner echoed
    assert "repository harbor-internal: unknown credential \"deploy_token\"" in memory
    assert "Job failed" not in memory and "git remote" not in memory  # verdict, setup
    # control: the same job passing (no verdict) teaches nothing
    assert learned(gitlab(RELEASE, verdict="Job succeeded")) == []


def test_a_gitlab_job_s_tool_diagnostic_is_read_as_in_any_log() -> None:
    log = gitlab(["$ mypy harbor", "harbor/ports.py:14: error: Name \"Dock\" is not defined  [name-defined]",
                  "Found 1 error in 1 file (checked 9 source files)"],
                 after=["$ echo done", "done"])
    [memory] = learned(log)
    assert "(`mypy harbor`)" in memory
    assert "Name \"Dock\" is not defined" in memory and "harbor/ports.py:14" in memory
    assert "done" not in memory.split("failed:")[1]  # after_script's output is not the cause


def test_a_step_that_closes_with_a_list_of_one_finding_says_it_once_with_every_name() -> None:
    log = raw(["##[group]Run python scripts/collect.py", "python scripts/collect.py",
               "##[endgroup]", "Collecting yesterday's inputs",
               "- missing input file: orders.csv", "- missing input file: refunds.csv",
               "- missing input file: rates.csv", "##[error]Process completed with exit code 1."])
    [memory] = learned(log)
    assert "missing input file: orders.csv, refunds.csv, rates.csv" in memory
    # control: a list of settings it printed on the way, then a progress line, is no cause
    quiet = raw(["##[group]Run python scripts/collect.py", "python scripts/collect.py",
                 "##[endgroup]", "- source: warehouse", "- window: 24h",
                 "Collected 0 rows", "##[error]Process completed with exit code 1."])
    assert learned(quiet) == []


def test_a_closing_line_among_other_key_value_lines_is_a_report_not_a_finding() -> None:
    def ending(*last: str) -> str:
        return raw(["##[group]Run ./deploy.sh", "./deploy.sh", "##[endgroup]", "Pulling image",
                    *last, "##[error]Process completed with exit code 1."])
    [memory] = learned(ending("Creating network app_net",
                              "service api: undefined config \"routes_v2\""))
    assert "service api: undefined config \"routes_v2\"" in memory
    # control: the same shape closing a block of other settings is the block's last entry
    assert learned(ending("Digest: sha256:9f86d081", "Status: Image is up to date for app")) == []
    # control: one word after the colon says no more than a value
    assert learned(ending("Creating network app_net", "Total reclaimed space: 0B")) == []


def test_pieces_of_other_runs_pasted_after_a_step_are_not_that_step() -> None:
    # a report pastes the end of one run's failing step, the next step's Run group cut
    # short, then an earlier run's failure (its stamps go back in time)
    later = ["2026-03-02T10:05:00.0000000Z Traceback (most recent call last):",
             "2026-03-02T10:05:00.1000000Z   File \"scripts/check.py\", line 8, in <module>",
             "2026-03-02T10:05:00.2000000Z ValueError: duplicate station: KX12",
             "2026-03-02T10:05:00.3000000Z ##[error]Process completed with exit code 1.",
             "2026-03-02T10:05:00.4000000Z ##[group]Run actions/upload-artifact@v4",
             "2026-03-02T10:05:00.5000000Z with:", "```", "", "```text"]
    earlier = ["2026-03-02T09:58:00.0000000Z Traceback (most recent call last):",
               "2026-03-02T09:58:00.1000000Z   File \"scripts/check.py\", line 3, in <module>",
               "2026-03-02T09:58:00.2000000Z ImportError: cannot import name 'stations' from 'registry'",
               "2026-03-02T09:58:00.3000000Z ##[error]Process completed with exit code 1."]
    memories = learned("".join(f"{line}\n" for line in later + earlier))
    assert len(memories) == 2
    assert not any("upload-artifact" in memory for memory in memories)
    assert any("duplicate station: KX12" in memory for memory in memories)
    assert any("cannot import name 'stations'" in memory for memory in memories)
    # control: in time order nothing tells the pieces apart: the lines after the upload
    # step's open Run group are read as its inputs, as the log runs
    forward = [line.replace("09:58", "10:09") for line in earlier]
    [ordered] = learned("".join(f"{line}\n" for line in later + forward))
    assert "duplicate station: KX12" in ordered
