"""CI logs of tools beyond the compilers (issue 24): a tool's own line tags, the Dart
analyzer, dependency audits, refused HTTP requests, a program speaking in its own name,
and the runner's verdicts read apart from the tool's words; each with a control."""

from __future__ import annotations

from memx_cli.reflector.cisteps import Line
from memx_cli.reflector.citools import untagged

from .test_reflector_cilog import gh, learned, post, raw, setup


def step(job: str, name: str, command: str, output: list[str], end: str | None = None) -> str:
    """A failing step of a `gh run view --log` log: its Run group, output and verdict."""
    return setup(job) + gh(job, name, [
        f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        *output, end or "##[error]Process completed with exit code 1."]) + post(job)


def test_a_type_union_naming_a_cancelled_state_is_no_cancel() -> None:
    # tsc's errors, annotated by the runner one ##[error] each; a type in one of them
    # spells "CANCELED": the step still failed on its errors, not by a cancel
    log = raw([
        "##[group]Run npm run typecheck", "npm run typecheck", "##[endgroup]", "> tsc -b",
        "##[error]src/orders.ts(12,5): error TS2367: This comparison appears to be "
        "unintentional because the types '\"OPEN\" | \"CANCELED\"' and '\"DONE\"' have no overlap.",
        "##[error]src/orders.ts(40,9): error TS2304: Cannot find name 'ledger'.",
        "##[error]src/bills.ts(7,3): error TS2304: Cannot find name 'ledger'.",
        "##[error]Process completed with exit code 2."])
    [memory] = learned(log)
    assert "error TS2304: Cannot find name 'ledger' at src/orders.ts:40 (2 times)" in memory
    assert "cancel" not in memory.split("Also:")[0].lower()
    # control: the runner's own cancel of a busy step is still a cancel (fail-fast)
    stopped = raw(["##[group]Run npm run typecheck", "npm run typecheck", "##[endgroup]",
                   "> tsc -b", "##[error]The operation was canceled."])
    assert learned(stopped) == []


def test_a_type_checker_s_spelled_out_object_type_is_cut_to_its_first_member() -> None:
    members = "; ".join(f"field{n}: string" for n in range(30))
    log = step("types", "Check", "pnpm tsc --noEmit", [
        f"src/shelf.ts(9,14): error TS2339: Property 'sku' does not exist on type "
        f"'{{ {members}; }}'."])
    [memory] = learned(log)
    assert "Property 'sku' does not exist on type '{ field0: string; … }' at src/shelf.ts:9" \
        in memory
    # control: a named type is kept as it is
    [named] = learned(step("types", "Check", "pnpm tsc --noEmit", [
        "src/shelf.ts(9,14): error TS2339: Property 'sku' does not exist on type 'Shelf'."]))
    assert "on type 'Shelf' at src/shelf.ts:9" in named


def test_the_dart_analyzer_s_errors_are_the_cause_its_warnings_are_not() -> None:
    analyzed = ["Analyzing garden...", "",
                "  error • Undefined name 'soilDepth' • lib/beds/raised.dart:14:9 • undefined_identifier",
                "  error • Undefined name 'soilDepth' • lib/beds/raised.dart:31:12 • undefined_identifier",
                "warning • The value of the local variable 'x' isn't used • lib/main.dart:3:7 • "
                "unused_local_variable",
                "   info - Prefer const constructors - lib/main.dart:9:5 - prefer_const_constructors",
                "", "4 issues found. (ran in 8.1s)"]
    [memory] = learned(step("app", "Analyze", "flutter analyze", analyzed))
    assert memory.startswith("CI job 'app', step 'Analyze' (`flutter analyze`) failed: "
                             "Undefined name 'soilDepth' (undefined_identifier) at "
                             "lib/beds/raised.dart:14 (2 times)")
    assert "unused" not in memory and "const" not in memory
    # control: warnings and infos alone are no cause of a failure
    quiet = [line for line in analyzed if "error •" not in line]
    assert learned(step("app", "Analyze", "flutter analyze", quiet)) == []


