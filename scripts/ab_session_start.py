"""Session-start on a real repository with its history learned: two kgraph executables,
interleaved, medians beside ``python -c pass`` in the same run.

``bench_hooks.py`` times the hooks on a synthetic store of typed learnings; what the session
start does with items learned from commits (asking git which of their commits the checkout
lacks, :class:`kgraph.recall.stale.Elsewhere`) needs a repository and its history. This
clones BUNDLE at REV into a temp folder, runs ``kgraph install`` there with B, then runs
``kgraph hook session-start`` (a new session each time, ``source: startup``) with A and B
in turn, alternating which goes first; with ``--prompt``, each session's first prompt too
(it reads what the start left for the session's later hooks).

Example:
    python scripts/ab_session_start.py ../shared/repos/entireio-cli.bundle \\
        --a /path/to/old/kgraph --b "$(command -v kgraph)" --runs 21
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path


def _env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
    env.update(
        HOME=str(base / "home"),
        CLAUDE_CONFIG_DIR=str(base / "home" / ".claude"),
        KGRAPH_DB=f"sqlite:///{base / 'kgraph.db'}",
        KGRAPH_HOOK_NO_SPAWN="1",
        KGRAPH_EMBEDDER="fake",
    )
    return env


def _hook(kgraph: str, clone: Path, env: dict[str, str], name: str, **fields: str) -> float:
    """Seconds one ``kgraph hook NAME`` process took, Claude Code's JSON on stdin."""
    payload = {"cwd": str(clone), **fields}
    started = time.perf_counter()
    subprocess.run(
        [kgraph, "hook", name],
        input=json.dumps(payload).encode(),
        cwd=clone,
        env=env,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started


def _session(kgraph: str, clone: Path, env: dict[str, str], prompt: str | None) -> dict[str, float]:
    """A new session's start and, given a ``prompt``, its first prompt (which reads what
    the start left in the session's seen file)."""
    sid = str(uuid.uuid4())
    took = {
        "session-start": _hook(
            kgraph, clone, env, "session-start", session_id=sid, source="startup"
        )
    }
    if prompt:
        took["user-prompt"] = _hook(
            kgraph, clone, env, "user-prompt", session_id=sid, prompt=prompt
        )
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, help="a git bundle (or repository) with a main branch")
    parser.add_argument("--rev", default="main~100", help="the checkout (default: main~100)")
    parser.add_argument("--a", required=True, help="the reference kgraph executable")
    parser.add_argument("--b", required=True, help="the kgraph executable measured against it")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--prompt", help="also time this first prompt of each session")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgraph-ab-") as tmp:
        base = Path(tmp)
        clone = base / "clone"
        (base / "home").mkdir()
        env = _env(base)
        subprocess.run(
            ["git", "clone", "-q", "-b", "main", str(args.bundle), str(clone)], check=True
        )
        subprocess.run(["git", "checkout", "-q", "--detach", args.rev], cwd=clone, check=True)
        installed = subprocess.run(
            [args.b, "install", "--no-mcp"], cwd=clone, env=env, capture_output=True, text=True
        )
        print(installed.stdout.strip() or installed.stderr.strip())
        times: dict[tuple[str, str], list[float]] = {}
        for run in range(args.runs):
            for which in ("a", "b") if run % 2 else ("b", "a"):
                took = _session(getattr(args, which), clone, env, args.prompt)
                for hook, seconds in took.items():
                    times.setdefault((which, hook), []).append(seconds)
        baseline = []
        for _ in range(9):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            baseline.append(time.perf_counter() - started)
    for (which, hook), values in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(
            f"{which}: {hook} median {statistics.median(values):.4f} s, "
            f"min {min(values):.4f} s ({len(values)} runs)"
        )
    print(f"python -c pass: median {statistics.median(baseline):.4f} s")


if __name__ == "__main__":
    main()
