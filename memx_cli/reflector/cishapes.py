"""The shapes tools write their verdicts in, as patterns, and which tool format a line is
(issue 24). ``cidiag`` reads a failing step's output with them, not the tools' words:

- ``PATH:LINE[:COL]: error: MESSAGE`` (mypy, gcc, go vet; Dart's ``Error:``), V8's
  ``FATAL ERROR: …`` (a crash: Node out of heap), ``PATH(L,C): error TS…`` (tsc),
  ``PATH:L:C: CODE message`` (ruff, flake8);
- ``error[CODE]: MESSAGE`` followed by ``--> PATH:L:C`` and ``= note:`` lines (rustc,
  clippy), ``ERROR:`` / ``Error:`` / ``fatal:`` with indented continuation lines (pip,
  node, git), ``npm error`` / ``npm ERR!`` blocks;
- a Python traceback (its exception and the deepest frame inside the project), pytest's
  ``FAILED id - message`` / ``E   message`` lines, ``--- FAIL:`` (go test), ``●`` (jest), a Rust panic (``thread 'NAME' [(ID)] panicked at
  PATH:L:C:``, its message and a failed ``assert_eq!``'s ``left:``/``right:`` values), a Go
  panic with its goroutine trace (the innermost frame of the project's own code), curl's
  ``curl: (N) message``;
- a block opened by a mark (``×``, ``✖``, ``❌``), with the header above it that names the
  file (Biome, ESLint, shell gates), its words ending where another tool's verdict starts;
- a coverage gate (``fail-under``, threshold not met), a denied permission;
- a formatter's check that found unformatted files (``Diff in PATH:L:`` of rustfmt,
  ``would reformat PATH`` of black, ``Would reformat: PATH`` of ruff, ``[warn] PATH`` of
  prettier): one diagnostic naming the files, however many hunks it printed;
- Kotlin's ``e: [file://]PATH:L:C message`` (Kotlin 2: ``PATH:L:C: message``; or
  ``PATH: (L, C): message``) and Gradle's ``* What went wrong:`` block (a summary: the
  compiler's lines above it say why; placed at the script its ``* Where:`` block names; a
  heading such as ``Script compilation error:`` is said with the caret's words under it);
- Scala 3's ``-- [E007] Type Mismatch Error: PATH:L:C`` and its gutter's words, Maven's
  ``PATH:[L,C] message`` (sbt's ``[error]`` and Maven's ``[ERROR]`` markers are read
  through); pip's "No matching distribution found for NAME==V" with the Python V needs;
- vitest's ``FAIL  PATH > suite > test`` with the error under it; a docker build's error
  block (``> [stage N/M] RUN …:``, the command's last output, ``Dockerfile:N``), read for
  the tool's own error inside it; a tool that stops on its ``Warning:`` with the ``- ``
  items under it (composer's lock file out of date), kept apart as a ``warning`` (with no
  items it is no diagnostic); npm's
  error block with the facts it lists (``While resolving:``, ``Found:``, ``Could not
  resolve dependency:`` and the line under it);
- ``go test -v``'s ``file.go:N:`` lines above its ``--- FAIL``, tsc indented (ts-jest),
  cargo's ``... required by package`` chain, cmd.exe's ``'NAME' is not recognized as an
  internal or external command,``, a located ``PATH:L:C Error:`` with its words
  on the indented line under it (Android's manifest merger), and the tool's own advice
  (``run `CMD` ``) on the line after an error.

A line's ``shape`` is the tool format that said it: plain output of several tools is one
failure per shape.
"""

from __future__ import annotations

import re

from memx_cli.reflector.citools import PERMISSION

COMPILER = re.compile(r"^(?P<path>[^\s:()]+?\.\w+):(?P<line>\d+)(?::\d+)?:\s*"
                      r"(?:fatal )?(?:error|Error)(?:\[[\w-]+\])?:\s*(?P<msg>.+)$")
