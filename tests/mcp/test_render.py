"""The cap: every result is valid JSON within ``max_chars``, and says what it left out."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from kgraph.mcp.render import capped, one_line


def test_a_small_result_is_unchanged() -> None:
    payload = {"hits": [{"id": "a"}], "mode": "hybrid"}
    assert json.loads(capped(payload, 1_000, list_key="hits")) == payload


def test_a_long_list_is_cut_and_says_how_to_get_more() -> None:
    payload = {
        "total": 100,
        "hits": [{"id": f"lrn-{n:04d}", "summary": "x" * 50} for n in range(100)],
    }
    text = capped(payload, 1_000, list_key="hits", more="search again with offset=N")
    result = json.loads(text)
    assert len(text) <= 1_000
    assert result["truncated"] is True
    assert result["shown"] == len(result["hits"]) > 5
    assert result["total"] == 100
    assert result["more"] == "search again with offset=N"
    assert result["hits"] == payload["hits"][: result["shown"]]  # the best ones, in order


def test_one_huge_text_is_shortened_and_flagged() -> None:
    text = capped({"items": [{"content": "y" * 50_000}]}, 2_000, list_key="items")
    result = json.loads(text)
    assert len(text) <= 2_000
    assert result["texts_cut"] is True
    assert result["items"][0]["content"].endswith("…")


@given(
    st.lists(st.text(max_size=400), max_size=60),
    st.integers(min_value=500, max_value=5_000),
)
def test_never_over_the_cap(texts: list[str], max_chars: int) -> None:
    text = capped(
        {"entries": [{"t": t} for t in texts], "note": "n"}, max_chars, list_key="entries"
    )
    assert len(text) <= max_chars
    json.loads(text)


def test_one_line() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("word " * 100, 20) == "word word word word…"
