from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgraph.db import Database
from kgraph.hooks.context import HookOptions
from kgraph.hooks.runner import HookResult
from kgraph.knowledge.store import add_item
from kgraph.recall.words import stem, word_key
from kgraph.runtime import queue
from kgraph.runtime.seen import seen_state
from tests.hooks.conftest import context_of
from tests.hooks.graph_rows import add_graph


def read(hook: Callable[..., HookResult], repo: Path, path: str, **extra: Any) -> HookResult:
    options = extra.pop("options", None)
    return hook(
        "post-tool-use",
        options,
        session_id=extra.pop("session_id", "s1"),
        hook_event_name="PostToolUse",
        tool_name=extra.pop("tool_name", "Read"),
        tool_input={"file_path": str(repo / path)},
        tool_response={"type": "text"},
        **extra,
    )


def test_items_about_the_file_mistakes_first_once_per_session(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    learning = add_item(
        project_db,
        "The lexer keeps a stack of open tags for error messages",
        files=["src/lexer.py"],
    ).entity_id
    mistake = add_item(
        project_db,
        "Matching tags with one regex broke on nested quotes",
        type="Mistake",
        files=["src/lexer.py"],
    ).entity_id
    add_item(project_db, "The runtime caches callables per template", files=["src/runtime.py"])
    text = context_of(read(hook, tmp_repo, "src/lexer.py"), "PostToolUse")
    assert text.startswith("<kgraph-context>") and "about src/lexer.py" in text
    assert text.index(mistake) < text.index(learning)
    assert "runtime" not in text and len(text) <= 1_500
    assert read(hook, tmp_repo, "src/lexer.py").stdout == ""  # never twice in a session
    assert read(hook, tmp_repo, "src/lexer.py", tool_name="Edit").stdout == ""
    assert mistake in read(hook, tmp_repo, "src/lexer.py", session_id="s2").stdout
    requests = [json.loads(p.read_text()) for p in queue.pending(tmp_repo)]
    requests = [r for r in requests if r["kind"] != "refresh"]  # a server's copy: not here
    assert [r["kind"] for r in requests] == ["injected", "injected"]
    assert requests[0]["fields"]["injected_ids"] == [mistake, learning]


@pytest.mark.parametrize("tool", ["Bash", "Grep", None])
def test_other_tools_and_unknown_files_are_silent(
    tool: str | None, hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    add_item(project_db, "The lexer keeps a stack of open tags", files=["src/lexer.py"])
    assert read(hook, tmp_repo, "src/lexer.py", tool_name=tool).stdout == ""
    assert read(hook, tmp_repo, "src/other.py").stdout == ""
    outside = hook(
        "post-tool-use",
        session_id="s1",
        tool_name="Read",
        tool_input={"file_path": "/etc/hosts"},
    )
    assert outside.stdout == ""


def test_a_file_most_items_mention_is_weak_evidence(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    for i in range(60):
        add_item(
            project_db,
            f"Fix {i}: mod{i} handled case {i} wrongly",
            files=["CHANGES.rst", "tests/conftest.py", f"src/mod{i}.py"],
        )
    assert read(hook, tmp_repo, "CHANGES.rst").stdout == ""  # a changelog: weak by name
    assert read(hook, tmp_repo, "tests/conftest.py").stdout == ""  # named by every item
    text = context_of(read(hook, tmp_repo, "src/mod7.py"), "PostToolUse")
    assert text.count("\n- ") == 1 and "case 7 " in text


def test_an_item_about_several_code_files_is_left_to_the_prompt(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    # A broad change (a commit over several code files) tells mostly of the others; its
    # tests, documents, CI and build configuration do not make an item broad.
    broad = add_item(
        project_db,
        "Route every handler through the retry middleware because timeouts leaked",
        files=["src/api/handler.py", "src/api/retry.py", "src/api/server.py"],
    ).entity_id
    specific = add_item(
        project_db,
        "handler.py must close the session before retrying, else the pool drains",
        files=["src/api/handler.py", "tests/test_handler.py", "docs/retry.md", "uv.lock"],
    ).entity_id
    text = context_of(read(hook, tmp_repo, "src/api/handler.py"), "PostToolUse")
    assert specific in text and broad not in text


def test_warnings_about_its_closest_dependencies_come_briefly(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    add_graph(project_db, ["web/api.py", "core/engine.py"], [("web/api.py", "core/engine.py")])
    (tmp_repo / "web").mkdir()
    (tmp_repo / "web" / "api.py").write_text("from core.engine import run_pipeline\n")
    own = add_item(project_db, "api.py serialises engine results as JSON", files=["web/api.py"])
    warning = add_item(
        project_db,
        "Calling run_pipeline twice in one request deadlocks the pool " + "detail " * 60,
        type="Mistake",
        files=["core/engine.py"],
    )
    add_item(
        project_db,
        "warm_cache before the first request, or the engine cold-starts",
        type="Mistake",
        files=["core/engine.py"],
    )
    add_item(project_db, "The engine was split out of the api in 2024", files=["core/engine.py"])
    text = context_of(read(hook, tmp_repo, "web/api.py"), "PostToolUse")
    assert text.index(own.entity_id) < text.index("From the files it depends on:")
    assert text.index("From the files it depends on:") < text.index(warning.entity_id)
    assert "in its dependency core/engine.py" in text
    assert "split out" not in text  # a plain learning about a dependency is not pulled in
    assert "warm_cache" not in text  # a warning about code api.py does not use
    assert len(text.split(warning.entity_id)[1].split("\n")[0]) < 260  # briefly


def test_items_from_session_start_are_not_repeated(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "README.md").write_text("changed\n")
    item = add_item(project_db, "The README is rendered on PyPI", files=["README.md"]).entity_id
    assert item in hook("session-start", session_id="s1", source="startup").stdout
    assert read(hook, tmp_repo, "README.md").stdout == ""


def test_history_an_earlier_session_was_shown_is_not_read_out_again(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    from kgraph.capture.sessions import update_session

    history = add_item(
        project_db,
        "Track the lexer's open tags in a stack",
        files=["src/lexer.py"],
        source="commit",
        source_ref="0123456789ab",
    ).entity_id
    told = add_item(
        project_db, "The lexer's stack of open tags must be reset per file", files=["src/lexer.py"]
    ).entity_id
    text = read(hook, tmp_repo, "src/lexer.py").stdout
    assert history in text and told in text

    def shown(row: dict[str, Any]) -> None:
        row["injected_ids"] = [history, told]
        row["data"]["files_read"] = [str(tmp_repo / "src/lexer.py")]

    update_session(project_db, "s1", shown)  # what the session's capture records
    text = read(hook, tmp_repo, "src/lexer.py", session_id="s2").stdout
    assert told in text and history not in text


def test_a_session_shown_one_part_of_a_commit_is_not_shown_the_others(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    sha = "0123456789ab" * 3 + "0123"
    first = add_item(
        project_db,
        "Spool push bodies for Content-Length — the lexer keeps its open tags in a stack",
        files=["src/lexer.py"],
        source="commit",
        source_ref=sha,
    ).entity_id
    later = add_item(
        project_db,
        "Spool push bodies for Content-Length — the runtime caches callables per template",
        files=["src/runtime.py"],
        source="commit",
        source_ref=f"{sha}:1",
    ).entity_id
    assert first in read(hook, tmp_repo, "src/lexer.py").stdout
    assert read(hook, tmp_repo, "src/runtime.py").stdout == ""  # the same commit's story
    assert later in read(hook, tmp_repo, "src/runtime.py", session_id="s2").stdout


def test_dry_run_prints_but_records_nothing(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    item = add_item(project_db, "The lexer keeps a stack of open tags", files=["src/lexer.py"])
    options = HookOptions(dry_run=True)
    assert item.entity_id in read(hook, tmp_repo, "src/lexer.py", options=options).stdout
    assert item.entity_id in read(hook, tmp_repo, "src/lexer.py", options=options).stdout
    assert queue.pending(tmp_repo) == []


def test_no_database_no_output_and_none_created(
    hook: Callable[..., HookResult], tmp_repo: Path
) -> None:
    assert read(hook, tmp_repo, "README.md").stdout == ""
    assert not (tmp_repo / ".claude" / "execution-state.db").exists()


def test_reading_a_file_again_brings_nothing_new(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    # Seven reads of one file about which much is known gave 21 items and ~7,000 chars.
    for i in range(12):
        add_item(project_db, f"lexer fact {i}: the scanner keeps state {i}", files=["src/lexer.py"])
    first = context_of(read(hook, tmp_repo, "src/lexer.py"), "PostToolUse")
    assert first.count("\n- ") == 2  # file_recall_max_items
    for _ in range(6):
        assert read(hook, tmp_repo, "src/lexer.py").stdout == ""
    assert read(hook, tmp_repo, "src/lexer.py", tool_name="Edit").stdout == ""


def test_the_hooks_share_one_budget_per_session(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / ".claude").mkdir(exist_ok=True)
    (tmp_repo / ".claude" / "kgraph.toml").write_text("[hooks]\nsession_max_chars = 1200\n")
    for name in ("lexer", "parser", "runtime", "cache", "codegen"):
        for i in range(3):
            add_item(
                project_db,
                f"The {name} module keeps rule {i} because the templates are compiled once",
                files=[f"src/{name}.py"],
            )
    given = [read(hook, tmp_repo, f"src/{n}.py") for n in ("lexer", "parser", "runtime", "cache")]
    texts = [context_of(r, "PostToolUse") for r in given if r.stdout]
    assert len(texts) >= 2 and sum(map(len, texts)) <= 1_200
    assert not given[-1].stdout  # the budget ran out before the last file
    other = read(hook, tmp_repo, "src/lexer.py", session_id="s2").stdout
    assert other  # another session has a budget of its own


LEXER = (
    "import re\n\n\n"
    "def tokenize(text):\n"
    "    return text.split()\n\n\n"
    "class Scanner:\n"
    "    def scan_tag(self, text):\n"
    "        return re.match('<%', text)\n"
)


def edit(hook: Callable[..., HookResult], repo: Path, old: str, new: str) -> HookResult:
    source = repo / "src" / "lexer.py"
    source.write_text(source.read_text().replace(old, new))
    return hook(
        "post-tool-use",
        session_id="s1",
        hook_event_name="PostToolUse",
        tool_name="Edit",
        tool_input={"file_path": str(source), "old_string": old, "new_string": new},
        tool_response={"type": "text"},
    )


def test_an_edit_brings_the_warnings_naming_the_symbol_it_changes_not_the_rest(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "lexer.py").write_text(LEXER)
    about_scan = add_item(
        project_db,
        "scan_tag must not match '<%%' inside a quoted attribute",
        type="Mistake",
        files=["src/lexer.py"],
    ).entity_id
    history = add_item(
        project_db,
        "feat: scan_tag matches the opening tag with one regex, compiled once",
        files=["src/lexer.py"],
    ).entity_id
    for i in range(4):
        add_item(
            project_db, f"The lexer keeps detail {i} for error messages", files=["src/lexer.py"]
        )
    text = context_of(
        edit(hook, tmp_repo, "return re.match('<%', text)", "return re.match('<%', text, 0)"),
        "PostToolUse",
    )
    # The file's other items are about other parts of it: they wait for a change there. A
    # learning naming scan_tag came with the read that Claude Code asks before an edit; once
    # the change is made, only a warning about it is news.
    assert about_scan in text and "detail" not in text and history not in text


@pytest.mark.parametrize("origin", ["commit.review", "commit.what"])
def test_a_reviews_answer_is_left_to_the_prompt_neither_a_read_nor_an_edit(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path, origin: str
) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "lexer.py").write_text(LEXER)
    answer = add_item(
        project_db,
        "Address PR review feedback: scan_tag must not match '<%%' inside an attribute",
        files=["src/lexer.py"],
        data={"origin": origin},
    ).entity_id
    ranged = hook(
        "post-tool-use",
        session_id="s1",
        hook_event_name="PostToolUse",
        tool_name="Read",
        tool_input={"file_path": str(tmp_repo / "src" / "lexer.py"), "offset": 8, "limit": 3},
        tool_response={"type": "text"},
    )
    assert answer not in ranged.stdout  # the range covers scan_tag, but names too much
    edited = edit(hook, tmp_repo, "return re.match('<%', text)", "return re.match('<%', text, 0)")
    assert answer not in edited.stdout  # a learning: it came with the read, if at all
    # (a name the prompt writes brings it: tests/recall/test_prompt.py)


def test_after_a_read_only_an_edit_s_own_symbols_bring_more(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    (tmp_repo / "src").mkdir()
    (tmp_repo / "src" / "lexer.py").write_text(LEXER)
    about_scan = add_item(
        project_db, "scan_tag returns None on plain text", type="Mistake", files=["src/lexer.py"]
    ).entity_id
    for i in range(4):
        add_item(
            project_db,
            f"The lexer lost detail {i} of error messages",
            type="Mistake",
            files=["src/lexer.py"],
        )
    first = context_of(read(hook, tmp_repo, "src/lexer.py"), "PostToolUse")
    assert first.count("\n- ") == 2 and about_scan not in first  # the newest come first
    assert edit(hook, tmp_repo, "return text.split()", "return text.split(' ')").stdout == ""
    again = context_of(
        edit(hook, tmp_repo, "return re.match('<%', text)", "return None"), "PostToolUse"
    )
    assert again.count("\n- ") == 1 and about_scan in again  # only what names scan_tag
    assert edit(hook, tmp_repo, "        return None", "        return None  # x").stdout == ""


def test_touched_symbols_of_edits_and_partial_reads(tmp_path: Path) -> None:
    from kgraph.recall.file import touched_symbols

    source = tmp_path / "lexer.py"
    source.write_text(LEXER)
    new = "return re.match('<%', text)"
    assert touched_symbols(source, "Edit", {"old_string": "x", "new_string": new}) == {"scan_tag"}
    written = "def emit(tokens):\n    return tokens\n"
    assert touched_symbols(source, "Write", {"content": written}) == {"emit"}
    assert touched_symbols(source, "Read", {"offset": 4, "limit": 2}) == {"tokenize"}
    assert touched_symbols(source, "Read", {}) == set()


def test_after_a_prompt_a_whole_file_read_brings_what_bears_on_it(
    hook: Callable[..., HookResult], project_db: Database, tmp_repo: Path
) -> None:
    for i in range(30):  # common words ("lexer", "tags") among many items
        add_item(project_db, f"The lexer keeps tags in rule {i}", files=[f"src/m{i}.py"])
    (tmp_repo / "src").mkdir(exist_ok=True)
    (tmp_repo / "src" / "lexer.py").write_text(LEXER)
    quotes = add_item(
        project_db,
        "scan_tag gives up on nested quotes inside an expression",
        files=["src/lexer.py"],
    ).entity_id
    other = add_item(
        project_db, "tokenize was split out of Scanner for the codegen step", files=["src/lexer.py"]
    ).entity_id
    # No two of its words side by side in the item: the prompt hook itself gives nothing.
    prompt = "Quotes that are nested break the expression when rendered; why?"
    assert hook("user-prompt", session_id="s1", prompt=prompt).stdout == ""
    # The prompt hook hands on how telling the words it counted are: the read need not
    # count them again.
    told = seen_state(tmp_repo, "s1").rarity
    assert word_key(stem("nested")) in told and set(told) <= seen_state(tmp_repo, "s1").words
    text = context_of(read(hook, tmp_repo, "src/lexer.py"), "PostToolUse")
    assert quotes in text and other not in text  # the prompt's task leads
    # Another session, no prompt seen: the file alone decides.
    both = read(hook, tmp_repo, "src/lexer.py", session_id="s2").stdout
    assert quotes in both and other in both
    hook("user-prompt", HookOptions(dry_run=True), session_id="s3", prompt=prompt)
    assert other in read(hook, tmp_repo, "src/lexer.py", session_id="s3").stdout  # not recorded


def test_an_item_of_a_commit_the_checkout_lacks_is_not_shown(
    hook: Callable[..., HookResult],
    project_db: Database,
    tmp_repo: Path,
    git: Callable[..., str],
) -> None:
    # Cut from a replay of entireio/cli: a branch's "feat(explain): add --checkpoint,
    # --verbose, --full flags ... not yet wired to runExplain" reached a session on main.
    (tmp_repo / "explain.go").write_text("package cli\n\nfunc runExplain() {}\n")
    git(tmp_repo, "add", ".")
    git(tmp_repo, "commit", "-q", "-m", "explain")
    here = git(tmp_repo, "rev-parse", "HEAD").strip()
    git(tmp_repo, "checkout", "-q", "-b", "flags")
    git(tmp_repo, "commit", "-q", "--allow-empty", "-m", "flags")
    there = git(tmp_repo, "rev-parse", "HEAD").strip()
    git(tmp_repo, "checkout", "-q", "main")
    files = ["explain.go"]
    branch = add_item(
        project_db,
        "runExplain: the checkpoint flags are not yet wired to runExplain",
        files=files,
        source="commit",
        source_ref=there,
    ).entity_id
    merged = add_item(
        project_db,
        "runExplain prints the checkpoint of a commit's trailer",
        files=files,
        source="commit",
        source_ref=here,
    ).entity_id

    def session(session_id: str) -> str:
        start = hook(
            "session-start", session_id=session_id, hook_event_name="SessionStart", source="startup"
        )
        return start.stdout + read(hook, tmp_repo, "explain.go", session_id=session_id).stdout

    given = session("s1")
    assert seen_state(tmp_repo, "s1").elsewhere == {branch}
    assert merged in given and branch not in given
    git(tmp_repo, "merge", "-q", "--ff-only", "flags")  # merged: the next session is given it
    assert branch in session("s2")
