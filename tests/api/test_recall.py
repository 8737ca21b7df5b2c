"""Recall and the on-demand briefing (kgraph.api.recall): the hooks' ranking, plus meaning."""

from __future__ import annotations

from datetime import UTC, datetime

from kgraph.api import Project
from kgraph.knowledge.store import add_item
from kgraph.runtime import seen


def test_a_named_symbol_recalls_what_is_known_about_its_file(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    result = kg.recall("open_store hangs sometimes")
    why = {r.item.id: r.why for r in result.items}
    assert ids["open_store"] in why and "defines open_store" in why[ids["open_store"]]
    # Of the file defining it, the item naming it: another says nothing of the prompt.
    assert ids["repo.save"] not in why and ids["payment"] not in why
    assert result.items[0].item.id == ids["open_store"]


def test_meaning_joins_words_and_code(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    hybrid = kg.recall("payment webhooks retried")
    assert hybrid.mode == "hybrid"
    assert hybrid.items[0].item.id == ids["payment"]
    lexical = kg.recall("payment webhooks retried", semantic=False)
    assert lexical.mode == "lexical + graph"
    assert [r.item.id for r in lexical.items] == [ids["payment"]]
    assert "telling word" in lexical.items[0].why
    assert kg.recall("the and of").items == ()
    assert kg.recall("   ").items == ()


def test_recall_for_a_session_never_repeats_an_item(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    first = kg.recall("payment webhooks retried", session_id="s-1")
    assert ids["payment"] in [r.item.id for r in first.items]
    again = kg.recall("payment webhooks retried", session_id="s-1")
    assert ids["payment"] not in [r.item.id for r in again.items]
    other = kg.recall("payment webhooks retried", session_id="s-2")
    assert ids["payment"] in [r.item.id for r in other.items]
    # Remembered as the hooks do: the session's file, and the queue for the worker.
    seen = kg.root / ".claude" / "kgraph" / "sessions" / "s-1.ids"
    assert ids["payment"] in seen.read_text()


def test_the_recall_block_is_the_prompt_hooks_format(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    block = kg.recall("payment webhooks retried").block(max_chars=2_000)
    assert block is not None
    assert block.startswith("<kgraph-context>") and ids["payment"] in block
    assert kg.recall("the and of").block() is None


def test_context_for_files_is_the_session_start_briefing(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    briefing = kg.context_for(files=["app/cli.py"], branch="issue-15")
    assert briefing.text is not None
    assert ids["cli"] in briefing.item_ids  # about the file itself
    assert ids["the"] in briefing.item_ids  # app/web.py depends on app/cli.py
    assert f"Workflow {ids['workflow']}" in briefing.text  # the branch's checkpoint
    assert len(kg.context_for(files=["app/cli.py"], max_chars=700).text or "") <= 700


def test_context_for_a_prompt_adds_recalled_items_after_the_briefing(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    briefing = kg.context_for(files=["app/cli.py"], prompt="payment webhooks retried")
    assert briefing.item_ids[0] == ids["cli"]
    assert ids["payment"] in briefing.item_ids
    assert briefing.text is not None and briefing.text.count("<kgraph-context>") == 2


def test_recall_and_context_leave_out_what_names_code_that_is_gone(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, _ = sample
    # Captured when app/repo.py held `open_store_pool`; it holds only `open_store` now.
    gone = add_item(
        kg.db,
        "open_store_pool hangs when open_store is called twice per process",
        files=["app/repo.py"],
        data={"code": ["open_store", "open_store_pool"]},
    ).entity_id
    held = add_item(
        kg.db,
        "open_store hangs when called twice per process by the CLI",
        files=["app/repo.py"],
        data={"code": ["open_store"]},
    ).entity_id
    recalled = [r.item.id for r in kg.recall("open_store hangs twice per process").items]
    assert held in recalled and gone not in recalled
    briefing = kg.context_for(files=["app/repo.py"], prompt="open_store hangs twice")
    assert held in briefing.item_ids and gone not in briefing.item_ids


def test_recall_for_a_session_holds_back_what_its_prompt_hook_would(
    sample: tuple[Project, dict[str, str]],
) -> None:
    # What the session's start left in its seen file: the backoff item's commit is not one
    # of the project's latest changes, and the warning item was found on another branch.
    kg, _ids = sample
    old = add_item(
        kg.db,
        "Refund backoff doubles because the card network rate-limits refunds",
        source="commit",
        source_ref="ab" * 20,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    ).entity_id
    away = add_item(kg.db, "Invoice exports log a warning when the ledger lags").entity_id
    backoff, ledger = "why does refund backoff double?", "invoice exports ledger warning"

    def found(prompt: str, session_id: str | None = None) -> set[str]:
        return {r.item.id for r in kg.recall(prompt, session_id=session_id).items}

    assert old in found(backoff) and away in found(ledger)
    since = int(datetime(2026, 2, 1, tzinfo=UTC).timestamp())
    marks = [f"{seen.RECENT_SINCE}{since}", f"{seen.ELSEWHERE}{away}"]
    seen.remember(kg.root, "s-9", [], marks=marks)
    assert old not in found(backoff, "s-9") and away not in found(ledger, "s-9")


def test_recall_for_a_session_holds_back_the_rest_of_a_commit_it_met(
    sample: tuple[Project, dict[str, str]],
) -> None:
    # One commit message stored one part per bullet: a session given one part is not given
    # the next, as its prompt hook would not (kgraph.recall.readmodel.held_back).
    kg, _ids = sample
    sha = "cd" * 20
    first, second = (
        add_item(kg.db, text, source="commit", source_ref=f"{sha}:{n}").entity_id
        for n, text in enumerate(
            (
                "Refund retries back off because the card network rate-limits refunds",
                "Refund retries record the card network's rate-limits in the ledger",
            ),
            start=1,
        )
    )
    prompt = "refund retries card network rate-limits"

    def found(session_id: str | None = None, exclude: tuple[str, ...] = ()) -> set[str]:
        result = kg.recall(prompt, session_id=session_id, exclude=exclude)
        return {r.item.id for r in result.items}

    assert first in found() and second in found(exclude=(first,))
    seen.remember(kg.root, "s-4", [first])
    assert not {first, second} & found("s-4")


def test_recall_returns_one_part_of_a_long_commit_message(
    sample: tuple[Project, dict[str, str]],
) -> None:
    # As the prompt hook does (kgraph.recall.readmodel.one_part_each): two parts of one
    # commit, both naming the code the prompt names, take one place, the better-ranked one.
    kg, _ids = sample
    sha = "ce" * 20
    parts = {
        add_item(kg.db, text, source="commit", source_ref=ref, files=["app/repo.py"]).entity_id
        for ref, text in (
            (sha, "fix: open_store — open_store now reuses the engine of the process"),
            (f"{sha}:1", "fix: open_store — Repo.save calls open_store once per save"),
        )
    }
    recalled = {r.item.id for r in kg.recall("open_store hangs sometimes").items}
    assert len(recalled & parts) == 1
