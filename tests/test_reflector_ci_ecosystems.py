"""CI logs of other ecosystems (issue 24): MSBuild's error format (C#, MSVC) in a step's
output, CMake's error block, Terraform's boxed diagnostic and PHPUnit's trace of bare
``PATH:LINE`` frames are read by their structure; each with a control."""

from __future__ import annotations

from .test_reflector_ci_wrapped import run_group
from .test_reflector_cilog import gh, learned, post, raw, setup

VERDICT = "##[error]Process completed with exit code 1."


def step(script: list[str], output: list[str], *verdicts: str) -> str:
    return raw(["##[group]Run actions/checkout@v4", "##[endgroup]",
                *run_group(script, caret=False), *output, *(verdicts or (VERDICT,))])


def test_msbuild_s_error_format_in_a_step_s_output_is_the_cause_at_its_place() -> None:
    # MSVC through MSBuild on a Windows runner: no runner annotation, only the output
    said = ("D:\\a\\synth\\synth\\src\\App\\Capture.inc(40,10): error C2535: 'bool "
            "App::protect(void)': member function already defined or declared "
            "[D:\\a\\synth\\synth\\build\\synth.vcxproj]")
    warning = ("D:\\a\\synth\\synth\\src\\App\\Legacy.cpp(12,5): warning C4996: 'strcpy': "
               "This function or variable may be unsafe. [D:\\a\\synth\\synth\\build\\synth.vcxproj]")
    [memory] = learned(step(["cmake --build build --config Release"], [warning, said, said]))
    assert "error C2535: 'bool App::protect(void)': member function already defined or " \
        "declared at src/App/Capture.inc:40 (2 times)" in memory
    assert "vcxproj" not in memory  # (the project MSBuild names after the message)
    # control: MSBuild's warning in the same format is no cause
    assert "C4996" not in memory
    assert not any("C4996" in memory for memory in learned(step(["dotnet build"], [warning])))


def test_cmake_s_error_is_its_indented_words_at_the_file_and_line_it_names() -> None:
    output = ["-- Found Threads: TRUE",
              "CMake Warning (dev) at CMakeLists.txt:5 (project):",
              "  Policy CMP0048 is not set: project() command manages VERSION variables.",
              "",
              "-- Could NOT find Freetype (missing: FREETYPE_LIBRARY FREETYPE_INCLUDE_DIRS)",
              "CMake Error at CMakeLists.txt:235 (message):",
              "  HB_HAVE_FREETYPE was set, but we failed to find it.  Maybe add a",
              "  CMAKE_PREFIX_PATH= to your Freetype2 install prefix",
              "", "", "-- Configuring incomplete, errors occurred!"]
    [memory] = learned(step(["cmake -S . -B build"], output))
    assert "HB_HAVE_FREETYPE was set, but we failed to find it. Maybe add a CMAKE_PREFIX_PATH= " \
        "to your Freetype2 install prefix at CMakeLists.txt:235" in memory
    # control: CMake's warning block above it is not the cause
    assert "CMP0048" not in memory
    # an error CMake writes with no place is said as it is
    [memory] = learned(step(["cmake -S app -B build"], [
        "CMake Error: The source directory \"/home/runner/work/synth/synth/app\" does not "
        "exist."]))
    assert "The source directory" in memory and "does not exist" in memory


BOX = ["╷", "│ Error: Unsupported argument", "│ ",
       '│   on main.tf line 12, in resource "aws_s3_bucket" "logs":',
       '│   12:   acl = "private"', "│ ",
       '│ An argument named "acl" is not expected here.', "╵"]
WARNING_BOX = ["╷", "│ Warning: Deprecated attribute", "│ ",
               '│   on outputs.tf line 3, in output "id":', "│ ",
               "│ The attribute \"id\" is deprecated.", "╵"]