# V8's fatal error (Node out of heap: ``FATAL ERROR: Reached heap limit … out of memory``),
# the process's last words before it dies
V8_FATAL = re.compile(r"^FATAL ERROR: (?P<msg>\S.*)$")
TSC = re.compile(r"^\s*(?P<path>[^\s()]+?\.\w+)[(:](?P<line>\d+)[,:]\d+\)?:?\s*-?\s*error\s+"
                 r"(?P<code>TS\d+):\s*(?P<msg>.+)$")
# MSBuild's canonical format, of the compilers it runs (csc, MSVC's cl) and its own:
# ``PATH(L[,C]): error CODE: message [PROJECT]`` (tsc's, in the same form, is TSC's)
MSBUILD = re.compile(r"^\s*(?P<path>[^\s()]+?\.\w+)\((?P<line>\d+)(?:,\d+)*\)\s*:\s*(?:fatal )?"
                     r"error (?P<code>[A-Z]{1,4}\d{3,5})\s*:\s*(?P<msg>.+?)(?:\s+\[[^\]]+\])?\s*$")
# CMake's error, ``CMake Error at PATH:LINE (command):``, its words indented under it
CMAKE = re.compile(r"^CMake Error(?: at (?P<path>\S+?):(?P<line>\d+)(?: \(\w+\))?)?:\s*(?P<msg>.*)$")
LINT_CODE = re.compile(r"^(?P<path>[^\s:]*[A-Za-z][^\s:]*?):(?P<line>\d+):\d+:\s+(?P<code>[A-Z]{1,4}\d{2,5})"
                       r"\s+(?P<msg>.+)$")
# rustc's ``error[E0308]:``, and the codespan reports of cargo-deny and friends, whose
# code is the check that failed (``error[banned]:``, ``error[vulnerability]:``)
RUST = re.compile(r"^error(?:\[(?P<code>[\w-]{1,40})\])?:\s*(?P<msg>.+)$")
RUST_AT = re.compile(r"^\s*(?:-->|┌─)\s*(?P<where>\S+)$")
RUST_ID = re.compile(r"^\s*├ ID:\s*(?P<id>\S+)")
RUSTC_CODE = re.compile(r"^E\d+$")
# a shell's own error: ``SCRIPT: line N: message`` (bash), ``SCRIPT: N: message`` (dash)
SHELL = re.compile(r"^(?P<path>[^\s:]*[/.][^\s:]*): (?:line )?(?P<line>\d+): (?P<msg>\S.*)$")
# cmd.exe's own error for a word it cannot run (a Windows job's default shell for
# ``shell: cmd``): ``'NAME' is not recognized as an internal or external command,`` with
# ``operable program or batch file.`` on the line under it
CMD_UNKNOWN = re.compile(r"^'(?P<name>[^']{1,120})' is not recognized as an internal or external "
                         r"command,?\s*$")
RUNNER_TEMP = re.compile(r"[/\\]_temp[/\\]")  # the step's own script, written by the runner
CAUSED_BY = re.compile(r"^Caused by: (?P<msg>\S.*)$")
# codespell: ``PATH:L: word ==> suggestion``; ktlint: ``PATH:L:C: message (ruleset:rule)``
CODESPELL = re.compile(r"^(?P<path>[^\s:]+):(?P<line>\d+): (?P<word>\S+) ==> (?P<fix>\S.*)$")
# (its Gradle plugin: ``PATH:L:C Lint error > [ruleset:rule] message``)
KTLINT = re.compile(r"^(?P<path>[^\s:]+?\.\w+):(?P<line>\d+):\d+(?:: (?P<msg>\S.*?) "
                    r"\((?P<rule>[\w-]+:[\w-]+)\)| Lint error > \[(?P<rule2>[\w-]+:[\w-]+)\] "
                    r"(?P<msg2>\S.*))$")
