"""The root command group: how a closed output pipe ends a command."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    # `kgraph ... | head`: writes past the point where head exits raise BrokenPipeError.
    script = textwrap.dedent("""
        import click, sys
        from kgraph.cli.main import LazyGroup

        @click.group(cls=LazyGroup)
        def root():
            pass

        @root.command()
        def lines():
            for i in range(200_000):
                click.echo(f"line {i}")

        root(["lines"])
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does after its lines
    stderr = proc.stderr.read()
    assert proc.wait(30) == 141
    assert first == b"line 0\n"
    assert stderr == b""
