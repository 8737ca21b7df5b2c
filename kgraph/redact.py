"""Secret redaction: the one place that decides what never reaches disk.

``redact(text)`` replaces secrets with ``[REDACTED:<kind>]``. It is a pure function built
from regular expressions (< 1 ms for a few KB, no imports beyond ``re``; each compiled when
a text first holds one of its trigger words), so any hook can call it. It covers:
private-key blocks, JWTs, AWS access keys and secret keys, GitHub / GitLab / Slack tokens
and Slack webhooks, OpenAI and Anthropic keys, Google API keys, Stripe, npm, PyPI and
SendGrid keys, bearer/basic/token ``Authorization`` values, passwords in URLs
(``scheme://user:password@host``) and ``KEY=secret`` assignments (``.env`` lines and inline
``password = "..."``) whose key names a secret.

``redact(text, thorough=True)`` additionally runs every regex-based plugin of the maintained
`detect-secrets` package (Stripe, Twilio, SendGrid, Mailchimp, npm, PyPI, Discord, Telegram,
Azure, IBM, Artifactory, ...) over what is left. Loading the plugins costs ~60 ms, so a cheap
first pass (:func:`may_hold_plugin_secret`) decides whether they must run: it finds what
every plugin's pattern needs (a run of 20 key characters, ``://``, a few literal markers), so
a text without it is one no plugin would change, and the plugins are loaded only for text
that has it: a checkpoint command logging ``run-tests`` never loads them. They are loaded
once per process, and without ``requests``, which they import only to verify a secret over
the network (:func:`_requests_deferred`). Latency-bound hooks call plain ``redact``.

Redaction is idempotent: ``redact(redact(t)) == redact(t)``.
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

MARKER = "[REDACTED:{kind}]"

# Key names that say "the value is a secret", matched inside a longer name (DB_PASSWORD,
# stripeApiKey, client-secret, ...). These rules run on the lower-cased text.
_SECRET_WORD = (
    r"(?:pass(?:wd|word|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|"
    r"private[_-]?key|auth[_-]?key|credentials?|session[_-]?key|signing[_-]?key|"
    r"encryption[_-]?key|dsn)"
)
# After the secret word only a separated suffix (password_hash, token-v2), so "passing",
# "tokenizer" and "keyboard" are not key names.
_KEY_TAIL = r"(?:[_.\-][a-z0-9_.\-]*)?"
_SECRET_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "credential", "dsn")

# Values that are clearly not secrets: placeholders, references, code, or already redacted.
_NOT_A_SECRET = (
    r"(?i)^(?:\[REDACTED:|\$|<|\{|%|\*{3,}|x{3,}$|none$|null$|nil$|true$|false$|undefined$|"
    r"str$|int$|bytes$|string$|optional|os\.|env\.|process\.env|settings\.|config\.|self\.)"
)


class _Rule:
    """One secret shape.

    ``group`` 0 redacts the whole match, N > 0 only group N, -1 the first group that matched.
    The rule runs only when one of ``triggers`` occurs in the lower-cased text (a cheap
    substring test that skips most regex passes on ordinary prose). ``lower`` rules are
    written in lower case and run against the lower-cased text: case-insensitive matching
    without the cost of ``re.IGNORECASE``.

    A plain class, not a dataclass: building one costs ~0.6 ms, and every hook and
    checkpoint command imports this module.
    """

    __slots__ = ("_pattern", "group", "kind", "lower", "source", "triggers")

    def __init__(
        self,
        kind: str,
        source: str | re.Pattern[str],
        group: int = 0,
        triggers: tuple[str, ...] = (),
        lower: bool = False,
    ) -> None:
        self.kind = kind
        self.source = source
        self.group = group
        self.triggers = triggers
        self.lower = lower
        self._pattern = source if isinstance(source, re.Pattern) else None

    @property
    def pattern(self) -> re.Pattern[str]:
        """The expression, compiled when a text first holds one of its triggers: a process
        that redacts a few lines of prose compiles none (importing this module used to
        compile them all, ~5 ms of every hook and checkpoint command)."""
        if self._pattern is None:
            assert isinstance(self.source, str)
            self._pattern = re.compile(self.source)
        return self._pattern


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        triggers=("private key",),
    ),
    _Rule(
        "private-key",
        r"(?s)PuTTY-User-Key-File-\d:.*?(?:Private-MAC: *\S+|\Z)",
        triggers=("putty-user-key-file",),
    ),
    _Rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{4,}={0,2}\.eyJ[A-Za-z0-9_-]{4,}={0,2}\.[A-Za-z0-9_\-+/=]*",
        triggers=("eyj",),
    ),
    _Rule(
        "anthropic-key",
        r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}",
        triggers=("sk-ant-",),
    ),
    _Rule(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}",
        triggers=("sk-",),
    ),
    _Rule(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule(
        "gitlab-token",
        (
            r"\b(?:(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt|glagent|gloas|glffct)-"
            r"[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,50})"
        ),
        triggers=(
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "gloas-",
            "glffct-",
            "gr1348941",
        ),
    ),
    _Rule(
        "slack-token",
        r"\bxox[abposre]-[a-z0-9\-]{10,}",
        triggers=("xox",),
        lower=True,
    ),
    _Rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_\-]{20,}",
        triggers=("hooks.slack.com",),
    ),
    _Rule(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b",
        triggers=("a3t", "abia", "acca", "akia", "asia"),
    ),
    _Rule(
        "aws-secret-key",
        (
            r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?"
            r"['\"=: ]([0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+])"
        ),
        group=1,
        triggers=("aws",),
    ),
    _Rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}", triggers=("aiza",)),
    _Rule(
        "stripe-key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}",
        triggers=("_live_", "_test_"),
    ),
    _Rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", triggers=("npm_",)),
    _Rule(
        "sendgrid",
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b",
        triggers=("sg.",),
    ),
    _Rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", triggers=("pypi-",)),
    # scheme://user:password@host -> keep user and host.
    _Rule(
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/?#@\[\]]+:([^\s/?#@\[\]]+)@",
        group=1,
        triggers=("://",),
    ),
    # Authorization: Bearer <token> / Basic <b64> / token <token>; also a bare "Bearer <token>".
    _Rule(
        "bearer-token",
        r"\b(?:bearer|basic|token)\s+([a-z0-9._~+/\-]{16,}=*)(?![a-z0-9._~+/=\-])",
        group=1,
        triggers=("bearer", "basic", "token"),
        lower=True,
    ),
    # .env lines: KEY=value at the start of a line (optionally `export`), quoted or bare.
    _Rule(
        "env-secret",
        (
            rf"(?m)^[ \t]*(?:export[ \t]+)?[a-z0-9_.\-]*{_SECRET_WORD}{_KEY_TAIL}[ \t]*=[ \t]*"
            r"(\"[^\"\n]+\"|'[^'\n]+'|[^\s'\"#(][^\s#(]*)(?=[ \t]*(?:#|$))"
        ),
        group=1,
        triggers=_SECRET_TRIGGERS,
        lower=True,
    ),
    # Inline quoted assignments: password = "...", "api_key": "...", token: '...'.
    _Rule(
        "secret-assignment",
        (
            rf"{_SECRET_WORD}{_KEY_TAIL}[\"']?[ \t]*(?::=|=>|=|:)[ \t]*"
            r"(\"[^\"\n]{4,}\"|'[^'\n]{4,}')"
        ),
        group=1,
        triggers=_SECRET_TRIGGERS,
        lower=True,
    ),
    # Inline unquoted assignments: DB_PASSWORD=hunter2 in prose or on a command line.
    _Rule(
        "secret-assignment",
        (
            rf"{_SECRET_WORD}{_KEY_TAIL}[ \t]*=[ \t]*"
            r"([^\s'\"()\[\]{},;`]{4,})(?![\w(])"
        ),
        group=1,
        triggers=_SECRET_TRIGGERS,
        lower=True,
    ),
)


def _marker(kind: str) -> str:
    return MARKER.format(kind=kind)


def _replacement(rule: _Rule, match: re.Match[str], original: str) -> tuple[int, int, str] | None:
    """The (start, end, text) that replaces the secret in ``match``, or None to keep it."""
    if rule.group == 0:
        return match.start(), match.end(), _marker(rule.kind)
    index = rule.group
    if index < 0:  # detect-secrets' multi-group regexes: the first group that matched
        index = next((i for i, g in enumerate(match.groups(), 1) if g), 0)
        if index == 0:
            return match.start(), match.end(), _marker(rule.kind)
    if match.group(index) is None:
        return None
    start, end = match.span(index)
    value = original[start:end]
    quote = value[0] if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0] else ""
    bare = value[1:-1] if quote else value
    if not bare or re.match(_NOT_A_SECRET, bare):
        return None
    return start, end, f"{quote}{_marker(rule.kind)}{quote}"


def _apply(rule: _Rule, text: str, low: str) -> str:
    if rule.lower and len(low) == len(text):
        haystack, pattern = low, rule.pattern
    elif rule.lower:  # lower() changed the length (rare Unicode): match case-insensitively
        haystack, pattern = text, re.compile(rule.pattern.pattern, re.IGNORECASE)
    else:
        haystack, pattern = text, rule.pattern
    pieces: list[str] = []
    position = 0
    for match in pattern.finditer(haystack):
        replacement = _replacement(rule, match, text)
        if replacement is None:
            continue
        start, end, new = replacement
        pieces.append(text[position:start])
        pieces.append(new)
        position = end
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def redact(text: str, *, thorough: bool = False) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED:<kind>]``.

    ``thorough=True`` also applies detect-secrets' regex plugins (the first call imports
    detect-secrets, ~180 ms; later calls cost a few hundred microseconds more).
    """
    if not text:
        return text
    low = text.lower()
    for rule in _RULES:
        if rule.triggers and not any(t in low for t in rule.triggers):
            continue
        new = _apply(rule, text, low)
        if new is not text:
            text, low = new, new.lower()
    if thorough and may_hold_plugin_secret(text):
        for rule in _detect_secrets_rules():
            new = _apply(rule, text, low)
            if new is not text:
                text, low = new, new.lower()
    return text


