"""Recall and the on-demand briefing (kgraph.api.recall)."""

from __future__ import annotations

from kgraph.api import Project
from kgraph.api.recall import code_mentions


def test_code_mentions_finds_paths_and_code_like_names() -> None:
    paths, symbols = code_mentions(
        "Why does open_store() hang in app/repo.py when Repo.save runs? ask the WebServer"
    )
    assert paths == ["app/repo.py"]
    assert symbols == ["open_store", "Repo.save", "WebServer"]
    assert code_mentions("please make it faster") == ([], [])


def test_a_named_symbol_recalls_what_is_known_about_its_file(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    result = kg.recall("open_store hangs sometimes")
    assert result.files == ("app/repo.py",)
    why = {r.item.id: r.why for r in result.items}
    assert ids["open_store"] in why and "defines open_store" in why[ids["open_store"]]
    assert ids["repo.save"] in why
    assert ids["payment"] not in why


def test_words_alone_must_clear_the_threshold(sample: tuple[Project, dict[str, str]]) -> None:
    kg, ids = sample
    recalled = kg.recall("payment webhooks retried", semantic=False)
    assert [r.item.id for r in recalled.items] == [ids["payment"]]
    assert recalled.items[0].why == "3 words in common"
    # One shared word of two is not evidence: nothing, rather than noise.
    assert kg.recall("payment latency", semantic=False).items == ()
    assert kg.recall("the and of").items == ()


def test_recall_for_a_session_never_repeats_an_item(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    first = kg.recall("payment webhooks retried", session_id="s-1")
    assert [r.item.id for r in first.items] == [ids["payment"]]
    assert kg.recall("payment webhooks retried", session_id="s-1").items == ()
    assert kg.recall("payment webhooks retried", session_id="s-2").items != ()


def test_the_recall_block_is_the_prompt_hooks_format(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    block = kg.recall("payment webhooks retried").block(max_chars=2_000)
    assert block is not None
    assert block.startswith("<kgraph-context>") and ids["payment"] in block
    assert kg.recall("the and of").block() is None


def test_context_for_files_matches_the_session_start_briefing(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    briefing = kg.context_for(files=["app/cli.py"], branch="issue-15")
    assert briefing.text is not None
    assert ids["cli"] in briefing.item_ids  # about the file itself
    assert ids["the"] in briefing.item_ids  # app/web.py depends on app/cli.py
    assert "depends on a changed file" in briefing.text
    assert f"Workflow {ids['workflow']}" in briefing.text  # the branch's checkpoint
    assert len(kg.context_for(files=["app/cli.py"], max_chars=700).text or "") <= 700


def test_context_for_a_prompt_adds_recalled_items_after_the_file_matches(
    sample: tuple[Project, dict[str, str]],
) -> None:
    kg, ids = sample
    briefing = kg.context_for(files=["app/cli.py"], prompt="payment webhooks retried")
    assert briefing.item_ids[0] == ids["cli"]
    assert ids["payment"] in briefing.item_ids
    assert kg.context_for(files=["nothing/here.py"]).text is None
