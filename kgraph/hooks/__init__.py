"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

Entry: :func:`run_hook`. Nothing here imports heavy modules at import time; the capture
hooks (stop, pre-compact, session-end) never import SQLAlchemy at all. Callers outside the
package use the names in ``__all__``, which load on first use (PEP 562).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgraph.hooks.briefing import Ranked, Signals, render_checkpoint
    from kgraph.hooks.briefing import fit as fit_briefing
    from kgraph.hooks.briefing import rank as rank_items
    from kgraph.hooks.doctor import Check, run_doctor
    from kgraph.hooks.install import SCOPES, install_plugin
    from kgraph.hooks.install import install as install_hooks
    from kgraph.hooks.mcpjson import (
        MCP_TOOL_HOOKS_SINCE,
        claude_code_version,
        recall_hook_handler,
        register_server,
        sdk_available,
        use_recall_hook,
    )
    from kgraph.hooks.payload import read_input
    from kgraph.hooks.runner import HookOptions, HookResult, run_hook
    from kgraph.hooks.user_prompt import required_overlap, significant_terms, stem

# name -> "module" or "module:attribute". ``install`` is exported as ``install_hooks``:
# ``kgraph.hooks.install`` is also the module's name (importing it rebinds the attribute).
_LAZY = {
    "Ranked": "briefing",
    "Signals": "briefing",
    "fit_briefing": "briefing:fit",
    "rank_items": "briefing:rank",
    "render_checkpoint": "briefing",
    "Check": "doctor",
    "run_doctor": "doctor",
    "SCOPES": "install",
    "install_hooks": "install:install",
    "install_plugin": "install",
    "MCP_TOOL_HOOKS_SINCE": "mcpjson",
    "claude_code_version": "mcpjson",
    "recall_hook_handler": "mcpjson",
    "register_server": "mcpjson",
    "sdk_available": "mcpjson",
    "use_recall_hook": "mcpjson",
    "read_input": "payload",
    "HookOptions": "runner",
    "HookResult": "runner",
    "run_hook": "runner",
    "required_overlap": "user_prompt",
    "significant_terms": "user_prompt",
    "stem": "user_prompt",
}

__all__ = [
    "MCP_TOOL_HOOKS_SINCE",
    "SCOPES",
    "Check",
    "HookOptions",
    "HookResult",
    "Ranked",
    "Signals",
    "claude_code_version",
    "fit_briefing",
    "install_hooks",
    "install_plugin",
    "rank_items",
    "read_input",
    "recall_hook_handler",
    "register_server",
    "render_checkpoint",
    "required_overlap",
    "run_doctor",
    "run_hook",
    "sdk_available",
    "significant_terms",
    "stem",
    "use_recall_hook",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'kgraph.hooks' has no attribute {name!r}")
    import importlib

    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(f"kgraph.hooks.{module}"), attribute or name)
