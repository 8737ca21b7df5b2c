"""Stuck-pattern detection over the most recent tool calls (thresholds after OpenHands).

Three patterns, checked in this order (the first found is reported):

- ``same_error``: within the window, the same tool failing with the same error text at least
  ``same_error`` times, with no later success on the target of the latest failure;
- ``same_action``: the newest ``same_action`` or more calls are the identical action (tool and
  input, ignoring ``description``/``timeout``) with the identical result;
- ``alternation``: the newest calls alternate between two different actions A, B, A, B, ...
  for at least ``alternation_cycles`` full cycles.

Thresholds come from ``[transcript]`` in ``.claude/kgraph.toml`` (``stuck_window``,
``stuck_same_action``, ``stuck_same_error``, ``stuck_alternation_cycles``) or arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from kgraph.errors import InvalidValueError
from kgraph.transcript.toolcalls import (
    ToolCall,
    action_class,
    action_signature,
    error_text,
    is_sibling_cancel,
    target_of,
)


@dataclass(frozen=True)
class StuckThresholds:
    window: int = 20
    same_action: int = 4
    same_error: int = 3
    alternation_cycles: int = 3

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> StuckThresholds:
        """Thresholds from a ``[transcript]`` table (keys ``stuck_<field>``); defaults otherwise."""
        values: dict[str, int] = {}
        for f in fields(cls):
            raw = config.get(f"stuck_{f.name}")
            if raw is None:
                continue
            if not isinstance(raw, int) or isinstance(raw, bool) or raw < 1:
                raise InvalidValueError(
                    f"[transcript] stuck_{f.name} must be a positive integer, got {raw!r}"
                )
            values[f.name] = raw
        return cls(**values)


@dataclass(frozen=True)
class StuckReport:
    """A detected pattern: ``pattern`` is ``same_error``, ``same_action`` or ``alternation``;
    ``count`` is repetitions (or cycles); ``call_ids`` are the calls involved, oldest first."""

    pattern: str
    count: int
    tools: tuple[str, ...]
    detail: str
    call_ids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "count": self.count,
            "tools": list(self.tools),
            "detail": self.detail,
            "call_ids": list(self.call_ids),
        }


def detect_stuck(
    tool_calls: Sequence[ToolCall],
    thresholds: StuckThresholds | None = None,
    **overrides: int,
) -> StuckReport | None:
    """The stuck pattern in the last ``window`` calls, or None.

    ``overrides`` replace single thresholds, e.g. ``detect_stuck(calls, same_action=3)``.
    """
    limits = replace(thresholds or StuckThresholds(), **overrides)
    window = list(tool_calls)[-limits.window :] if limits.window > 0 else []
    return (
        _same_error(window, limits.same_error)
        or _same_action(window, limits.same_action)
        or _alternation(window, limits.alternation_cycles)
    )


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _same_error(calls: list[ToolCall], threshold: int) -> StuckReport | None:
    groups: dict[tuple[str, str], list[int]] = {}
    for index, call in enumerate(calls):
        if call.is_error and not is_sibling_cancel(call):
            signature = " ".join(error_text(call, 300).split())
            groups.setdefault((call.name, signature), []).append(index)
    best: tuple[int, tuple[str, str], list[int]] | None = None
    for key, indexes in groups.items():
        if len(indexes) < threshold:
            continue
        last = calls[indexes[-1]]
        resolved_key = (action_class(last), target_of(last))
        if any(
            not c.is_error and c.has_result and (action_class(c), target_of(c)) == resolved_key
            for c in calls[indexes[-1] + 1 :]
        ):
            continue
        if best is None or indexes[-1] > best[0]:
            best = (indexes[-1], key, indexes)
    if best is None:
        return None
    (tool, message), indexes = best[1], best[2]
    return StuckReport(
        "same_error",
        len(indexes),
        (tool,),
        f"{tool} failed {len(indexes)} times with: {_short(message) or '(no message)'}",
        tuple(calls[i].id for i in indexes),
    )


def _outcome(call: ToolCall) -> tuple[bool, str] | None:
    """What a call observed (None while it has no result: it matches any outcome)."""
    if call.result is None:
        return None
    return call.is_error, " ".join(call.result[:500].split())


def _same_action(calls: list[ToolCall], threshold: int) -> StuckReport | None:
    if not calls:
        return None
    signature = action_signature(calls[-1])
    outcome = _outcome(calls[-1])
    run = 0
    for call in reversed(calls):
        if action_signature(call) != signature:
            break
        observed = _outcome(call)
        if outcome is not None and observed is not None and observed != outcome:
            break
        outcome = outcome if outcome is not None else observed
        run += 1
    if run < threshold:
        return None
    last = calls[-1]
    return StuckReport(
        "same_action",
        run,
        (last.name,),
        f"{last.name} repeated {run} times with the same result on "
        f"{_short(target_of(last) or '(no input)')}",
        tuple(c.id for c in calls[-run:]),
    )


def _alternation(calls: list[ToolCall], cycles_needed: int) -> StuckReport | None:
    if len(calls) < 4:
        return None
    signatures = [action_signature(c) for c in calls]
    a, b = signatures[-2], signatures[-1]
    if a == b:
        return None
    length = 0  # how many trailing calls follow the ...A, B pattern
    for offset, signature in enumerate(reversed(signatures)):
        expected = b if offset % 2 == 0 else a
        if signature != expected:
            break
        length += 1
    cycles = length // 2
    if cycles < cycles_needed:
        return None
    first, second = calls[-2], calls[-1]
    return StuckReport(
        "alternation",
        cycles,
        (first.name, second.name),
        f"alternating {first.name} / {second.name} for {cycles} cycles "
        f"({_short(target_of(first) or '', 60)} / {_short(target_of(second) or '', 60)})",
        tuple(c.id for c in calls[-length:]),
    )
