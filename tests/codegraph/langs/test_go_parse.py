"""The Go summariser (``go_parse`` and its expressions, ``go_refs``) on small sources:
definitions, scopes and bindings, calls, imports; and ``go.mod``'s module path."""

from __future__ import annotations

from kgraph.codegraph.langs.go_packages import MODULE_NAME, PACKAGE_NAME, default_package_name
from kgraph.codegraph.langs.go_parse import parse_go, parse_gomod
from kgraph.codegraph.summary import (
    Annotated,
    Assigned,
    Defined,
    ImportedModule,
    Parameter,
    Summary,
    Unknown,
    iter_calls,
)
from kgraph.codegraph.summary_codec import decode_summary, encode_summary

SOURCE = b"""package server

import (
	"fmt"
	str "strings"
	"github.com/acme/app/internal/store"
	_ "embed"
	. "math"
)

type Handler interface {
	Handle(req string) (string, error)
	fmt.Stringer
}

type Server struct {
	*store.DB
	Base
	name, addr string
	handlers   []Handler
}

type Kind string

type Alias = store.Record

// New builds a server.
func New(addr string) *Server {
	return &Server{addr: addr}
}

func Open() (*Server, error) { return New(""), nil }

func (s *Server) Start(each func(Handler)) error {
	for _, h := range s.handlers {
		h.Handle(s.name)
		each(h)
	}
	fmt.Println(str.ToUpper(s.addr))
	go s.loop()
	defer func(code int) { s.stop(code) }(0)
	run := func() { s.loop() }
	run()
	srv, err := Open()
	if err != nil {
		return err
	}
	d := &Server{}
	v, ok := any(d).(*Server)
	_, _ = v, ok
	srv.Start(each)
	return nil
}

var Default = New(":80")

const Version = "1"
"""


def _summary() -> Summary:
    return parse_go(SOURCE)


def test_definitions_have_kinds_and_exports() -> None:
    defs = _summary()["defs"]
    kinds = {qname: info["kind"] for qname, info in defs.items()}
    assert kinds == {
        "Handler": "interface",
        "Handler.Handle": "method",
        "Server": "class",
        "Kind": "class",
        "Alias": "type",
        "New": "function",
        "Open": "function",
        "Server.Start": "method",
        "Server.Start.run": "function",
        "Default": "variable",
        "Version": "variable",
    }
    assert defs["New"]["exported"] and not defs["Server.Start.run"]["exported"]
    assert (defs["New"]["line"], defs["New"]["end"]) == (28, 30)
    assert defs["Server"]["bases"] == ["store.DB", "Base"]  # embedded fields
    assert defs["Handler"]["bases"] == ["fmt.Stringer"]


def test_module_scope_binds_package_imports_and_declarations() -> None:
    names = _summary()["scopes"][""]["names"]
    assert names[PACKAGE_NAME] == [ImportedModule("mod", "server", 1)]
    assert names["fmt"] == [ImportedModule("mod", "fmt", 4)]
    assert names["str"] == [ImportedModule("mod", "strings", 5)]
    assert names["store"] == [ImportedModule("mod", "github.com/acme/app/internal/store", 6)]
    assert "_" not in names and "embed" not in names
    assert names["New"] == [Defined("def", "New", 28)]
    assert names["Alias"] == [Assigned("val", "store.Record", 25)]  # an alias is its type
    assert names["Default"] == [Assigned("val", "New()", 55)]
    assert _summary()["estar"] == ["math"]


def test_struct_fields_are_typed_names_of_its_scope() -> None:
    fields = _summary()["scopes"]["Server"]["names"]
    assert fields["DB"] == [Annotated("ann", "store.DB", 17)]  # embedded: named by its type
    assert fields["name"] == fields["addr"] == [Annotated("ann", "string", 19)]
    assert fields["handlers"] == [Annotated("ann", "Handler", 20)]  # a slice: its elements


