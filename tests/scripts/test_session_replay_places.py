"""session_replay_places: judged items counted by trigger and place in their block."""

from __future__ import annotations

from session_replay_places import count


def _item(key: str, trigger: str) -> dict[str, str]:
    return {"key": key, "trigger": trigger}


def test_items_are_counted_by_trigger_and_place_after_the_first_session() -> None:
    run = {
        "sessions": [
            {"session_id": "aaaaaaaa-1", "items": [_item("x0", "prompt 1")]},  # the first: none
            {
                "session_id": "bbbbbbbb-2",
                "items": [
                    _item("p1", "prompt 1"),
                    _item("p2", "prompt 1"),
                    _item("r1", "Read a.go"),
                    _item("p3", "prompt 2"),  # another prompt: its own first place
                    _item("r2", "Read a.go"),
                    _item("r3", "Read a.go"),
                    _item("r4", "Read a.go"),
                ],
            },
        ]
    }
    verdicts = {
        "bbbbbbbb:p1": {"verdict": "useful"},
        "bbbbbbbb:p2": {"verdict": "irrelevant"},
        "bbbbbbbb:p3": {"verdict": "junk"},
        "bbbbbbbb:r1": {"verdict": "useful"},
        "bbbbbbbb:r3": {"verdict": "irrelevant"},
        "bbbbbbbb:r4": {"verdict": "irrelevant"},
    }
    counts = count([run], verdicts)  # type: ignore[arg-type]
    assert counts == {
        ("prompt", "1st", "useful"): 1,
        ("prompt", "2nd", "irrelevant"): 1,
        ("prompt", "1st", "junk"): 1,
        ("Read", "1st", "useful"): 1,
        ("Read", "2nd", "unjudged"): 1,
        ("Read", "3rd and later", "irrelevant"): 2,
    }
