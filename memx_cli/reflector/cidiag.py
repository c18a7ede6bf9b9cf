"""Diagnostics in a failing step's output: the lines that say why it failed (issue 24).

Each line is matched against the tool formats of ``cishapes`` (compilers, linters, test
runners, package managers, build tools), and a verdict that spans lines is read by its
reader in ``ciblocks``; ``citools`` reads the formats of single tools around them.

Each diagnostic also records its ``shape`` (the tool format that said it): plain output of
several tools is one failure per shape.

Each diagnostic gets a key (its message with numbers and positions blanked) so that
54 tests failing on one error are one diagnostic seen 54 times.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memx_cli.reflector import citools
from memx_cli.reflector.ciblocks import (
    boxed_place,
    checked,
    clip,
    cmake,
    continued,
    e_block,
    explained,
    file_above,
    go_panic,
    go_said,
    header,
    listed_frame,
    next_said,
    npm,
    panicked,
    pip_python,
    playwright,
    powershell,
    project_frame,
    scala,
    tail,
    unboxed,
    unformatted,
    warned,
    went_wrong,
)
from memx_cli.reflector.cipaths import relative
from memx_cli.reflector.cishapes import (
    BUILDKIT,
    CARGO_CAUSE,
    CARGO_CHAIN,
    CAUSED_BY,
    CMAKE,
    CMD_UNKNOWN,
    CODE_FRAME,
    CODESPELL,
    COMPILER,
    COMPONENT,
    COVERAGE,
    CURL_ERROR,
    ESLINT,
    EXCEPTION,
    FILE_ALONE,
    FORMAT_DIFF,
    GATE,
    GO_BUILD,
    GO_FAIL,
    GO_IMPORT_FAILED,
    GO_IMPORTED,
    GO_IMPORTS,
    GO_PANIC,
    HINT,
    JAVAC,
    JEST,
    KOTLIN,
    KTLINT,
    LABELLED,
    LEVEL,
    LEVELED,
    LINT_CODE,
    LOCATED,
    MAKE,
    MARKED,
    MSBUILD,
    NPM,
    PANIC,
    PIP_CONTEXT,
    PIP_NONE,
    PLAYWRIGHT,
    PREFIXED,
    PROMPT,
    PS_LINE,
    PY_FRAME,
    PYRIGHT,
    PYTEST_E,
    PYTEST_FAILED,
    PYTEST_FRAME,
    RULE_FIRST,
    RUNNER_TEMP,
    RUST,
    RUST_ALLOW,
    RUST_AT,
    RUST_DENIED,
    RUST_ID,
    RUST_NOTE,
    RUSTC_CODE,
    SCALA3,
    SHELL,
    SHELLCHECK,
    SUMMARY,
    SWC_MARK,
    TRACEBACK,
    TSC,
    V8_FATAL,
    VITEST,
    VITEST_ANNOTATION,
    VITEST_VERDICT,
    WARNED,
    WENT_WRONG,
    shape,
)
from memx_cli.reflector.cisteps import TABLE_ROW, Line
from memx_cli.reflector.citools import Diagnostic

# the source line a Rust diagnostic quotes in its gutter under its place (rustc's ``13 |``,
# cargo-deny's ``13 │``)
RUST_SOURCE = re.compile(r"^\s*\d+\s+[|│]\s*(?:[/|]\s+)?(?P<code>[^\s/|].*?)\s*$")
# a note in which the program rustc ran speaks in its own name: ``clang: error: …``,
# ``ld: fatal error: …``; a note quoting the command line it ran (``"cc" "…"``) says nothing
PROGRAM_ERROR = re.compile(r"^[\w.+-]{1,40}: (?:fatal )?error: \S.*$")
BACKQUOTED = re.compile(r"`([^`\s]{2,80})`")
INVOKED = re.compile(r'^"[^"\s]{1,200}"\s+"')
# the rule closing an ESLint message that spans lines, two spaces after its last words; a
# rule's name has a dash or a plugin's slash (``react-hooks/set-state-in-effect``)
RULE_AFTER = re.compile(r"\S\s{2,}(?P<rule>(?:@[\w.-]+/)?[a-z][\w-]*(?:[-/][\w-]+)+)$")
ESLINT_COUNT = re.compile(r"^\s*✖ \d+ problems? \(")  # ESLint's count after its tables
MESSAGE_LINES = 40
GO_STACK = 12
# a run's page copied: the heading of its annotations, and the runner's verdict under a job
ANNOTATIONS = "Annotations"
ANNOTATION_LINES = 40
RUNNER_VERDICT = re.compile(r"^(?:Error: )?Process completed with exit code \d+\.?$")
# staticcheck's other place of the finding before it, as golangci-lint lists it:
# ``ST1019(related information): other import of "…"``
RELATED = re.compile(r"^[\w-]{1,40}\(related information\):")  # the packages of an import stack read, at most  # the lines of an ESLint message read for its rule, at most
ELABORATION_LINES = 12  # the lines tsc indents under an error, read at most
RUST_BLOCK = 40  # lines of a Rust error's block read for the program's own panic
BUNDLED_LINES = 3  # the indented lines a bundler's bare ``Error:`` heading is said with
ECHOED = 30  # a continuation holding the message's first characters says it again
# the rules around buildkit's error block, the seconds each output line came at, and the
# Dockerfile line it names under the block
BUILDKIT_RULE = re.compile(r"^-{6,}\s*$")
BUILDKIT_TIME = re.compile(r"^\d+(?:\.\d+)?\s")
DOCKERFILE_AT = re.compile(r"^(?P<path>\S*[Dd]ockerfile[\w.-]*):(?P<line>\d+)\s*$")
# buildkit's verdict after its error blocks names the error the build stopped on (the
# others are steps it cancelled or that failed with it): ``failed to solve: … MESSAGE``
SOLVE_FAILED = re.compile(r"failed to solve: (?P<said>.+?)\s*$")
AFTER_BLOCKS = 40  # lines after an error block read for the Dockerfile line and the verdict
PROGRESS_BACK = 400  # lines before a block read for its step's progress


def _progress_error(lines: Sequence[Line], i: int, stage: str, command: str,
                    raw: dict[int, str]) -> Line | None:
    """The ``#N ERROR: …`` line buildkit printed in its progress for the step a block with
    no output of its own names (``#4 [linux/arm/v7 internal] load metadata for …``; read
    in ``raw``, the lines by number as they were before their tags were taken off)."""
    step = re.compile(rf"^#(\d{{1,5}}) \[{re.escape(stage)}\] {re.escape(command)}\s*$")
    for j in range(i - 1, max(-1, i - PROGRESS_BACK), -1):
        if (named := step.match(raw.get(lines[j].number, "").strip())) is not None:
            error = re.compile(rf"^#{named.group(1)} ERROR: (?P<msg>\S.*)$")
            for k in range(j + 1, i):
                if (said := error.match(raw.get(lines[k].number, "").strip())) is not None:
                    return Line(lines[k].number, said.group("msg"), lines[k].at)
            return None
    return None


def _buildkit(lines: Sequence[Line], i: int, hit: re.Match[str],
              raw: dict[int, str]) -> tuple[int, Diagnostic]:
    """A docker build's error block: the tool's own error in the failing command's last
    output (read as any output is), else its last line, placed at the Dockerfile line
    buildkit names under the block; the step and command it ran say where in the build."""
    end = i + 1
    while end < len(lines) and end - i < 60 and not BUILDKIT_RULE.match(lines[end].text):
        end += 1
    said = [Line(line.number, BUILDKIT_TIME.sub("", line.text.strip()), line.at)
            for line in lines[i + 1:end]]
    inner = [d for d in diagnostics(said) if d.kind in ("error", "crash", "test", "permission")]
    last = next((line for line in reversed(said) if line.text.strip()), None)
    if last is None:  # no output of its own: the error its progress said
        last = _progress_error(lines, i, hit.group("stage"), hit.group("cmd"), raw)
    # (a last line that only says the build failed is the verdict: the errors it counts,
    # when buildkit printed them above with the step's output, say why)
    diag = inner[0] if inner else Diagnostic(
        clip(last.text if last else "failed"), (last or lines[i]).number,
        "summary" if last is not None and SUMMARY.search(last.text) else "error")
    command = " ".join(hit.group("cmd").split())
    command = command if len(command) <= 80 else command[:79].rstrip() + "…"
    diag.message = clip(f"{diag.message.rstrip('.')} (image build step [{hit.group('stage')}] "
                         f"`{command}`)")
    # the Dockerfile line under the blocks is the place of the error the build stopped on:
    # the block's own when buildkit's verdict ends on its words, or (no verdict to read) when
    # the line follows this block directly
    after = [line.text.strip() for line in lines[end + 1:end + 1 + AFTER_BLOCKS]]
    verdict = next((v for text in after if (v := SOLVE_FAILED.search(text)) is not None), None)
    own = last is not None and not inner and len(last.text.strip()) >= 8 \
        and last.text.strip() in (verdict.group("said") if verdict else "")
    reach = len(after) if own else 2 if verdict is None or inner else 0
    for text in after[:reach]:
        if (at := DOCKERFILE_AT.match(text)) is not None:
            place = f"{relative(at.group('path'))}:{at.group('line')}"
            if diag.where is None:
                diag.where = place
            else:
                diag.notes.append(f"in the image build at {place}")
            break
    return end - i + 1, diag


def _bundled(lines: Sequence[Line], i: int, hit: re.Match[str]) -> tuple[int, Diagnostic] | None:
    """A bundler's error under the file it names on a line of its own: ``Label: words`` on
    the next line, or a bare ``Error:`` heading with its words indented under it (SWC's
    ``  x message``, before the code frame it quotes)."""
    if i + 1 >= len(lines) or (said := LABELLED.match(lines[i + 1].text.strip())) is None:
        return None
    heading = not said.group("msg")
    words = [] if heading else [said.group("msg")]
    end = i + 2
    while heading and end < len(lines) and len(words) < BUNDLED_LINES \
            and lines[end].text[:1].isspace() and lines[end].text.strip() \
            and not CODE_FRAME.match(lines[end].text.strip()):
        words.append(SWC_MARK.sub("", lines[end].text.strip()))
        end += 1
    if not words:
        return None
    place = relative(hit.group("path").removeprefix("./"))
    where = f"{place}:{hit.group('line')}" if hit.group("line") else place
    return max(end, i + 2) - i, Diagnostic(clip(f"{said.group('label')}: {' '.join(words)}"),
                                           lines[i + 1].number, where=where)


def _rust(lines: Sequence[Line], i: int, hit: re.Match[str],
          lints: dict[str, str]) -> tuple[int, Diagnostic]:
    """A Rust error (rustc, clippy, cargo): where it points, the lint as the code names it
    (the attribute that would silence it; rustc offers it at the lint's first place only,
    so ``lints`` carries it to the same words later) and its notes; the note that ``-D warnings`` made
    the lint an error is said once in short. A panic in the error's own indented block
    (a build script's, under cargo's ``failed to run custom build command``) is the
    program's own words: said with the error, at the panic's place, as one cause."""
    text = LEVEL.sub("", lines[i].text)
    check = hit.group("code") if hit.group("code") and \
        not RUSTC_CODE.match(hit.group("code")) else None
    diag = Diagnostic(clip(f"{check}: " * bool(check) + citools.path_types(hit.group("msg"))),
                      lines[i].number, "summary" if SUMMARY.search(text) else "error")
    lint = None
    sourced = False  # the first line it quotes was read
    for j in range(i + 1, min(i + 30, len(lines))):
        nxt = lines[j].text
        if not nxt.strip() or RUST.match(nxt):
            break
        if (at := RUST_AT.match(nxt)) and diag.where is None:
            diag.where = relative(at.group("where"))
        if (quoted := RUST_SOURCE.match(nxt)) is not None and diag.where and not sourced:
            sourced = True
            # the line it points at (``include_str!(…)``; a lock file's entry without the
            # registry's address)
            code = " ".join(w for w in quoted.group("code").split() if "://" not in w)
            # (words that already name what is on the line, ``unused import: `Name```, say it)
            named = [name for name in BACKQUOTED.findall(diag.message) if name in code]
            diag.code = code if code.lower() not in diag.message.lower() and not named else None
        if (advisory := RUST_ID.match(nxt)) is not None:
            diag.message = clip(f"{diag.message} ({advisory.group('id')})")
        if (allow := RUST_ALLOW.match(nxt)) is not None:
            lint = allow.group("lint")
        note = RUST_NOTE.match(nxt)
        if note is not None and (own := PROGRAM_ERROR.match(note.group("msg").strip())):
            # the program rustc ran said why in its own name (the linker: ``clang: error:
            # invalid linker name in argument '-fuse-ld=lld'``): that is the error
            diag.message = clip(f"{diag.message.rstrip('.')}: {own.group(0)}")
            diag.kind = "error"
            diag.notes.clear()  # (rustc's notes above it were about the command it ran)
        elif note is not None and len(diag.notes) < 2 \
                and not INVOKED.match(note.group("msg").strip()):
            denied = RUST_DENIED.match(note.group("msg").strip())
            diag.notes.append(f"an error under `{denied.group('flag')}`" if denied
                              else clip(citools.path_types(note.group("msg"))))
    lint = lints.setdefault(diag.message, lint) if lint else lints.get(diag.message)
    if lint and lint not in diag.message:
        diag.message = clip(f"{diag.message} ({lint})")
    chain = [lines[j].text.strip() for j in range(i + 1, min(i + 3, len(lines)))
             if CARGO_CHAIN.match(lines[j].text)]
    if chain and len(chain) == min(2, len(lines) - i - 1):
        diag.message = clip(diag.message + " " + " ".join(chain))
    # the error's block: blank lines, cargo's ``Caused by:`` and the lines indented under it
    for j in range(i + 1, min(i + RUST_BLOCK, len(lines))):
        nxt = LEVEL.sub("", lines[j].text)
        if nxt.strip() and not nxt[:1].isspace() and not CARGO_CAUSE.match(nxt):
            break
        if (thrown := PANIC.match(nxt)) is not None and nxt[:1].isspace():
            crash = panicked(lines, j, thrown)
            said = crash.message.removeprefix("panicked: ")
            diag.notes.insert(0, clip(f"it panicked: {said}"))
            diag.where = diag.where or crash.where
            return j - i + 1, diag  # (read through the panic's header, as a panic is)
    return 1, diag


# Vitest's place of an error, ``❯ PATH:L:C``: after its words (as its GitHub reporter's
# annotation shows them) or on the line under them (its console)
# its stack after an error's words: ``❯ function PATH:L:C``, one frame after another
FRAMED = re.compile(r"\s❯ \S+ .*:\d+:\d+$")
POINTED = re.compile(r"(?:^|\s)❯ (?P<path>[\w./\\@-]+\.\w+):(?P<line>\d+):\d+$")


def _pointed(diag: Diagnostic, lines: Sequence[Line], after: int) -> None:
    """Place ``diag`` where Vitest's arrow points, if it points at a file."""
    hit = POINTED.search(diag.message)
    if hit is not None:
        diag.message = diag.message[:hit.start()].rstrip()
    elif (framed := FRAMED.search(diag.message)) is not None:
        diag.message = diag.message[:framed.start()].rstrip()  # its trace is no words
    elif after < len(lines):
        hit = POINTED.match(lines[after].text.strip())
    if hit is not None:
        diag.where = f"{relative(hit.group('path'))}:{hit.group('line')}"


