"""The knowledge commands through the CLI in a temp repo: flows, --json, errors, secrets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliResult

Run = Callable[..., CliResult]

SECRETS = {
    "openai": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "anthropic": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEF",
    "github": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "gitlab": "glpat-abcdefghij1234567890",
    "slack": "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "private-key": "MIIEowIBAAKCAQEAq1w2e3r4privatekeybody",
    "url-password": "s3cr3tP4ssw0rd",
    "env": "hunter2hunter2",
    "bearer": "abcdef0123456789abcdef0123456789",
}
PLANTED_TEXT = (
    f"keys: {SECRETS['openai']} {SECRETS['anthropic']} {SECRETS['github']} "
    f"{SECRETS['gitlab']} {SECRETS['slack']} {SECRETS['aws']}\n"
    f"aws_secret_access_key = {SECRETS['aws-secret']}\n"
    f"jwt {SECRETS['jwt']}\n"
    f"-----BEGIN RSA PRIVATE KEY-----\n{SECRETS['private-key']}\n-----END RSA PRIVATE KEY-----\n"
    f"db postgres://admin:{SECRETS['url-password']}@db.example.com/app\n"
    f"DATABASE_PASSWORD={SECRETS['env']}\n"
    f"curl -H 'Authorization: Bearer {SECRETS['bearer']}'"
)


def ok(result: CliResult) -> CliResult:
    assert result.returncode == 0, result.stderr
    return result


def data(result: CliResult) -> Any:
    return ok(result).json()


@pytest.fixture
def repo(tmp_repo: Path) -> Path:
    return tmp_repo


def test_learn_search_query_related_flow(run_kgraph: Run, repo: Path) -> None:
    learned = data(
        run_kgraph(
            "learn",
            "Use structured logging via rd-logger; print() output is dropped in prod",
            "--file",
            "src/api/handler.py",
            "--confidence",
            "0.9",
            "--json",
            cwd=repo,
        )
    )
    assert learned["created"] is True
    item = learned["item"]
    assert item["files"] == ["src/api/handler.py"] and item["code_areas"] == ["API"]
    assert item["embedding_model"] == "kgraph-hash-384"  # cheap embedder: embedded at once
    pattern = data(
        run_kgraph(
            "learn",
            "Handlers validate input with pydantic",
            "--type",
            "pattern",
            "--code-area",
            "API",
            "--json",
            cwd=repo,
        )
    )["id"]
    mistake = data(
        run_kgraph(
            "learn",
            "print() output vanished in production",
            "--type",
            "mistake",
            "--issue",
            "12",
            "--json",
            cwd=repo,
        )
    )["id"]
    ok(run_kgraph("knowledge", "link", mistake, "LED_TO", item["id"], cwd=repo))

    again = data(
        run_kgraph(
            "learn",
            "use structured logging via rd-logger; print() output is dropped in prod.",
            "--json",
            cwd=repo,
        )
    )
    assert again["created"] is False and again["item"]["seen_count"] == 2

    hits = data(run_kgraph("search", "logging in production", "--json", cwd=repo))
    assert hits[0]["id"] == item["id"] and hits[0]["score"] > 0
    assert hits[0]["signals"]["cosine"] is not None
    lexical = data(run_kgraph("search", "logging", "--lexical", "--json", cwd=repo))
    assert lexical[0]["signals"]["cosine"] is None

    about = data(
        run_kgraph("knowledge", "query", "--file", "src/api/handler.py", "--json", cwd=repo)
    )
    assert [i["id"] for i in about][:1] == [item["id"]] and pattern in [i["id"] for i in about]
    assert [
        i["id"] for i in data(run_kgraph("knowledge", "query", "--issue", "12", "--json", cwd=repo))
    ] == [mistake]

    related = data(
        run_kgraph("knowledge", "related", item["id"][:8], "--hops", "2", "--json", cwd=repo)
    )
    by_id = {r["id"]: r for r in related["related"]}
    assert by_id[mistake]["distance"] == 1 and by_id[pattern]["distance"] == 2
    assert by_id[pattern]["path"][0] == item["id"]

    shown = data(run_kgraph("knowledge", "show", item["id"], "--json", cwd=repo))
    assert {(e["direction"], e["type"]) for e in shown["edges"]} >= {
        ("in", "LED_TO"),
        ("out", "IN_FILE"),
    }
    for args in (
        ["knowledge", "list"],
        ["knowledge", "stats"],
        ["knowledge", "areas"],
        ["knowledge", "files"],
        ["knowledge", "prune"],
        ["embed"],
    ):
        data(run_kgraph(*args, "--json", cwd=repo))
        assert ok(run_kgraph(*args, cwd=repo)).stdout.strip()


def test_supersede_forget_restore_flow(run_kgraph: Run, repo: Path) -> None:
    old = data(run_kgraph("learn", "deploy with fabric", "--json", cwd=repo))["id"]
    new = data(run_kgraph("learn", "deploy with github actions", "--json", cwd=repo))["id"]
    ok(run_kgraph("knowledge", "supersede", old, new, cwd=repo))
    assert [h["id"] for h in data(run_kgraph("search", "deploy", "--json", cwd=repo))] == [new]
    assert (
        len(data(run_kgraph("search", "deploy", "--include-superseded", "--json", cwd=repo))) == 2
    )
    ok(run_kgraph("knowledge", "forget", new, cwd=repo))
    assert data(run_kgraph("search", "deploy", "--json", cwd=repo)) == []
    ok(run_kgraph("knowledge", "restore", new, cwd=repo))
    assert [h["id"] for h in data(run_kgraph("search", "deploy", "--json", cwd=repo))] == [new]


def test_export_import_round_trip_through_files(
    run_kgraph: Run, repo: Path, tmp_path: Path
) -> None:
    ok(run_kgraph("learn", "fact one", "--file", "src/a.py", cwd=repo))
    ok(run_kgraph("learn", "fact two", "--type", "pattern", "--code-area", "Core", cwd=repo))
    first = tmp_path / "first.jsonl"
    ok(run_kgraph("knowledge", "export", "--output", str(first), cwd=repo))
    env = {"KGRAPH_DB": str(tmp_path / "other.db")}
    report = data(run_kgraph("knowledge", "import", str(first), "--json", cwd=repo, env=env))
    assert report["created"] == 5  # 2 items, areas "Src" and "Core", 1 file
    again = data(run_kgraph("knowledge", "import", str(first), "--json", cwd=repo, env=env))
    assert again["created"] == 0 and again["merged"] == 0
    second = ok(run_kgraph("knowledge", "export", cwd=repo, env=env)).stdout
    assert second == first.read_text()
    simple = json.dumps({"content": "from stdin", "files": ["b.py"]}) + "\n"
    assert (
        data(run_kgraph("knowledge", "import", "-", "--json", cwd=repo, env=env, input=simple))[
            "created"
        ]
        == 1
    )


def _db_bytes(db_path: Path) -> bytes:
    parts = [db_path, db_path.with_name(db_path.name + "-wal")]
    return b"".join(p.read_bytes() for p in parts if p.exists())


@pytest.mark.sqlite_only  # reads the database file's bytes
def test_planted_secrets_never_reach_the_database_file(
    run_kgraph: Run, repo: Path, db_path: Path, tmp_path: Path
) -> None:
    ok(run_kgraph("learn", PLANTED_TEXT, "--file", "src/config.py", cwd=repo))
    lines = [
        json.dumps({"content": "imported: " + PLANTED_TEXT, "files": ["src/x.py"]}),
        json.dumps(
            {
                "kind": "entity",
                "id": "lrn-planted0001",
                "type": "Learning",
                "content": "exported elsewhere " + PLANTED_TEXT,
                "confidence": 0.5,
                "source": "import",
                "source_ref": None,
                "issue_number": None,
                "session_id": None,
                "seen_count": 1,
                "hidden_at": None,
                "data": {"note": PLANTED_TEXT},
                "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z",
            }
        ),
    ]
    source = tmp_path / "planted.jsonl"
    source.write_text("\n".join(lines) + "\n")
    ok(run_kgraph("knowledge", "import", str(source), cwd=repo))
    raw = _db_bytes(db_path)
    assert b"[REDACTED:" in raw  # the items are there...
    for kind, secret in SECRETS.items():  # ...but not one secret, in the file or the WAL
        assert secret.encode() not in raw, kind
    exported = ok(run_kgraph("knowledge", "export", cwd=repo)).stdout
    for secret in SECRETS.values():
        assert secret not in exported


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["knowledge", "show", "lrn-nope"], 1, "Error: no knowledge item lrn-nope"),
        (["learn", "   "], 2, "Error: content is empty"),
        (["knowledge", "link", "a", "LIKES", "b"], 2, "Invalid value"),
        (["knowledge", "query"], 2, "give at least one of"),
        (["knowledge", "related", "lrn-nope"], 1, "Error: no knowledge item"),
        (["search", ""], 2, "Error: empty search query"),
        (["knowledge", "import", "missing.jsonl"], 2, "does not exist"),
    ],
)
def test_bad_input_is_a_one_line_error(
    run_kgraph: Run, repo: Path, args: list[str], code: int, message: str
) -> None:
    result = run_kgraph(*args, cwd=repo)
    assert result.returncode == code
    assert message in result.stderr and "Traceback" not in result.stderr


def test_bad_import_line_is_named(run_kgraph: Run, repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{oops\n')
    result = run_kgraph("knowledge", "import", str(bad), cwd=repo)
    assert result.returncode == 2 and "bad.jsonl line 2: not JSON" in result.stderr


COMMANDS = [["learn"], ["search"], ["embed"]] + [
    ["knowledge", c]
    for c in (
        "show",
        "list",
        "query",
        "related",
        "supersede",
        "forget",
        "restore",
        "link",
        "areas",
        "files",
        "stats",
        "prune",
        "export",
        "import",
    )
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help_with_an_example(run_kgraph: Run, command: list[str]) -> None:
    out = ok(run_kgraph(*command, "--help")).stdout
    assert "Example" in out


def test_learn_and_search_never_load_the_slow_model_without_vectors(
    run_kgraph_process: Run, repo: Path
) -> None:
    # A process: what `python -X importtime` reports is the import budget of a fresh one.
    def run(*args: str) -> CliResult:
        proc = run_kgraph_process(
            *args,
            cwd=repo,
            env={"KGRAPH_EMBEDDER": "all-MiniLM-L6-v2"},
            python_args=("-X", "importtime"),
        )
        assert proc.returncode == 0, proc.stderr
        return proc

    learned = json.loads(run("learn", "Retry writes on a locked database", "--json").stdout)
    assert learned["item"]["embedding_model"] is None  # stored now, embedded by `kgraph embed`
    hits = json.loads(run("search", "locked database", "--json").stdout)
    assert hits[0]["id"] == learned["id"] and hits[0]["signals"]["cosine"] is None
    for proc in (run("learn", "another fact", "--json"), run("search", "fact", "--json")):
        imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines()}
        assert not imported & {"torch", "sentence_transformers", "transformers"}
