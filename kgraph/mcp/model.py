"""The MCP server's embedding model: loaded on the first semantic request, in a child
process, and dropped after ``[mcp] model_idle_s`` without use.

The server lives as long as a Claude Code session, while the model is needed only by the
tools that match by meaning. Loaded in-process, the model takes the server from ~60 MB to
~490 MB RSS and dropping it gives back only ~50 MB (torch stays mapped); in a child
process (kgraph.embeddings.process) the server stays near its own size and ending the
child returns everything. So:

- the first call of a tool in ``SEMANTIC_TOOLS`` starts the child in the background
  (search answers lexical + graph, and says so, until it is ready);
- every ``check_s`` a loop asks the project's WarmEmbedder to drop a model unused for
  ``model_idle_s`` (default 300 s); the next semantic call starts a new child.

```toml
[mcp]
model_idle_s = 300     # seconds without a semantic call before the model is dropped
```
"""

from __future__ import annotations

import logging
from pathlib import Path

import anyio

from kgraph.api import WarmEmbedder
from kgraph.config import load_config, section
from kgraph.errors import InvalidValueError

SEMANTIC_TOOLS = frozenset({"search", "recall", "context_for", "learn"})
DEFAULT_IDLE_S = 300.0
IDLE_BOUNDS = (1.0, 7 * 86_400.0)
MAX_CHECK_S = 30.0

log = logging.getLogger("kgraph.mcp")


def model_idle_s(root: Path, default: float | None = DEFAULT_IDLE_S) -> float | None:
    """``[mcp] model_idle_s`` of the project at ``root``, clamped to ``IDLE_BOUNDS``;
    ``default`` when absent or not a number (a bad value is logged, never fatal)."""
    try:
        value = section(load_config(root), "mcp").get("model_idle_s", default)
    except InvalidValueError as exc:
        log.warning("%s; model_idle_s stays %s", exc, default)
        return default
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        log.warning("[mcp] model_idle_s must be a number of seconds (got %r)", value)
        return default
    low, high = IDLE_BOUNDS
    return float(min(max(value, low), high))


def check_interval(idle_s: float) -> float:
    """How often to look for an idle model: a quarter of the idle time, at most 30 s, so
    the model goes at most ~25% (or 30 s) after its idle time."""
    return max(0.25, min(idle_s / 4, MAX_CHECK_S))


async def release_idle_model(embedder: WarmEmbedder) -> None:
    """Run until cancelled: drop the model whenever it has been idle for its idle time."""
    if embedder.idle_s is None:
        return
    interval = check_interval(embedder.idle_s)
    while True:
        await anyio.sleep(interval)
        # In a thread: closing waits for an embed in progress and for the child to end.
        if await anyio.to_thread.run_sync(embedder.release_idle):
            log.info("embedding model dropped after %.0f s idle", embedder.idle_s)
