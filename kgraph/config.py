"""Project settings from ``<project root>/.claude/kgraph.toml`` (all optional).

The file is plain TOML; each subsystem reads its own table, e.g.::

    [areas]            # code-area rules, first match wins (kgraph/knowledge/areas.py)
    [hooks]            # budgets: session_start_max_chars, user_prompt_max_chars, ...
    [capture]          # extractor = "claude" to enable model extraction
    [database]         # url (a team server, no password) and password_env
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from kgraph.errors import InvalidValueError

CONFIG_RELATIVE_PATH = Path(".claude") / "kgraph.toml"


def load_config(root: Path) -> dict[str, Any]:
    """The parsed settings of the project at ``root``; {} when there is no file.

    Raises InvalidValueError with the file and position when the TOML is invalid.
    """
    path = root / CONFIG_RELATIVE_PATH
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return {}
    import tomllib  # only when there is a file: most hook runs have none

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidValueError(f"{path}: invalid TOML: {exc}") from exc


def section(config: dict[str, Any], name: str) -> dict[str, Any]:
    """``config[name]`` when it is a table, else {}."""
    value = config.get(name)
    return value if isinstance(value, dict) else {}


_TABLE_LINE = re.compile(r"^\s*\[")


def set_setting(root: Path, table: str, key: str, value: str | bool | None) -> Path:
    """Set ``[table] key = value`` in the project's kgraph.toml (None removes the key).

    Edits the lines rather than rewriting the file, so the user's comments and other tables
    stay as they were. Returns the file's path.
    """
    path = root / CONFIG_RELATIVE_PATH
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    setting = [f"{key} = {json.dumps(value)}"] if value is not None else []
    assignment = re.compile(rf"^\s*{re.escape(key)}\s*=")
    start = next((i for i, line in enumerate(lines) if line.strip() == f"[{table}]"), None)
    if start is None and setting:
        lines += [*([""] if lines else []), f"[{table}]", *setting]
    elif start is not None:
        end = next(
            (i for i in range(start + 1, len(lines)) if _TABLE_LINE.match(lines[i])), len(lines)
        )
        body = [line for line in lines[start + 1 : end] if not assignment.match(line)]
        lines[start + 1 : end] = [*setting, *body]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n" if lines else "", encoding="utf-8")
    return path
