"""The blind secret corpus through real write paths (bench/privacy_blind.py --paths):
`memx add`, `memx notes append`, `memx ingest` of a transcript, and a post-commit
reflection, each in a fresh temporary repository with an isolated home. Every byte under
`.memx/` and the home is then scanned for each secret; a reference word appended to each
line (which nothing masks) shows which lines reached the store at all."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from common import isolated_env


class Secret(Protocol):
    number: int
    line: str
    value: str
    set: str

    def leaked(self, out: str) -> bool: ...

    def partly(self, out: str, around: str = "") -> bool: ...


def ref(s: Secret) -> str:
    return f"bq{s.number:03d}x"


def carried(s: Secret) -> str:
    return f"{s.line} (ref {ref(s)})"


def memx(root: Path, *args: str) -> int:
    """One in-process `memx ARGS` in ``root`` (the real entry point and error boundary)."""
    from memx_cli.cli import main

    here = os.getcwd()
    os.chdir(root)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        main(list(args))
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdout, sys.stderr = saved
        os.chdir(here)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@contextlib.contextmanager
def fresh_repo() -> Iterator[tuple[Path, Path]]:
    with tempfile.TemporaryDirectory(prefix="memx-privacy-") as tmp, isolated_env(tmp):
        root = Path(tmp) / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        (root / "README.md").write_text("demo\n")
        git(root, "add", "README.md")
        git(root, "commit", "-q", "-m", "init")
        assert memx(root, "init") == 0
        yield root, Path(tmp)


def _add(root: Path, secrets: list[Secret]) -> None:
    for s in secrets:
        memx(root, "add", carried(s))


def _notes(root: Path, secrets: list[Secret]) -> None:
    for s in secrets:
        memx(root, "notes", "--agent", f"agent{s.number // 16}", "append", carried(s))


def _ingest(root: Path, secrets: list[Secret]) -> None:
    for s in secrets:
        messages = [
            {"role": "user", "content": f"The deploy fails with: Error: unauthorized, {carried(s)}"},
            {"role": "assistant", "content": "Fixed: always export the credentials before "
                                             f"deploying, as in {carried(s)}"},
            {"role": "user", "content": "that worked, thanks"},
        ]
        data = root.parent / "in" / f"session{s.number}.json"
        data.parent.mkdir(exist_ok=True)
        data.write_text(json.dumps({"messages": messages}), encoding="utf-8")
        memx(root, "ingest", str(data))


def _post_commit(root: Path, secrets: list[Secret]) -> None:
    from memx_cli.githooks import impl
    from memx_cli.store.repo import Repo

    memx(root, "hooks", "install")
    git(root, "add", ".memx")
    git(root, "commit", "-q", "-m", "memx store")
    # as the census does: a .env file whose settings change to the secret values, and
    # each line in the commit message (the Reflector reads subjects and changed settings)
    chosen = [s for s in secrets if "\n" not in s.value]
    names = {s.number: f"{ref(s).upper()}_{s.kind.upper()}" for s in chosen}
    settings = {s.number: f"{names[s.number]}=placeholder{s.number}" for s in chosen}
    env_file = root / ".env"
    env_file.write_text("".join(v + "\n" for v in settings.values()), encoding="utf-8")
    git(root, "add", ".env")
    git(root, "commit", "-q", "-m", "add the env file")
    for start in range(0, len(chosen), 3):  # three settings per commit, as a fix would
        group = chosen[start:start + 3]
        for s in group:
            settings[s.number] = f"{names[s.number]}={s.value}"
        env_file.write_text("".join(v + "\n" for v in settings.values()), encoding="utf-8")
        (root / "retries.toml").write_text(f"retries = {start}\n")
        git(root, "add", ".env", "retries.toml")
        body = "\n".join(f"Error: the deploy failed: {carried(s)}" for s in group)
        git(root, "commit", "-q", "-m", f"fix: deploy failed with 401 Unauthorized\n\n{body}")
    deadline = time.monotonic() + 300
    while impl.queued(Repo(root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    from memx_cli.fsutil import locked

    with locked(root / ".memx" / "local" / "background.lock", wait=300):
        pass


PATHS: dict[str, Callable[[Path, list[Secret]], None]] = {
    "memx add": _add, "memx notes append": _notes, "memx ingest": _ingest,
    "post-commit": _post_commit,
}


def scan(root: Path, home: Path, secrets: list[Secret]) -> tuple[int, int, int]:
    outside = (root, home / "in")  # the repository's own files and the inputs
    files = [p for p in (root / ".memx").rglob("*") if p.is_file()]
    files += [p for p in home.rglob("*") if p.is_file()
              and not any(p.is_relative_to(o) for o in outside)]
    blobs = [p.read_bytes().decode("utf-8", "replace") for p in files]
    text = "\n".join(blobs)
    # JSON files hold newlines, quotes and backslashes escaped: scan them unescaped too
    text += "\n" + text.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
    low = text.lower()
    reached = sum(ref(s) in low for s in secrets)
    # what the corpus says around its secrets ("https://", "password") is no leak
    scaffold = "\0".join(s.line.replace(s.value, "\0") for s in secrets)
    return reached, sum(s.leaked(text) for s in secrets), \
        sum(s.partly(text, scaffold) for s in secrets)


def run_paths(secrets: list[Secret]) -> list[str]:
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    rows = []
    for name, drive in PATHS.items():
        for set_name in sorted({s.set for s in secrets}):
            chosen = [s for s in secrets if s.set == set_name]
            with fresh_repo() as (root, home):
                drive(root, chosen)
                reached, leaked, partly = scan(root, home, chosen)
            rows.append(f"| {name} | {set_name} | {len(chosen)} | {reached} | {leaked} | "
                        f"{partly} |")
            print(rows[-1], file=sys.stderr)
    return rows
