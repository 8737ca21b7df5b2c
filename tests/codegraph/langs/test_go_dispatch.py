"""Calls through Go interfaces, read by the queries: what-calls, blast radius, callees and
the exported call graph reach the methods of the types implementing the interface."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgraph.codegraph.export import export_callgraph
from kgraph.codegraph.indexer import ParseReport
from kgraph.codegraph.neighbours import callees
from kgraph.codegraph.query import blast_radius, what_calls
from kgraph.db import Database
from tests.codegraph.conftest import write_tree

Parse = Callable[..., ParseReport]

FILES = {
    "go.mod": "module example.com/shapes\n",
    "shape/shape.go": """package shape

type Shape interface {
	Area() float64
	Name() string
}

type Named interface {
	Name() string
}

type Solid interface {
	Shape
	Volume() float64
}

func Total(shapes []Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}

func Describe(n Named) string { return n.Name() }

func Weigh(s Solid) float64 { return s.Volume() }
""",
    "square/square.go": """package square

type Square struct{ side float64 }

func (q *Square) Area() float64 { return q.side * q.side }
""",
    "square/name.go": """package square

func (q *Square) Name() string { return "square" }
""",
    "circle/circle.go": """package circle

type base struct{}

func (base) Name() string { return "circle" }

type Circle struct {
	base
	r float64
}

func (c Circle) Area() float64 { return 3 * c.r * c.r }

type Label struct{}

func (Label) Area() float64 { return 0 }
""",
    "cube/cube.go": """package cube

type Cube struct{}

func (Cube) Area() float64 { return 6 }

func (Cube) Name() string { return "cube" }

func (Cube) Volume() float64 { return 1 }
""",
}


def _callers(db: Database, name: str) -> set[tuple[str, str]]:
    return {(c.caller.id, c.resolution) for c in what_calls(db, name, record=False)[1]}


def test_what_calls_a_method_includes_calls_through_interfaces_it_implements(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    parse(write_tree(tmp_path, FILES))
    total = ("shape/shape.go::Total", "override")
    assert _callers(db, "Square.Area") == {total}  # Name in another file of its package
    assert _callers(db, "Circle.Area") == {total}  # Name promoted from an embedded field
    assert _callers(db, "Label.Area") == set()  # no Name: not a Shape
    assert _callers(db, "Cube.Volume") == {("shape/shape.go::Weigh", "override")}
    assert ("shape/shape.go::Describe", "override") in _callers(db, "Square.Name")
    assert _callers(db, "Shape.Area") == {("shape/shape.go::Total", "interface")}


def test_blast_radius_and_callees_follow_the_implementations(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    parse(write_tree(tmp_path, FILES))
    radius = blast_radius(db, "Square.Area", depth=1, record=False)
    assert {i.entity.id for i in radius.impacts} == {"shape/shape.go::Total"}
    found = {c.entity.id for c in callees(db, "shape/shape.go::Total", record=False)[1]}
    assert found == {
        "shape/shape.go::Shape.Area",
        "square/square.go::Square.Area",
        "circle/circle.go::Circle.Area",
        "cube/cube.go::Cube.Area",
    }


def test_the_exported_call_graph_has_the_implementations(
    tmp_path: Path, parse: Parse, db: Database
) -> None:
    parse(write_tree(tmp_path, FILES))
    graph = export_callgraph(db)
    assert graph["shape.shape.Weigh"] == ["cube.cube.Cube.Volume", "shape.shape.Solid.Volume"]
    assert graph["shape.shape.Describe"] == [
        "circle.circle.base.Name",
        "cube.cube.Cube.Name",
        "shape.shape.Named.Name",
        "square.name.Square.Name",
    ]
