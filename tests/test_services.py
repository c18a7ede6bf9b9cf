"""A host's warm parts reach the library only as parameters (issue 28): the memx server
and the MCP server pass a ``Services`` (memx_cli/services.py) to ``cli.main`` and ``Memx``;
no module holds a searcher, an index or a slot for one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Memx

# Imports every module of the package in a fresh interpreter (the CLI first), then lists
# the module globals that hold warm state (a searcher, an index, a watcher or its view) or
# are a slot for a function some other module sets (annotated Callable, None until set).
FIND_WARM_GLOBALS = """
import importlib, json, pkgutil, sys
import memx_cli, memx_cli.cli
for found in pkgutil.walk_packages(memx_cli.__path__, "memx_cli."):
    if not found.name.endswith("__main__"):
        importlib.import_module(found.name)
from memx_cli.generator.search import Searcher
from memx_cli.index import StoreIndex
from memx_cli.freshness.drain import Drain
from memx_cli.freshness.journal import Watched, Watcher
warm = (Searcher, StoreIndex, Watched, Watcher, Drain)
held = []
for name, module in sorted(sys.modules.items()):
    if name != "memx_cli" and not name.startswith("memx_cli."):
        continue
    notes = vars(module).get("__annotations__", {})
    for attr, value in vars(module).items():
        slot = value is None and "Callable" in str(notes.get(attr, ""))
        if isinstance(value, warm) or slot:
            held.append(name + "." + attr)
print(json.dumps(held))
"""


def test_no_module_holds_a_warm_searcher_or_a_slot_for_one() -> None:
    out = subprocess.run([sys.executable, "-c", FIND_WARM_GLOBALS], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    assert json.loads(out) == []


class Lent:
    """A host's services over real parts: one watched searcher, its index for writes;
    it counts what the command asked for."""

    def __init__(self, repo: Path):
        from memx_cli.freshness.journal import Watched, Watcher
        from memx_cli.generator.search import Searcher
        from memx_cli.store.repo import Repo

        self.watcher = Watcher()
        self.warm = Searcher(Repo.discover(repo), freshness=Watched(self.watcher))
        self.asked: list[str] = []

    def searcher(self, repo: object) -> object:
        self.asked.append("searcher")
        return self.warm

    def write_index(self, store: object, model: str | None) -> object:
        self.asked.append("write_index")
        return None


def test_a_command_gets_the_services_main_is_given(memx: Memx, repo: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from memx_cli import cli

    memx.ok("add", "--raw", "The nightly backup goes to the cold bucket")
    lent = Lent(repo)
    try:
        for argv in (["search", "nightly backup", "--mode", "keyword"], ["list"],
                     ["add", "Deploys happen on Tuesdays"]):
            with pytest.raises(SystemExit) as done:
                cli.main(["-C", str(repo), *argv], services=lent)
            assert done.value.code == 0
        assert "cold bucket" in capsys.readouterr().out
        assert lent.asked == ["searcher", "searcher", "write_index"]
        # the searcher lent is the one kept: its index holds the later add too
        hits = lent.warm.search("Tuesdays", mode="keyword", record_recalls=False).hits
        assert [h.doc["content"] for h in hits] == ["Deploys happen on Tuesdays"]
        # without services, a command opens its own (nothing is left behind by the above)
        with pytest.raises(SystemExit):
            cli.main(["-C", str(repo), "search", "Tuesdays", "--mode", "keyword"])
        assert lent.asked == ["searcher", "searcher", "write_index"]
    finally:
        lent.watcher.stop()