# What every denylist regex of detect-secrets' plugins (1.5) needs in a text it matches: a
# run of 20 characters of a key's alphabet (every plugin's key, token or value but Slack's
# is at least that long), a URL's "://" (basic auth, the Slack webhook, Cloudant and
# SoftLayer URLs), npm's "_authToken", Slack's "xox", or Artifactory's "AKC" and "AP[0-9A-F]".
# A text with none of them is left as it is by every plugin, so the thorough pass need not
# load them (~60 ms). tests/test_redact_plugins.py checks each plugin regex against it.
_PLUGIN_SECRET_SHAPES = r"(?i)[A-Za-z\d_\-+/=\\]{20}|://|_authtoken|xox|(?-i:AKC|AP[\dA-F])"


def may_hold_plugin_secret(text: str) -> bool:
    """The cheap first pass of ``redact(text, thorough=True)``: False when no
    detect-secrets plugin could match ``text`` (then the thorough result is the fast
    one); True when one might, and the plugins run."""
    return re.search(_PLUGIN_SECRET_SHAPES, text) is not None


def redact_data(value: Any, *, thorough: bool = False) -> Any:
    """Redact every string inside a JSON-like value (dicts, lists, strings); keys too."""
    if isinstance(value, str):
        return redact(value, thorough=thorough)
    if isinstance(value, dict):
        return {
            redact(str(k), thorough=thorough): redact_data(v, thorough=thorough)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_data(v, thorough=thorough) for v in value]
    return value


# detect-secrets plugins already covered above (better: whole blocks, keys kept) or not
# secrets at all (public IP addresses).
_SKIPPED_PLUGINS = frozenset({"PrivateKeyDetector", "IPPublicDetector", "JwtTokenDetector"})


def _slug(name: str) -> str:
    name = name.removesuffix("Detector")
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower() or "secret"


@lru_cache(maxsize=1)
def _detect_secrets_rules() -> tuple[_Rule, ...]:
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
    rules: list[_Rule] = []
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
                rules.append(_Rule(kind, regex, group=-1 if regex.groups else 0))
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
