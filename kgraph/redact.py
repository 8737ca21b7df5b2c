"""Secret redaction: the one place that decides what never reaches disk.

``redact(text)`` replaces secrets with ``[REDACTED:<kind>]``. It is a pure function built
from precompiled regular expressions (< 1 ms for a few KB, no imports beyond ``re``), so any
hook can call it. It covers: private-key blocks, JWTs, AWS access keys and secret keys,
GitHub / GitLab / Slack tokens and Slack webhooks, OpenAI and Anthropic keys, Google API keys,
Stripe, npm, PyPI and SendGrid keys, bearer/basic/token ``Authorization`` values, passwords in URLs
(``scheme://user:password@host``) and ``KEY=secret`` assignments (``.env`` lines and inline
``password = "..."``) whose key names a secret.

``redact(text, thorough=True)`` additionally runs every regex-based plugin of the maintained
`detect-secrets` package (Stripe, Twilio, SendGrid, Mailchimp, npm, PyPI, Discord, Telegram,
Azure, IBM, Artifactory, ...) over what is left. Importing detect-secrets costs ~180 ms (it
pulls in ``requests``), so it is imported once, lazily, and only by callers that can afford it:
the knowledge store and ``import`` use it; latency-bound hooks call plain ``redact``.

Redaction is idempotent: ``redact(redact(t)) == redact(t)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
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
_NOT_A_SECRET = re.compile(
    r"^(?:\[REDACTED:|\$|<|\{|%|\*{3,}|x{3,}$|none$|null$|nil$|true$|false$|undefined$|"
    r"str$|int$|bytes$|string$|optional|os\.|env\.|process\.env|settings\.|config\.|self\.)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Rule:
    """One secret shape.

    ``group`` 0 redacts the whole match, N > 0 only group N, -1 the first group that matched.
    The rule runs only when one of ``triggers`` occurs in the lower-cased text (a cheap
    substring test that skips most regex passes on ordinary prose). ``lower`` rules are
    written in lower case and run against the lower-cased text: case-insensitive matching
    without the cost of ``re.IGNORECASE``.
    """

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    triggers: tuple[str, ...] = ()
    lower: bool = False


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private-key",
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.DOTALL,
        ),
        triggers=("private key",),
    ),
    _Rule(
        "private-key",
        re.compile(r"PuTTY-User-Key-File-\d:.*?(?:Private-MAC: *\S+|\Z)", re.DOTALL),
        triggers=("putty-user-key-file",),
    ),
    _Rule(
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{4,}={0,2}\.eyJ[A-Za-z0-9_-]{4,}={0,2}\.[A-Za-z0-9_\-+/=]*"),
        triggers=("eyj",),
    ),
    _Rule(
        "anthropic-key",
        re.compile(r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}"),
        triggers=("sk-ant-",),
    ),
    _Rule(
        "openai-key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
        triggers=("sk-",),
    ),
    _Rule(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _Rule(
        "gitlab-token",
        re.compile(
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
        re.compile(r"\bxox[abposre]-[a-z0-9\-]{10,}"),
        triggers=("xox",),
        lower=True,
    ),
    _Rule(
        "slack-webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_\-]{20,}"),
        triggers=("hooks.slack.com",),
    ),
    _Rule(
        "aws-access-key",
        re.compile(r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b"),
        triggers=("a3t", "abia", "acca", "akia", "asia"),
    ),
    _Rule(
        "aws-secret-key",
        re.compile(
            r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?"
            r"['\"=: ]([0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+])"
        ),
        group=1,
        triggers=("aws",),
    ),
    _Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), triggers=("aiza",)),
    _Rule(
        "stripe-key",
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}"),
        triggers=("_live_", "_test_"),
    ),
    _Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), triggers=("npm_",)),
    _Rule(
        "sendgrid",
        re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
        triggers=("sg.",),
    ),
    _Rule("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), triggers=("pypi-",)),
    # scheme://user:password@host -> keep user and host.
    _Rule(
        "url-password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/?#@\[\]]+:([^\s/?#@\[\]]+)@"),
        group=1,
        triggers=("://",),
    ),
    # Authorization: Bearer <token> / Basic <b64> / token <token>; also a bare "Bearer <token>".
    _Rule(
        "bearer-token",
        re.compile(r"\b(?:bearer|basic|token)\s+([a-z0-9._~+/\-]{16,}=*)(?![a-z0-9._~+/=\-])"),
        group=1,
        triggers=("bearer", "basic", "token"),
        lower=True,
    ),
    # .env lines: KEY=value at the start of a line (optionally `export`), quoted or bare.
    _Rule(
        "env-secret",
        re.compile(
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
        re.compile(
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
        re.compile(
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
    if not bare or _NOT_A_SECRET.match(bare):
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
    if thorough:
        for rule in _detect_secrets_rules():
            new = _apply(rule, text, low)
            if new is not text:
                text, low = new, new.lower()
    return text


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
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import RegexBasedDetector
    except Exception:  # pragma: no cover - optional dependency missing or changed
        return ()
    rules: list[_Rule] = []
    classes: Iterable[Any] = get_mapping_from_secret_type_to_class().values()
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
