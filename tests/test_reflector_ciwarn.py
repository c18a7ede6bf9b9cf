"""What a run's tools warned about its build (issue 24): a deprecation of something the
project uses or a warning about its configuration is kept, at most two, the most specific
first; per-line code warnings, counts, progress and an action's own output are not."""

from __future__ import annotations

from .test_reflector_cilog import PYTEST_STEP, gh, learned, post, setup

WORK = "/home/runner/work/kite/kite"


def step(job: str, name: str, command: str, output: list[str]) -> str:
    return gh(job, name, [f"##[group]Run {command}", command, "##[endgroup]", *output])


def green(job: str, *steps: str) -> str:
    return setup(job) + "".join(steps) + post(job)


ASSEMBLE = [
    "Starting a Gradle Daemon (subsequent builds will be faster)",
    "WARNING: Some problems were found with the signing setup:",
    "Location: keystore.path property in signing.properties file. Problem: File is missing",
    "",
    "> Task :mobile:preBuild UP-TO-DATE",
    "> Task :mobile:processReleaseMainManifest",
    f"{WORK}/mobile/src/main/AndroidManifest.xml:9:5-40 Warning:",
    "\tandroid:debuggable should not be hardcoded in the manifest. See https://example.org/x "
    "for more information.",
    "The upgrade helper can move the attribute into the build file.",
    "> Task :mobile:compileReleaseKotlin",
    f"w: file://{WORK}/mobile/src/main/kotlin/Reader.kt:31:9 'getter for size: Int' is "
    "deprecated. Deprecated in Java",
    f"w: file://{WORK}/mobile/src/main/kotlin/Writer.kt:12:3 'getter for size: Int' is "
    "deprecated. Deprecated in Java",
    "",
    "Deprecated Gradle features were used in this build, making it incompatible with Gradle 9.0.",
    "",
    "You can use '--warning-mode all' to show the individual deprecation warnings.",
    "BUILD SUCCESSFUL in 1m 2s",
]


def test_a_green_run_keeps_its_tools_two_most_specific_warnings_about_the_build() -> None:
    log = green("android", step("android", "Assemble", "./gradlew assembleRelease", ASSEMBLE),
                step("android", "Lint", "./gradlew lint", ASSEMBLE[1:4] + ["> Task :mobile:lint"]))
    memories = learned(log)
    assert memories == [
        "CI job 'android' passed; its steps 'Assemble', 'Lint' warned: Some problems were "
        "found with the signing setup: Location: keystore.path property in signing.properties "
        "file. Problem: File is missing.",
        "CI job 'android' passed; its step 'Assemble' (`./gradlew assembleRelease`) warned: "
        "android:debuggable should not be hardcoded in the manifest (at "
        "mobile/src/main/AndroidManifest.xml:9)."]
    # control: the third, less specific (it names no setting nor file), is left out: two
    # at most; the compiler's per-line deprecations in Kotlin files are code, never kept
    assert not any("Gradle 9.0" in m or "getter for size" in m for m in memories)
    # the same warning alone, with no more specific one beside it, is kept
    alone = green("android", step("android", "Assemble", "./gradlew assembleRelease",
                                  ASSEMBLE[4:]))
    assert learned(alone) == [
        "CI job 'android' passed; its step 'Assemble' (`./gradlew assembleRelease`) warned: "
        "android:debuggable should not be hardcoded in the manifest (at "
        "mobile/src/main/AndroidManifest.xml:9).",
        "CI job 'android' passed; its step 'Assemble' (`./gradlew assembleRelease`) warned: "
        "Deprecated Gradle features were used in this build, making it incompatible with "
        "Gradle 9.0."]


