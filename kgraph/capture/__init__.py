"""Turning commits, transcripts and CLAUDE.md into knowledge (with redaction).

The capture hooks queue requests (:mod:`kgraph.capture.queue`) and start the detached
worker (:mod:`kgraph.capture.worker`), which does the work under a per-session lock.
Submodules are imported explicitly; this package imports nothing.
"""
