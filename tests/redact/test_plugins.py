"""The thorough pass's cheap first pass and its plugins (kgraph.redact.plugins): the first
pass lets through nothing a detect-secrets plugin would change, and the plugins load
without ``requests``."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgraph.redact import redact
from kgraph.redact.plugins import detect_secrets_rules, may_hold_plugin_secret
from tests.redact.test_redact import BENIGN, PLANTED

RULES = detect_secrets_rules()


def test_the_plugins_are_there() -> None:
    assert len(RULES) >= 30  # detect-secrets 1.5 has 36 regexes in the plugins kgraph uses


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.kind}:{r.pattern.pattern[:30]}")
def test_every_text_a_plugin_matches_passes_the_first_pass(rule: Any) -> None:
    """Texts generated from each plugin's own regex (Unicode digits, case folds and all):
    the first pass must send every one of them to the plugins."""

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(rule.pattern))
    def check(text: str) -> None:
        assert may_hold_plugin_secret(text), text

    check()


def plugins_change(text: str) -> bool:
    return any(rule.pattern.search(text) for rule in RULES)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_text_the_first_pass_lets_by_is_text_no_plugin_changes(text: str) -> None:
    fast = redact(text)
    if not may_hold_plugin_secret(fast):
        assert not plugins_change(fast)
        assert redact(text, thorough=True) == fast


@pytest.mark.parametrize("text", [*BENIGN, *(p[1] for p in PLANTED)])
def test_thorough_is_fast_plus_plugins_on_every_sample(text: str) -> None:
    fast = redact(text)
    if not may_hold_plugin_secret(fast):
        assert not plugins_change(fast)
    assert redact(text, thorough=True) == redact(redact(text, thorough=True), thorough=True)


def test_what_skills_log_skips_the_plugins() -> None:
    for text in ("run-tests", "implement the parser", "feat: add parser (#12)", "abc1234"):
        assert not may_hold_plugin_secret(text)


LOAD = """
import json, sys
{before}
from kgraph.redact import redact
from kgraph.redact.plugins import detect_secrets_rules
rules = [(r.kind, r.pattern.pattern, r.pattern.flags, r.group) for r in detect_secrets_rules()]
out = redact("key 0123456789abcdef0123456789abcdef-us12", thorough=True)
print(json.dumps({{"rules": rules, "out": out, "requests": "requests" in sys.modules,
                  "plain": redact("run-tests", thorough=True)}}))
"""


def load(before: str) -> dict[str, object]:
    code = LOAD.format(before=before)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout)
    assert isinstance(result, dict)
    return result


def test_the_plugins_load_without_requests_and_are_the_same_plugins() -> None:
    deferred, imported = load(""), load("import requests")
    assert deferred["requests"] is False and imported["requests"] is True
    assert deferred["rules"] == imported["rules"]
    assert deferred["out"] == imported["out"] == "key [REDACTED:mailchimp]"


def test_a_verification_would_still_reach_the_real_requests() -> None:
    code = (
        "import sys\nfrom kgraph.redact.plugins import detect_secrets_rules\n"
        "detect_secrets_rules()\n"
        "import detect_secrets.plugins.base as base\n"
        "print(base.requests.exceptions.RequestException.__module__, 'requests' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.split() == ["requests.exceptions", "True"]


def test_plain_text_never_loads_the_plugins() -> None:
    code = (
        "import sys\nfrom kgraph.redact import redact, redact_data\n"
        "redact('run-tests', thorough=True); redact_data({'failed': 3}, thorough=True)\n"
        "print('detect_secrets' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