def test_code_warnings_counts_progress_and_an_action_s_output_store_nothing() -> None:
    log = green("native", step("native", "Build", "make all", [
        "cc -O2 -c src/ring.c -o build/ring.o",
        "src/ring.c:41:7: warning: unused variable 'slot' [-Wunused-variable]",
        "warning: unused import: `std::fmt`",
        "  --> src/lib.rs:3:5",
        "warning: `ring` (lib) generated 1 warning",
        "  12:5  warning  Unexpected console statement  no-console",
        "warning: 3 deprecated packages",
        "[ 50%] Building C object ring.o", "[100%] Linking C executable ring",
        "Build finished with 2 warnings"]),
        gh("native", "Run actions/setup-node@v4", [
            "##[group]Run actions/setup-node@v4", "with:", "  node-version: 20", "##[endgroup]",
            "warning: the cache key for the engine setting --frozen was not found"]))
    assert learned(log) == []
    # control: a setting the build ignores, said by the same compiler, is kept
    said = green("native", step("native", "Build", "make all", [
        "cc1: warning: command-line option '-std=c++17' is valid for C++ but not for C",
        "warning: unused manifest key: package.metadata.ringx"]))
    [memory] = learned(said)
    assert "unused manifest key: package.metadata.ringx" in memory


PYTEST_WARNED = [
    "..........",
    "=============================== warnings summary ===============================",
    *[line for test in ("test_read", "test_write", "test_seek") for line in (
        f"tests/test_io.py::{test}",
        f"  {WORK}/.venv/lib/python3.12/site-packages/tapefmt/codec.py:{40 + len(test)}: "
        "DeprecationWarning: open_legacy() is deprecated, use open_stream()",
        "    warnings.warn(")],
    "tests/test_io.py::test_close",
    f"  {WORK}/tests/test_io.py:88: UserWarning: buffer not flushed",
    "",
    "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
    "======================= 10 passed, 4 warnings in 0.52s ========================="]


def test_a_warning_repeated_per_test_is_one_with_its_count_and_the_package_it_came_from() -> None:
    [memory] = learned(green("py", step("py", "Tests", "pytest -q", PYTEST_WARNED)))
    assert memory == (
        "CI job 'py' passed; its step 'Tests' (`pytest -q`) warned (3 times): "
        "DeprecationWarning: open_legacy() is deprecated, use open_stream() "
        "(in tapefmt).")
    # control: a warning the code raises about itself (UserWarning) is no lesson
    alone = [line for line in PYTEST_WARNED if "tapefmt" not in line and "warnings.warn" not in line]
    assert learned(green("py", step("py", "Tests", "pytest -q", alone))) == []


NPM_INSTALL = [
    "npm WARN ERESOLVE overriding peer dependency",
    "npm WARN While resolving: chartkit@3.1.0",
    "npm WARN Found: react@19.0.0",
    "npm WARN node_modules/react",
    "npm WARN Could not resolve dependency:",
    "npm WARN peer react@\"^17 || ^18\" from chartkit@3.1.0",
    "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
    "npm WARN deprecated stable@0.1.8: Modern JS already guarantees Array#sort() is stable.",
    "added 812 packages, and audited 813 packages in 21s",
]


def test_a_package_manager_s_peer_check_and_its_deprecated_packages() -> None:
    memories = learned(green("web", step("web", "Install", "npm ci", NPM_INSTALL)))
    assert memories == [
        "CI job 'web' passed; its step 'Install' (`npm ci`) warned: ERESOLVE overriding peer "
        "dependency — While resolving: chartkit@3.1.0; Found: react@19.0.0; Could not resolve "
        "dependency: peer react@\"^17 || ^18\" from chartkit@3.1.0.",
        "CI job 'web' passed; its step 'Install' (`npm ci`) warned: 2 deprecated packages were "
        "installed: glob@7.2.3 (Glob versions prior to v9 are no longer supported); stable@0.1.8 "
        "(Modern JS already guarantees Array#sort() is stable)."]
    # control: beside a failure, the failure is told first; the peer check takes the room
    # left, the list of deprecated packages (mostly ones the project never chose) does not
    failing = setup("web") + step("web", "Install", "npm ci", NPM_INSTALL) + gh(
        "web", "Tests", PYTEST_STEP) + post("web")
    memories = learned(failing)
    assert len(memories) == 2 and any("decimal.InvalidOperation" in m for m in memories)
    assert any(m.startswith("Besides the failure, CI job 'web', step 'Install' (`npm ci`) "
                            "warned: ERESOLVE overriding peer dependency") for m in memories)
    assert not any("glob@7.2.3" in m for m in memories)