def _annotated_job(lines: Sequence[Line], i: int) -> bool:
    """Is the marked line at ``i`` a job's name with its status icon in the annotations a
    run's page lists (``Annotations``, ``2 errors``, then ``✗ test (22)`` over each
    annotation's words): under that heading in the same paragraph, or over the runner's
    verdict?"""
    below = next((line.text.strip() for line in lines[i + 1:i + 3] if line.text.strip()), "")
    if RUNNER_VERDICT.match(below):
        return True
    for j in range(i - 1, max(-1, i - ANNOTATION_LINES), -1):
        text = lines[j].text.strip()
        if not text:
            return False
        if text == ANNOTATIONS:
            return True
    return False


def _go_imports(lines: Sequence[Line], i: int, first: str) -> tuple[int, Diagnostic] | None:
    """The go command's import stack: the package at its end and why it failed (``no
    matching versions for query "latest"``), said with the package that imports it from the
    project."""
    j = i + 1
    while j < len(lines) and j - i <= GO_STACK and GO_IMPORTED.match(lines[j].text):
        j += 1
    if j >= len(lines) or (failed := GO_IMPORT_FAILED.match(lines[j].text)) is None:
        return None
    said = f"{failed.group('pkg')}: {failed.group('msg')} (imported by {first})"
    return j - i + 1, Diagnostic(clip(said), lines[j].number)


