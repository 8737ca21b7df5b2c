"""Which lines of a tool error are kept: the informative ones, not the runner's wrapper."""

from __future__ import annotations

import pytest

from kgraph.capture.sources.errors import informative_lines, is_protocol_error


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "cmd/x.go:340:21: os/exec.Command must not be called. use os/exec.CommandContext "
            "(noctx)\n[lint] ERROR task failed\nexit status 1",
            [
                "cmd/x.go:340:21: os/exec.Command must not be called. use "
                "os/exec.CommandContext (noctx)"
            ],
        ),
        ("[lint] ERROR task failed\nexit status 1", []),
        (
            'Traceback (most recent call last):\n  File "/src/app.py", line 3, in <module>\n'
            "    main()\nKeyError: 'name'\n",
            ["KeyError: 'name'"],
        ),
        (
            "FAILED tests/test_c.py::test_load - UnicodeDecodeError: 'charmap' codec\n"
            "E   AssertionError: assert 1 == 2\n1 failed in 0.1s",
            [
                "FAILED tests/test_c.py::test_load - UnicodeDecodeError: 'charmap' codec",
                "E AssertionError: assert 1 == 2",
            ],
        ),
        (
            'src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".',
            ['src/a.ts(3,5): error TS2322: Type "string" is not assignable to type "number".'],
        ),
    ],
    ids=["lint-rule", "wrapper-only", "python-traceback", "pytest", "tsc"],
)
def test_informative_lines(output: str, expected: list[str]) -> None:
    assert informative_lines(output) == expected


# Fragments cut from real Bash errors of capture-dev transcripts. golangci-lint prints the
# offending source line (and a caret) under each message; that line is not a message.
_WRAPCHECK_1 = (
    "cmd/entire/cli/state.go:193:10: error returned from external package is unwrapped: "
    "sig: func os.Remove(name string) error (wrapcheck)"
)
_WRAPCHECK_2 = (
    "cmd/entire/cli/state.go:276:15: error returned from external package is unwrapped: "
    "sig: func entire.io/cli/cmd/entire/cli/gitutil.OpenRepository() "
    "(*github.com/go-git/go-git/v5.Repository, error) (wrapcheck)"
)
_DUPL = (
    "cmd/entire/cli/agent/geminicli/gemini_test.go:149: 149-172 lines are duplicate of "
    "`cmd/entire/cli/agent/geminicli/gemini_test.go:174-198` (dupl)"
)
_JOKE = (
    "[joke test-1] Failed to install gh CLI: cp: cannot create regular file "
    "'/usr/local/bin/gh': Permission denied"
)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            "Exit code 1\n[lint:full] $ golangci-lint run --new=false\n"
            f"{_WRAPCHECK_1}\n\t\treturn os.Remove(stateFile)\n\t\t       ^\n"
            f"{_WRAPCHECK_2}\n\t\treturn nil, err\n\t\t            ^\n",
            [_WRAPCHECK_1, _WRAPCHECK_2],
        ),
        (
            f"{_DUPL}\nfunc TestParseHookInput_PreToolUse(t *testing.T) {{\n"
            '\tif hookInput.ToolInput == nil {\n\t\tt.Error("ToolInput is nil")\n\t}\n}\n'
            "[lint] ERROR task failed",
            [_DUPL],
        ),
        (
            f"Exit code 1\n{_JOKE}\n\n"
            "/Users/ob1/projects/opus-hackathon/napoli-matcha/src/index.ts:31\n"
            '      throw new Error("Failed to install gh CLI");\n            ^\n\n'
            "Error: Failed to install gh CLI\n"
            "    at runInSandbox "
            "(/Users/ob1/projects/opus-hackathon/napoli-matcha/src/index.ts:31:13)\n"
            "\nNode.js v24.12.0",
            [_JOKE, "Error: Failed to install gh CLI"],
        ),
        (
            "Exit code 1\nTraceback (most recent call last):\n"
            '  File "<string>", line 6, in <module>\n'
            '  File "/usr/lib/python3.12/json/__init__.py", line 346, in loads\n'
            "    return _default_decoder.decode(s)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 256 "
            "(char 255)",
            [
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 1 column 256 "
                "(char 255)"
            ],
        ),
        (
            "Committed code changes to active branch (e88c8cf)\n"
            "Committed session metadata to entire/sessions (60efcf9e575f)\n"
            "_test.go:760: AgentPercentage = 33.3%, want ~42.9% (not inflated)\n"
            "FAIL\tentire.io/cli/cmd/entire/cli/strategy\t3.238s",
            ["_test.go:760: AgentPercentage = 33.3%, want ~42.9% (not inflated)"],
        ),
        (
            # ruff's snippet: a comment in the gutter says "should", the message does not
            "Exit code 1\nC401 Unnecessary generator (rewrite as a set comprehension)\n"
            "   --> tests/integration/test_bids_examples.py:157:17\n    |\n"
            "156 |         # Count files after — should be same count (renames, not deletes)\n"
            '157 |         after = set(f.relative_to(ds) for f in ds.rglob("*"))\n'
            "    |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
            "help: Rewrite as a set comprehension",
            [],
        ),
        (
            "error[E0425]: cannot find value `total` in this scope\n  --> src/lib.rs:12:18\n   |\n"
            "12 |     let n: u32 = total; // expected to be set by the loop above\n"
            "   |                  ^^^^^ not found in this scope\n",
            ["error[E0425]: cannot find value `total` in this scope"],
        ),
    ],
    ids=[
        "golangci-echoed-call",
        "dupl-block",
        "node-throw-caret",
        "py312-carets",
        "go-test-hash",
        "ruff-gutter",
        "rustc-gutter",
    ],
)
def test_echoed_source_is_not_a_message(output: str, expected: list[str]) -> None:
    assert informative_lines(output) == expected


@pytest.mark.parametrize(
    "line",
    [
        "\tf, err := os.Create(traceFile)",
        "\t\treturn os.Remove(stateFile)",
        "  let error = new Error(text);",
        "\tif err := os.WriteFile(handlerPath, []byte(handlerContent), 0o644); err != nil {",
    ],
)
def test_a_code_line_under_a_lint_message_does_not_push_out_the_next_message(line: str) -> None:
    first = "cmd/entire/cli/trace.go:40:12: G304: Potential file inclusion via variable (gosec)"
    second = (
        "cmd/entire/cli/trace.go:52:5: Error return value of `f.Close` is not checked (errcheck)"
    )
    output = f"{first}\n{line}\n{second}\n2 issues:\n* gosec: 1\n* errcheck: 1"
    assert informative_lines(output) == [first, second]


def test_errors_of_the_tool_protocol_say_nothing_about_the_code() -> None:
    assert is_protocol_error("String to replace not found in file.")
    assert is_protocol_error("The user doesn't want to proceed with this tool use.")
    assert not is_protocol_error("KeyError: 'name'")
