"""What `python main.py` (only it, `cli/_system.py::serve`) refuses of Gradio's import: work for a
developer's editor or notebook that a server never uses (docs/ARCHITECTURE.md, "What `python main.py`
does before its first HTTP 200").

- IPython: Gradio imports IPython's notebook magics whenever IPython is installed, and asks IPython
  about Colab at every config. Refused (the import fails, as if IPython were absent).
- Type stubs: as each of its ~40 component classes is defined, Gradio re-derives the class's `.pyi`
  stub for editors — it reads the component's source, parses the whole file with `ast`, renders a
  Jinja template and compares it with the stub file shipped in its install (writing it if it
  differs). That is ~1 s of CPU per start on the 2-core machine (README, "Benchmarks") and changes
  nothing a page shows: the stubs are read by type checkers only. Skipped here by replacing
  `gradio.component_meta.create_or_modify_pyi` with a function that does nothing, as the module is
  loaded — before the first component class is defined.

Neither is done to a process that imports `ui/` for tests or benchmarks (the bare Gradio app of
benchmarks/startup.py does both only with `--bare-lean`). Both are no-ops when Gradio was imported
already or no longer has the hook (a later Gradio): the start is then as Gradio makes it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

STUBS_MODULE = "gradio.component_meta"
STUBS_FUNCTION = "create_or_modify_pyi"


def _no_stub(*_args: Any, **_kwargs: Any) -> None:
    """Stands in for Gradio's stub writer: a served app never reads its `.pyi` files."""


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the stub writer replaced."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)  # type: ignore[attr-defined]
        if callable(getattr(module, STUBS_FUNCTION, None)):
            setattr(module, STUBS_FUNCTION, _no_stub)


class _StubsFinder(importlib.abc.MetaPathFinder):
    """Finds `gradio.component_meta` as the path finder does, loads it through `_Loader`, and leaves."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if name != STUBS_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None  # not a plain file (another finder's): imported as Gradio makes it
        spec.loader = _Loader(spec.loader)
        # Once. Only now: the import system walks this very list and stops at the spec returned.
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        return spec


def lean_gradio() -> None:
    """Before Gradio's first import: no IPython, no stub writing (this module's docstring)."""
    sys.modules.setdefault("IPython", None)  # type: ignore[arg-type]
    if "gradio" not in sys.modules and not any(isinstance(f, _StubsFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _StubsFinder())
