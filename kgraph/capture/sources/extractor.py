"""Optional model extraction with ``claude -p`` (off by default).

Enabled by ``extractor = "claude"`` in the ``[capture]`` table of ``.claude/kgraph.toml``.

The model answers with the marker protocol of seed 002::

    HAS_KNOWLEDGE: YES
    - [Mistake] ...
    - [Learning] ...

or ``HAS_KNOWLEDGE: NO``. Parsing is lenient (markdown prefixes stripped, YES/TRUE, any
case); no marker means NO. The call can never trigger kgraph again: ``KGRAPH_INTERNAL=1``
(checked first by every hook), ``--settings '{"disableAllHooks": true}'``, no session
persistence (no transcript to re-ingest), no tools, one turn, in a temporary directory.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence

from kgraph.capture.gate.candidates import text_hash
from kgraph.capture.sources.explanations import Found

MARKER = "HAS_KNOWLEDGE"
MAX_EXCERPT_CHARS = 30_000
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?:\[(?P<type>[A-Za-z]+)\]\s*:?\s*)?(?P<text>\S.*)$")
_TYPES = {"learning": "Learning", "pattern": "Pattern", "mistake": "Mistake"}

PROMPT = """You read an excerpt of a software engineering session between a user and a coding
agent, and extract durable project knowledge: decisions and their reasons, causes of bugs
and how they were fixed, conventions and rules of this codebase, facts a future session on
this project must know. Ignore progress reports, pleasantries and anything obvious.

Write each item as one factual sentence (not an instruction), prefixed by its kind:
- [Learning] a fact or decision with its reason
- [Pattern] a convention or rule of this codebase
- [Mistake] an error that was made and its cause

If you found knowledge worth keeping, respond:
HAS_KNOWLEDGE: YES
- [Kind] sentence
...

If nothing is worth keeping, respond:
HAS_KNOWLEDGE: NO

Session excerpt:
"""


def _strip_markdown_prefix(line: str) -> str:
    return line.strip().lstrip("#>* \t").strip()


def parse_marker(text: str, marker: str = MARKER) -> tuple[bool, str]:
    """(has knowledge, content after the marker line). No marker → (False, "")."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        cleaned = _strip_markdown_prefix(line)
        if not cleaned.upper().startswith(marker.upper()):
            continue
        value = cleaned[len(marker) :].lstrip(" :").strip().strip("*").strip().upper()
        found = value.startswith(("YES", "TRUE"))
        return found, "\n".join(lines[index + 1 :]).strip() if found else ""
    return False, ""


def parse_items(content: str) -> list[tuple[str, str]]:
    """(type, text) for every list item of the content; untyped items are Learnings."""
    items: list[tuple[str, str]] = []
    for line in content.splitlines():
        match = _ITEM.match(line)
        if not match:
            continue
        kind = _TYPES.get((match.group("type") or "learning").lower(), "Learning")
        items.append((kind, match.group("text").strip()))
    return items


def build_excerpt(prompts: Sequence[str], assistant_texts: Sequence[str]) -> str:
    """User prompts then agent replies, newest kept when over MAX_EXCERPT_CHARS, redacted."""
    from kgraph.redact import redact

    parts = [f"USER: {p}" for p in prompts] + [f"AGENT: {t}" for t in assistant_texts]
    text = "\n\n".join(parts)
    return redact(text[-MAX_EXCERPT_CHARS:])


def run_claude(prompt: str, timeout: float, executable: str = "claude") -> str:
    """Run ``claude -p`` with hooks off and KGRAPH_INTERNAL=1; its stdout ("" on failure)."""
    env = dict(os.environ)
    env["KGRAPH_INTERNAL"] = "1"
    with tempfile.TemporaryDirectory(prefix="kgraph-extract-") as workdir:
        try:
            proc = subprocess.run(
                [
                    executable,
                    "-p",
                    "--settings",
                    '{"disableAllHooks": true}',
                    "--no-session-persistence",
                    "--strict-mcp-config",
                    "--max-turns",
                    "1",
                ],
                input=prompt,
                capture_output=True,
                text=True,
                cwd=workdir,
                env=env,
                timeout=timeout,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return proc.stdout if proc.returncode == 0 else ""


def extract_candidates(
    prompts: Sequence[str], assistant_texts: Sequence[str], timeout: float = 120.0
) -> list[Found]:
    """What the model found in a batch of the session (empty when nothing or failing).

    They are found items, not stored ones: capture passes them through the same steps as
    what the rules find (paths mapped and home directories masked, the rubric, the files
    they name), so the model path stores nothing the rules' path would refuse."""
    if not prompts and not assistant_texts:
        return []
    output = run_claude(PROMPT + build_excerpt(prompts, assistant_texts), timeout)
    found, content = parse_marker(output)
    if not found:
        return []
    return [
        Found(kind, text, f"llm:{text_hash(text)}", 4.0, 0.6, stated=True, origin="llm")
        for kind, text in parse_items(content)
    ]
