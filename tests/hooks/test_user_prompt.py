from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.capture import queue
from kgraph.capture.sessions import injected_ids, record_session_start
from kgraph.db import Database
from kgraph.hooks.runner import HookOptions, HookResult
from kgraph.hooks.user_prompt import significant_terms, stem
from kgraph.knowledge.store import add_item
from tests.hooks.conftest import context_of


def test_relevant_items_are_injected_once_per_session(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    item = add_item(
        project_db, "The payment webhook retries three times because Stripe times out"
    ).entity_id
    add_item(project_db, "Documentation is built with mkdocs material theme")
    prompt = "why does the payment webhook retry so often?"
    text = context_of(hook("user-prompt", session_id="s1", prompt=prompt), "UserPromptSubmit")
    assert item in text and "mkdocs" not in text
    assert text.startswith("<kgraph-context>") and len(text) <= 2_000
    assert injected_ids(project_db, "s1") == (item,)
    assert hook("user-prompt", session_id="s1", prompt=prompt).stdout == ""  # never twice
    assert item in hook("user-prompt", session_id="s2", prompt=prompt).stdout


def test_items_injected_at_session_start_are_not_repeated(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    item = add_item(
        project_db, "The payment webhook retries three times because Stripe times out"
    ).entity_id
    record_session_start(project_db, "s1", injected_ids=[item])
    assert hook("user-prompt", session_id="s1", prompt="payment webhook retries?").stdout == ""


def test_one_shared_common_word_is_not_relevant(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    add_item(project_db, "The payment webhook retries three times because Stripe times out")
    assert (
        hook("user-prompt", session_id="s1", prompt="rename the webhook module please").stdout == ""
    )
    assert hook("user-prompt", session_id="s1", prompt="thanks, looks good").stdout == ""
    assert hook("user-prompt", session_id="s1", prompt="/clear").stdout == ""
    assert hook("user-prompt", session_id="s1").stdout == ""


def test_budget_and_item_count_are_respected(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    for i in range(10):
        add_item(project_db, f"Webhook payment retry fact {i}: " + "detail " * 80)
    text = context_of(
        hook(
            "user-prompt",
            HookOptions(max_chars=1_200),
            session_id="s1",
            prompt="payment webhook retry",
        ),
        "UserPromptSubmit",
    )
    assert len(text) <= 1_200
    assert 1 <= text.count("\n- ") <= 4


def test_no_database_no_output(hook: Callable[..., HookResult], tmp_repo: Path) -> None:
    assert hook("user-prompt", session_id="s1", prompt="payment webhook retry").stdout == ""
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()
    assert queue.pending(tmp_repo) == []


def test_terms_and_stems() -> None:
    assert significant_terms("Why does the Login retry fail? the login") == [
        "login",
        "retry",
        "fail",
    ]
    assert stem("retries") == stem("retried") == stem("retry") == "retry"
    assert stem("caching") == stem("caches") == stem("cache")
    assert stem("the") == "the"