# ruff's full format: ``CODE [*] message`` with ``--> PATH:L:C`` under it
RULE_FIRST = re.compile(r"^(?P<code>[A-Z]{1,4}\d{2,5})(?: \[\*\])? (?P<msg>\S.*)$")
# pyright: ``  PATH:L:C - error: message (rule)``
PYRIGHT = re.compile(r"^\s+(?P<path>\S+?\.\w+):(?P<line>\d+):\d+ - error: (?P<msg>\S.*)$")
# shellcheck: the code it marks, then ``^-- SC2086 (level): message`` under it
SHELLCHECK = re.compile(r"^\s*\^[-^]*\^?\s+(?P<code>SC\d{4}) \((?P<level>\w+)\): (?P<msg>\S.*)$")
RUST_NOTE = re.compile(r"^\s*=\s*note:\s*(?P<msg>.+)$")
# rustc's lint notes: the lint as the code names it in the attribute that silences it
# (``= help: to override `-D warnings` add `#[allow(clippy::too_many_arguments)]```), and
# the note that a flag turned the warning into an error (``= note: `-D LINT` implied by
# `-D warnings```)
RUST_ALLOW = re.compile(r"^\s*=\s*help:.*`#\[allow\((?P<lint>[\w:]{1,80})\)\]`")
RUST_DENIED = re.compile(r"^`-D [\w:-]{1,80}` implied by `(?P<flag>-D [\w:-]{1,80})`$")
# cargo's header of a failed build script or of another error's reasons: ``Caused by:``
CARGO_CAUSE = re.compile(r"^Caused by:\s*$")
# cargo naming the program it runs (``cargo run``): ``     Running `target/debug/app args```
CARGO_RUNNING = re.compile(r"^\s+Running `(?P<command>[^`]{1,200})`\s*$")
PREFIXED = re.compile(r"^(?:ERROR|Error|FATAL|Fatal|fatal|error)(?:\[[^\]]{1,40}\])?:\s*"
                      r"(?P<msg>\S.*)$")
COMPONENT = re.compile(r"^\[[\w.:-]{1,60}\]\s+(?=\S)")  # ``ERROR: [Uploader.6A0C] message``
NPM = re.compile(r"^npm (?:ERR!|error)(?:\s+(?P<msg>.*))?$")  # (a bare one separates parts)
PYTEST_FAILED = re.compile(r"^(?P<what>FAILED|ERROR) (?P<id>\S+::\S+)(?: - (?P<msg>.+))?$")
PYTEST_E = re.compile(r"^E\s{2,}(?P<msg>\S.*)$")
PYTEST_FRAME = re.compile(r"^(?P<path>[^\s:]+\.py):(?P<line>\d+): in \S+$")
TRACEBACK = "Traceback (most recent call last):"
PY_FRAME = re.compile(r'^\s+File "(?P<path>[^"]+)", line (?P<line>\d+)')
EXCEPTION = re.compile(r"^(?P<name>[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure))"
                       r"(?::\s*(?P<msg>.*))?$")
GO_FAIL = re.compile(r"^\s*--- FAIL: (?P<id>\S+)")
# a located verdict whose words are on the indented lines under it (Android's manifest
# merger: ``PATH:L:C-L:C Error:`` then a tab and the message)
LOCATED = re.compile(r"^(?P<path>[^\s:]+?\.\w+)(?::(?P<line>\d+)[\d:-]*)? (?:Error|ERROR|error):\s*$")
# the tool's own advice on the line after its error: a command to run, quoted
HINT = re.compile(r"^\s*(?:help|hint|note)?:?\s*(?:To \w[^`]{0,60}, )?(?:run|try|use)\b[^`]{0,40}"
                  r"`(?P<command>[^`]{2,120})`", re.IGNORECASE)
CARGO_CHAIN = re.compile(r"^\s+\.\.\. (?:required by|which satisfies)\b")
JEST = re.compile(r"^\s*● (?P<id>.+›.+)$")
VITEST = re.compile(r"^\s*FAIL\s+(?P<path>[^\s>]+?\.\w+)\s+>\s+(?P<title>\S.*?)\s*$")
# Vitest's verdict on one test in its default reporter: ``× PATH > suite > test 11ms``;
# the words why are printed elsewhere (its FAIL block), so this line is no cause
VITEST_VERDICT = re.compile(r"^\s*[×✖✗]\s+(?P<path>[^\s>]+?\.\w+) > (?P<title>\S.*?)"
                            r"(?: \d+(?:\.\d+)?m?s)?\s*$")
