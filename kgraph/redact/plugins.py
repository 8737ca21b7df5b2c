"""detect-secrets' regex plugins for ``redact(text, thorough=True)``, and the cheap first
pass that decides whether they must run.

The thorough pass runs every regex-based plugin of the maintained `detect-secrets` package
(Stripe, Twilio, SendGrid, Mailchimp, npm, PyPI, Discord, Telegram, Azure, IBM,
Artifactory, ...) over what the built-in rules left. Loading the plugins costs ~60 ms, so
:func:`may_hold_plugin_secret` first finds what every plugin's pattern needs (a run of 20
key characters, ``://``, a few literal markers): a text without it is one no plugin would
change, and the plugins are loaded only for text that has it (a checkpoint command logging
``run-tests`` never loads them). They are loaded once per process, and without
``requests``, which they import only to verify a secret over the network
(:func:`_requests_deferred`). None of this is the plain pass the latency-bound hooks
run, so it lives apart from :mod:`kgraph.redact`, which only calls the two functions here.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import sys
import types
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Any

from kgraph.redact.rules import Rule

# What every denylist regex of detect-secrets' plugins (1.5) needs in a text it matches: a
# run of 20 characters of a key's alphabet (every plugin's key, token or value but Slack's
# is at least that long), a URL's "://" (basic auth, the Slack webhook, Cloudant and
# SoftLayer URLs), npm's "_authToken", Slack's "xox", or Artifactory's "AKC" and "AP[0-9A-F]".
# A text with none of them is left as it is by every plugin, so the thorough pass need not
# load them (~60 ms). tests/redact/test_plugins.py checks each plugin regex against it.
_PLUGIN_SECRET_SHAPES = r"(?i)[A-Za-z\d_\-+/=\\]{20}|://|_authtoken|xox|(?-i:AKC|AP[\dA-F])"


def may_hold_plugin_secret(text: str) -> bool:
    """The cheap first pass of ``redact(text, thorough=True)``: False when no
    detect-secrets plugin could match ``text`` (then the thorough result is the fast
    one); True when one might, and the plugins run."""
    return re.search(_PLUGIN_SECRET_SHAPES, text) is not None


# detect-secrets plugins the built-in rules (kgraph.redact.rules) cover better (whole
# blocks, keys kept), or that find no secrets at all (public IP addresses).
_SKIPPED_PLUGINS = frozenset({"PrivateKeyDetector", "IPPublicDetector", "JwtTokenDetector"})


def _slug(name: str) -> str:
    name = name.removesuffix("Detector")
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower() or "secret"


@lru_cache(maxsize=1)
def detect_secrets_rules() -> tuple[Rule, ...]:
    """The denylist regexes of detect-secrets' regex plugins, loaded once per process.

    Returns () if detect-secrets is not installed or its internals moved: the built-in
    patterns still apply.
    """
    try:
        with _requests_deferred():
            from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
            from detect_secrets.plugins.base import RegexBasedDetector

            classes: Iterable[Any] = get_mapping_from_secret_type_to_class().values()
    except Exception:  # pragma: no cover - optional dependency missing or changed
        return ()
    rules: list[Rule] = []
    for plugin in sorted(classes, key=lambda c: c.__name__):
        if not (isinstance(plugin, type) and issubclass(plugin, RegexBasedDetector)):
            continue
        if plugin.__name__ in _SKIPPED_PLUGINS:
            continue
        denylist = plugin.__dict__.get("denylist")
        if not isinstance(denylist, list | tuple):
            continue
        kind = _slug(plugin.__name__)
        for regex in denylist:
            if isinstance(regex, re.Pattern):
                rules.append(Rule(kind, regex, group=-1 if regex.groups else 0))
    return tuple(rules)


@contextlib.contextmanager
def _requests_deferred() -> Iterator[None]:
    """Load detect-secrets' plugins without importing ``requests`` (~40 ms with urllib3).

    The plugins import it to verify a secret with its issuer over the network, which kgraph
    never asks of them. While they load, ``requests`` is a stand-in module; an attribute
    read then (an annotation such as ``-> requests.Response``) gets an empty class. Once
    they are loaded the stand-in leaves ``sys.modules``, and an attribute read imports the
    real ``requests``, so a verification would still work. When ``requests`` is already
    imported there is nothing to save.
    """
    if "requests" in sys.modules:
        yield
        return
    stand_in = types.ModuleType("requests", "kgraph.redact's stand-in while plugins load")
    loading = [True]

    def attribute(name: str) -> Any:
        if loading[0]:
            return type(name, (), {})
        return getattr(importlib.import_module("requests"), name)

    stand_in.__getattr__ = attribute  # type: ignore[method-assign]
    sys.modules["requests"] = stand_in
    try:
        yield
    finally:
        loading[0] = False
        if sys.modules.get("requests") is stand_in:
            del sys.modules["requests"]
