"""usearch's index module is loaded without the package's Python extras (issue 29):
no ``urllib.request`` (ssl, http.client, email) and no ``tqdm`` in a process that only
searches and writes vectors; the rest of the package, and tqdm, still work when asked
for; and an installed usearch the light way does not recognise gets the normal import.
Each case runs in a fresh interpreter: what is imported is the point."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

USE = """
import numpy as np
from memx_cli.index.usearch_import import load
usearch = load()
index = usearch.Index(ndim=4, metric="cos", dtype="f32")
rows = np.eye(4, dtype=np.float32)
index.add(np.arange(4, dtype=np.uint64), rows)
found = index.search(rows[2], 2)
exact = usearch.search(rows, rows[1], 1, usearch.MetricKind.Cos, exact=True)
out = {"found": int(found.keys[0]), "exact": int(exact.keys[0]),
       "urllib": "urllib.request" in sys.modules, "tqdm": "tqdm" in sys.modules,
       "ssl": "ssl" in sys.modules, "module": usearch.__name__}
"""


def _run(prelude: str, after: str = "") -> dict[str, object]:
    code = "import json, sys\n" + textwrap.dedent(prelude) + USE + textwrap.dedent(after) \
        + "print(json.dumps(out))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_the_index_loads_without_urllib_or_tqdm() -> None:
    out = _run("")
    assert out == {"found": 2, "exact": 1, "urllib": False, "tqdm": False, "ssl": False,
                   "module": "usearch.index"}


def test_the_rest_of_the_package_and_tqdm_work_afterwards() -> None:
    out = _run("", """
        import usearch
        from usearch import index as same
        out["version"] = usearch.__version__
        out["same"] = same is load()
        from tqdm import tqdm
        out["tqdm_class"] = tqdm.__module__
        out["bar"] = sum(usearch_bar for usearch_bar in
                         sys.modules["usearch.index"].tqdm(range(3), disable=True))
    """)
    assert out["same"] is True and out["urllib"] is False
    assert isinstance(out["version"], str) and out["version"].count(".") == 2
    assert out["tqdm_class"] == "tqdm.std" and out["bar"] == 3


@pytest.mark.parametrize("prelude", [
    "import usearch.index\n",  # imported before: that module is used
    "import tqdm\n",  # tqdm there already: the real one is kept
])
def test_modules_imported_before_are_used_as_they_are(prelude: str) -> None:
    out = _run(prelude, """
        import tqdm
        out["real_tqdm"] = hasattr(tqdm, "__version__")
    """)
    assert out["found"] == 2 and out["exact"] == 1 and out["real_tqdm"] is True


@pytest.mark.parametrize("break_it", [
    # a usearch whose index module wants more of tqdm than its class
    "sys.modules['tqdm'] = None\n",
    # a compiled library that cannot be loaded the light way
    "import memx_cli.index.usearch_import as light\n"
    "def refuse():\n    raise OSError('no such library')\n"
    "light._load_numkong = refuse\n",
])
def test_what_the_light_way_cannot_load_falls_back_to_the_normal_import(
        break_it: str) -> None:
    undo = "sys.modules.pop('tqdm', None)\n" if "None" in break_it else ""
    out = _run(break_it + "import memx_cli.index.usearch_import as light\n"
               "real_light = light._light\n"
               "def light_then_undo():\n"
               "    try:\n        return real_light()\n"
               f"    finally:\n        {undo or 'pass'}\n"
               "light._light = light_then_undo\n")
    assert out["found"] == 2 and out["exact"] == 1
    assert out["urllib"] is True  # the package's own __init__ ran
