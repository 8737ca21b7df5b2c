"""The project's embedder, loaded once per process, optionally in the background.

Loading the default model costs ~9 s (importing sentence-transformers), so a long-lived
process (the MCP server, a notebook) starts the load in a thread and answers lexically
until the model is ready; a one-shot process (the CLI) loads it only when stored vectors
of that model exist, because only then does a semantic search find anything.

A long-lived process can also give the model back: with ``idle_s``, :meth:`WarmEmbedder.
release_idle` drops an embedder unused for that long (closing it: a
:class:`~kgraph.embeddings.process.ProcessEmbedder` ends its child, which is the only way
torch's ~400 MB come back) and the next use loads it again. The caller decides when to
check (the MCP server, from a timer thread); the clock is injectable, so tests drive it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

from kgraph.embeddings import Embedder, get_embedder, is_cheap, model_name_for

State = Literal["off", "idle", "loading", "ready", "failed"]


class WarmEmbedder:
    """One embedder for a project: a name (loaded on demand) or a ready instance.

    ``spec`` is a backend name (None: ``$KGRAPH_EMBEDDER``, else the default), an
    :class:`~kgraph.embeddings.Embedder`, or False for no semantic search at all.
    ``loader`` creates the embedder from the name (tests pass a slow or failing one).
    """

    def __init__(
        self,
        spec: str | Embedder | Literal[False] | None = None,
        *,
        loader: Callable[[str | None], Embedder] = get_embedder,
        idle_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._lock = threading.Lock()
        self.idle_s = idle_s
        self._clock = clock
        self._last_used = clock()
        self._loaded = threading.Event()
        self._thread: threading.Thread | None = None
        self._loader = loader
        self._embedder: Embedder | None = None
        self.error: str | None = None
        self._name: str | None = None
        self._by_name = False  # loaded from a name (so it can be dropped and loaded again)
        if spec is False:
            self._state: State = "off"
            self.model_name: str | None = None
            self.cheap = True
            self._loaded.set()
        elif isinstance(spec, str) or spec is None:
            self._name = spec
            self._by_name = True
            self.model_name = model_name_for(spec)  # validates the name without loading
            self.cheap = is_cheap(spec)
            self._state = "idle"
        else:
            self._embedder = spec
            self.model_name = spec.model_name
            self.cheap = True
            self._state = "ready"
            self._loaded.set()

    @property
    def state(self) -> State:
        return self._state

    def start(self) -> None:
        """Begin loading in a daemon thread (no-op when loading, loaded or off)."""
        with self._lock:
            if self._state != "idle":
                return
            self._state = "loading"
            self._thread = threading.Thread(target=self._load, name="kgraph-embedder", daemon=True)
            self._thread.start()

    def _load(self) -> None:
        try:
            embedder = self._loader(self._name)
        except Exception as exc:  # reported through ``error`` and the search mode
            self.error = f"{type(exc).__name__}: {exc}"
            self._state = "failed"
        else:
            self._embedder = embedder
            self._last_used = self._clock()
            self._state = "ready"
        finally:
            self._loaded.set()

    def get(self, *, wait: bool) -> Embedder | None:
        """The embedder when ready; with ``wait``, load it (or wait for the load) first.

        A cheap embedder is always loaded at once: it costs milliseconds.
        """
        self._last_used = self._clock()
        if self._state == "ready" or self._state in ("off", "failed"):
            return self._embedder
        if not (wait or self.cheap):
            return None
        if self._state == "idle":
            with self._lock:
                if self._state == "idle":
                    self._state = "loading"
                    self._load()
        self._loaded.wait()
        return self._embedder

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the load finished (ready or failed); False on timeout."""
        return self._loaded.wait(timeout)

    def release_idle(self, now: float | None = None) -> bool:
        """Drop the embedder when unused for ``idle_s`` (at ``now``, default the clock);
        True when it was dropped. Only a loaded-by-name embedder is dropped (an instance
        passed in stays): the next :meth:`get` or :meth:`start` loads it again."""
        if self.idle_s is None or not self._by_name:
            return False
        now = self._clock() if now is None else now
        with self._lock:
            if self._state != "ready":
                return False
            if now - self._last_used < self.idle_s:
                return False
            embedder, self._embedder = self._embedder, None
            self._state = "idle"
            self._loaded = threading.Event()
        close = getattr(embedder, "close", None)
        if callable(close):
            close()
        return True
