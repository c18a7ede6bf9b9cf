"""CI failures a wrapper or a script hides (issue 24): a script whose echo was saved with
its colour codes in caret notation, a branching script running one program, a wrapper
that relays its child's exit code, a Go panic inside ``docker compose logs``, curl's own
error line and a silent curl read by its exit code; each with a control."""

from __future__ import annotations

from memx_cli.reflector.cisteps import _split

from .test_reflector_cilog import gh, learned, post, raw, setup

CARET = "^[[36;1m{}^[[0m"


def run_group(script: list[str], caret: bool = True) -> list[str]:
    """A raw log's step: the runner's Run group echoing the script, as saved with ``cat -v``
    (its escape bytes in caret notation) or as printed."""
    return [f"##[group]Run {script[0]}", *((CARET.format(line) if caret else line)
                                            for line in script),
            "shell: /usr/bin/bash -e {0}", "##[endgroup]"]


def test_colour_codes_in_caret_notation_are_no_text() -> None:
    assert _split(CARET.format("make check") + "\n")[3] == "make check"
    assert _split("2024-05-02T08:00:00.1Z ^[[1;31mFAIL^[[0m pkg\n")[3] == "FAIL pkg"
    # control: a pattern that only looks like one is kept as written
    assert _split("grep -E '^[[:alpha:]]' names.txt\n")[3] == "grep -E '^[[:alpha:]]' names.txt"


VET = ['REPORT="$(go vet ./... 2>&1)"', 'if [ -n "$REPORT" ]; then', '  echo "$REPORT"',
       "  exit 1", "fi"]
VET_SAID = ["internal/store/cache.go:41:2: unreachable code",
            "##[error]Process completed with exit code 1."]


def test_a_branching_script_that_runs_one_program_names_it() -> None:
    [memory] = learned(raw(["##[group]Run actions/checkout@v4", "##[endgroup]",
                            *run_group(VET), *VET_SAID]))
    assert memory == ("The log (`REPORT=\"$(go vet ./... 2>&1)\"`) reports: unreachable code at "
                      "internal/store/cache.go:41.")
    # control: a branching script that runs two programs could have stopped in either
    two = [VET[0], "staticcheck ./...", *VET[1:]]
    [memory] = learned(raw(["##[group]Run actions/checkout@v4", "##[endgroup]",
                            *run_group(two), *VET_SAID]))
    assert memory == "The log reports: unreachable code at internal/store/cache.go:41."
    # and the escape bytes the runner wrote read the same as their caret notation
    assert learned(raw(["##[group]Run actions/checkout@v4", "##[endgroup]",
                        *(line.replace("^[", "\x1b") for line in run_group(VET)),
                        *VET_SAID])) == learned(raw(["##[group]Run actions/checkout@v4",
                                                     "##[endgroup]", *run_group(VET),
                                                     *VET_SAID]))


def wrapped(code: int, relayed: int | None, killed: str) -> str:
    said = ["Submitting job to the build farm...", "Streaming logs:",
            "Running stage 'migrate':", "> python manage.py migrate --check",
            "✖ Error: the database 'orders_test' does not exist.",
            "   Create it with the provisioning job before running migrations.",
            "ERROR: failed to reproduce 'migrate': failed to run: python manage.py migrate "
            "--check, exited with 1", killed]
    if relayed is not None:
        said.append(f"Build farm job 7f3a failed with exit status {relayed}")
    return gh("pipeline", "Run stages", [
        "##[group]Run ./ci/farm-run.sh orders main", "./ci/farm-run.sh orders main",
        "shell: /usr/bin/bash -e {0}", "##[endgroup]", *said,
        f"##[error]Process completed with exit code {code}."])


def test_a_wrapper_that_relays_the_exit_code_is_said_with_the_cause_it_ran_into() -> None:
    killed = "/opt/farm/bin/farm-run: 88: 51234 Terminated podman run --rm orders-ci"
    [memory] = learned(setup("pipeline") + wrapped(3, 3, killed) + post("pipeline"))
    # the tool's own error first (its words end where the wrapper's verdict starts), the
    # code the wrapper relayed, and the wrapper's own line outside the checkout after it
    assert memory.startswith("CI job 'pipeline', step 'Run stages' (`./ci/farm-run.sh orders "
                             "main`) failed with exit code 3: Error: the database "
                             "'orders_test' does not exist. Create it with the provisioning "
                             "job before running migrations. Also: ")
    assert "Terminated podman run" in memory and "failed to reproduce" not in memory
    # control: no wrapper said which code it passed on: the code says nothing more
    [memory] = learned(setup("pipeline") + wrapped(3, None, killed) + post("pipeline"))
    assert "exit code" not in memory and "failed: Error: the database" in memory
    # control: the same shell line about a script in the checkout names a place in the
    # project, and is the cause
    inside = "ci/farm-run.sh: line 88: syntax error near unexpected token `fi'"
    [memory] = learned(setup("pipeline") + wrapped(3, 3, inside) + post("pipeline"))
    assert "failed with exit code 3: syntax error near unexpected token `fi' at " \
        "ci/farm-run.sh:88." in memory


