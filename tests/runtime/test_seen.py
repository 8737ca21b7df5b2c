from __future__ import annotations

import os
import time
from pathlib import Path

from kgraph.runtime import seen


def test_ids_are_remembered_per_session(tmp_path: Path) -> None:
    seen.remember(tmp_path, "s1", ["a", "b"])
    seen.remember(tmp_path, "s1", ["c"])
    seen.remember(tmp_path, "s2", ["z"])
    assert seen.seen_state(tmp_path, "s1").ids == {"a", "b", "c"}
    assert seen.seen_state(tmp_path, "s2").ids == {"z"}
    assert seen.seen_state(tmp_path, "s3").ids == set()
    assert seen.seen_state(tmp_path, None).ids == set()


def test_forget_all_starts_a_session_afresh(tmp_path: Path) -> None:
    seen.remember(tmp_path, "s1", ["a"])
    seen.forget_all(tmp_path, "s1")
    seen.forget_all(tmp_path, "never")
    assert seen.seen_state(tmp_path, "s1").ids == set()


def test_without_a_session_nothing_is_written(tmp_path: Path) -> None:
    seen.remember(tmp_path, None, ["a"])
    seen.remember(tmp_path, "s1", [])
    assert not (tmp_path / ".claude").exists()


def test_prune_deletes_old_session_files_only(tmp_path: Path) -> None:
    seen.remember(tmp_path, "old", ["a"])
    seen.remember(tmp_path, "new", ["b"])
    stale = time.time() - 8 * 86_400
    os.utime(seen.seen_path(tmp_path, "old"), (stale, stale))
    assert seen.prune(tmp_path) == 1
    assert seen.seen_state(tmp_path, "new").ids == {"b"}
    assert seen.prune(tmp_path / "nowhere") == 0


def test_characters_and_marks_are_kept_apart_from_the_ids(tmp_path: Path) -> None:
    from kgraph.runtime.seen import remember, seen_state

    remember(tmp_path, "s1", ["lrn-1", "mis-2"], chars=700, marks=["file:src/a.py"])
    remember(tmp_path, "s1", ["#chars 9999", "@file:x"], chars=300)  # not ids
    state = seen_state(tmp_path, "s1")
    assert state.ids == {"lrn-1", "mis-2"}
    assert state.chars == 1_000 and state.marks == {"file:src/a.py"}


def test_the_prompts_words_are_kept_apart_from_ids_and_marks(tmp_path: Path) -> None:
    from kgraph.runtime.seen import remember, seen_state

    remember(tmp_path, "s1", ["lrn-1"], words=["expiry", "mutex"])
    remember(tmp_path, "s1", (), words=["region", "bad word", "", "x\ny"])  # one token each
    remember(tmp_path, "s1", ["%not-an-id"])
    state = seen_state(tmp_path, "s1")
    assert state.words == {"expiry", "mutex", "region"} and state.ids == {"lrn-1"}


def test_how_telling_a_word_is_is_kept_with_its_key(tmp_path: Path) -> None:
    from kgraph.runtime.seen import remember, seen_path, seen_state

    remember(tmp_path, "s1", (), words=["expiry", "mutex"], rarity={"mutex": 0.25})
    remember(tmp_path, "s1", (), rarity={"expiry": 0.5, "bad key": 1.0})
    with seen_path(tmp_path, "s1").open("a") as handle:  # no number a hook writes: key alone
        handle.write("%region:nan tags:-1 lexer:x\n")
    state = seen_state(tmp_path, "s1")
    assert state.words == {"expiry", "mutex", "region", "tags", "lexer"}
    assert state.rarity == {"mutex": 0.25, "expiry": 0.5}


def test_the_items_found_elsewhere_are_read_from_their_marks(tmp_path: Path) -> None:
    marks = [f"{seen.ELSEWHERE}lrn-1", f"{seen.ELSEWHERE}lrn-2", "file:src/elsewhere.py"]
    seen.remember(tmp_path, "s1", ["mis-3"], marks=marks)
    state = seen.seen_state(tmp_path, "s1")
    assert state.elsewhere == {"lrn-1", "lrn-2"} and state.ids == {"mis-3"}


def test_the_latest_changes_are_known_only_once_the_session_start_said_them(
    tmp_path: Path,
) -> None:
    seen.remember(tmp_path, "s1", ["mis-3"], marks=[f"{seen.ELSEWHERE}lrn-1"])
    assert seen.seen_state(tmp_path, "s1").recent is None
    marks = [f"{seen.RECENT_SINCE}1770000000", f"{seen.RECENT}0123456789ab"]
    seen.remember(tmp_path, "s1", [], marks=marks)
    assert seen.seen_state(tmp_path, "s1").recent == seen.Recent(
        1.77e9, frozenset({"0123456789ab"})
    )
    seen.remember(tmp_path, "s2", [], marks=[f"{seen.RECENT_SINCE}x"])  # unreadable: unknown
    assert seen.seen_state(tmp_path, "s2").recent is None
    # resumed the next day: the later start's beginning counts, every commit stays
    seen.remember(tmp_path, "s1", [], marks=[f"{seen.RECENT_SINCE}1780000000", f"{seen.RECENT}ab"])
    found = seen.seen_state(tmp_path, "s1").recent
    assert found == seen.Recent(1.78e9, frozenset({"0123456789ab", "ab"}))
