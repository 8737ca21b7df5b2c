"""Redaction: every kind of planted secret is replaced; ordinary text is left alone."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgraph.redact import redact, redact_data

# (kind, text containing the secret, the secret itself). Fake values of the real shapes.
PLANTED = [
    (
        "private-key",
        "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq1w2e3r4\n"
        "Zm9vYmFyYmF6\n-----END RSA PRIVATE KEY-----\nend",
        "MIIEowIBAAKCAQEAq1w2e3r4",
    ),
    (
        "private-key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAA",
    ),
    (
        "jwt",
        "cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U set",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("aws-access-key", "use AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    (
        "aws-secret-key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "github-token",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    (
        "github-token",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    ),
    ("gitlab-token", "CI uses glpat-abcdefghij1234567890 now", "glpat-abcdefghij1234567890"),
    (
        "slack-token",
        "bot xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
        "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    ),
    (
        "slack-webhook",
        "post to https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "openai-key",
        "OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    ),
    (
        "anthropic-key",
        "claude sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF",
    ),
    (
        "url-password",
        "DATABASE_URL is postgres://admin:s3cr3tP4ss@db.example.com:5432/app",
        "s3cr3tP4ss",
    ),
    (
        "env-secret",
        "DB_HOST=localhost\nDATABASE_PASSWORD=hunter2hunter\nDEBUG=true",
        "hunter2hunter",
    ),
    ("env-secret", "export API_KEY='abc123def456'", "abc123def456"),
    (
        "bearer-token",
        "curl -H 'Authorization: Bearer abcdef0123456789abcdef0123456789'",
        "abcdef0123456789abcdef0123456789",
    ),
    (
        "secret-assignment",
        'settings: password = "correct horse battery" in config',
        "correct horse battery",
    ),
    ("secret-assignment", "run it with DB_PASSWORD=hunter22 and it works", "hunter22"),
    (
        "google-api-key",
        "maps key AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    ),
    ("stripe-key", "stripe sk_live_abcdefghijklmnop12345678", "sk_live_abcdefghijklmnop12345678"),
]

BENIGN = [
    "Use structured logging via rd-logger; print() output is dropped in prod",
    "password = get_password()  # read from the keyring",
    "The token: str parameter is optional",
    "tokenizer = 'porter unicode61' keeps stemming",
    "commit 3f9a2c1b7d04e5f6a7b8c9d0e1f2a3b4c5d6e7f8 fixed the migration",
    "see https://example.com/docs/page?x=1 for details",
    "def f(api_key: str | None = None) -> None: ...",
    "uuid 123e4567-e89b-12d3-a456-426614174000 identifies the session",
    "DEBUG=true\nLOG_LEVEL=info",
]


@pytest.mark.parametrize(("kind", "text", "secret"), PLANTED, ids=[p[0] for p in PLANTED])
def test_each_planted_secret_is_replaced_by_its_kind(kind: str, text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out


@pytest.mark.parametrize("text", BENIGN)
def test_ordinary_text_and_code_are_unchanged(text: str) -> None:
    assert redact(text) == text
    assert redact(text, thorough=True) == text


def test_context_around_a_secret_is_kept() -> None:
    out = redact("connect to postgres://admin:s3cr3t@db:5432/app then migrate")
    assert out == "connect to postgres://admin:[REDACTED:url-password]@db:5432/app then migrate"
    assert redact("export API_KEY='abc123def456'") == "export API_KEY='[REDACTED:env-secret]'"


def test_thorough_mode_adds_detect_secrets_plugins() -> None:
    text = "mailchimp key 0123456789abcdef0123456789abcdef-us12"
    assert "0123456789abcdef0123456789abcdef" in redact(text)
    assert redact(text, thorough=True) == "mailchimp key [REDACTED:mailchimp]"


def test_sendgrid_keys_are_redacted_without_detect_secrets() -> None:
    text = "sendgrid SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
    assert redact(text) == "sendgrid [REDACTED:sendgrid]"


def test_redact_data_walks_nested_values() -> None:
    data = {
        "cmd": "curl -H 'Authorization: Bearer abcdef0123456789abcdef01'",
        "n": 3,
        "list": ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", None],
    }
    out = redact_data(data)
    assert "abcdef0123456789abcdef01" not in str(out)
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123456789" not in str(out)
    assert out["n"] == 3 and out["list"][1] is None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_redaction_is_idempotent_and_total(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@pytest.mark.parametrize(("kind", "text", "secret"), PLANTED, ids=[p[0] for p in PLANTED])
def test_redaction_is_idempotent_on_secrets(kind: str, text: str, secret: str) -> None:
    once = redact(text, thorough=True)
    assert redact(once, thorough=True) == once


def test_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, kgraph.redact as r; r.redact('AKIAIOSFODNN7EXAMPLE password=hunter22'); "
        "print(','.join(m for m in ('detect_secrets', 'requests', 'numpy', 'sqlalchemy') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