def test_a_tool_s_own_line_tags_are_read_through() -> None:
    lines = [Line(n, text) for n, text in enumerate([
        "[09:14:02]: --- Step: ship_build ---",
        "[09:14:03]: [uploader] 2025-03-01 09:14:03.120 ERROR: [Store.Client.7F3A22] The build "
        "number 41 was already used for this app",
        "[09:14:03]: [uploader] Upload failed.",
        "[09:14:04]: [uploader] 2025-03-01 09:14:04.002 ERROR: [Store.Client.7F3A22] The build "
        "number 41 was already used for this app",
        "[warn] src/a.ts", "[warn] src/b.ts", "[warn] src/c.ts"])]
    said = [line.text for line in untagged(lines)]
    assert said[1] == ("ERROR: [Store.Client.7F3A22] The build number 41 was already used "
                       "for this app")
    assert said[2] == "Upload failed."
    # control: a log level in brackets is a format of its own and stays
    assert said[4:] == ["[warn] src/a.ts", "[warn] src/b.ts", "[warn] src/c.ts"]
    # control: a tag on one line only is no tool's prefix
    once = [Line(1, "[build] ERROR: x"), Line(2, "plain")]
    assert [line.text for line in untagged(once)] == ["[build] ERROR: x", "plain"]
    # end to end: the repeated error is the cause, the closing verdict is not
    echoed = " [Wrapper Output]: [Store.Client.7F3A22] The build number 41 was already used"
    log = step("ios", "Ship", "bundle exec fastlane ship", [
        *(line.text for line in lines[:2]), echoed, *(line.text for line in lines[2:4]),
        "[!] Error shipping the build: ",
        "[09:14:05]: fastlane finished with errors"])
    [memory] = learned(log)
    assert memory.startswith("CI job 'ios', step 'Ship' (`bundle exec fastlane ship`) failed: "
                             "The build number 41 was already used for this app (2 times)")
    assert "Wrapper Output" not in memory  # its own echo under it says nothing more


def test_a_dependency_audit_names_the_advisory_and_who_pulls_it_in() -> None:
    audit = ["bun audit v1.3.0", "minimist  <1.2.6",
             "  workspace:web › mkdirp", "  workspace:cli › optimist",
             "  critical: Prototype Pollution in minimist - https://github.com/advisories/"
             "GHSA-aaaa-bbbb-cccc", "", "1 vulnerabilities (1 critical)", "",
             "To update all dependencies to the latest compatible versions:", "  bun update"]
    [memory] = learned(step("audit", "Audit", "bun audit", audit))
    assert memory.startswith("CI job 'audit', step 'Audit' (`bun audit`) failed: minimist "
                             "<1.2.6: critical advisory: Prototype Pollution in minimist "
                             "(GHSA-aaaa-bbbb-cccc) — pulled in via mkdirp, optimist.")
    # npm's report says the same in its own layout
    npm = ["# npm audit report", "", "semver  <5.7.2", "Severity: moderate",
           "semver vulnerable to Regular Expression Denial of Service - "
           "https://github.com/advisories/GHSA-dddd-eeee-ffff",
           "fix available via `npm audit fix`", "node_modules/semver", "",
           "1 moderate severity vulnerability"]
    [memory] = learned(step("audit", "Audit", "npm audit", npm))
    assert "semver <5.7.2: moderate advisory: semver vulnerable to Regular Expression Denial " \
        "of Service (GHSA-dddd-eeee-ffff)" in memory
    # control: without the audit's summary, a name and a range are no advisory
    listing = [line for line in audit if "vulnerabilities" not in line]
    assert all("advisory" not in m for m in learned(step("audit", "Audit", "bun audit", listing)))


def test_a_refused_request_names_the_request_and_the_permission_it_needs() -> None:
    dump = ["RequestError [HttpError]: Resource not accessible by integration",
            "    at /home/runner/work/_actions/actions/github-script/v7/dist/index.js:9537:21 {",
            "  status: 403,", "  response: {",
            "    url: 'https://api.github.com/repos/acme/depot/labels',", "    status: 403,",
            "    headers: {", "      'x-accepted-github-permissions': 'issues=write; "
            "pull_requests=write',", "      'x-ratelimit-limit': '5000'", "    },",
            "    data: {", "      message: 'Resource not accessible by integration',",
            "      status: '403'", "    }", "  },", "  request: {", "    method: 'POST',",
            "    url: 'https://api.github.com/repos/acme/depot/labels',", "  }", "}",
            "##[error]Unhandled error: HttpError: Resource not accessible by integration"]
    [memory] = learned(step("label", "Label", "actions/github-script@v7", dump[:-1],
                            end=dump[-1]))
    assert memory == ("CI job 'label', step 'Label' (`actions/github-script@v7`) failed: "
                      "RequestError [HttpError]: Resource not accessible by integration (HTTP "
                      "403) — the request was POST /repos/acme/depot/labels; the response says "
                      "the endpoint accepts the permissions issues=write; pull_requests=write "
                      "(x-accepted-github-permissions).")
    # gh and curl say it on one line
    [memory] = learned(step("label", "Label", "gh issue edit 4 --add-label ready", [
        "gh: Resource not accessible by integration (HTTP 403)"]))
    assert memory.endswith("failed: gh: Resource not accessible by integration (HTTP 403).")
    [memory] = learned(step("fetch", "Fetch", "curl -fsSL -o seed.sql $SEED_URL", [
        "curl: (22) The requested URL returned error: 404"]))
    assert memory.endswith("failed: curl: (22) The requested URL returned error: 404.")
    # control: a successful status is no refusal
    assert learned(step("fetch", "Fetch", "./probe.sh", ["probe: HTTP 200 OK", "done"])) == []


