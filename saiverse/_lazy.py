"""The lazy public face of a package (as Textual's `widgets/__init__.py`): a name is imported from
its private module on first use, so importing the package costs nothing until a part is used, and
the parts may import each other without a cycle through the package's `__init__`."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_getattr(package: str, exports: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: `exports` maps a public name to its private module
    (`"World": "_world"`); the value found is kept in `namespace` so the next lookup is plain."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
