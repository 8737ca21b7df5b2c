"""Digests without OpenSSL. ``import hashlib`` loads libcrypto: about 2.5 ms of every hook
process, which needs only sha256 (content hashes) and blake2b (prompt words), both of which
CPython also builds in. A build without its own digests (FIPS builds) gets OpenSSL's."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol


class _Hash(Protocol):
    def hexdigest(self) -> str: ...


def _sha256() -> Callable[[bytes], _Hash]:
    for module in ("_sha2", "_sha256"):  # CPython 3.12+, 3.11
        try:
            return importlib.import_module(module).sha256  # type: ignore[no-any-return]
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256

    return sha256


def _blake2b() -> Callable[..., _Hash]:
    try:
        from _blake2 import blake2b
    except ImportError:
        from hashlib import blake2b
    return blake2b


_SHA256 = _sha256()
_BLAKE2B = _blake2b()


def sha256_hex(data: bytes) -> str:
    return _SHA256(data).hexdigest()


def blake2b_hex(data: bytes, digest_size: int) -> str:
    return _BLAKE2B(data, digest_size=digest_size).hexdigest()
