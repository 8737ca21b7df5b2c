"""Every -o/--output refuses what is not a regular file: a device, a FIFO, a folder, or a
symlink to one. Outputs are written aside and renamed over their target, so without the
check `kgraph viz -o /dev/null` (as root) replaced the machine's /dev/null with a file."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from kgraph.cli.common import output_file
from kgraph.cli.main import cli
from tests.conftest import CliResult


def _sub(group: click.Group, name: str) -> click.Command:
    command = group.get_command(click.Context(group), name)  # the CLI loads them lazily
    assert command is not None
    return command


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name in sorted(group.list_commands(click.Context(group))):
        command = _sub(group, name)
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        elif any("-o" in p.opts or "--output" in p.opts for p in command.params):
            yield (*prefix, name)


def _option(path: tuple[str, ...]) -> click.Parameter:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = _sub(command, name)
    return next(p for p in command.params if "-o" in p.opts or "--output" in p.opts)


OUTPUTS = sorted(_commands(cli))


def test_every_output_option_is_listed_and_checked() -> None:
    # A new -o option is found here, from the code, and must use the shared check.
    assert OUTPUTS == [("knowledge", "export"), ("viz",)]
    for path in OUTPUTS:
        assert _option(path).callback is output_file, " ".join(path)


def _targets(tmp_path: Path) -> list[tuple[str, Path]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    link = tmp_path / "link-to-fifo"
    link.symlink_to(fifo)
    targets = [("fifo", fifo), ("folder", folder), ("symlink", link)]
    device = tmp_path / "null"
    try:  # a private device node (root only), so no test ever touches /dev/null itself
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets.append(("device", device))
    except PermissionError:
        pass
    return targets


def _kind(path: Path) -> int:
    return stat.S_IFMT(path.lstat().st_mode)


@pytest.mark.parametrize("command", OUTPUTS, ids=" ".join)
def test_an_output_that_is_not_a_regular_file_is_refused_and_left_alone(
    run_kgraph: Callable[..., CliResult], tmp_path: Path, command: tuple[str, ...]
) -> None:
    for name, target in _targets(tmp_path / "-".join(command)):
        before = _kind(target)
        result = run_kgraph(*command, "-o", str(target), cwd=tmp_path)
        assert result.returncode == 2, name
        error = [line for line in result.stderr.splitlines() if line.startswith("Error")]
        assert len(error) == 1 and "not a regular file" in error[0], (name, result.stderr)
        assert _kind(target) == before, name  # nothing replaced


@pytest.fixture(autouse=True)
def _folders(tmp_path: Path) -> None:
    for command in OUTPUTS:
        (tmp_path / "-".join(command)).mkdir()


def test_an_empty_name_is_one_clear_line(
    run_kgraph: Callable[..., CliResult], tmp_path: Path
) -> None:
    for command in OUTPUTS:
        for empty in ("", " "):
            result = run_kgraph(*command, "-o", empty, cwd=tmp_path)
            assert result.returncode == 2 and "must name a file" in result.stderr
