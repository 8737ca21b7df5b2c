"""Setting kgraph up in a project: the hooks in Claude Code's settings, the MCP server in
``.mcp.json``, and the doctor that checks both and the database.

``install`` writes (and removes) the hooks and a plugin layout, ``mcpjson`` registers the
MCP server, ``doctor`` checks the wiring and the executable and runs every check: the
database's (``dbcheck``), the hooks' timings (``hookcheck``), and ``mcpcheck``, which starts
the registered server and speaks the protocol to it. Used by the ``kgraph install`` and
``kgraph doctor`` commands, never by a hook. Callers outside the package use the names in
``__all__``; they load on first use (PEP 562).
"""

from typing import TYPE_CHECKING

from kgraph.lazy import lazy

if TYPE_CHECKING:
    from kgraph.setup.doctor import Check, run_doctor
    from kgraph.setup.install import SCOPES, has_kgraph_hooks, install_plugin
    from kgraph.setup.install import install as install_hooks
    from kgraph.setup.mcpjson import (
        MCP_MISSING,
        MCP_TOOL_HOOKS_SINCE,
        claude_code_version,
        recall_hook_handler,
        register_for_scope,
        register_server,
        sdk_available,
        use_recall_hook,
    )
    from kgraph.setup.uninstall import Tidied, tidy_after_uninstall

# name -> "module" or "module:attribute". ``install`` is exported as ``install_hooks``:
# ``kgraph.setup.install`` is also the module's name (importing it rebinds the attribute).
_LAZY = {
    "Check": "doctor",
    "run_doctor": "doctor",
    "SCOPES": "install",
    "install_hooks": "install:install",
    "install_plugin": "install",
    "has_kgraph_hooks": "install",
    "Tidied": "uninstall",
    "tidy_after_uninstall": "uninstall",
    "MCP_TOOL_HOOKS_SINCE": "mcpjson",
    "claude_code_version": "mcpjson",
    "MCP_MISSING": "mcpjson",
    "recall_hook_handler": "mcpjson",
    "register_for_scope": "mcpjson",
    "register_server": "mcpjson",
    "sdk_available": "mcpjson",
    "use_recall_hook": "mcpjson",
}

__all__ = [
    "MCP_MISSING",
    "MCP_TOOL_HOOKS_SINCE",
    "SCOPES",
    "Check",
    "Tidied",
    "claude_code_version",
    "has_kgraph_hooks",
    "install_hooks",
    "install_plugin",
    "recall_hook_handler",
    "register_for_scope",
    "register_server",
    "run_doctor",
    "sdk_available",
    "tidy_after_uninstall",
    "use_recall_hook",
]


__getattr__ = lazy(__name__, _LAZY)
