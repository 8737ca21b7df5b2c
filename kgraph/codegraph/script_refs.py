"""TS/JS values that may hold functions -> the summary's arguments, literals and stores, for
:mod:`kgraph.codegraph.parse_ts`.

As the Python summariser does (:mod:`kgraph.codegraph.python_refs`), a call's arguments
(``(#N)``) and a literal's items (``<#N>``) are kept only when one of them may be a
function: an arrow or function expression, a name bound to a definition, a parameter or
an import, a member named like one of the file's functions (``this.onClick``), a literal
holding one, ``f.bind(x)``. The other arguments of a program (strings, numbers, locals
holding data) cannot change which function a call reaches, and keeping them would grow
every summary and split the resolver's caches by call site.

An object literal is a literal keyed by its property names, so ``api.load`` is its item
``load`` (:mod:`.script_resolve`); an empty one (``const utils = {}``) is kept too, for
what the file stores into it later (``utils.trim = function () {}``, ``obj[k] = f``). An
array is a literal keyed by position; ``for (const x of xs)`` binds ``x`` to its items.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tree_sitter import Node

from kgraph.codegraph.refs import ITERATE
from kgraph.codegraph.script_functions import FUNCTION_VALUES, property_key
from kgraph.codegraph.summary import (
    UNKNOWN,
    Arguments,
    Assigned,
    Binding,
    Container,
    Defined,
    ImportedModule,
    ImportedName,
    Parameter,
    Store,
    Unknown,
    add_binding,
)

if TYPE_CHECKING:
    from kgraph.codegraph.parse_ts import ScriptSummariser

# Expressions that are never a function.
_NEVER: Final = frozenset(
    {"string", "template_string", "number", "true", "false", "null", "undefined", "regex"}
    | {"binary_expression", "unary_expression", "update_expression", "ternary_expression"}
)
_WRAPPERS: Final = ("parenthesized_expression", "await_expression", "as_expression")
# A literal of more members than this is data (a search index, a table of constants): its
# members are not read for functions. Generated data files (sphinx's searchindex.js: 1.7
# MB of nested literals) cost a third of a second to walk for none.
MAX_LITERAL_MEMBERS: Final = 256
_CALLABLE_TAGS: Final = (Defined, Parameter, ImportedName, ImportedModule)
# Callees that never call what they are given: their arguments are not kept (a parameter
# passed to one would be followed to every caller of its function for nothing).
_INERT_HEADS: Final = frozenset(
    {"console", "JSON", "Math", "String", "Number", "Boolean", "Symbol", "BigInt", "Date"}
    | {"parseInt", "parseFloat", "isNaN", "isFinite", "encodeURIComponent", "RegExp"}
    | {"decodeURIComponent", "Buffer", "Error", "TypeError", "RangeError", "require"}
)
_INERT_METHODS: Final = frozenset(
    {"join", "indexOf", "includes", "slice", "concat", "startsWith", "endsWith", "split"}
    | {"has", "delete", "log", "debug", "info", "warn", "error", "toString", "hasOwnProperty"}
    | {"push", "unshift", "set", "add"}  # they keep what they are given: no call
)


class ScriptRefs:
    """One file's literals and call arguments (they are recorded into the scopes of the
    summariser's summary as they are made)."""

    def __init__(self, summariser: ScriptSummariser) -> None:
        self.summariser = summariser
        self._literals: dict[int, str] = {}  # node id -> its ref
        self._reserved: dict[int, tuple[Node, str, int]] = {}  # object -> (node, scope, index)
        self._function_like: dict[tuple[str, str], bool] = {}
        self._calls: dict[tuple[int, int], str] = {}  # (arguments node id, skip) -> op
        self._function_names: set[str] | None = None

    # -- literals ---------------------------------------------------------------------------
    def reserve(self, obj: Node, scope: str) -> str:
        """The ref of the object literal ``obj`` before its members are named (``this`` of
        its methods): its literal's slot, filled by :meth:`literal`."""
        found = self._reserved.get(obj.id)
        if found is None:
            target = self.summariser.scopes[scope].setdefault("containers", [])
            target.append(Container("dict", [], [], obj.start_point[0] + 1))
            found = self._reserved[obj.id] = (obj, scope, len(target) - 1)
        return f"<#{found[2]}>"

    def literal(self, node: Node, scope: str) -> str:
        """``<#N>`` for an object or array literal holding a possible function (or an empty
        object, which stores may fill), else its type (``<obj>``, ``<list>``)."""
        found = self._literals.get(node.id)
        if found is not None:
            return found
        if node.named_child_count > MAX_LITERAL_MEMBERS and node.id not in self._reserved:
            found = self._literals[node.id] = "<obj>" if node.type == "object" else "<list>"
            return found
        keys: list[str | int | None] = []
        refs: list[str] = []
        if node.type == "object":
            for prop in node.named_children:
                key, ref = self._property(prop)
                if ref != UNKNOWN:
                    keys.append(key)
                    refs.append(ref)
        else:
            exact = True
            for index, item in enumerate(c for c in node.named_children if c.type != "comment"):
                if item.type == "spread_element":
                    exact = False
                    continue
                if self.may_be_function(item, scope):
                    keys.append(index if exact else None)
                    refs.append(self.summariser.ref(item))
        reserved = self._reserved.get(node.id)
        kind = "dict" if node.type == "object" else "list"
        line = node.start_point[0] + 1
        if reserved is not None:
            containers = self.summariser.scopes[reserved[1]]["containers"]
            containers[reserved[2]] = Container(kind, keys, refs, line)
            ref = f"<#{reserved[2]}>"
        elif refs or (node.type == "object" and not node.named_children):
            target = self.summariser.scopes[scope].setdefault("containers", [])
            target.append(Container(kind, keys, refs, line))
            ref = f"<#{len(target) - 1}>"
        else:
            ref = "<obj>" if node.type == "object" else "<list>"
        self._literals[node.id] = ref
        return ref

    def _property(self, prop: Node) -> tuple[str | None, str]:
        """(key, ref) of one member of an object literal (ref ``?``: nothing to follow)."""
        summariser = self.summariser
        kind = prop.type
        if kind == "shorthand_property_identifier":
            name = summariser.text(prop)
            return name, name
        if kind == "method_definition":
            key = property_key(summariser, prop.child_by_field_name("name"))
            return key, summariser.ref(prop)
        if kind != "pair":
            return None, UNKNOWN
        value = prop.child_by_field_name("value")
        if not self.may_be_function(value, summariser.scope):
            return None, UNKNOWN  # a string, a number, data: no function
        return property_key(summariser, prop.child_by_field_name("key")), summariser.ref(value)

    def fill_reserved(self) -> None:
        """Make the literals of objects whose methods use ``this`` but that no ref read."""
        for obj, scope, _index in list(self._reserved.values()):
            self.literal(obj, scope)

    # -- calls ------------------------------------------------------------------------------
    def call_op(self, callee: str, arguments: Node | None, scope: str, skip: int = 0) -> str:
        """``(#N)`` when one of the call's arguments may be a function (``skip``: leading
        ones that are not passed: ``f.call(thisArg, ...)``), else ``()``; once per call (a
        call is met as a callee and again as a value). A spread ends what is known of the
        positions (``*``)."""
        if arguments is None or arguments.type != "arguments" or not arguments.named_child_count:
            return "()"
        head, _, rest = callee.partition(".")
        if head in _INERT_HEADS or (callee.rpartition(".")[2] in _INERT_METHODS and rest):
            return "()"
        key = (arguments.id, skip)
        found = self._calls.get(key)
        if found is not None:
            return found
        self._calls[key] = op = self._arguments(arguments, scope, skip)
        return op

    def _arguments(self, arguments: Node, scope: str, skip: int) -> str:
        positional: list[str] = []
        kept = False
        items = [c for c in arguments.named_children if c.type != "comment"][skip:]
        for child in items:
            kind = child.type
            if kind == "spread_element":
                positional.append("*")
                break
            if kind in _NEVER or not self.may_be_function(child, scope):
                positional.append(UNKNOWN)
                continue
            ref = self.summariser.ref(child)
            positional.append(ref)
            kept = kept or ref != UNKNOWN
        if not kept:
            return "()"
        target = self.summariser.scopes[scope].setdefault("args", [])
        target.append(Arguments(positional, {}, False))
        return f"(#{len(target) - 1})"

    def may_be_function(self, node: Node | None, scope: str) -> bool:
        """Whether ``node``'s value may be a function (or an instance worth following), by
        the file's names alone (see the module docstring)."""
        kind = node.type if node is not None else ""  # a new string at each read: read once
        while node is not None and kind in _WRAPPERS:
            node = node.named_children[0] if node.named_children else None
            kind = node.type if node is not None else ""
        if node is None or kind in _NEVER:
            return False
        if kind in FUNCTION_VALUES:
            return True
        if kind == "identifier":
            return self._names_function(scope, self.summariser.text(node))
        if kind == "member_expression":
            head = node
            while head.type == "member_expression":
                head = head.child_by_field_name("object") or head
            if head.type == "identifier" and self._imported(scope, self.summariser.text(head)):
                return True
            return self.summariser.text(node.child_by_field_name("property")) in self._names()
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            if (
                function is not None
                and function.type == "member_expression"
                and self.summariser.text(function.child_by_field_name("property")) == "bind"
            ):
                return True  # f.bind(x) is a function, whatever f's name
            return "(#" in self.summariser.ref(node)
        if kind == "new_expression":
            constructor = node.child_by_field_name("constructor")
            return constructor is not None and self.may_be_function(constructor, scope)
        if kind in ("object", "array"):
            return self.literal(node, scope).startswith("<#")
        return False

    def _names(self) -> set[str]:
        """The last part of every definition of the file (``onClick``, ``load``)."""
        if self._function_names is None:
            defs = self.summariser.summary["defs"]
            self._function_names = {qname.rpartition(".")[2] for qname in defs}
        return self._function_names

    def _bindings(self, scope: str, name: str) -> list[Binding] | None:
        scopes = self.summariser.scopes
        current: str | None = scope
        while current is not None:
            data = scopes[current]
            found = data["names"].get(name)
            if found:
                return found
            current = data["parent"] if current else None
        return None

    def _imported(self, scope: str, name: str) -> bool:
        found = self._bindings(scope, name)
        return found is not None and any(
            isinstance(b, (ImportedName, ImportedModule)) for b in found
        )

    def _names_function(self, scope: str, name: str) -> bool:
        key = (scope, name)
        found = self._function_like.get(key)
        if found is None:
            bindings = self._bindings(scope, name) or []
            found = any(
                isinstance(b, _CALLABLE_TAGS)
                or (
                    isinstance(b, Assigned)
                    and (b.ref[:1] in ("@", "<") or "(#" in b.ref or "(" not in b.ref)
                    and not (b.ref.startswith("<") and not b.ref.startswith("<#"))
                )
                for b in bindings
            )
            self._function_like[key] = found
        return found

    # -- stores and loops -------------------------------------------------------------------
    def store(self, left: Node, right: Node, scope: str) -> None:
        """``obj.k = f`` / ``obj[k] = f``: a store into what ``obj`` holds (a literal), kept
        when the value may be a function."""
        if not self.may_be_function(right, scope):
            return
        value = self.summariser.ref(right)
        target_node = left.child_by_field_name("object")
        target = self.summariser.ref(target_node)
        if value == UNKNOWN or target == UNKNOWN:
            return
        key: str | None = None
        if left.type == "member_expression":
            key = self.summariser.text(left.child_by_field_name("property"))
        else:
            index = left.child_by_field_name("index")
            if index is not None and index.type == "string":
                key = self.summariser.text(index).strip("'\"")
        stores = self.summariser.scopes[scope].setdefault("stores", [])
        stores.append(Store(target, key, value, left.start_point[0] + 1))

    def on_for(self, node: Node, scope: str) -> None:
        """``for (const x of xs)``: ``x`` holds an item of ``xs`` (``for ... in``: a key,
        nothing to follow)."""
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or left.type != "identifier":
            return
        line = node.start_point[0] + 1
        over = any(c.type == "of" for c in node.children)
        ref = self.summariser.ref(right) if over else UNKNOWN
        binding = Assigned("val", ref + ITERATE, line) if ref != UNKNOWN else Unknown("unk", line)
        add_binding(self.summariser.scopes[scope], self.summariser.text(left), binding)

    def destructure(self, pattern: Node, value: Node | None, scope: str, line: int) -> None:
        """``const { a, b: c = f } = obj``: ``a`` holds ``obj.a``, ``c`` ``obj.b`` (or
        ``f``); a nested or computed pattern's names hold nothing to follow."""
        base = self.summariser.ref(value) if value is not None else UNKNOWN
        names = self.summariser.scopes[scope]
        for prop in pattern.named_children:
            key_node: Node | None = prop
            target: Node | None = prop
            default: Node | None = None
            if prop.type == "pair_pattern":
                key_node = prop.child_by_field_name("key")
                target = prop.child_by_field_name("value")
            if target is not None and target.type in (
                "assignment_pattern",
                "object_assignment_pattern",
            ):
                default = target.child_by_field_name("right")
                target = target.child_by_field_name("left")
            if prop.type == "object_assignment_pattern":
                key_node = target
            if target is None or target.type not in (
                "identifier",
                "shorthand_property_identifier_pattern",
            ):
                continue
            key = property_key(self.summariser, key_node)
            bound = False
            if base != UNKNOWN and key is not None:
                add_binding(
                    names, self.summariser.text(target), Assigned("val", f"{base}.{key}", line)
                )
                bound = True
            if default is not None and self.may_be_function(default, scope):
                ref = self.summariser.ref(default)
                add_binding(names, self.summariser.text(target), Assigned("val", ref, line))
                bound = True
            if not bound:
                add_binding(names, self.summariser.text(target), Unknown("unk", line))

    def destructure_array(self, pattern: Node, value: Node | None, scope: str, line: int) -> None:
        """``const [a, b] = pair``: ``a`` holds ``pair[0]``; nested patterns hold nothing to
        follow."""
        base = self.summariser.ref(value) if value is not None else UNKNOWN
        names = self.summariser.scopes[scope]
        items = [c for c in pattern.named_children if c.type != "comment"]
        for index, item in enumerate(items):
            if item.type != "identifier":
                continue
            ref = f"{base}[{index}]" if base != UNKNOWN else UNKNOWN
            binding = Assigned("val", ref, line) if ref != UNKNOWN else Unknown("unk", line)
            add_binding(names, self.summariser.text(item), binding)
