"""UserPromptSubmit: the items bearing on the prompt (kgraph.recall.prompt), once per session.

Standard library only: the prompt's code names and telling words are ranked against the
stored items by :func:`kgraph.recall.prompt.prompt_recall`; this face reads the hook input,
skips bare slash commands and what is not the user's words (an app's system instructions,
the IDE's open file: kgraph.transcript.markers), and delivers the block within the prompt
budget.
"""

from __future__ import annotations

from kgraph.db.reader import ReadConnection
from kgraph.hooks.context import HookContext
from kgraph.recall.evidence import load_evidence_settings
from kgraph.recall.prompt import PromptRecall, prompt_recall
from kgraph.recall.stale import CodeCheck
from kgraph.recall.words import task_words

__all__ = ["run"]


def run(ctx: HookContext) -> str | None:
    prompt = (ctx.payload.prompt or "").strip()
    if "<" in prompt:  # markers are tags; most prompts hold none (no regexes compiled then)
        from kgraph.transcript.markers import strip_markers

        prompt = strip_markers(prompt)
    if not prompt or (prompt.startswith("/") and " " not in prompt):
        return None
    words = task_words(prompt, ctx.seen().words)
    settings = ctx.settings
    found: list[PromptRecall] = []

    def find(conn: ReadConnection, exclude: set[str]) -> PromptRecall:
        found.append(
            prompt_recall(
                conn,
                prompt,
                settings=load_evidence_settings(ctx.root),
                exclude=exclude,
                max_items=settings.user_prompt_max_items,
                max_chars=ctx.budget(settings.user_prompt_max_chars),
                check=CodeCheck(ctx.root),
                recent=ctx.seen().recent,
            )
        )
        return found[-1]

    try:
        return ctx.recall(find)
    finally:
        # What the session is about, for the file hooks that follow (kgraph.recall.file),
        # with how telling the words weighed here are.
        ctx.remember_words(words, found[0].rarity if found else None)