# a failed test as a run's page lists its annotation (Vitest's GitHub reporter): the
# title ``PATH > suite > test``, a colon and the file's link ``PATH#L25``, its error on
# the line under it
VITEST_ANNOTATION = re.compile(r"^(?P<path>[^\s>]+?\.\w+) > (?P<title>\S.*?): (?P=path)#L\d+$")
# a bundler's error under the file it is about, which it names on a line of its own
# (webpack, Next.js: ``./src/a.tsx:3:7`` then ``Type error: …``, ``Module not found: …``)
FILE_ALONE = re.compile(r"^(?P<path>\.{1,2}/[^\s:]+\.\w{1,8})(?::(?P<line>\d+)(?::\d+)?)?$")
LABELLED = re.compile(r"^(?P<label>[A-Z][a-z]+(?: [a-z]+){0,3}):(?: +(?P<msg>\S.*))?$")
# the marker SWC opens its error with, under a bare ``Error:`` heading (``  x message``),
# and the code frame it quotes after it (``  |``, ``,-[``, ``:``, a backquote)
SWC_MARK = re.compile(r"^[x×]\s+")
CODE_FRAME = re.compile(r"^(?:\||,-|:|`|\d+ \|)")
# buildkit's error block: ``------``, `` > [deps 4/4] RUN cmd:``, the command's last output
# (each line after the seconds it came at), ``------``, then ``Dockerfile:14`` and the code
BUILDKIT = re.compile(r"^\s*> \[(?P<stage>[^\]]{1,80})\] (?P<cmd>\S.*?):\s*$")
WARNED = re.compile(r"^(?:Warning|WARNING|warning):\s*(?P<msg>\S.*)$")
GO_BUILD = re.compile(r"^(?:\./)?(?P<path>[^\s:]+\.go):(?P<line>\d+):\d+: (?P<msg>.+)$")
ESLINT = re.compile(r"^\s+(?P<line>\d+):\d+\s+error\s+(?P<msg>.+?)(?:\s{2,}(?P<rule>\S+))?$")
PANIC = re.compile(r"^\s*thread '(?P<id>[^']+)'(?: \(\d+\))? panicked at "
                   r"(?P<where>[^\s:]+:\d+)(?::\d+)?:?\s*(?P<msg>.*)$")
# a Go program's panic: ``panic: MESSAGE`` (`` [recovered]`` when a test harness re-panics),
# then ``goroutine N [running]:`` and its frames, innermost first: the function's line,
# then a tab and ``PATH:LINE +0x…``
# the go command's import stack: ``go: PKG imports`` (or ``tested by``), a tab-indented
# line for each package on the way, the last one naming the package that failed and why
GO_IMPORTS = re.compile(r"^go: (?P<pkg>\S+) (?:imports|tested by)$")
GO_IMPORTED = re.compile(r"^\t(?P<pkg>\S+) (?:imports|tested by)$")
GO_IMPORT_FAILED = re.compile(r"^\t(?P<pkg>\S+): (?P<msg>\S.*)$")
GO_PANIC = re.compile(r"^panic: (?P<msg>\S.*?)(?: \[recovered\])?$")
# curl's own error line: ``curl: (7) Failed to connect to …`` (its exit code in brackets)
CURL_ERROR = re.compile(r"^curl: \(\d{1,3}\) \S")
MARKED = re.compile(r"^\s*(?:[×✖✗✘❌]|\[!\])\s*(?P<msg>\S.*)$")  # [!]: fastlane, CocoaPods
PROMPT = re.compile(r"\[[yY]/?[nN]\]|\([yY]/[nN]\)|\[[yY]/n\]")
COVERAGE = re.compile(r"coverage", re.IGNORECASE)
GATE = re.compile(r"fail[-_]under|threshold|not (?:reached|met)|does not meet|less than",
                  re.IGNORECASE)
SUMMARY = re.compile(r"could not compile|aborting due to|previous errors?|build failed|"
                     r"\d+ problems? \(|^make(?:\[\d+\])?: \*\*\*|"
                     r"errors? (?:were|was) emitted|^Found \d+ errors?|^\d+ errors? in|"
                     r"did not complete successfully|"
                     # a wrapper's verdict that only names its child's exit status
                     r"\b(?:exit code|exit status|exited with(?: code| status)?):? -?\d+\.?$",
                     re.IGNORECASE)
