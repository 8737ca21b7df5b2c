"""A summary's stored form (:mod:`kgraph.codegraph.summary_codec`): read back whole or
scope by scope, it is the summary that was stored."""

from __future__ import annotations

import json

import pytest

from kgraph.codegraph.parse_python import parse_python
from kgraph.codegraph.summary_codec import decode_summary, encode_summary

SERVICE = b"""\
class Service(Base):
    def __init__(self, repo: "Repo"):
        self.repo = repo


def make():
    return Service(None)
"""


def test_a_stored_summary_reads_back_whole_or_scope_by_scope() -> None:
    summary = parse_python(SERVICE)
    assert decode_summary(encode_summary(summary)) == summary
    lazy = decode_summary(encode_summary(summary), lazy=True)
    scopes = lazy["scopes"]
    assert "Service.__init__" in scopes and len(scopes) == len(summary["scopes"])
    assert scopes.get("Service") == summary["scopes"]["Service"]  # rebuilt on first read
    assert scopes.get("Missing") is None
    assert scopes["Service.__init__"] == summary["scopes"]["Service.__init__"]
    assert dict(scopes.items()) == summary["scopes"]  # the rest, all at once
    assert lazy == summary
    head, _, texts = encode_summary(summary).partition("\n")  # scopes are parsed apart
    start, end = json.loads(head)["scopes"]["Service"]
    assert json.loads(texts[start:end]) == json.loads(json.dumps(summary["scopes"]["Service"]))
    older = json.dumps(summary)  # scopes stored as objects, as before
    assert decode_summary(older) == summary
    assert dict(decode_summary(older, lazy=True)["scopes"].items()) == summary["scopes"]


def test_stored_summaries_keep_non_ascii_text_and_fall_back_to_json() -> None:
    """Non-ASCII text is stored unescaped, so a scope's span counts characters (counted in
    bytes, every scope after the first non-ASCII one would be cut wrong); what orjson
    refuses, an integer above 64 bits, is encoded by json instead."""
    source = "def café():\n    pass\n\n\ndef naïve(x=café):\n    return x()\n"
    summary = parse_python(source.encode())
    text = encode_summary(summary)
    assert "café" in text and "\\u" not in text
    lazy = decode_summary(text, lazy=True)
    assert lazy["scopes"]["naïve"] == summary["scopes"]["naïve"]
    assert lazy["scopes"]["café"] == summary["scopes"]["café"]
    assert decode_summary(text) == summary
    huge = decode_summary(encode_summary({**summary, "errors": 2**70}), lazy=True)
    assert huge["errors"] == 2**70 and huge["scopes"]["naïve"] == summary["scopes"]["naïve"]
    with pytest.raises(TypeError):  # neither encodes a set (its order would vary)
        encode_summary({**summary, "errors": {1, 2}})  # type: ignore[typeddict-item]
