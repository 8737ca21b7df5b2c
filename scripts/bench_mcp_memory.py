"""Memory and start time of ``kgraph mcp``: RSS before and after the embedding model, and
time to the ``initialize`` answer beside ``python -c "import sqlalchemy"``.

Builds a small temporary project (L learnings with vectors of the embedder's model, so a
search is semantic), writes ``[mcp] model_idle_s`` to its .claude/kgraph.toml, then talks
to a real ``kgraph mcp`` process over stdin/stdout:

- **initialize**: S starts, each timed from spawning the process to its ``initialize``
  answer (wall, and the server's CPU time read from /proc at that moment), beside
  ``python -c "import sqlalchemy"`` (wall and CPU) in the same run; medians;
- **RSS** (VmRSS from /proc/<pid>/status) of the server after ``initialize`` + a
  non-semantic call (``find``); after a semantic ``search`` once the model answers
  (the model runs in a child process, whose RSS is shown apart); and after the idle time
  has passed (the child should be gone, and the server back to its size).

Targets (issue 36): server RSS <= 250 MB before a semantic search and < 300 MB after the
idle time; initialize <= 1.5x ``import sqlalchemy``.

Usage:
    python scripts/bench_mcp_memory.py                    # real all-MiniLM-L6-v2, idle 5 s
    python scripts/bench_mcp_memory.py --embedder fake --idle 2
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_mcp import kgraph_command, make_project

TICKS = os.sysconf("SC_CLK_TCK")
PROTOCOL = "2025-06-18"


def rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return None
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else None


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


class Server:
    """``kgraph mcp`` in ``repo``, spoken to line by line."""

    def __init__(self, repo: Path, embedder: str) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [*kgraph_command(), "mcp"],
            cwd=repo,
            env={**os.environ, "KGRAPH_EMBEDDER": embedder},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        while True:
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply

    def initialize(self) -> tuple[float, float]:
        """(wall s, server CPU s) from spawn to the answer."""
        info = {"name": "bench", "version": "0"}
        self.request(
            "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": info}
        )
        wall, cpu = time.perf_counter() - self.started, cpu_s(self.process.pid)
        assert self.process.stdin is not None
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.process.stdin.write(json.dumps(note).encode() + b"\n")
        self.process.stdin.flush()
        return wall, cpu

    def tool(self, name: str, arguments: dict[str, Any]) -> str:
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        return str(reply["result"]["content"][0]["text"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def python_time(code: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def memory(repo: Path, args: argparse.Namespace) -> dict[str, Any]:
    server = Server(repo, args.embedder)
    try:
        server.initialize()
        server.tool("find", {"name": "f1"})
        pid = server.process.pid
        before = rss_mb(pid)
        waited = time.perf_counter()
        while json.loads(server.tool("search", {"query": "cache"}))["mode"] != "hybrid":
            if time.perf_counter() - waited > 300:
                raise SystemExit("the model did not load within 300 s")
            time.sleep(0.5)
        loaded = time.perf_counter() - waited
        after_search = rss_mb(pid)
        child = {c: rss_mb(c) for c in children(pid)}
        time.sleep(args.idle * 1.25 + 1.0)  # the check runs every idle/4 s (at most 30 s)
        return {
            "before": before,
            "search": after_search,
            "child": child,
            "idle": rss_mb(pid),
            "child_idle": {c: rss_mb(c) for c in children(pid)},
            "loaded_s": loaded,
        }
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learnings", type=int, default=500)
    parser.add_argument("--starts", type=int, default=7, help="server starts timed")
    parser.add_argument("--idle", type=float, default=5.0, help="[mcp] model_idle_s")
    parser.add_argument("--embedder", default="all-MiniLM-L6-v2", help="or: fake")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="kgraph-bench-mcp-memory-"))
    try:
        build = argparse.Namespace(
            learnings=args.learnings, edges=200, files=20, embedder=args.embedder, seed=0
        )
        repo, _ = make_project(base, build)
        (repo / ".claude" / "kgraph.toml").write_text(f"[mcp]\nmodel_idle_s = {args.idle}\n")
        starts, imports = [], []
        for _ in range(args.starts):
            server = Server(repo, args.embedder)
            starts.append(server.initialize())
            server.close()
            imports.append(python_time("import sqlalchemy"))
        mem = memory(repo, args)
        wall = statistics.median(s[0] for s in starts)
        cpu = statistics.median(s[1] for s in starts)
        sa_wall = statistics.median(i[0] for i in imports)
        sa_cpu = statistics.median(i[1] for i in imports)
        print(f"\nkgraph mcp, embedder {args.embedder}, model_idle_s {args.idle}")
        print(
            f"start -> initialize answered: wall {wall:.3f} s, cpu {cpu:.3f} s (median of "
            f"{args.starts}); python -c 'import sqlalchemy': wall {sa_wall:.3f} s, cpu "
            f"{sa_cpu:.3f} s -> {wall / sa_wall:.2f}x wall, {cpu / sa_cpu:.2f}x cpu "
            "(target <= 1.5x)"
        )
        print(f"server RSS after initialize + find:  {mem['before']:.0f} MB (target <= 250)")
        children_now = ", ".join(f"pid {p}: {r:.0f} MB" for p, r in mem["child"].items())
        print(
            f"server RSS after a semantic search: {mem['search']:.0f} MB; model child "
            f"{children_now or 'none'} (model ready {mem['loaded_s']:.1f} s after the first search)"
        )
        idle_children = ", ".join(f"pid {p}" for p in mem["child_idle"]) or "none"
        print(
            f"server RSS after the idle time:     {mem['idle']:.0f} MB (target < 300); "
            f"children left: {idle_children}"
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
