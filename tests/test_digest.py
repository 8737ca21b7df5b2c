"""The digests kgraph stores are hashlib's, with or without CPython's own modules."""

from __future__ import annotations

import hashlib
import importlib

import pytest

from kgraph import digest


def test_the_digests_are_hashlibs() -> None:
    data = "café — naïve".encode()
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert digest.blake2b_hex(data, 6) == hashlib.blake2b(data, digest_size=6).hexdigest()


def test_a_build_without_its_own_sha256_uses_openssls(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_builtin(name: str) -> object:
        raise ImportError(name)

    monkeypatch.setattr(importlib, "import_module", no_builtin)
    sha256 = digest._sha256()
    assert sha256 is hashlib.sha256
    assert sha256(b"x").hexdigest() == digest.sha256_hex(b"x")