def test_a_program_the_step_ran_speaking_in_its_own_name_is_the_cause() -> None:
    output = ["cp: cannot stat 'site/index.html': No such file or directory"]
    [memory] = learned(step("pages", "Publish", "cp -r site/index.html public/", output))
    assert memory.endswith("failed: cp: cannot stat 'site/index.html': No such file or "
                           "directory.")
    # control: a log level is no program, even where a line starts with its word
    assert learned(step("pages", "Publish", "./publish.sh", [
        "warning generated by the mirror", "warning: the mirror is slow today"])) == []
    # control: a label the step's script never ran is no program's word
    assert learned(step("pages", "Publish", "./publish.sh",
                        ["note: the mirror is slow today"])) == []


def test_report_jobs_beside_the_real_failure_are_said_to_be_reports() -> None:
    def report(name: str) -> str:
        return setup(name) + gh(name, "Report", [
            '##[group]Run echo "❌ rule broken"', 'echo "❌ rule broken"',
            "exit 1", "##[endgroup]", "❌ rule broken",
            "##[error]Process completed with exit code 1."]) + post(name)
    real = step("lint", "Lint", "flutter analyze", [
        "  error • Undefined name 'pot' • lib/pot.dart:2:3 • undefined_identifier"])
    [memory] = learned(real + report("Layer Report") + report("Schema Report"))
    assert memory.endswith("Jobs 'Layer Report', 'Schema Report' only echo a message of their "
                           "own and exit non-zero: reports the workflow runs, not findings "
                           "(a cascade).")
    assert "rule broken" not in memory
    # control: without such jobs the memory says no such thing
    [alone] = learned(real)
    assert "echo" not in alone


def test_a_package_script_is_named_with_the_command_it_stands_for() -> None:
    output = ["", "> depot@2.0.0 verify /home/runner/work/depot/depot", "> tsc -p tsconfig.build.json",
              "", "src/crate.ts(3,1): error TS2304: Cannot find name 'pallet'."]
    [memory] = learned(step("types", "Verify", "pnpm verify", output))
    assert memory.startswith("CI job 'types', step 'Verify' (`pnpm verify`, which runs "
                             "`tsc -p tsconfig.build.json`) failed")
    # control: another script's echo says nothing of this one
    other = [line.replace("verify /home", "lint /home") for line in output]
    [memory] = learned(step("types", "Verify", "pnpm verify", other))
    assert memory.startswith("CI job 'types', step 'Verify' (`pnpm verify`) failed")


def test_a_later_step_s_warning_after_the_failure_is_said_with_it() -> None:
    failing = gh("app", "Analyze", [
        "##[group]Run dart analyze", "dart analyze", "##[endgroup]",
        "  error • Undefined name 'trellis' • lib/vine.dart:8:3 • undefined_identifier",
        "##[error]Process completed with exit code 3."])
    upload = gh("app", "Upload coverage", [
        "##[group]Run actions/upload-artifact@v4", "with:", "  path: cov/", "##[endgroup]",
        "##[warning]No files were found with the provided path: cov/. No artifacts will be "
        "uploaded."])
    [memory] = learned(setup("app") + failing + upload + post("app"))
    assert memory.endswith("After it, step 'Upload coverage' warned: No files were found with "
                           "the provided path: cov/. No artifacts will be uploaded.")
    # control: the same warning in another job is not this failure's consequence
    [memory] = learned(setup("app") + failing + post("app") + setup("docs")
                       + upload.replace("app\t", "docs\t") + post("docs"))
    assert "After it" not in memory
