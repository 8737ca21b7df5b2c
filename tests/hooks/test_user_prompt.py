from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kgraph.capture.sessions import injected_ids
from kgraph.capture.worker import run_worker
from kgraph.db import Database
from kgraph.hooks.context import HookOptions
from kgraph.hooks.runner import HookResult
from kgraph.knowledge.store import add_item
from kgraph.recall.prompt import code_names
from kgraph.recall.words import significant_terms, stem
from kgraph.runtime import queue, seen
from tests.hooks.conftest import context_of
from tests.hooks.graph_rows import add_entities, add_graph


def test_relevant_items_are_injected_once_per_session(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    item = add_item(
        project_db, "The payment webhook retries three times because Stripe times out"
    ).entity_id
    add_item(project_db, "Documentation is built with mkdocs material theme")
    prompt = "why does the payment webhook retry so often?"
    text = context_of(hook("user-prompt", session_id="s1", prompt=prompt), "UserPromptSubmit")
    assert item in text and "mkdocs" not in text
    assert text.startswith("<kgraph-context>") and len(text) <= 2_000
    assert hook("user-prompt", session_id="s1", prompt=prompt).stdout == ""  # never twice
    assert item in hook("user-prompt", session_id="s2", prompt=prompt).stdout
    requests = [json.loads(p.read_text()) for p in queue.pending(tmp_repo)]
    requests = [r for r in requests if r["kind"] != "refresh"]  # a server's copy: not here
    assert [r["fields"]["injected_ids"] for r in requests] == [[item], [item]]
    run_worker(tmp_repo)  # the session records get the ids (metrics)
    assert injected_ids(project_db, "s1") == (item,)


def test_items_injected_by_another_hook_are_not_repeated(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    item = add_item(
        project_db, "The payment webhook retries three times because Stripe times out"
    ).entity_id
    seen.remember(tmp_repo, "s1", [item])
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


def test_an_app_s_instructions_in_the_prompt_recall_nothing(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    # The Conductor app puts its instructions in front of the first prompt (an unseen
    # session of gaia); their words are the app's, not what the session is about.
    add_item(
        project_db,
        "Running many coding agents in parallel breaks the build cache because each "
        "workspace writes the same lock file",
    )
    instruction = (
        "<system_instruction>You are working inside Conductor, a Mac app that lets the user "
        "run many coding agents in parallel; each workspace has its own branch."
        "</system_instruction>\n\n"
    )
    prompt = instruction + "thanks, looks good"
    assert hook("user-prompt", session_id="s1", prompt=prompt).stdout == ""


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


def test_code_names_and_paths_in_a_prompt() -> None:
    names, paths = code_names(
        "Why does `DropIndexOp` call get_section() in httpx._config, e.g. from mako/lexer.py "
        "or setup.py? The Template.render path and renderBody too."
    )
    assert names == ["DropIndexOp", "httpx._config", "Template.render", "renderBody", "get_section"]
    assert paths == ["mako/lexer.py", "setup.py"]
    assert code_names("please fix the tests, thanks") == ([], [])


def test_code_named_in_the_prompt_brings_knowledge_about_its_files_first(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    add_graph(project_db, ["ops/drop.py", "ops/render.py"], [("ops/render.py", "ops/drop.py")])
    add_entities(
        project_db,
        [
            ("ops/drop.py::DropIndexOp", "class", "DropIndexOp", "DropIndexOp", "ops/drop.py"),
            ("ops/drop.py", "file", "drop.py", "ops.drop", "ops/drop.py"),
        ],
    )
    about_file = add_item(
        project_db,
        "Index drops must run before table drops on SQLite, else the batch renders twice",
        files=["ops/drop.py"],
    ).entity_id
    lexical = add_item(project_db, "Rendering twice is harmless for index operations").entity_id
    unrelated = add_item(project_db, "Rendering of tables is cached", files=["ops/other.py"])
    text = context_of(
        hook("user-prompt", session_id="s1", prompt="Why does DropIndexOp render twice?"),
        "UserPromptSubmit",
    )
    assert about_file in text and lexical not in text  # the best match: the code's
    assert "(ops/drop.py defines DropIndexOp)" in text and unrelated.entity_id not in text
    dotted = hook("user-prompt", session_id="s2", prompt="ops.drop renders twice?").stdout
    assert about_file in dotted
    # The name alone says which file, not which of its items.
    assert hook("user-prompt", session_id="s5", prompt="what does ops.drop do").stdout == ""
    by_path = hook(
        "user-prompt", session_id="s3", prompt="look at ops/drop.py: index drops fail on SQLite"
    ).stdout
    assert about_file in by_path and "(named ops/drop.py)" in by_path
    # Naming the file alone says which file, not which of its items: nothing else shared.
    assert hook("user-prompt", session_id="s4", prompt="look at ops/drop.py please").stdout == ""


def test_a_name_defined_in_many_files_says_nothing(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    files = [f"m{i}.py" for i in range(5)]
    add_graph(project_db, files, [])
    add_entities(
        project_db, [(f"{f}::run_all", "function", "run_all", "run_all", f) for f in files]
    )
    for f in files:
        add_item(project_db, f"Knowledge about module {f}", files=[f])
    assert hook("user-prompt", session_id="s1", prompt="how does run_all work").stdout == ""


def test_a_plain_word_naming_a_module_brings_its_knowledge(
    hook: Callable[..., HookResult], project_db: Database
) -> None:
    add_graph(project_db, ["pkg/_multipart.py", "pkg/setup.py"], [])
    multipart = add_item(
        project_db, "Uploads rewind files before retrying", files=["pkg/_multipart.py"]
    ).entity_id
    setup = add_item(project_db, "Extras are declared for the babel plugin", files=["pkg/setup.py"])
    for i in range(40):  # padding, so word rarities mean something
        add_item(project_db, f"Unrelated fact {i} about caching and pools", files=[f"x{i}.py"])
    text = hook(
        "user-prompt", session_id="s1", prompt="multipart uploads fail when retrying"
    ).stdout
    assert multipart in text and "is the multipart module" in text
    # The module's word alone: its items share nothing else with the prompt.
    assert hook("user-prompt", session_id="s3", prompt="streaming multipart support").stdout == ""
    assert hook("user-prompt", session_id="s2", prompt="tweak setup.cfg again").stdout == ""
    assert setup.entity_id  # the word "setup" of setup.cfg names no module


def _daily_changes(
    repo: Path, git: Callable[..., str], monkeypatch: pytest.MonkeyPatch, count: int
) -> list[tuple[str, datetime]]:
    """``count`` commits a day apart, with the prompt hook trusting the latest 3 changes."""
    settings = repo / ".claude" / "kgraph.toml"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("[hooks]\nuser_prompt_history_changes = 3\n")
    made = []
    for day in range(1, count + 1):
        monkeypatch.setenv("GIT_COMMITTER_DATE", f"2026-01-{day:02d}T12:00:00Z")
        git(repo, "commit", "-q", "--allow-empty", "-m", f"change {day}")
        made.append(
            (git(repo, "rev-parse", "HEAD").strip(), datetime(2026, 1, day, 12, tzinfo=UTC))
        )
    return made


def test_a_prompt_brings_the_history_of_recent_changes_only(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Learned from a commit before the latest changes (3 here, 20 by default), a match is
    # likelier chance than the work at hand (kgraph.recall.recent); a recent commit's item
    # and a person's note still come.
    settings = tmp_repo / ".claude" / "kgraph.toml"
    made = _daily_changes(tmp_repo, git, monkeypatch, 5)
    (old_sha, old_at), (new_sha, new_at) = made[0], made[-1]
    old = add_item(
        project_db,
        "The payment webhook retries three times because Stripe times out",
        source="commit",
        source_ref=old_sha,
        created_at=old_at,
    ).entity_id
    new = add_item(
        project_db,
        "The invoice mailer batches sends because the SMTP relay throttles",
        source="commit",
        source_ref=f"{new_sha[:10]}:7",
        created_at=new_at,
    ).entity_id
    noted = add_item(project_db, "The cache warmer skips private buckets: listing is slow")
    payment = "why does the payment webhook retry so often?"
    assert old in hook("user-prompt", session_id="s0", prompt=payment).stdout  # no start: all
    hook("session-start", session_id="s1", source="startup")
    monkeypatch.setenv("KGRAPH_HOOK_DEBUG", "1")
    assert hook("user-prompt", session_id="s1", prompt=payment).stdout == ""
    log = (tmp_repo / ".claude" / "kgraph" / "hook.log").read_text()
    assert "printed nothing: 1 match(es) of history older than the latest changes held" in log
    invoice = "the invoice mailer batches sends, why?"
    assert new in hook("user-prompt", session_id="s1", prompt=invoice).stdout
    cache = "does the cache warmer skip private buckets?"
    assert noted.entity_id in hook("user-prompt", session_id="s1", prompt=cache).stdout
    settings.write_text("[hooks]\nuser_prompt_history_changes = 0\n")  # all the history
    hook("session-start", session_id="s2", source="startup")
    assert old in hook("user-prompt", session_id="s2", prompt=payment).stdout


def test_a_prompt_naming_code_brings_its_history_however_old(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A name only code is written with asks what is known of that code: the commit that
    # made it, however many changes ago. A word the item uses in passing does not.
    (old_sha, old_at) = _daily_changes(tmp_repo, git, monkeypatch, 6)[0]
    old = add_item(
        project_db,
        "async_wait_for_setup hangs forever unless the setup gate is set in a finally block",
        source="commit",
        source_ref=old_sha,
        created_at=old_at,
    ).entity_id
    hook("session-start", session_id="s1", source="startup")
    named = "async_wait_for_setup hangs forever when setup fails"
    assert old in hook("user-prompt", session_id="s1", prompt=named).stdout
    hook("session-start", session_id="s2", source="startup")
    worded = "why does the `setup` hang forever when it fails?"
    assert hook("user-prompt", session_id="s2", prompt=worded).stdout == ""