def test_pip_s_deprecation_is_kept_and_a_scala_code_warning_under_sbt_s_level_is_not() -> None:
    sbt = green("jvm", step("jvm", "Compile", "sbt compile", [
        f"[warn] -- Warning: {WORK}/core/src/main/scala/kite/Pool.scala:18:42 ",
        "[warn] 18 |  private var slots: Array[Int] = _",
        "[warn]    |                                  ^",
        "[warn]    |`_` is deprecated for wildcard arguments of types: use `?` instead",
        "[success] Total time: 41 s"]))
    assert learned(sbt) == []
    # control: the installer's own deprecation of a way the project installs is kept
    pip = green("py", step("py", "Install", "pip install -e .", [
        "Obtaining file:///home/runner/work/kite/kite",
        "DEPRECATION: Legacy editable install of kite==0.3.0 (setup.py develop) is "
        "deprecated. pip 25.1 will enforce this behaviour change.",
        "Successfully installed kite-0.3.0"]))
    [memory] = learned(pip)
    assert memory.startswith("CI job 'py' passed; its step 'Install' (`pip install -e .`) "
                             "warned: Legacy editable install of kite==0.3.0 (setup.py develop)")


def test_a_failing_run_with_no_room_left_keeps_only_its_failures() -> None:
    def broken(name: str, n: int) -> str:
        return step("web", name, f"./check-{n}.sh", [
            f"error: fixture table_{n}.csv has {n} columns too many",
            "##[error]Process completed with exit code 1."])
    install = step("web", "Install", "npm ci", NPM_INSTALL)
    memories = learned(setup("web") + install + "".join(broken(f"Check {n}", n)
                                                        for n in range(1, 5)) + post("web"))
    assert len(memories) == 4 and not any("ERESOLVE" in m for m in memories)
    # control: with three failures, the peer check takes the one place left
    memories = learned(setup("web") + install + "".join(broken(f"Check {n}", n)
                                                        for n in range(1, 4)) + post("web"))
    assert len(memories) == 4 and sum("ERESOLVE" in m for m in memories) == 1


SITE = "/opt/hostedtoolcache/Python/3.12.3/x64/lib/python3.12/site-packages"
CONFIG_WARNED = [
    "........................................ [100%]",
    "=============================== warnings summary ===============================",
    f"../../../../..{SITE}/_pytest/config/__init__.py:1428",
    f"  {SITE}/_pytest/config/__init__.py:1428: PytestConfigWarning: Unknown config option: "
    "DJANGO_SETTINGS_MODULE", "",
    '    self._warn_or_fail_if_strict(f"Unknown config option: {key}\\n")', "",
    "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
    "40 passed, 1 warning in 1.02s"]


def test_a_config_warning_about_what_the_step_s_own_command_turned_off_is_no_lesson() -> None:
    off = "pytest tests/core -p no:django -q"
    assert learned(green("py", step("py", "Core tests", off, CONFIG_WARNED))) == []
    # control: the same warning from a run that loads every plugin is about its config
    [memory] = learned(green("py", step("py", "Tests", "pytest -q", CONFIG_WARNED)))
    assert memory == ("CI job 'py' passed; its step 'Tests' (`pytest -q`) warned: "
                      "PytestConfigWarning: Unknown config option: DJANGO_SETTINGS_MODULE "
                      "(in _pytest).")
    # and a plugin turned off that the warning does not name leaves it as it is
    [other] = learned(green("py", step("py", "Tests", "pytest -p no:cacheprovider -q",
                                       CONFIG_WARNED)))
    assert "DJANGO_SETTINGS_MODULE" in other