def _rule_below(lines: Sequence[Line], i: int) -> str | None:
    """The rule of an ESLint row whose message spans lines (React's compiler rules print
    an explanation and a code frame): ESLint writes it after the message's last line,
    before the next row."""
    for j in range(i + 1, min(i + MESSAGE_LINES, len(lines))):
        text = lines[j].text
        if TABLE_ROW.match(text) or ESLINT_COUNT.match(text):
            return None
        if (hit := RULE_AFTER.search(text)) is not None:
            return hit.group("rule")
    return None


def _elaborated(lines: Sequence[Line], i: int, text: str) -> tuple[int, str | None]:
    """The lines tsc indents under its error, each a level deeper saying why the level
    above holds (``No overload matches this call.``, then ``Argument of type … is not
    assignable …``, then ``Type 'unknown' is not assignable to type 'ReactNode'.``): how
    many there are with the error, and the deepest, the most specific reason (the last of
    them, when several overloads gave one). A blank line ends them, as does a line no
    deeper than the error's (its code frame, the next error)."""
    indent = len(text) - len(text.lstrip())
    deepest, said, end = indent, None, i + 1
    while end < len(lines) and end - i <= ELABORATION_LINES:
        below = lines[end].text.rstrip()
        depth = len(below) - len(below.lstrip())
        if not below.strip() or depth <= indent or TSC.match(below):
            break
        if depth >= deepest:
            deepest, said = depth, below.strip()
        end += 1
    return end - i, said


