"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

Entry: :func:`kgraph.hooks.runner.run_hook`. Nothing here imports heavy modules at import
time; the capture hooks (stop, pre-compact, session-end) never import SQLAlchemy at all.
Callers outside the package use the names in ``__all__``, which load on first use (PEP 562).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgraph.hooks.briefing import Ranked, Signals, render_checkpoint
    from kgraph.hooks.briefing import fit as fit_briefing
    from kgraph.hooks.briefing import rank as rank_items
    from kgraph.hooks.user_prompt import required_overlap, significant_terms, stem

# name -> "module" or "module:attribute"
_LAZY = {
    "Ranked": "briefing",
    "Signals": "briefing",
    "fit_briefing": "briefing:fit",
    "rank_items": "briefing:rank",
    "render_checkpoint": "briefing",
    "required_overlap": "user_prompt",
    "significant_terms": "user_prompt",
    "stem": "user_prompt",
}

__all__ = [
    "Ranked",
    "Signals",
    "fit_briefing",
    "rank_items",
    "render_checkpoint",
    "required_overlap",
    "significant_terms",
    "stem",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'kgraph.hooks' has no attribute {name!r}")
    import importlib

    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(f"kgraph.hooks.{module}"), attribute or name)
