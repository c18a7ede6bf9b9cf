"""CI logs whose cause the readers before left out or said twice (issue 24): Maven's verdict
on a plugin's goal with the files it lists, a type checker's one check said in several
wordings, a compiler's two messages at one line, a log whose UTF-8 went through the
Western European console code page. Each with a control."""

from __future__ import annotations

from memx_cli.reflector.textcodec import unmangle

from .test_reflector_cilog import gh, learned, post, setup

FORMAT_DIFF = [
    "[ERROR]     src/main/java/org/shop/Cart.java",
    "[ERROR]         @@ -10,9 +10,7 @@",
    "[ERROR]          \u00b7\u00b7\u00b7\u00b7public\u00b7int\u00b7total()\u00b7{",
    "[ERROR]         -\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7return\u00b7items",
    "[ERROR]         +\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7return\u00b7items.size();",
    "[ERROR]     src/main/java/org/shop/Order.java",
    "[ERROR]         @@ -3,4 +3,3 @@",
    "[ERROR]         -\u00b7\u00b7\u00b7\u00b7private\u00b7Order()\u00b7{",
    "[ERROR]     ... (4 more lines that didn't fit)",
    "[ERROR] Violations also present in:",
    "[ERROR]     src/test/java/org/shop/CartTest.java",
]


def maven_step(goal: str, message: str, block: list[str]) -> str:
    return gh("format", "Check formatting", [
        f"##[group]Run mvn {goal}", f"mvn {goal}", "shell: /usr/bin/bash -e {0}", "##[endgroup]",
        "[INFO] Scanning for projects...",
        "[INFO] --- spotless:2.44.4:check (default-cli) @ shop ---",
        "[INFO] ------------------------------------------------------------------------",
        "[INFO] BUILD FAILURE",
        "[INFO] ------------------------------------------------------------------------",
        "[ERROR] Failed to execute goal com.diffplug.spotless:spotless-maven-plugin:2.44.4:check "
        f"(default-cli) on project shop: {message}", *block,
        "[ERROR] -> [Help 1]", "[ERROR] ",
        "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.",
        "[ERROR] Re-run Maven using the -X switch to enable full debug logging.",
        "##[error]Process completed with exit code 1."])


def test_mavens_goal_verdict_is_the_cause_with_the_files_it_lists_and_its_closing_words() -> None:
    log = setup("format") + maven_step("spotless:check", "The following files had format "
                                       "violations:", [*FORMAT_DIFF,
                                       "[ERROR] Run 'mvn spotless:apply' to fix these violations."]) \
        + post("format")
    [memory] = learned(log)
    assert memory == (
        "CI job 'format', step 'Check formatting' (`mvn spotless:check`) failed: "
        "spotless-maven-plugin:check: The following files had format violations: "
        "src/main/java/org/shop/Cart.java, src/main/java/org/shop/Order.java, "
        "src/test/java/org/shop/CartTest.java. Run 'mvn spotless:apply' to fix these "
        "violations."), memory
    # the diff's lines and Maven's own advice after the block are no words of the cause
    assert "return" not in memory and "-X switch" not in memory
    # control: a verdict announcing no list is said alone, without the lines under it
    plain = setup("format") + maven_step("verify", "There are test failures.", [
        "[ERROR] ", "[ERROR] Please refer to target/surefire-reports for the results."]) \
        + post("format")
    [said] = learned(plain)
    assert said.endswith("failed: spotless-maven-plugin:check: There are test failures."), said
    # control: a compiler error in Maven's format is the cause, not the goal's verdict
    compiled = setup("format") + maven_step("compile", "Compilation failure", [
        "[ERROR] src/main/java/org/shop/Cart.java:[12,5] cannot find symbol"]) + post("format")
    [compiler] = learned(compiled)
    assert "Failed to execute" not in compiler and "plugin" not in compiler, compiler
    assert "cannot find symbol" in compiler, compiler


def mypy_output(rows: list[str]) -> str:
    return "".join(f"{row}\n" for row in rows)


UNTYPED = [f"src/shop/{name}.py:{n}: error: Function is missing a {what}  [no-untyped-def]"
           for name in ("cart", "order", "user") for n, what in (
               (4, "return type annotation"), (9, "type annotation"),
               (14, "type annotation for one or more arguments"))]


