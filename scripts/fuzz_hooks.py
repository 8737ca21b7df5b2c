"""Fuzzed input to every Claude Code hook: each run must exit 0 and print only its contract.

Builds a temporary git project with a database (learnings about its files, a parsed code
graph) and hostile files (a FIFO, /dev/zero, a gzip, a binary), then runs the real
``kgraph hook EVENT`` process once per input: valid payloads with one field replaced
(wrong JSON types, 1 MB strings, lone surrogates, NUL bytes, paths that are FIFOs,
devices, folders or missing, session ids with path separators), payloads nested 10,000
deep, truncated and binary bytes, not-JSON, lists, and empty input.

A run passes when it exits 0 within the time limit, prints nothing or one JSON object the
contract allows (``hookSpecificOutput`` with the event's name and a string
``additionalContext``, or ``systemMessage``), and writes nothing to stderr. Prints the totals
and every failure; exits 1 if any.

Usage:
    python scripts/fuzz_hooks.py                 # 2,000 inputs, 2 at a time
    python scripts/fuzz_hooks.py --count 200 --jobs 4 --seed 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "post-tool-use": "PostToolUse",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
}
TIMEOUT_S = 20.0


def make_project(base: Path, env: dict[str, str]) -> tuple[Path, dict[str, Path]]:
    repo = base / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(20):
        (repo / "src" / f"m{i}.py").write_text(f"def f{i}(x):\n    return f{(i + 1) % 20}(x)\n")
    git = ["git", "-c", "user.name=f", "-c", "user.email=f@e"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=repo, check=True)
    items = "".join(
        json.dumps({"content": f"m{i}.py retries f{i} because the lock is busy", "files": [
            f"src/m{i}.py"]}) + "\n"
        for i in range(20)
    )  # fmt: skip
    (base / "items.jsonl").write_text(items)
    kgraph = [sys.executable, "-m", "kgraph"]
    for args in (["knowledge", "import", str(base / "items.jsonl")], ["graph", "parse", "."]):
        subprocess.run([*kgraph, *args], cwd=repo, env=env, check=True, capture_output=True)
    hostile = base / "hostile"
    hostile.mkdir()
    os.mkfifo(hostile / "fifo.jsonl")
    (hostile / "binary.jsonl").write_bytes(bytes(range(256)) * 64)
    (hostile / "gzip.jsonl").write_bytes(gzip.compress(b'{"type":"user"}\n' * 100))
    transcript = hostile / "ok.jsonl"
    transcript.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n' * 20)
    paths = {
        "fifo": hostile / "fifo.jsonl",
        "zero": Path("/dev/zero"),
        "dir": hostile,
        "binary": hostile / "binary.jsonl",
        "gzip": hostile / "gzip.jsonl",
        "missing": hostile / "missing.jsonl",
        "ok": transcript,
        "file": repo / "src" / "m3.py",
    }
    return repo, paths


def odd_values(rng: random.Random, paths: dict[str, Path]) -> list[Any]:
    deep: Any = "x"
    for _ in range(rng.choice([50, 2_000])):
        deep = [deep]
    return [
        None,
        True,
        0,
        -1,
        2**70,
        1.5e308,
        [],
        {},
        deep,
        "",
        " ",
        "x" * rng.choice([1_000, 100_000, 1_000_000]),
        "\ud800 lone",
        "nul\x00byte",
        "../../etc/passwd",
        "a/b\\c",
        "(" * 10_000,
        "`" * 5_000,
        *(str(p) for p in paths.values()),
    ]


def valid_payload(event: str, repo: Path, paths: dict[str, Path], n: int) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": f"fuzz-{n}",
        "cwd": str(repo),
        "hook_event_name": EVENTS[event],
        "transcript_path": str(paths["ok"]),
    }
    if event == "session-start":
        payload["source"] = "startup"
    elif event == "user-prompt":
        payload["prompt"] = "why does src/m3.py retry f3?"
    elif event == "post-tool-use":
        payload["tool_name"] = "Read"
        payload["tool_input"] = {"file_path": str(paths["file"])}
        payload["tool_response"] = {"content": "def f3(x): ..."}
    elif event in ("pre-compact", "session-end"):
        payload["trigger" if event == "pre-compact" else "reason"] = "auto"
    return payload


def fuzzed(rng: random.Random, event: str, repo: Path, paths: dict[str, Path], n: int) -> bytes:
    shape = rng.random()
    payload = valid_payload(event, repo, paths, n)
    if shape < 0.06:
        return rng.choice([b"", b"not json", b"[1, 2, 3]", b'"text"', b"null", b"{"])
    if shape < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.choice([10, 5_000])))
    if shape < 0.14:
        text = json.dumps(payload)
        return text[: rng.randrange(1, len(text))].encode()
    fields = [*payload.keys(), "tool_input", "file_path", "agent_id", "stop_hook_active"]
    for _ in range(rng.choice([1, 1, 2, 3])):
        key = rng.choice(fields)
        value = rng.choice(odd_values(rng, paths))
        if key == "file_path":
            payload.setdefault("tool_input", {})
            if isinstance(payload["tool_input"], dict):
                payload["tool_input"]["file_path"] = value
            continue
        payload[key] = value
    try:
        return json.dumps(payload).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError):
        return b"{}"


def check(event: str, result: subprocess.CompletedProcess[bytes]) -> str | None:
    if result.returncode != 0:
        return f"exit {result.returncode}"
    if result.stderr:
        return f"stderr: {result.stderr[:200]!r}"
    out = result.stdout.decode("utf-8", "replace").strip()
    if not out:
        return None
    try:
        data = json.loads(out)
    except ValueError:
        return f"stdout is not JSON: {out[:200]!r}"
    if not isinstance(data, dict) or not set(data) <= {"hookSpecificOutput", "systemMessage"}:
        return f"stdout outside the contract: {out[:200]!r}"
    specific = data.get("hookSpecificOutput")
    if specific is not None and (
        specific.get("hookEventName") != EVENTS[event]
        or not isinstance(specific.get("additionalContext"), str)
    ):
        return f"hookSpecificOutput outside the contract: {out[:200]!r}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    base = Path(tempfile.mkdtemp(prefix="kgraph-fuzz-hooks-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAPH_")}
    env.update(
        HOME=str(base / "home"),
        CLAUDE_CONFIG_DIR=str(base / "home" / ".claude"),
        KGRAPH_EMBEDDER="fake",
        KGRAPH_HOOK_NO_SPAWN="1",
    )
    (base / "home" / ".claude").mkdir(parents=True)
    started = time.monotonic()
    try:
        repo, paths = make_project(base, env)
        cases = []
        for n in range(args.count):
            event = rng.choice(list(EVENTS))
            cases.append((event, fuzzed(rng, event, repo, paths, n)))

        def run(case: tuple[str, bytes]) -> tuple[str, bytes, str | None]:
            event, data = case
            argv = [sys.executable, "-m", "kgraph", "hook", event]
            try:
                result = subprocess.run(
                    argv, input=data, cwd=repo, env=env, capture_output=True, timeout=TIMEOUT_S
                )
            except subprocess.TimeoutExpired:
                return event, data, f"hung past {TIMEOUT_S:.0f} s"
            return event, data, check(event, result)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(run, cases))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    failures = [(e, d, why) for e, d, why in results if why is not None]
    by_event: dict[str, int] = {}
    for event, _data, _why in results:
        by_event[event] = by_event.get(event, 0) + 1
    print(
        f"{len(results):,} fuzzed hook inputs in {time.monotonic() - started:.0f} s "
        f"({', '.join(f'{e} {n}' for e, n in sorted(by_event.items()))}): "
        f"{len(failures)} failed"
    )
    for event, data, why in failures[:30]:
        print(f"  {event}: {why}; input {data[:120]!r}")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
