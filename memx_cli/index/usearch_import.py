"""usearch's index module without the package's Python extras (issue 29).

``import usearch.index`` runs ``usearch/__init__.py`` first, which imports
``urllib.request`` (and with it ``http.client``, ``ssl``, ``email``) for a helper that
downloads SQLite extensions, and ``usearch/index.py`` imports ``tqdm`` for progress
bars memx never shows: ~60 ms of CPU in a cold process, on every hybrid search and
every write. Here the package is registered without running its ``__init__`` (the rest
of it runs on the first access to a name it defines: PEP 562), the NumKong library the
compiled module links against is loaded first as ``__init__`` does, and ``tqdm`` is
imported only if a progress bar is ever asked for. Whatever this does not recognise in
the installed usearch (another layout, a failed load) falls back to the normal import.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Any


def load() -> ModuleType:
    """``usearch.index``, imported the light way when the installed usearch allows."""
    module = sys.modules.get("usearch.index")
    if module is not None:
        return module
    if "usearch" not in sys.modules:
        try:
            return _light()
        except Exception:  # any surprise: the normal import below
            sys.modules.pop("usearch.index", None)
            if getattr(sys.modules.get("usearch"), "__memx_light__", False):
                del sys.modules["usearch"]  # the normal import runs its __init__
    return importlib.import_module("usearch.index")


def _light() -> ModuleType:
    spec = importlib.util.find_spec("usearch")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        raise ImportError("usearch is not a package here")
    package = importlib.util.module_from_spec(spec)  # its __init__ not run
    package.__memx_light__ = True  # type: ignore[attr-defined]
    setattr(package, "__getattr__", _rest_of_init(package, spec))  # noqa: B010 (PEP 562)
    _load_numkong()
    sys.modules["usearch"] = package
    importlib.import_module("usearch.compiled")
    importlib.import_module("numpy")
    module: ModuleType | None = None
    stand_in = None
    if "tqdm" not in sys.modules:  # only while usearch/index.py runs (a few ms)
        stand_in = ModuleType("tqdm")
        stand_in.tqdm = _progress_bar  # type: ignore[attr-defined]
        sys.modules["tqdm"] = stand_in
    try:
        module = importlib.import_module("usearch.index")
    finally:
        if stand_in is not None and sys.modules.get("tqdm") is stand_in:
            del sys.modules["tqdm"]
    if not callable(getattr(module, "Index", None)):
        raise ImportError("usearch.index has no Index")
    return module


def _rest_of_init(package: ModuleType, spec: Any) -> Any:
    """The package's ``__getattr__``: runs the rest of ``__init__`` on first need."""

    def getattr_(name: str) -> Any:
        vars(package).pop("__getattr__", None)  # once: a name __init__ lacks is an error
        spec.loader.exec_module(package)
        return getattr(package, name)

    return getattr_


def _load_numkong() -> None:
    """usearch's compiled module resolves NumKong's symbols when it loads, so NumKong's
    library goes in first with its symbols global (what usearch's ``__init__`` does)."""
    if sys.platform == "win32":
        raise ImportError("the light import is for POSIX loaders")
    try:
        library = importlib.import_module("numkong._numkong")
    except ImportError:
        return  # a usearch built without NumKong
    import ctypes

    path = getattr(library, "__file__", None)
    if not path or not os.path.isfile(path):
        raise ImportError("NumKong's compiled library not found")
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


def _progress_bar(*args: Any, **kwargs: Any) -> Any:
    """Stands in for ``tqdm.tqdm`` in usearch.index: the real one, imported on first use."""
    from tqdm import tqdm

    return tqdm(*args, **kwargs)