def test_a_check_said_in_other_words_leaves_the_room_to_another_check() -> None:
    rows = [*UNTYPED,
            'src/shop/cart.py:1: error: Library stubs not installed for "requests"  '
            "[import-untyped]",
            'src/shop/order.py:2: error: Library stubs not installed for "requests"  '
            "[import-untyped]",
            'src/shop/user.py:30: error: Name "Tuple" is not defined  [name-defined]',
            "Found 12 errors in 3 files (checked 5 source files)"]
    [memory] = learned(mypy_output(rows))
    assert memory.startswith("The log reports: Function is missing a return type annotation "
                             "[no-untyped-def] at src/shop/cart.py:4"), memory
    assert memory.count("[no-untyped-def]") == 1, memory
    assert 'Also: Library stubs not installed for "requests" [import-untyped]' in memory, memory
    assert 'Also: Name "Tuple" is not defined [name-defined]' in memory, memory
    # control: without a check named, other words are other causes, as before
    bare = [row.rsplit("  [", 1)[0] for row in UNTYPED]
    [other] = learned(mypy_output([*bare, "Found 9 errors in 3 files (checked 5 source files)"]))
    assert other.count("Function is missing a") == 3, other
    # control: a project's file in brackets (MSBuild's) is no check
    msbuild = "src/Cart.cs(3,1): error CS0246: The type 'Foo' could not be found [src/Shop.csproj]"
    [project] = learned(mypy_output([msbuild, msbuild.replace("(3,1)", "(9,1)"),
                                     msbuild.replace("Foo", "Bar").replace("(3,1)", "(5,1)")]))
    assert "'Bar'" in project and "'Foo'" in project, project


def test_a_compilers_second_message_at_a_line_already_said_is_no_other_cause() -> None:
    head = [
        "lib/pip.dart:70:45: Error: Too many positional arguments: 0 allowed, but 1 found.",
        "lib/pip.dart:145:30: Error: Too many positional arguments: 0 allowed, but 1 found.",
        "lib/errors.dart:121:18: Error: 'PlayerException' isn't a type.",
        "lib/errors.dart:241:5: Error: 'PlayerException' isn't a type."]
    tail = ["lib/net.dart:88:29: Error: The argument type 'List<Result>' can't be assigned "
            "to the parameter type 'Result'.",
            "Target kernel_snapshot failed: Exception"]
    again = "lib/errors.dart:241:5: Error: Type 'PlayerException' not found."
    [memory] = learned(mypy_output([*head, again, *tail]))
    assert "not found" not in memory, memory
    assert "Also: The argument type 'List<Result>' can't be assigned" in memory, memory
    # control: the same words at a line of its own are a cause of their own (in a file no
    # cause said was found in: among equals, that comes first)
    elsewhere = again.replace("lib/errors.dart:241:5:", "lib/player.dart:300:5:")
    [other] = learned(mypy_output([*head, elsewhere, *tail]))
    assert "Also: Type 'PlayerException' not found at lib/player.dart:300" in other, other


def test_a_line_through_the_western_european_console_code_page_is_put_back() -> None:
    # a BOM and a middle dot, as PowerShell in a Western European locale saves them
    assert unmangle("\u00b4\u2557\u2510" + "2026-05-19T07:48:15Z ##[group]Run mvn verify") \
        == "\ufeff2026-05-19T07:48:15Z ##[group]Run mvn verify"
    assert unmangle("\u252c\u00c0\u252c\u00c0return") == "\u00b7\u00b7return"
    # control: real text in that page's letters stays as it is
    assert unmangle("Gr\u00fc\u00dfe \u00e0 bient\u00f4t") == "Gr\u00fc\u00dfe \u00e0 bient\u00f4t"
    # the step's title read through the mangled BOM names its command
    step = maven_step("spotless:check", "The following files had format violations:",
                      FORMAT_DIFF[:1])
    first, rest = step.split("\n", 1)
    job, name, stamped = first.split("\t", 2)
    mangled = f"{job}\t{name}\t\u00b4\u2557\u2510{stamped}\n{rest}"
    [memory] = learned(setup("format") + mangled + post("format"))
    assert "(`mvn spotless:check`)" in memory, memory
