"""Project settings from ``<project root>/.claude/kgraph.toml`` (all optional).

The file is plain TOML; each subsystem reads its own table, e.g.::

    [areas]            # code-area rules, first match wins (kgraph/knowledge/areas.py)
    [hooks]            # budgets: session_start_max_chars, user_prompt_max_chars, ...
    [capture]          # extractor = "claude" to enable model extraction
"""

from __future__ import annotations

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