def _told(told: Diagnostic | None) -> Diagnostic | None:
    """One of ``citools``' diagnostics, clipped, at the path the repository knows."""
    if told is not None:
        told.message = clip(told.message)
        told.where = relative(told.where) if told.where else None
    return told


def diagnostics(lines: Sequence[Line]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    formatter = False
    raw = {line.number: line.text for line in lines}
    lines = unboxed(citools.untagged(lines))
    audit = citools.audited(lines)
    lints: dict[str, str] = {}  # a Rust error's words: the lint rustc named for them
    i = 0
    while i < len(lines):
        line = lines[i]
        text = LEVEL.sub("", line.text)
        leveled = text != line.text
        step = 1
        diag = None
        told: tuple[int, Diagnostic | None] | None = None
        if TRACEBACK in text:
            end = i + 1
            while end < len(lines) and (lines[end].text[:1].isspace()
                                        or not lines[end].text.strip()):
                end += 1
            if end < len(lines) and EXCEPTION.match(lines[end].text):
                diag = Diagnostic(clip(lines[end].text), lines[end].number, "crash")
                frame = project_frame(lines, i + 1, end, PY_FRAME)
                if frame:
                    diag.where, diag.code = frame
                asked = text[:text.index(TRACEBACK)].strip()
                if PROMPT.search(asked):  # it waited for an answer no CI run gives
                    diag.notes.append(f"it stopped at the prompt '{asked[:80]}', which a "
                                      "non-interactive run cannot answer")
                step = end - i + 1
        elif (told := citools.early(lines, i, text, audit)) is not None:
            step, diag = told[0], _told(told[1])
        elif (hit := BUILDKIT.match(text)) is not None:
            step, diag = _buildkit(lines, i, hit, raw)
        elif (hit := FILE_ALONE.match(text.strip())) is not None \
                and (bundled := _bundled(lines, i, hit)) is not None:
            step, diag = bundled
        elif (hit := VITEST.match(text)) is not None:
            diag = Diagnostic(clip(next_said(lines, i) or "test failed"), line.number, "test",
                              f"{relative(hit.group('path'))} > {hit.group('title')}")
        elif (hit := VITEST_ANNOTATION.match(text)) is not None and i + 1 < len(lines) \
                and (said := lines[i + 1].text.strip()):
            pointed = POINTED.search(said)
            diag = Diagnostic(clip(said[:pointed.start()].rstrip() if pointed else said),
                              lines[i + 1].number, "test",
                              f"{relative(hit.group('path'))} > {hit.group('title')}",
                              shape="vitest")
            step = 2
        elif (hit := PYTEST_FAILED.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg") or "failed"), line.number, "test",
                              hit.group("id"))
        elif (hit := PYTEST_E.match(text)) is not None:
            step, diag = e_block(lines, i)
            start = i
            while start > 0 and i - start < 40 and not lines[start - 1].text.startswith("_"):
                start -= 1
            frame = project_frame(lines, start, i, PYTEST_FRAME)
            if frame:
                diag.where, diag.code = frame
        elif (hit := TSC.match(text)) is not None:
            diag = Diagnostic(clip(f"error {hit.group('code')}: "
                                    f"{citools.inline_types(hit.group('msg'))}"),
                              line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
            step, innermost = _elaborated(lines, i, text)
            if innermost and citools.inline_types(innermost).lower() not in diag.message.lower():
                diag.notes.append(clip(citools.inline_types(innermost)).rstrip("."))
        elif (hit := MSBUILD.match(text)) is not None:
            diag = Diagnostic(clip(f"error {hit.group('code')}: {hit.group('msg')}"), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := CMAKE.match(text)) is not None:
            step, diag = cmake(lines, i, hit)
        elif (hit := COMPILER.match(text) or GO_BUILD.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif leveled and (hit := LEVELED.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
            quoted = LEVEL.sub("", lines[i + 1].text).strip() if i + 1 < len(lines) else ""
            if quoted and LEVEL.match(lines[i + 1].text) and not LEVELED.match(quoted):
                diag.code = quoted
        elif (hit := CMD_UNKNOWN.match(text)) is not None:
            words = [text.strip()]
            if i + 1 < len(lines) and lines[i + 1].text.strip().startswith("operable program"):
                words.append(lines[i + 1].text.strip())
            diag = Diagnostic(clip(" ".join(words).rstrip(".,")), line.number, shape="cmd")
            step = len(words)
        elif (hit := SHELL.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=None if RUNNER_TEMP.search(hit.group("path")) else
                              f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := CODESPELL.match(text)) is not None:
            diag = Diagnostic(clip(f"misspelled '{hit.group('word')}' (the checker suggests "
                                    f"{hit.group('fix').strip()})"), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := KTLINT.match(text)) is not None:
            said = f"{hit.group('msg') or hit.group('msg2')} ({hit.group('rule') or hit.group('rule2')})"
            diag = Diagnostic(clip(said), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := RULE_FIRST.match(text)) is not None and i + 1 < len(lines) \
                and (at := RUST_AT.match(lines[i + 1].text)) is not None:
            diag = Diagnostic(clip(f"{hit.group('code')} {hit.group('msg')}"), line.number,
                              where=relative(at.group("where")))
        elif (hit := PYRIGHT.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := SHELLCHECK.match(text)) is not None:
            diag = Diagnostic(clip(f"{hit.group('code')} ({hit.group('level')}): "
                                    f"{hit.group('msg')}"), line.number, where=checked(lines, i))
        elif (hit := PLAYWRIGHT.match(text)) is not None:
            diag = playwright(lines, i, hit)
        elif PS_LINE.match(text):
            diag = powershell(lines, i)
        elif (hit := ESLINT.match(text)) is not None:
            named = hit.group("rule") or _rule_below(lines, i)
            rule = f" ({named})" if named else ""
            path = file_above(lines, i)
            diag = Diagnostic(clip(hit.group("msg") + rule), line.number,
                              where=f"{path}:{hit.group('line')}" if path else None)
        elif (hit := PANIC.match(text)) is not None:
            diag = panicked(lines, i, hit)
        elif (hit := GO_IMPORTS.match(text)) is not None \
                and (imported := _go_imports(lines, i, hit.group("pkg"))) is not None:
            step, diag = imported
        elif (hit := GO_PANIC.match(text)) is not None \
                and (crashed := go_panic(lines, i, hit)) is not None:
            step, diag = crashed
        elif (hit := LINT_CODE.match(text)) is not None:
            diag = Diagnostic(clip(f"{hit.group('code')} {hit.group('msg')}"), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := RUST.match(text)) is not None:
            step, diag = _rust(lines, i, hit, lints)
        elif NPM.match(text) is not None:
            step, diag = npm(lines, i)
        elif (hit := GO_FAIL.match(text)) is not None:
            name = hit.group("id").strip()
            diag = Diagnostic(clip(go_said(lines, i, name) or "test failed"), line.number,
                              "test", name)
        elif (hit := JEST.match(text)) is not None:
            diag = Diagnostic(clip(next_said(lines, i) or "test failed"), line.number,
                              "test", hit.group("id").strip())
        elif (hit := VITEST_VERDICT.match(text)) is not None:
            diag = Diagnostic("failed", line.number, "summary",
                              f"{relative(hit.group('path'))} > {hit.group('title')}")
        elif (hit := MARKED.match(text)) is not None and _annotated_job(lines, i):
            pass  # a job's name with its icon, in the annotations a run's page lists
        elif (hit := MARKED.match(text)) is not None:
            words = [hit.group("msg"), *tail(lines, i)]
            # words ending in ':' with nothing read after them only announce the error below
            heading = len(words) == 1 and words[0].rstrip().endswith(":")
            diag = Diagnostic(clip(" ".join(words)), line.number,
                              "summary" if SUMMARY.search(text) or heading else "error",
                              header(lines, i))
        elif (hit := PREFIXED.match(text)) is not None:
            said = COMPONENT.sub("", hit.group("msg"))  # a logger's own component tag
            # a continuation that only says the message again (a wrapper's echo) is left out
            words = [said, *(more for more in continued(lines, i) or explained(lines, i)
                             if len(said) < ECHOED or said[:ECHOED].lower() not in more.lower())]
            if i + 1 < len(lines) and (cause := CAUSED_BY.match(lines[i + 1].text)):
                words.append(f"(caused by {cause.group('msg')})")  # the JVM's reason
            diag = Diagnostic(clip(" ".join(words)), line.number,
                              "summary" if SUMMARY.search(text) or PIP_CONTEXT.match(
                                  hit.group("msg")) else "error")
            if (none := PIP_NONE.search(text)) is not None:
                diag.message = clip(diag.message + pip_python(lines, i, none))
            diag.where = boxed_place(lines, i)
        elif (hit := EXCEPTION.match(text)) is not None and hit.group("msg"):
            diag = Diagnostic(clip(text), line.number)
            diag.where = listed_frame(lines, i)
        elif (hit := V8_FATAL.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number, "crash")
        elif (hit := KOTLIN.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:"
                                    f"{hit.group('line') or hit.group('line2')}")
        elif FORMAT_DIFF.match(text):
            if not formatter:
                formatter, diag = True, unformatted(lines, i)
        elif (hit := SCALA3.match(text)) is not None:
            diag = scala(lines, i, hit)
        elif (hit := JAVAC.match(text)) is not None:
            diag = Diagnostic(clip(hit.group("msg")), line.number,
                              where=f"{relative(hit.group('path'))}:{hit.group('line')}")
        elif (hit := LOCATED.match(text)) is not None and continued(lines, i):
            diag = Diagnostic(clip(" ".join(continued(lines, i))), line.number,
                              where=relative(hit.group("path"))
                              + (f":{hit.group('line')}" if hit.group("line") else ""))
        elif WENT_WRONG.match(text):
            diag = went_wrong(lines, i)
        elif (hit := WARNED.match(text)) is not None:
            step, diag = warned(lines, i, hit)
        elif MAKE.match(text):
            diag = Diagnostic(clip(text.strip()), line.number, "summary")
        elif (told := citools.late(lines, i, text)) is not None:
            step, diag = told[0], _told(told[1])
        elif (hit := CURL_ERROR.match(text)) is not None:
            diag = Diagnostic(clip(text.strip()), line.number, shape="curl")
        if diag is not None:
            diag.shape = diag.shape or shape(text)
            if RELATED.match(diag.message):  # another place of the finding before it,
                diag.kind = "summary"        # which says why: no cause of its own
            if diag.where is None:
                _pointed(diag, lines, i + step)
            if diag.kind != "summary" and i + step < len(lines) and \
                    (advice := HINT.match(lines[i + step].text)) is not None:
                diag.notes.append(f"the tool says to run `{advice.group('command')}`")
            if COVERAGE.search(diag.message) and GATE.search(diag.message):
                diag.kind = "coverage"
            found.append(diag)
        elif COVERAGE.search(text) and GATE.search(text) and not text[:1].isspace():
            found.append(Diagnostic(clip(text.strip()), line.number, "coverage"))
        i += step
    return found
