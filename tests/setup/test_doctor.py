"""``kgraph doctor``: the wiring (moved or different kgraphs) and the code graph build."""

from __future__ import annotations

import sys
from pathlib import Path

from kgraph.setup import doctor
from kgraph.setup.install import install


def test_hooks_pointing_at_a_moved_kgraph(tmp_repo: Path) -> None:
    install("local", tmp_repo, command=["/old/clone/.venv/bin/kgraph"])
    failing = [c for c in doctor.check_wiring(tmp_repo) if c.status == "fail"]
    assert failing and all("no longer exists" in c.detail for c in failing)
    assert "kgraph install" in failing[0].detail


def test_code_graph_build_says_pure_python_for_a_source_module() -> None:
    # This checkout's modules are .py files (an editable install is never compiled).
    check = doctor.check_code_graph_build()
    assert (check.name, check.status) == ("code graph build", "ok")
    assert check.detail.startswith("pure Python")


def test_code_graph_build_says_compiled_for_an_extension_module() -> None:
    # An extension module stands in for a compiled one: its spec's origin is a .so.
    check = doctor.check_code_graph_build("_json")
    assert check.detail == "compiled (mypyc)"


def test_doctor_warns_when_mcp_json_starts_another_kgraph(tmp_repo: Path) -> None:
    from kgraph.setup.mcpjson import register_server

    exe = str(Path(sys.executable).with_name("kgraph"))
    install("local", tmp_repo, command=[exe])
    register_server(tmp_repo, command=[exe])
    same = [c for c in doctor.check_wiring(tmp_repo) if c.name == "same kgraph"]
    assert [c.status for c in same] == ["ok"]
    register_server(tmp_repo, command=["/opt/old-venv/bin/kgraph"])
    [other] = [c for c in doctor.check_wiring(tmp_repo) if c.name == "same kgraph"]
    assert other.status == "warn" and "/opt/old-venv/bin/kgraph" in other.detail
