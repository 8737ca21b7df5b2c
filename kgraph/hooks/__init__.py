"""Claude Code hook entry points: stdin JSON in, budgeted context out, fail-open.

Entry: :func:`kgraph.hooks.runner.run_hook` (the ``kgraph`` script calls it without Click,
:mod:`kgraph.cli.entry`). Nothing here imports heavy modules: the injecting hooks
(session-start, user-prompt, post-tool-use) read the database with the standard library
(:mod:`kgraph.hooks.readmodel`), the capture hooks (stop, pre-compact, session-end) only
queue work for the detached worker; none imports SQLAlchemy.
Callers outside the package use the names in ``__all__``, which load on first use (PEP 562).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgraph.hooks.briefing import Block
    from kgraph.hooks.briefing import fit as fit_briefing
    from kgraph.hooks.doctor import Check, run_doctor
    from kgraph.hooks.install import SCOPES, has_kgraph_hooks, install_plugin
    from kgraph.hooks.install import install as install_hooks
    from kgraph.hooks.mcpjson import (
        MCP_TOOL_HOOKS_SINCE,
        claude_code_version,
        recall_hook_handler,
        register_for_scope,
        register_server,
        sdk_available,
        use_recall_hook,
    )
    from kgraph.hooks.payload import read_input
    from kgraph.hooks.runner import EVENTS, HookOptions, HookResult, emit, run_hook
    from kgraph.hooks.session_start import SessionSignals, session_briefing
    from kgraph.hooks.user_prompt import code_names, prompt_ranked
    from kgraph.hooks.user_prompt import fuse as fuse_ranked

# name -> "module" or "module:attribute". ``install`` is exported as ``install_hooks``:
# ``kgraph.hooks.install`` is also the module's name (importing it rebinds the attribute).
_LAZY = {
    "Block": "briefing",
    "fit_briefing": "briefing:fit",
    "Check": "doctor",
    "run_doctor": "doctor",
    "SCOPES": "install",
    "install_hooks": "install:install",
    "install_plugin": "install",
    "has_kgraph_hooks": "install",
    "MCP_TOOL_HOOKS_SINCE": "mcpjson",
    "claude_code_version": "mcpjson",
    "recall_hook_handler": "mcpjson",
    "register_for_scope": "mcpjson",
    "register_server": "mcpjson",
    "sdk_available": "mcpjson",
    "use_recall_hook": "mcpjson",
    "read_input": "payload",
    "EVENTS": "runner",
    "HookOptions": "runner",
    "HookResult": "runner",
    "emit": "runner",
    "run_hook": "runner",
    "SessionSignals": "session_start",
    "session_briefing": "session_start",
    "code_names": "user_prompt",
    "fuse_ranked": "user_prompt:fuse",
    "prompt_ranked": "user_prompt",
}

__all__ = [
    "EVENTS",
    "MCP_TOOL_HOOKS_SINCE",
    "SCOPES",
    "Block",
    "Check",
    "HookOptions",
    "HookResult",
    "SessionSignals",
    "claude_code_version",
    "code_names",
    "emit",
    "fit_briefing",
    "fuse_ranked",
    "has_kgraph_hooks",
    "install_hooks",
    "install_plugin",
    "prompt_ranked",
    "read_input",
    "recall_hook_handler",
    "register_for_scope",
    "register_server",
    "run_doctor",
    "run_hook",
    "sdk_available",
    "session_briefing",
    "use_recall_hook",
]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'kgraph.hooks' has no attribute {name!r}")
    import importlib

    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(f"kgraph.hooks.{module}"), attribute or name)
