"""The names of Claude Code's file tools, one set of each kind for every layer.

Transcripts (which files a session read or changed), capture (an explanation followed by an
edit) and the hooks (what a PostToolUse brings) all sort tool calls by these. Standard
library only, nothing imported: the hooks load it on every file read.
"""

__all__ = ["FILE_TOOLS", "MODIFY_TOOLS", "READ_TOOLS", "TEXT_EDIT_TOOLS"]

READ_TOOLS = frozenset({"Read", "NotebookRead"})
# The tools that change a text file named by ``file_path``: what they touch is code.
TEXT_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
MODIFY_TOOLS = TEXT_EDIT_TOOLS | {"NotebookEdit"}
FILE_TOOLS = READ_TOOLS | MODIFY_TOOLS
