"""The built-in secret shapes :func:`kgraph.redact.redact` replaces: one :class:`Rule` each.

Kept apart from the function that applies them because this is the part that grows: a new
kind of token is one more row here, and the applying (markers, quotes kept, values that are
no secret) stays as it is. The table covers private-key blocks, JWTs, AWS access keys and
secret keys, GitHub / GitLab / Slack tokens and Slack webhooks, OpenAI and Anthropic keys,
Google API keys, Stripe, npm, PyPI and SendGrid keys, bearer/basic/token ``Authorization``
values, passwords in URLs (``scheme://user:password@host``) and ``KEY=secret`` assignments
(``.env`` lines and inline ``password = "..."``) whose key names a secret.
"""

from __future__ import annotations

import re

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


class Rule:
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


RULES: tuple[Rule, ...] = (
    Rule(
        "private-key",
        r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
        triggers=("private key",),
    ),
    Rule(
        "private-key",
        r"(?s)PuTTY-User-Key-File-\d:.*?(?:Private-MAC: *\S+|\Z)",
        triggers=("putty-user-key-file",),
    ),
    Rule(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{4,}={0,2}\.eyJ[A-Za-z0-9_-]{4,}={0,2}\.[A-Za-z0-9_\-+/=]*",
        triggers=("eyj",),
    ),
    Rule(
        "anthropic-key",
        r"\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}",
        triggers=("sk-ant-",),
    ),
    Rule(
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}",
        triggers=("sk-",),
    ),
    Rule(
        "github-token",
        r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        triggers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    Rule(
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
    Rule(
        "slack-token",
        r"\bxox[abposre]-[a-z0-9\-]{10,}",
        triggers=("xox",),
        lower=True,
    ),
    Rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/_\-]{20,}",
        triggers=("hooks.slack.com",),
    ),
    Rule(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b",
        triggers=("a3t", "abia", "acca", "akia", "asia"),
    ),
    Rule(
        "aws-secret-key",
        (
            r"(?i)aws.{0,20}?(?:secret|key|pwd|pw|password|pass|token).{0,20}?"
            r"['\"=: ]([0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+])"
        ),
        group=1,
        triggers=("aws",),
    ),
    Rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}", triggers=("aiza",)),
    Rule(
        "stripe-key",
        r"\b(?:sk|rk|pk)_(?:live|test)_[0-9a-zA-Z]{16,}",
        triggers=("_live_", "_test_"),
    ),
    Rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", triggers=("npm_",)),
    Rule(
        "sendgrid",
        r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b",
        triggers=("sg.",),
    ),
    Rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", triggers=("pypi-",)),
    # scheme://user:password@host -> keep user and host.
    Rule(
        "url-password",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/?#@\[\]]+:([^\s/?#@\[\]]+)@",
        group=1,
        triggers=("://",),
    ),
    # Authorization: Bearer <token> / Basic <b64> / token <token>; also a bare "Bearer <token>".
    Rule(
        "bearer-token",
        r"\b(?:bearer|basic|token)\s+([a-z0-9._~+/\-]{16,}=*)(?![a-z0-9._~+/=\-])",
        group=1,
        triggers=("bearer", "basic", "token"),
        lower=True,
    ),
    # .env lines: KEY=value at the start of a line (optionally `export`), quoted or bare.
    Rule(
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
    Rule(
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
    Rule(
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
