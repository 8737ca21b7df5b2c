"""An embedder in a child process, so a long-lived process can give its memory back.

Loading all-MiniLM-L6-v2 in-process takes a Python process from ~10 MB to ~490 MB RSS,
and dropping the model (``del``, ``gc.collect()``, glibc ``malloc_trim``) only brings it
back to ~440 MB: torch's libraries and allocator arenas stay mapped for the life of the
process (measured on the 2-core reference machine). The MCP server runs for a whole Claude
Code session, so it loads the model in a child instead (:class:`ProcessEmbedder`) and ends
the child after an idle time; ending a process returns all of its memory.

Protocol (the child's stdin/stdout, binary): the child first writes one JSON line,
``{"model": ..., "dim": ...}`` or ``{"error": ...}``. Each request is one JSON line,
``{"texts": [...]}``; the answer is a JSON line ``{"rows": n}`` followed by ``n * dim``
little-endian float32 values, or ``{"error": ...}``. The child ends when its stdin closes,
so it never outlives its parent.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any

from kgraph.errors import KgraphError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from kgraph.embeddings import Embedder

STOP_WAIT_S = 5.0  # a child that does not end on EOF within this is killed


def _read_json(stream: IO[bytes]) -> dict[str, Any]:
    line = stream.readline()
    if not line:
        raise KgraphError("the embedding process ended unexpectedly")
    value = json.loads(line)
    if not isinstance(value, dict):
        raise KgraphError("the embedding process sent a malformed reply")
    if "error" in value:
        raise KgraphError(f"the embedding process failed: {value['error']}")
    return value


class ProcessEmbedder:
    """An :class:`~kgraph.embeddings.Embedder` whose model lives in a child process.

    Creating it starts the child and waits until the model is loaded (~10 s for the real
    model). :meth:`close` ends the child; an ``embed`` after that starts a new one, so a
    caller that still holds the instance never gets a dead embedder.
    """

    def __init__(self, name: str | None = None) -> None:
        self._name = name
        self._lock = threading.Lock()
        self._child: subprocess.Popen[bytes] | None = None
        self.model_name = ""
        self.dim = 0
        with self._lock:
            self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        # -c, not -m: the package imports this module, and runpy warns about running it.
        code = "import sys; from kgraph.embeddings.process import serve; serve(sys.argv[1])"
        child = subprocess.Popen(
            [sys.executable, "-c", code, self._name or ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None
        try:
            hello = _read_json(child.stdout)
        except Exception:
            self._stop(child)
            raise
        self.model_name, self.dim = str(hello["model"]), int(hello["dim"])
        self._child = child
        return child

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (for measuring its memory)."""
        return self._child.pid if self._child is not None else None

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import numpy as np

        with self._lock:
            child = self._child or self._start()
            assert child.stdin is not None and child.stdout is not None
            try:
                child.stdin.write(json.dumps({"texts": list(texts)}).encode() + b"\n")
                child.stdin.flush()
                rows = int(_read_json(child.stdout)["rows"])
                data = child.stdout.read(rows * self.dim * 4)
            except (OSError, ValueError) as exc:
                self._stop(child)
                raise KgraphError(f"the embedding process failed: {exc}") from exc
            except KgraphError:
                self._stop(child)
                raise
        vectors = np.frombuffer(data, dtype="<f4").reshape(rows, self.dim)
        result: NDArray[np.float32] = vectors.astype(np.float32)
        return result

    def close(self) -> None:
        """End the child (waits for an embed in progress); its memory is returned."""
        with self._lock:
            if self._child is not None:
                self._stop(self._child)

    def _stop(self, child: subprocess.Popen[bytes]) -> None:
        self._child = None
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            child.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def load_out_of_process(name: str | None = None) -> Embedder:
    """The embedder ``name``: in a child process unless it is cheap (the hashing
    embedder costs microseconds and a few MB, so a child would only add latency)."""
    from kgraph.embeddings import get_embedder, is_cheap

    return get_embedder(name) if is_cheap(name) else ProcessEmbedder(name)


def serve(name: str | None) -> None:
    """The child: load the embedder, then answer requests until stdin closes."""
    import numpy as np

    from kgraph.embeddings import get_embedder

    # The protocol gets a private copy of stdout; fd 1 becomes stderr, so a library's
    # stray print cannot corrupt a reply.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        embedder = get_embedder(name or None)
    except Exception as exc:
        out.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode() + b"\n")
        out.flush()
        return
    out.write(json.dumps({"model": embedder.model_name, "dim": embedder.dim}).encode() + b"\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            texts = json.loads(line)["texts"]
            vectors = np.asarray(embedder.embed(texts), dtype="<f4")
        except Exception as exc:  # reported to the parent, which raises it
            out.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode() + b"\n")
        else:
            out.write(json.dumps({"rows": len(vectors)}).encode() + b"\n" + vectors.tobytes())
        out.flush()
