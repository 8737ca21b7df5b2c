"""Where captured knowledge comes from: each module reads one kind of text.

``stream`` turns transcript entries into the conversation (what the user and the agent said,
the tools that ran); ``commits`` reads the session's commit messages; ``summary_items`` a
compaction summary's sections; ``explanations`` the agent's causes and fixes; ``dialogue``
the user's corrections, decisions and rules; ``tables`` the issue/fix tables of closing
summaries; ``errors`` the informative lines of tool errors; ``retractions`` what the
session later took back; ``extractor`` the optional model; ``claude_md`` the project's
CLAUDE.md rules. None of them decides what is stored: that is the gate's
(:mod:`kgraph.capture.gate`).
"""