# the exit status such a verdict names
EXIT_SAID = re.compile(r"\b(?:exit code|exit status|exited with(?: code| status)?):? (?P<code>-?\d+)\.?$",
                       re.IGNORECASE)
MAKE = re.compile(r"^make(?:\[\d+\])?: \*\*\* ")
FORMAT_DIFF = re.compile(r"^(?:Diff in (?P<rust>\S+?)(?::\d+:| at line \d+:)|would reformat (?P<black>\S+)"
                         r"|Would reformat: (?P<ruff>\S+)|\[warn\] (?P<prettier>[^\s\[\]]+\.\w+))\s*$")
KOTLIN = re.compile(r"^e: (?:file://)?(?P<path>[^\s:]+?\.kts?)(?::(?P<line>\d+):\d+:?|: \((?P<line2>\d+), "
                    r"\d+\):) (?P<msg>\S.*)$")
WENT_WRONG = re.compile(r"^\* What went wrong:\s*$")
LEVEL = re.compile(r"^\[(?:error|ERROR)\] ?")  # sbt's and Maven's level marker
# under that marker, ``PATH:L[:C]: message`` is the compiler's (scalac 2, javac via sbt)
LEVELED = re.compile(r"^(?P<path>[^\s:]+?\.\w+):(?P<line>\d+)(?::\d+)?:\s*(?P<msg>\S.*)$")
# Playwright's list of failures: ``N) [project] › PATH:L:C › title``, its error under it
PLAYWRIGHT = re.compile(r"^\s*\d+\) (?:\[[^\]]{1,60}\] › )?(?P<path>[^\s›]+?\.\w+):(?P<line>\d+):\d+"
                        r" › (?P<title>\S.*?)\s*$")
# PowerShell's error view: ``Line |``, the quoted code, ``~~~`` under it, then its words
PS_LINE = re.compile(r"^Line \|\s*$")
SCALA3 = re.compile(r"^-- (?:\[E\d+\] )?(?P<title>[A-Z][\w ]{0,40}?Error): (?P<path>[^\s:]+?\.\w+)"
                    r":(?P<line>\d+):\d+\b")
JAVAC = re.compile(r"^(?P<path>[^\s:]+?\.\w+):\[(?P<line>\d+),\d+\] (?P<msg>\S.*)$")
PIP_NONE = re.compile(r"No matching distribution found for (?P<name>[\w.-]+)==(?P<version>\S+)")
PIP_CONTEXT = re.compile(r"^Ignored the following|^Could not find a version that satisfies")
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("python", PYTEST_FAILED), ("python", PYTEST_E), ("tsc", TSC), ("msbuild", MSBUILD),
    ("compiler", COMPILER), ("cmake", CMAKE),
    ("go", GO_BUILD), ("go", GO_IMPORTS), ("eslint", ESLINT), ("rust", PANIC), ("lint", LINT_CODE),
    ("rust", RUST), ("npm", NPM), ("go", GO_FAIL), ("jest", JEST), ("marked", MARKED),
    ("prefixed", PREFIXED), ("kotlin", KOTLIN), ("v8", V8_FATAL), ("format", FORMAT_DIFF), ("scala", SCALA3),
    ("javac", JAVAC), ("located", LOCATED), ("gradle", WENT_WRONG), ("make", MAKE),
    ("playwright", PLAYWRIGHT), ("powershell", PS_LINE), ("shell", SHELL), ("codespell", CODESPELL),
    ("ktlint", KTLINT), ("ruff", RULE_FIRST), ("pyright", PYRIGHT), ("shellcheck", SHELLCHECK),
    ("vitest", VITEST), ("docker", BUILDKIT), ("warning", WARNED), ("permission", PERMISSION))


def shape(text: str) -> str:
    if TRACEBACK in text:
        return "python"
    return next((name for name, pattern in SHAPES
                 if (pattern.search(text) if pattern is PERMISSION else pattern.match(text))),
                "other")
