"""Lone surrogates out of decoded JSON; lines without a \\ud escape are never walked."""

from __future__ import annotations

import json

from kgraph.jsontext import may_hold_surrogates, without_surrogates


def test_lone_surrogates_are_replaced_in_strings_and_keys() -> None:
    raw = '{"a\\udc00": ["x\\ud800y", {"n": 1, "ok": "\\ud83d\\ude00"}]}'
    assert may_hold_surrogates(raw)
    value = without_surrogates(json.loads(raw))
    assert value == {"a\ufffd": ["x\ufffdy", {"n": 1, "ok": "\U0001f600"}]}  # a pair stays
    json.dumps(value).encode("utf-8")  # writable


def test_text_without_an_escape_needs_no_walk() -> None:
    assert not may_hold_surrogates('{"text": "plain \\u00e9 text"}')