def test_terraform_s_boxed_error_is_read_through_its_gutter_at_the_place_it_names() -> None:
    wrapped = ("##[error]Terraform exited with code 1.", VERDICT)
    [memory] = learned(step(["terraform plan -input=false"], [*WARNING_BOX, *BOX], *wrapped))
    assert "(`terraform plan -input=false`) reports: Unsupported argument at main.tf:12" in memory
    # control: the boxed warning above it is no cause, nor the wrapper's verdict
    assert "Deprecated attribute" not in memory and "exited with code" not in memory
    # control: the same error printed without the box (``-no-color`` in a pipe) reads alike
    plain = [line.removeprefix("│").removeprefix(" ") for line in BOX if line not in "╷╵"]
    [memory] = learned(step(["terraform plan -input=false"], plain, *wrapped))
    assert "reports: Unsupported argument at main.tf:12" in memory


PHPUNIT = ["PHPUnit 10.5.60 by Sebastian Bergmann and contributors.", "",
           "EE...                                                     5 / 5 (100%)", "",
           "There were 2 errors:", "",
           "1) App\\Tests\\OrderRepositoryTest::test_saves",
           "RuntimeException: A facade root has not been set.", "",
           "/home/runner/work/synth/synth/vendor/illuminate/support/Facades/Facade.php:352",
           "/home/runner/work/synth/synth/src/Persistence/OrderRepository.php:73",
           "/home/runner/work/synth/synth/tests/OrderRepositoryTest.php:35", "",
           "2) App\\Tests\\OrderRepositoryTest::test_deletes",
           "RuntimeException: A facade root has not been set.", "",
           "/home/runner/work/synth/synth/vendor/illuminate/support/Facades/Facade.php:352",
           "/home/runner/work/synth/synth/src/Persistence/OrderRepository.php:73",
           "/home/runner/work/synth/synth/tests/OrderRepositoryTest.php:53", "",
           "ERRORS!", "Tests: 5, Assertions: 7, Errors: 2."]


def test_phpunit_s_trace_places_the_exception_at_the_first_frame_of_the_project() -> None:
    exited = "##[error]Process completed with exit code 2."
    [memory] = learned(step(["vendor/bin/phpunit"], PHPUNIT, exited))
    assert "RuntimeException: A facade root has not been set at " \
        "src/Persistence/OrderRepository.php:73 (2 times)" in memory
    # control: a trace wholly inside vendor/ names no place of the project's
    inside = [line for line in PHPUNIT if "/src/" not in line and "/tests/" not in line]
    [memory] = learned(step(["vendor/bin/phpunit"], inside, exited))
    assert "A facade root has not been set" in memory and "Facade.php" not in memory


SWIFT_BUILD = ["[1298/1316] Emitting module SynthCore",
               "/Users/runner/work/synth/synth/Sources/SynthCore/Contract.swift:277:15: error: "
               "invalid redeclaration of 'Contract'",
               "277 | public struct Contract: Sendable {",
               "    |               `- error: invalid redeclaration of 'Contract'"]


def test_a_failed_step_copied_without_its_verdict_is_read_when_it_holds_a_tool_s_error() -> None:
    # two jobs of ``gh run view --log-failed`` saved in a note, the second cut before its
    # runner's verdict: its compiler error is still the job's failure
    tests = gh("test", "Run swift test", [
        "/Users/runner/work/synth/synth/Tests/SynthTests/ContractTests.swift:168: error: "
        "-[SynthTests.ContractTests testRevoked] : XCTAssertEqual failed: (\"unavailable\") "
        "is not equal to (\"rejected\")", "##[error]Process completed with exit code 1."])
    build = gh("macOS gates", "Build", SWIFT_BUILD, minute=1)
    memories = learned(tests + build)
    assert any(m.startswith("CI job 'macOS gates', step 'Build' failed: invalid redeclaration "
                            "of 'Contract' at Sources/SynthCore/Contract.swift:277")
               for m in memories), memories
    # control: a job shown whole (the runner's set-up and closing steps) whose step ends
    # without a verdict passed, whatever its output says
    memories = learned(tests + setup("macOS gates") + gh("macOS gates", "Build", SWIFT_BUILD,
                                                         minute=1) + post("macOS gates"))
    assert not any("macOS gates" in m for m in memories), memories
    # control: a cut-off step with no tool's error at a place of the project is not read
    memories = learned(tests + gh("macOS gates", "Build", ["Compiling SynthCore",
                                                           "error: something went wrong"],
                                  minute=1))
    assert not any("macOS gates" in m for m in memories), memories