def test_method_scope_binds_receiver_parameters_and_locals() -> None:
    scope = _summary()["scopes"]["Server.Start"]
    names = scope["names"]
    assert scope["parent"] == ""  # a method's scope is the file's, not its type's
    assert names["s"] == [Annotated("ann", "Server", 34)]
    assert names["each"] == [Parameter("param", 0, 34)]  # a function type: what callers pass
    assert scope["params"] == ["each"]
    assert names["h"] == [Assigned("val", "s.handlers", 35)]  # a range value: an element
    assert names["code"] == [Annotated("ann", "int", 41)]  # an anonymous function's, here
    assert names["run"] == [Defined("def", "Server.Start.run", 42)]
    assert names["srv"] == [Assigned("val", "Open()[0]", 44)]
    assert names["err"] == [Assigned("val", "Open()[1]", 44)]
    assert names["d"] == [Annotated("ann", "Server", 48)]
    assert names["v"] == [Annotated("ann", "Server", 49)]
    assert names["ok"] == [Unknown("unk", 49)]


def test_results_are_what_a_call_returns() -> None:
    scopes = _summary()["scopes"]
    assert scopes["New"]["returns"] == [Annotated("ann", "Server", 28)]
    opened = scopes["Open"]
    assert opened["returns"] == [Assigned("val", "<#0>", 32)]  # several: a tuple
    assert opened["containers"][0].refs == ["Server(!)", "error(!)"]
    assert scopes["Handler.Handle"]["containers"][0].refs == ["string(!)", "error(!)"]


def test_calls_belong_to_the_function_that_runs_them() -> None:
    calls = {(c.scope, c.ref) for c in iter_calls(_summary())}
    assert {
        ("Open", "New()"),
        ("Server.Start", "h.Handle()"),
        ("Server.Start", "each(#0)"),  # h may be a function: the arguments are kept
        ("Server.Start", "fmt.Println()"),
        ("Server.Start", "str.ToUpper()"),
        ("Server.Start", "s.loop()"),  # go s.loop()
        ("Server.Start", "s.stop()"),  # in a deferred function literal
        ("Server.Start.run", "s.loop()"),  # a function literal bound to a name
        ("Server.Start", "run()"),
        ("Server.Start", "srv.Start(#1)"),
        ("", "New()"),  # a package variable's value
    } <= calls


def test_imports_list_the_names_a_file_uses() -> None:
    imports = {record.module: record.names for record in _summary()["imports"]}
    assert imports["fmt"] == ["Println", "Stringer"]
    assert imports["strings"] == ["ToUpper"]
    assert imports["github.com/acme/app/internal/store"] == ["DB", "Record"]
    assert imports["embed"] == [] and imports["math"] == []


def test_summary_round_trips_through_storage() -> None:
    summary = _summary()
    assert decode_summary(encode_summary(summary)) == summary


def test_syntax_errors_are_counted_not_raised() -> None:
    summary = parse_go(b"package x\n\nfunc broken( {\n\tcall()\n")
    assert summary["errors"] >= 1 and summary["lang"] == "go"


def test_default_package_names() -> None:
    assert default_package_name("fmt") == "fmt"
    assert default_package_name("github.com/go-git/go-git/v5") == "git"
    assert default_package_name("gopkg.in/yaml.v3") == "yaml"
    assert default_package_name("github.com/posthog/posthog-go") == "posthog"
    assert default_package_name("github.com/acme/app/internal/store") == "store"


def test_gomod_gives_the_module_path() -> None:
    summary = parse_gomod(b"// comment\nmodule github.com/acme/app\n\ngo 1.22\n")
    names = summary["scopes"][""]["names"]
    assert summary["lang"] == "gomod"
    assert names[MODULE_NAME] == [ImportedModule("mod", "github.com/acme/app", 2)]
    assert parse_gomod(b"go 1.22\n")["scopes"][""]["names"] == {}
