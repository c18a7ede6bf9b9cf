"""reflect_commit: the library call the git hooks use. Candidates only, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from memx_cli.operations.reflect import reflect_commit
from memx_cli.store.repo import Repo

from .conftest import Memx


def reflect(repo: Path, message: str, files: list[tuple[str, str]],
            diffs: dict[str, str] | None = None) -> list[tuple[str, str]]:
    found = reflect_commit(Repo(repo), message, files, "", diffs or {}, sha="abc1234")
    assert all(m.source == {"type": "commit", "sha": "abc1234"} for m in found)
    return [(m.tags[0], m.content) for m in found]


def test_a_fix_commit_naming_the_error_is_an_error_fix(memx: Memx, repo: Path) -> None:
    found = reflect(repo, "fix(auth): refresh the token before it expires\n\nRequests failed with "
                          "401 Unauthorized after one hour because the access token was never "
                          "refreshed.", [("M", "src/auth/client.ts"), ("M", "package-lock.json")])
    assert found == [("error-fix",
                      "Error: Requests failed with 401 Unauthorized after one hour because the "
                      "access token was never refreshed. Fix: auth: Refresh the token before it "
                      "expires (changed src/auth/client.ts).")]
    mem = reflect_commit(Repo(repo), "fix: crash when REDIS_URL is unset\n\nFall back to "
                         "redis://localhost:6379/0.", [("M", "app/cache.py")], "", {})[0]
    assert (mem.section, mem.type, mem.confidence) == ("debugging", "pitfall", 0.8)
    assert mem.content == ("Error: Crash when REDIS_URL is unset. Fix: Fall back to "
                           "redis://localhost:6379/0 (changed app/cache.py).")
    assert list((repo / ".memx" / "memories").iterdir()) == []  # nothing written


def test_a_fix_commit_without_an_error_is_not_an_error_fix(memx: Memx, repo: Path) -> None:
    assert reflect(repo, "fix: typo in README", [("M", "README.md")]) == []
    assert reflect(repo, "Refactor the order service", [("M", "shop/orders.py")]) == []


def test_a_changed_setting_in_a_config_file(memx: Memx, repo: Path) -> None:
    diff = "@@ -1,3 +1,4 @@\n bind = '0.0.0.0:8000'\n-workers = 2\n+workers = 8\n+timeout = 90\n"
    found = reflect(repo, "More gunicorn workers for the sale", [("M", "deploy/gunicorn.ini")],
                    {"deploy/gunicorn.ini": diff})
    # the message names one of the two settings: the memory is about that one
    assert found == [("config-change", "In deploy/gunicorn.ini, `workers = 8` (changed from 2) "
                                       "(More gunicorn workers for the sale).")]
    # .env files (and secret-looking keys anywhere): the keys, never the values (issue 13)
    env = "@@ -1,2 +1,2 @@\n-POOL_SIZE=10\n+POOL_SIZE=50\n-OLD_FLAG=1\n+STRIPE_KEY=sk_x\n"
    message = "tune pool, add the stripe key, drop the old flag"
    assert reflect(repo, message, [("M", ".env.production")], {".env.production": env}) == [
        ("config-change", "In .env.production, POOL_SIZE changed (value masked); STRIPE_KEY set "
                          f"(value masked); OLD_FLAG removed ({message}).")]


def test_a_switch_or_a_reference_under_a_secret_looking_key_is_shown(memx: Memx,
                                                                    repo: Path) -> None:
    """``persist-credentials: false`` is a switch and ``${{ secrets.X }}`` a reference: no
    secret to hide, and "(value masked)" would hide the whole lesson."""
    diff = ("@@ -3,3 +3,4 @@\n       - uses: actions/checkout@v4\n         with:\n"
            "-          persist-credentials: true\n+          persist-credentials: false\n"
            "+          token: ${{ secrets.RELEASE_TOKEN }}\n")
    message = "Do not persist the checkout credentials in the publish job"
    assert reflect(repo, message, [("M", ".github/workflows/publish.yml")],
                   {".github/workflows/publish.yml": diff}) == [
        ("config-change", "In .github/workflows/publish.yml, `persist-credentials: false` "
                          f"(changed from true) ({message}).")]


def test_a_block_opening_in_a_json_or_yaml_file_is_not_a_setting(memx: Memx,
                                                                  repo: Path) -> None:
    diff = ('@@ -1 +1,8 @@\n-{}\n+{\n+  "hooks": {\n+    "SessionEnd": [\n'
            '+      {"hooks": [{"type": "command", "command": "memx ingest"}]}\n+    ]\n'
            '+  },\n+  "model": "sonnet"\n+}\n')
    found = reflect(repo, "Wire memx into Claude Code, on the sonnet model",
                    [("M", ".claude/settings.json")], {".claude/settings.json": diff})
    assert found == [("config-change", 'In .claude/settings.json, `"model": "sonnet"` '
                                       "(Wire memx into Claude Code, on the sonnet model).")]
    only_blocks = "@@ -1,2 +1,3 @@\n jobs:\n+  lint:\n+    steps: []\n"
    assert reflect(repo, "Add a lint job", [("M", "ci.yaml")], {"ci.yaml": only_blocks}) == []


def test_a_new_dependency_or_package_manager_is_a_new_tool(memx: Memx, repo: Path) -> None:
    diff = ('@@ -10,4 +10,5 @@\n   "dependencies": {\n     "express": "^4.19.2",\n'
            '-    "pino": "^8.0.0"\n+    "pino": "^9.0.0",\n+    "zod": "^3.23.8"\n   }\n')
    assert reflect(repo, "Validate request bodies", [("M", "package.json")],
                   {"package.json": diff}) == [
        ("new-tool", "Added the dependency `zod` (^3.23.8) to package.json: Validate request "
                     "bodies.")]
    req = "@@ -1,2 +1,3 @@\n fastapi==0.111.0\n+httpx==0.27.0\n"
    assert reflect(repo, "async client", [("M", "requirements.txt")],
                   {"requirements.txt": req})[0][0] == "new-tool"
    assert reflect(repo, "Move to pnpm", [("A", "pnpm-lock.yaml"), ("D", "package-lock.json")]) == [
        ("new-tool", "Started using pnpm (pnpm-lock.yaml added): Move to pnpm.")]
    bump = '@@ -1 +1 @@\n-    "zod": "^3.22.0"\n+    "zod": "^3.23.8"\n'
    assert reflect(repo, "bump zod", [("M", "package.json")], {"package.json": bump}) == []


def test_the_message_goes_through_the_text_rules_too(memx: Memx, repo: Path) -> None:
    found = reflect(repo, "Switch linting to ruff\n\nWe switched to ruff; it replaces flake8 and "
                          "isort and runs in under a second.", [("M", "pyproject.toml")])
    assert [rule for rule, _ in found] == ["new-tool"]


def test_an_order_in_the_body_is_the_fix_and_a_statement_the_problem(memx: Memx,
                                                                       repo: Path) -> None:
    """"Add a … so that …" is what the change does, however its "so that" reads: the Error
    slot takes the sentence that says what was wrong, whichever comes first."""
    changed = [("M", "src/client.ts")]
    order_last = ("fix(client): stop a param name matching inside a longer one\n\nThe pattern "
                  "built in buildPath had no boundary after the name, so `:id` matched inside "
                  "`:idType`. Add a `(?=/|$)` lookahead so that the token must end at a slash.")
    assert reflect(repo, order_last, changed) == [(
        "error-fix", "client: Stop a param name matching inside a longer one. "
        "Error: The pattern built in buildPath had no boundary after the name, so "
        "`:id` matched inside `:idType`. Fix: Add a `(?=/|$)` lookahead so that the token must "
        "end at a slash (changed src/client.ts).")]
    order_first = ("fix(cache): mark uncompressed responses as varying\n\nMove the Vary "
                   "handling ahead of the encoding negotiation so that an uncompressed response "
                   "varies on Accept-Encoding too. Shared caches served the compressed body to "
                   "clients that cannot decode it.")
    assert reflect(repo, order_first, changed) == [(
        "error-fix", "Error: Shared caches served the compressed body to clients that cannot "
        "decode it. Fix: Move the Vary handling ahead of the encoding negotiation so that an "
        "uncompressed response varies on Accept-Encoding too (changed src/client.ts).")]
    # an order whose verb is hyphenated ("Lower-case", "Re-run") is an order too
    hyphenated = ("fix(cache): match header names whatever their case\n\nLower-case the "
                  "extracted names before comparing them with the Vary list. Mixed-case "
                  "names from some clients got the cache's stale variant.")
    assert reflect(repo, hyphenated, changed) == [(
        "error-fix", "Error: Mixed-case names from some clients got the cache's stale variant. "
        "Fix: Lower-case the extracted names before comparing them with the Vary list "
        "(changed src/client.ts).")]


@pytest.mark.parametrize(("message", "memory"), [
    # the scope and the function are named nowhere in the body: the title leads
    ("fix(utils/ipaddr): render the unspecified address in convertToString\n\n"
     "The all-zero value compresses every group, so the zero-run logic left a lone colon "
     "that the later replacement could not fix.\n\n"
     "Handle the all-zero value explicitly, as the mapped case does.",
     "utils/ipaddr: Render the unspecified address in convertToString. Error: The all-zero "
     "value compresses every group, so the zero-run logic left a lone colon that the later "
     "replacement could not fix. Fix: Handle the all-zero value explicitly, as the mapped "
     "case does (changed src/x.ts)."),
    # a body that names them needs no title
    ("fix(ipaddr): render the unspecified address in convertToString\n\n"
     "In ipaddr, convertToString compresses every group of the all-zero value, so the "
     "zero-run logic left a lone colon.\n\n"
     "Handle the all-zero value explicitly, as the mapped case does.",
     "Error: In ipaddr, convertToString compresses every group of the all-zero value, so "
     "the zero-run logic left a lone colon. Fix: Handle the all-zero value explicitly, as "
     "the mapped case does (changed src/x.ts)."),
    # a flag is a name too
    ("fix: honour --max-depth in the walker\n\nThe walker read one level too many "
     "because it compared the depth after descending.\n\nCompare the depth before "
     "descending.",
     "Honour --max-depth in the walker. Error: The walker read one level too many because "
     "it compared the depth after descending. Fix: Compare the depth before descending "
     "(changed src/x.ts)."),
    # a title that starts with a name keeps it as written ("replaceUrlParam", not "Replace…")
    ("fix(client): replaceUrlParam skips a param that prefixes another\n\nThe regex had "
     "no boundary after the name, so `id` matched inside `idType`.\n\nAdd a lookahead so "
     "that the token must end at a slash.",
     "client: replaceUrlParam skips a param that prefixes another. Error: The regex had no "
     "boundary after the name, so `id` matched inside `idType`. Fix: Add a lookahead so "
     "that the token must end at a slash (changed src/x.ts)."),
])
def test_a_fix_read_from_the_body_leads_with_the_title_it_leaves_out(
        memx: Memx, repo: Path, message: str, memory: str) -> None:
    """Issue 24: a body's cause and fix may never name what the commit is about (its scope,
    the function or flag in its title): the memory would read as a lesson without a topic."""
    assert reflect(repo, message, [("M", "src/x.ts")]) == [("error-fix", memory)]


def test_a_squash_list_item_is_a_rule_only_by_its_own_subject(memx: Memx, repo: Path) -> None:
    """One item of a squash merge is one commit: another item's sentence is not its reason,
    and "was never released" or "main() always passes" state facts, not rules."""
    message = ("Tidy the pane options (#4410)\n\n"
               "* Remove the border preset, which was never released\n"
               "* Set the options before the command starts because a quick command exited\n"
               "  before they were in place\n"
               "* Do not resize the pane when the window is zoomed\n")
    assert reflect(repo, message, [("M", "src/pane.go")]) == [
        ("convention", "Do not resize the pane when the window is zoomed.")]


def test_a_reason_that_leans_on_the_sentence_before_keeps_it(memx: Memx, repo: Path) -> None:
    """"… therefore did not run" or "This happened because …" says why about the sentence
    before it: the memory carries both, not a reason about nothing."""
    diff = ("@@ -5,3 +5,3 @@\n     env:\n-      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n"
            "+      GITHUB_TOKEN: ${{ secrets.RELEASE_PAT }}\n")
    message = ("Use a personal token in the release workflow\n\nReleases created with the "
               "default GITHUB_TOKEN do not trigger other workflows. The package-index "
               "workflow therefore did not run for v2.1.0.")
    [(_, memory)] = reflect(repo, message, [("M", ".github/workflows/release.yml")],
                            {".github/workflows/release.yml": diff})
    assert memory.endswith("Why: Releases created with the default GITHUB_TOKEN do not trigger "
                           "other workflows. The package-index workflow therefore did not run "
                           "for v2.1.0.")
    decided = ("Keep the job queue in Redis\n\nThe in-process queue lost every job on a deploy. "
               "This happened because the workers restarted before draining it.")
    assert reflect(repo, decided, [("M", "app/queue.py")]) == [
        ("decision", "Keep the job queue in Redis: The in-process queue lost every job on a "
                     "deploy. This happened because the workers restarted before draining it.")]


def test_a_quoted_line_of_code_is_neither_the_problem_nor_the_fix(memx: Memx,
                                                                  repo: Path) -> None:
    message = ("fix(types): declare the token authorizer of the request context\n\nThe "
               "context type only declared the `iam` authorizer, so reading a token "
               "authorizer's claims was a type error.\n"
               "event.requestContext.authorizer.token.sub // Property 'token' does not exist\n")
    assert reflect(repo, message, [("M", "src/types.ts")]) == [(
        "error-fix", "Error: The context type only declared the `iam` authorizer, so reading a "
        "token authorizer's claims was a type error. Fix: types: Declare the token authorizer "
        "of the request context (changed src/types.ts).")]


def test_an_indented_code_block_is_no_sentence_and_the_order_is_the_fix(memx: Memx,
                                                                        repo: Path) -> None:
    message = ("fix(types): declare the token authorizer of the request context\n\nThe "
               "context type only declared the `iam` authorizer, so reading a token\n"
               "authorizer's claims was a type error:\n\n"
               "    event.requestContext.authorizer.token.sub\n"
               "    // Property 'token' does not exist\n\n"
               "The gateway sends the claims under `authorizer.token`. Add it as an optional\n"
               "property.\n")
    assert reflect(repo, message, [("M", "src/types.ts")]) == [(
        "error-fix", "types: Declare the token authorizer of the request context. "
        "Error: The context type only declared the `iam` authorizer, so reading a "
        "token authorizer's claims was a type error. Fix: Add it as an optional property. The "
        "gateway sends the claims under `authorizer.token` (changed src/types.ts).")]


def test_an_indented_code_block_gives_no_reason(memx: Memx, repo: Path) -> None:
    message = ("Keep the retry loop bounded\n\nThe job hammered the gateway.\n\n"
               "    # retry because the gateway is flaky\n    for attempt in range(3): call()\n\n"
               "It now stops after three tries because the gateway bans clients that retry "
               "forever.\n")
    assert reflect(repo, message, [("M", "app/jobs.py")]) == [
        ("decision", "Keep the retry loop bounded: The job hammered the gateway. It now stops "
                     "after three tries because the gateway bans clients that retry forever.")]