COMPOSE = ["web-1     | Listening on :9000", "web-1     | loading routes",
           "web-1     | panic: assignment to entry in nil map", "web-1     | ",
           "web-1     | goroutine 1 [running]:",
           "web-1     | github.com/acme/shop/internal/routes.Register(0xc0001a2000)",
           "web-1     | \t/usr/src/app/internal/routes/routes.go:57 +0x1b4",
           "web-1     | github.com/gorilla/mux.(*Router).HandleFunc(...)",
           "web-1     | \t/go/pkg/mod/github.com/gorilla/mux@v1.8.1/mux.go:300",
           "web-1     | main.main()", "web-1     | \t/usr/src/app/cmd/web/main.go:21 +0x2c5",
           "db-1      | ready for connections"]


def health(logs: list[str]) -> str:
    return raw(["##[group]Run actions/checkout@v4", "##[endgroup]", *run_group(
        ["for n in 1 2 3; do", "  curl -sS --fail http://localhost:9000/ready && exit 0",
         "  sleep 2", "done", "docker compose logs --no-color", "exit 1"], caret=False),
        "curl: (7) Failed to connect to localhost port 9000 after 1 ms: Connection refused",
        "curl: (7) Failed to connect to localhost port 9000 after 0 ms: Connection refused",
        *logs, "##[error]Process completed with exit code 1."])


def test_a_go_panic_in_a_services_logs_is_read_through_its_prefix() -> None:
    [memory] = learned(health(COMPOSE))
    assert "panic: assignment to entry in nil map at /usr/src/app/internal/routes/routes.go:57" \
        in memory  # the project's innermost frame, not the module cache's
    assert "curl: (7) Failed to connect to localhost port 9000" in memory
    # control: the same services' logs without the panic leave only curl's error
    [memory] = learned(health([line for line in COMPOSE if "panic" not in line]))
    assert "panic" not in memory and "routes.go" not in memory
    assert "curl: (7) Failed to connect to localhost port 9000" in memory


def test_a_go_panic_is_a_crash_only_with_its_goroutine_trace() -> None:
    trace = ["panic: runtime error: invalid memory address or nil pointer dereference [recovered]",
             "\tpanic: runtime error: invalid memory address or nil pointer dereference",
             "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5c2f1a]", "",
             "goroutine 7 [running]:", "testing.tRunner.func1.2({0x61c7e0, 0x8a3f20})",
             "\t/opt/hostedtoolcache/go/1.22.3/x64/src/testing/testing.go:1631 +0x24a",
             "panic({0x61c7e0?, 0x8a3f20?})",
             "\t/opt/hostedtoolcache/go/1.22.3/x64/src/runtime/panic.go:770 +0x132",
             "example.org/ledger/book.(*Book).Close(0x0)",
             "\t/home/runner/work/ledger/ledger/book/book.go:112 +0x1a",
             "FAIL\texample.org/ledger/book\t0.011s"]
    [memory] = learned("".join(f"{line}\n" for line in trace))
    assert memory.startswith("The log reports: panic: runtime error: invalid memory address or "
                             "nil pointer dereference at book/book.go:112")
    # control: a line that only starts like a panic, with no trace under it, is no crash
    assert learned("".join(f"{line}\n" for line in [
        "panic: recovered from a bad request, continuing", "served 12 requests"])) == []


def fetch(script: list[str], code: int, output: list[str] | None = None) -> str:
    return setup("release") + gh("release", "Fetch installer", [
        f"##[group]Run {script[0]}", *script, "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        *(output or []), f"##[error]Process completed with exit code {code}."]) + post("release")


INSTALL = ["mkdir -p bin", "curl -fsSL \\", "  https://downloads.example.org/tool/v2/install.sh \\",
           "  -o bin/install.sh", "chmod +x bin/install.sh", "./bin/install.sh --prefix bin"]


def test_a_silent_curl_is_read_by_its_exit_code() -> None:
    [memory] = learned(fetch(INSTALL, 22))
    assert memory == ("CI job 'release', step 'Fetch installer' (`curl -fsSL "
                      "https://downloads.example.org/tool/v2/install.sh -o bin/install.sh`) "
                      "failed with exit code 22: the server answered with an HTTP status of "
                      "400 or above, which curl's `--fail` turns into this exit code without "
                      "printing the response.")
    [memory] = learned(fetch([line.replace("-fsSL", "-sL") for line in INSTALL], 6))
    assert memory.endswith("failed with exit code 6: curl could not resolve the host.")
    # controls: without --fail curl never exits 22 on a status; a script that runs curl
    # twice does not say which one; nor does a code curl's manual does not give
    assert learned(fetch([line.replace("-fsSL", "-sL") for line in INSTALL], 22)) == []
    assert learned(fetch([*INSTALL, "curl -fsS https://downloads.example.org/tool/v2/SHA256"],
                         22)) == []
    assert learned(fetch(INSTALL, 2)) == []


def test_curls_own_error_line_is_the_cause() -> None:
    [memory] = learned(fetch(INSTALL, 6, [
        "curl: (6) Could not resolve host: downloads.example.org"]))
    assert memory.endswith("failed: curl: (6) Could not resolve host: downloads.example.org.")
