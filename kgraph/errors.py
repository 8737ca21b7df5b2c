"""The exception tree. Every error a person can cause is a KgraphError with a one-line message.

The CLI turns these into ``Error: <message>`` and an exit code; nothing else reaches the user.
"""


class KgraphError(Exception):
    """Base of every error kgraph raises on purpose. ``str(err)`` is a one-line message."""

    exit_code = 1


class NotFoundError(KgraphError):
    """A named thing (workflow, milestone, entity, session...) does not exist."""


class InvalidValueError(KgraphError):
    """A value given by the caller is not acceptable (bad phase, bad JSON, ...)."""

    exit_code = 2


class DatabaseError(KgraphError):
    """The database cannot be opened or used (corrupt file, not a kgraph database, ...)."""


class ConnectionLostError(DatabaseError):
    """The database server could not be reached, or dropped the connection mid-way: nothing
    is wrong with what was asked; it can be done again once the server is back."""


class DatabaseBusyError(DatabaseError):
    """A write still met "database is locked" after every retry."""


class SchemaTooNewError(DatabaseError):
    """The database was written by a newer kgraph than the one running."""
