"""Hook budgets and capture switches from ``.claude/kgraph.toml`` ``[hooks]`` and ``[capture]``.

A bad value never breaks a hook: it is ignored (the default is used) and logged.

```toml
[hooks]
session_start_max_chars = 9000     # additionalContext budget (Claude Code spills > 10,000)
session_start_max_items = 30
session_start_recent_items = 0     # clean tree: items from recent activity (the prompt leads)
session_start_deadline_s = 3.0     # return what is ready when this expires
user_prompt_max_chars = 2000
user_prompt_max_items = 1          # the best match (replayed sessions: a second never helped)
user_prompt_history_changes = 20   # of the history, a prompt brings what these last changes
                                   # brought (0: all of it; kgraph.recall.recent)
user_prompt_deadline_s = 1.5
file_recall_max_items = 2           # post-tool-use: items about the file read/edited
file_recall_max_chars = 1500
file_recall_deadline_s = 1.0
session_max_chars = 6000           # what all hooks together may inject into one session
blast_radius_depth = 2
catchup_interval_s = 900           # how often session-start queues catch-up capture
stop_capture_interval_s = 120      # Stop fires every turn: capture at most this often
server_copy_max_age_s = 120        # PostgreSQL: session-start reads the local copy up to this age

[capture]
extractor = "claude"               # optional model extraction (off by default)
extractor_timeout_s = 120
embed_captured = true              # the worker embeds what it captured when a session ends
catchup_max_age_days = 30          # catch-up captures earlier sessions up to this old
learn_history = true               # catch-up also learns the git history's new commits
```
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from kgraph.runtime.state import log_warning

# Claude Code writes additionalContext over 10,000 characters to a file instead.
HARD_MAX_CHARS = 9_900


@dataclass(frozen=True)
class HookSettings:
    session_start_max_chars: int = 9_000
    session_start_max_items: int = 30
    session_start_recent_items: int = 0
    session_start_deadline_s: float = 3.0
    user_prompt_max_chars: int = 2_000
    user_prompt_max_items: int = 1
    user_prompt_history_changes: int = 20
    user_prompt_deadline_s: float = 1.5
    file_recall_max_items: int = 2
    file_recall_max_chars: int = 1_500
    file_recall_deadline_s: float = 1.0
    session_max_chars: int = 6_000
    blast_radius_depth: int = 2
    catchup_interval_s: float = 900.0
    stop_capture_interval_s: float = 120.0
    server_copy_max_age_s: float = 120.0
    extractor: str | None = None
    extractor_timeout_s: float = 120.0
    embed_captured: bool = True
    catchup_max_age_days: float = 30.0
    learn_history: bool = True


_BOUNDS: dict[str, tuple[float, float]] = {
    "session_start_max_chars": (200, HARD_MAX_CHARS),
    "session_start_max_items": (1, 200),
    "session_start_recent_items": (0, 200),
    "session_start_deadline_s": (0.1, 30),
    "user_prompt_max_chars": (100, HARD_MAX_CHARS),
    "user_prompt_max_items": (1, 50),
    "user_prompt_history_changes": (0, 100_000),
    "user_prompt_deadline_s": (0.1, 10),
    "file_recall_max_items": (0, 20),
    "file_recall_max_chars": (100, HARD_MAX_CHARS),
    "file_recall_deadline_s": (0.1, 10),
    "session_max_chars": (0, 1_000_000),
    "blast_radius_depth": (0, 5),
    "catchup_interval_s": (0, 7 * 86_400),
    "stop_capture_interval_s": (0, 86_400),
    "server_copy_max_age_s": (0, 7 * 86_400),
    "extractor_timeout_s": (5, 1_800),
    "catchup_max_age_days": (0, 3_650),
}


_CAPTURE_TABLE = frozenset(
    {"extractor", "extractor_timeout_s", "embed_captured", "catchup_max_age_days", "learn_history"}
)


def clamp_chars(value: int) -> int:
    low, high = _BOUNDS["session_start_max_chars"]
    return int(min(max(value, low), high))


def _coerce(name: str, value: Any, default: Any) -> Any:
    if name == "extractor":
        return "claude" if value == "claude" else None
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    low, high = _BOUNDS[name]
    value = min(max(value, low), high)
    return int(value) if isinstance(default, int) else float(value)


def settings_from_config(config: dict[str, Any]) -> HookSettings:
    """Build settings from a parsed kgraph.toml (see module docstring); bad values ignored."""
    hooks = config.get("hooks") if isinstance(config.get("hooks"), dict) else {}
    capture = config.get("capture") if isinstance(config.get("capture"), dict) else {}
    assert isinstance(hooks, dict) and isinstance(capture, dict)
    defaults = HookSettings()
    changes: dict[str, Any] = {}
    for f in fields(HookSettings):
        source = capture if f.name in _CAPTURE_TABLE else hooks
        if f.name in source:
            value = source[f.name]
            changes[f.name] = _coerce(f.name, value, getattr(defaults, f.name))
            if changes[f.name] != value:
                table = "capture" if source is capture else "hooks"
                log_warning(
                    "kgraph.toml: [%s] %s = %r is not valid here; using %r",
                    table,
                    f.name,
                    value,
                    changes[f.name],
                )
    return replace(defaults, **changes)


def load_settings(root: Path) -> HookSettings:
    """Settings of the project at ``root``; defaults when the file is missing or invalid."""
    from kgraph.config import load_config
    from kgraph.errors import KgraphError

    try:
        return settings_from_config(load_config(root))
    except (KgraphError, OSError) as exc:
        log_warning("kgraph.toml ignored, defaults used: %s", exc)
        return HookSettings()


def set_learn_history(root: Path, on: bool) -> Path:
    """Let catch-up learn new commits of the git history, or not (``kgraph install
    --no-history``), in ``.claude/kgraph.toml``. Returns the file's path."""
    from kgraph.config import set_setting

    return set_setting(root, "capture", "learn_history", None if on else False)


def set_extractor(root: Path, extractor: str | None) -> Path:
    """Turn model extraction on (``"claude"``) or off (None) in ``.claude/kgraph.toml``
    (comments and other tables kept). Returns the file's path."""
    from kgraph.config import set_setting

    return set_setting(root, "capture", "extractor", extractor)
