"""CI logs: a check that the tree stays as committed, read by the diff it printed; a
program's progress that is no cause; a job the runner could not set up; the runner's
checkout cut out of a tool's own words (issue 24)."""

from __future__ import annotations

from .test_reflector_ci_wrapped import run_group
from .test_reflector_cilog import gh, learned, post, raw, setup

TIDY = ["go mod tidy", 'if [ -n "$(git status --porcelain)" ]; then',
        '  echo "go mod tidy resulted in changes:"', "  git diff",
        "  echo \"Please run 'go mod tidy' and commit the changes\"", "  exit 1", "fi"]
DOWNLOADS = [f"go: downloading example.org/lib{n} v1.{n}.0" for n in range(6)]
DIFF = ["go mod tidy resulted in changes:", "diff --git a/go.mod b/go.mod",
        "index 94e7328..10fc557 100644", "--- a/go.mod", "+++ b/go.mod",
        "@@ -7,6 +7,7 @@ require (", " \texample.org/color v1.2.0", "+\texample.org/pty v1.1.24",
        "@@ -50,7 +52,6 @@ require (", "-\texample.org/pty v1.1.24 // indirect",
        " \texample.org/term v0.2.1 // indirect"]
CLOSING = "Please run 'go mod tidy' and commit the changes"


def tidy_log(output: list[str]) -> str:
    return raw(["##[group]Run actions/checkout@v4", "##[endgroup]", *run_group(TIDY, caret=False),
                *output, "##[error]Process completed with exit code 1."])


def test_a_failing_step_that_printed_a_git_diff_is_what_the_check_changed() -> None:
    [memory] = learned(tidy_log([*DOWNLOADS, *DIFF, CLOSING]))
    assert "go mod tidy resulted in changes (the diff changes go.mod): " + CLOSING in memory
    assert "downloading" not in memory
    # control: a step that printed a diff and then its tool's own error is that error
    [memory] = learned(tidy_log([*DIFF, "main.go:3:1: error: undefined: Widget"]))
    assert "undefined: Widget at main.go:3" in memory and "the diff changes" not in memory


def test_a_program_saying_what_it_is_doing_is_progress_not_a_cause() -> None:
    # without the diff, nothing in the step says why: the downloads are not a cause
    assert learned(tidy_log([*DOWNLOADS, CLOSING])) == []
    # control: the same program speaking of what went wrong is the cause
    [memory] = learned(tidy_log([*DOWNLOADS, "go: example.org/lib9@v1.9.0: missing go.sum "
                                 "entry for go.mod file", CLOSING]))
    assert "go: example.org/lib9@v1.9.0: missing go.sum entry" in memory
    assert "downloading" not in memory


UNRESOLVED = "Unable to resolve action `acme/setup-scan@v0.2.1`, unable to find version `v0.2.1`"


def test_a_job_the_runner_could_not_set_up_fails_with_the_runner_s_error() -> None:
    log = gh("image", "Set up job", [
        "Current runner version: '2.316.1'", "##[group]Runner Image", "Image: ubuntu-22.04",
        "##[endgroup]", "Download action repository 'acme/scan-action@v0.28.0' (SHA:915b19b)",
        "Getting action download info", f"##[error]{UNRESOLVED}"])
    [memory] = learned(log)
    assert memory == f"CI job 'image', step 'Set up job' failed: {UNRESOLVED.rstrip('`')}`."
    # control: the runner's error in a cleanup step after a job that passed is no failure
    log = setup("image") + gh("image", "Build", [
        "##[group]Run make image", "make image", "##[endgroup]", "built image acme/app:1"]) \
        + gh("image", "Post Run actions/cache@v4", [
            "Post job cleanup.", "##[error]Failed to save: Unable to reserve cache"])
    assert not any("Unable to reserve cache" in m for m in learned(log))


def cargo(job: str, checkout: str) -> str:
    """A matrix job whose build script failed, naming the crate by its folder on the runner."""
    return setup(job) + gh(job, "Build", [
        "##[group]Run cargo build --release", "cargo build --release", "##[endgroup]",
        f"error: failed to run custom build command for `schema v0.1.0 ({checkout}crates/schema)`",
        "##[error]Process completed with exit code 101."]) + post(job)


def test_a_path_in_a_tool_s_own_words_is_cut_to_the_project_s() -> None:
    log = cargo("linux", "/home/runner/work/shop/shop/") + cargo("macos", "/Users/runner/work/shop/shop/") \
        + cargo("windows", "D:\\a\\shop\\shop\\")
    [memory] = learned(log)  # one cause, now that every runner names it alike
    assert "custom build command for `schema v0.1.0 (crates/schema)`" in memory
    assert "/runner/" not in memory and "D:\\" not in memory
    # control: a path outside the checkout is said as the tool wrote it
    [memory] = learned(cargo("linux", "/opt/vendor/"))
    assert "(/opt/vendor/crates/schema)" in memory


BLOCK = ["------", " > [builder 5/5] RUN npm run build:", "3.1 ", "3.2 > Build failed because of "
         "type errors", "------", "Dockerfile:14", "ERROR: failed to solve: process \"/bin/sh -c npm "
         "run build\" did not complete successfully: exit code: 1"]
