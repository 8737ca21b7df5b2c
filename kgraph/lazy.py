"""Package names that load on first use (PEP 562), so importing a package imports nothing.

Each package lists its public names as ``name -> "module"`` (or ``"module:attribute"`` when
the attribute has another name) and sets ``__getattr__ = lazy(__name__, _LAZY)``: a hook
that needs one function of a package pays for that module alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy"]


def lazy(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package`` for the names in ``table``."""

    def __getattr__(name: str) -> Any:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        return getattr(importlib.import_module(f"{package}.{module}"), attribute or name)

    return __getattr__