NEXT = ["#12 [builder 5/5] RUN npm run build", "#12 1.4   ▲ Next.js 14.2.29", "#12 3.1 Failed to compile.",
        "#12 3.1 ", "#12 3.1 ./src/app/cart/page.tsx:10:7",
        "#12 3.1 Type error: Property 'total' does not exist on type 'Cart'.", "#12 3.1 ",
        "#12 3.2 > Build failed because of type errors",
        "#12 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 1"]


def image(output: list[str]) -> str:
    return setup("image") + gh("image", "Build image", [
        "##[group]Run docker build --progress=plain -t shop .",
        "docker build --progress=plain -t shop .", "##[endgroup]", *output,
        "##[error]Process completed with exit code 1."]) + post("image")


def test_buildkit_s_step_output_is_read_through_its_step_numbers() -> None:
    [memory] = learned(image(NEXT + BLOCK))
    assert "failed: Type error: Property 'total' does not exist on type 'Cart' at " \
        "src/app/cart/page.tsx:10" in memory
    assert "Build failed because" not in memory.split("Also:")[0]
    # control: with only the error block (no plain progress), its last line is all there is
    [memory] = learned(image(BLOCK))
    assert "> Build failed because of type errors (image build step [builder 5/5] `RUN npm " \
        "run build`)" in memory


def test_a_bundler_s_error_is_placed_at_the_file_it_names_on_the_line_above() -> None:
    step = ["Failed to compile.", "", "./src/lib/session.ts", "Error:",
            "  x You're importing a component that needs next/headers. That only works in a "
            "Server Component.", "  ,-[/app/src/lib/session.ts:1:1]", "  |", "", "./src/ui/qr.tsx",
            "Module not found: Can't resolve 'qrcode.react'", "",
            "> Build failed because of webpack errors"]
    [memory] = learned(image(step))
    assert "failed: Error: You're importing a component that needs next/headers. That only " \
        "works in a Server Component at src/lib/session.ts. Also: Module not found: Can't " \
        "resolve 'qrcode.react' at src/ui/qr.tsx." in memory
    # control: a file named on its own line with no labelled error under it is no cause
    [memory] = learned(image(["./scripts/build.sh", "building the bundle", "make: *** [all] Error 2",
                              "src/a.c:3:1: error: expected ';' before '}' token"]))
    assert "scripts/build.sh" not in memory and "expected ';'" in memory


def kotlin(errors: list[tuple[str, int, str]]) -> str:
    return setup("build") + gh("build", "Assemble", [
        "##[group]Run ./gradlew assembleDebug", "./gradlew assembleDebug", "##[endgroup]",
        "> Task :app:compileDebugKotlin FAILED",
        *(f"e: file:///home/runner/work/shop/shop/app/src/{file}:{line}:5 {said}"
          for file, line, said in errors),
        "BUILD FAILED in 1m 2s", "##[error]Process completed with exit code 1."]) + post("build")


def test_the_same_words_about_another_unquoted_name_leave_room_for_another_cause() -> None:
    errors = [("Store.kt", 8, "Unresolved reference: DocumentFile"),
              ("Lyrics.kt", 7, "Unresolved reference: DocumentFile"),
              ("Main.kt", 617, "Unresolved reference: musicUri"),
              ("Main.kt", 395, "Operator '==' cannot be applied to 'Long' and 'Int'")]
    [memory] = learned(kotlin(errors))
    assert "failed: Unresolved reference: DocumentFile at app/src/Store.kt:8 (2 times); the " \
        "same for musicUri. Also: Operator '==' cannot be applied to 'Long' and 'Int' at " \
        "app/src/Main.kt:395." in memory
    # control: other words ending on a name are another cause, and said
    [memory] = learned(kotlin([*errors[:2], ("Main.kt", 601, "Cannot find a parameter with "
                                                             "this name: onPick")]))
    assert "Also: Cannot find a parameter with this name: onPick at app/src/Main.kt:601" in memory


def pytest_collection(modules: list[str]) -> str:
    lines = ["##[group]Run uv run pytest", "uv run pytest", "##[endgroup]",
             "collected 0 items / 3 errors", "",
             "==================================== ERRORS ===================================="]
    for n, module in enumerate(modules):
        lines += [f"________ ERROR collecting tests/test_{n}.py ________",
                  f"ImportError while importing test module '/home/runner/work/shop/shop/tests/"
                  f"test_{n}.py'.", "Traceback:", f"tests/test_{n}.py:3: in <module>",
                  f"    import {module}", f"E   ModuleNotFoundError: No module named '{module}'"]
    lines += ["!!!!!!!!!!!!!!!!!!! Interrupted: 3 errors during collection !!!!!!!!!!!!!!!!!!!",
              "##[error]Process completed with exit code 2."]
    return setup("test") + gh("test", "Tests", lines) + post("test")


def test_the_same_words_about_other_names_are_said_with_the_cause() -> None:
    [memory] = learned(pytest_collection(["fastapi", "fastapi", "adapters"]))
    assert "No module named 'fastapi' at tests/test_0.py:3 (`import fastapi`) (2 times); the " \
        "same for 'adapters'." in memory
    # control: one missing module is said alone
    [memory] = learned(pytest_collection(["fastapi", "fastapi", "fastapi"]))
    assert "No module named 'fastapi'" in memory and "the same for" not in memory
