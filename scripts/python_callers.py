"""Who calls a Python function or method, decided by reading the source with ``ast``: the
reference ``scripts/check_httpx_what_calls.py`` holds ``graph what-calls`` against.

Every call of the repository is read, and its target decided the way a reader of the code
decides it, from what is written down and nothing else:

- a call of a name or dotted name (``get()``, ``httpx.get()``) follows imports (a
  function's own too), star imports with ``__all__``, and the module's definitions; a
  class called runs its ``__init__`` (along the MRO; ``super().m()``: the next class's);
- a method call ``x.m()`` is decided when the type of ``x`` is: ``self``/``cls`` in a
  method (and then the overrides of ``m`` in subclasses too: the instance may be one of
  theirs); an annotated parameter or variable; a name as its last binding above the call
  gives it (a class called, a call of a function or method whose return is annotated,
  ``await`` of one, a literal; with none above, the one type all its bindings agree on);
  ``with X as x`` (``__enter__``'s annotation, ``Self`` or a TypeVar being ``X``'s type; a
  ``@contextmanager`` function's ``Iterator[T]``: ``T``); ``for x in xs`` over an
  annotated container, or an instance whose ``__iter__`` is annotated ``Iterator[T]``; an
  attribute annotated in its class, a property's return annotation, ``self.x = T(...)`` in
  ``__init__``; a pytest fixture's, for a parameter of a test or fixture
  (:mod:`python_locals`).

A call whose receiver's type cannot be decided so is *undecided* (None); a call of a method
of the same name on another type (``d.get()`` on a dict, for ``Headers.get``) is decided as
reaching something else.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

_ITERATORS = {"Iterator", "Iterable", "Generator", "AsyncIterator", "AsyncIterable"}
_ITERATORS |= {"AsyncGenerator", "list", "List", "Sequence", "set", "Set", "tuple", "Tuple"}
_LITERALS = {ast.Dict: "dict", ast.List: "list", ast.Set: "set", ast.Tuple: "tuple"}
_LITERALS |= {ast.JoinedStr: "str", ast.ListComp: "list", ast.DictComp: "dict"}
_PROPERTIES = {"property", "functools.cached_property", "cached_property"}
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class Type(NamedTuple):
    """What an expression is: ``kind`` ``inst`` (an instance of class ``name``), ``class``,
    ``func``, ``method`` (bound to an instance of ``owner``), ``module``, ``items`` (a
    container or iterator of ``name``'s instances), ``cm`` (a context manager giving one),
    ``external`` (a name outside the repository), ``builtin``, ``var`` (a module variable)."""

    kind: str
    name: str
    owner: str = ""


@dataclass
class Module:
    name: str
    path: str  # relative to the repository, posix
    tree: ast.Module
    defs: dict[str, ast.AST] = field(default_factory=dict)  # top-level classes, functions
    values: dict[str, ast.expr] = field(default_factory=dict)  # top-level assignments
    imports: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    stars: list[str] = field(default_factory=list)
    exported: list[str] | None = None  # __all__

    @property
    def package(self) -> str:
        return self.name if self.path.endswith("__init__.py") else self.name.rpartition(".")[0]


@dataclass
class Function:
    """A function: its qualified name, node, module and class (for a method)."""

    qname: str
    node: FunctionNode
    module: Module
    cls: str | None


class Reader:
    """The repository's modules, classes and functions, and the types of expressions."""

    def __init__(self, repo: Path) -> None:
        self.modules: dict[str, Module] = {}
        self.classes: dict[str, tuple[ast.ClassDef, Module]] = {}
        self.functions: dict[str, Function] = {}
        for file in sorted(repo.rglob("*.py")):
            relative = file.relative_to(repo).as_posix()
            if any(part.startswith(".") for part in relative.split("/")):
                continue
            name = relative[:-3].replace("/", ".").removesuffix(".__init__")
            module = Module(name, relative, ast.parse(file.read_text("utf-8"), relative))
            for node in module.tree.body:  # `if TYPE_CHECKING:` and `try:` blocks' too
                nested = [*node.body, *node.orelse] if isinstance(node, ast.If | ast.Try) else []
                for inner in nested or [node]:
                    self._top(module, inner)
            self.modules[name] = module
        self.cache: dict[object, Type | None] = {}  # of python_locals

    # -- definitions --------------------------------------------------------------------
    def _top(self, module: Module, node: ast.stmt) -> None:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            module.defs[node.name] = node
            self._define(module, node, f"{module.name}.{node.name}", None)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    module.stars.append(imported(node, alias, module.package))
                else:
                    local = alias.asname or alias.name.split(".")[0]
                    module.imports[local] = imported(node, alias, module.package)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    module.values[target.id] = node.value
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                items = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else []
                module.exported = [e.value for e in items if isinstance(e, ast.Constant)]

    def _define(self, module: Module, node: ast.AST, qname: str, cls: str | None) -> None:
        if isinstance(node, ast.ClassDef):
            self.classes[qname] = (node, module)
            for item in node.body:
                if isinstance(item, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                    self._define(module, item, f"{qname}.{item.name}", qname)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if qname in self.functions and any(
                ast.unparse(d).endswith((".setter", ".deleter")) for d in node.decorator_list
            ):  # a property's setter: read for its calls; the property is the getter's
                qname = f"{qname}@{node.lineno}"
            self.functions[qname] = Function(qname, node, module, cls)
            for item in ast.walk(node):
                if item is not node and isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    nested = f"{qname}.{item.name}"
                    self.functions.setdefault(nested, Function(nested, item, module, None))

    # -- names and classes --------------------------------------------------------------
    def symbol(self, qualified: str, depth: int = 0) -> Type | None:
        """What a qualified name is: a module, or a definition followed through imports."""
        if qualified in self.modules:
            return Type("module", qualified)
        owner, _, name = qualified.rpartition(".")
        module = self.modules.get(owner)
        return self.name_in(module, name, depth + 1) if module and depth < 10 else None

    def name_in(self, module: Module, name: str, depth: int = 0) -> Type | None:
        """What a module-level name of ``module`` is."""
        if name in module.defs:
            qname = f"{module.name}.{name}"
            return Type("class" if qname in self.classes else "func", qname)
        if name in module.imports:
            target = module.imports[name]
            found = self.symbol(target, depth)
            for folder in _folders(module.package) if found is None else []:
                found = self.symbol(f"{folder}.{target}", depth)  # a script's folder: sys.path
                if found is not None:
                    break
            return found or Type("external", target)
        if name in module.values:
            return Type("var", f"{module.name}.{name}")
        for star in module.stars:
            source = self.modules.get(star)
            if source is not None and (source.exported is None or name in source.exported):
                found = self.name_in(source, name, depth + 1)
                if found is not None:
                    return found
        return None

    def mro(self, cls: str) -> list[str]:
        """The class and its bases of the repository, depth first (as far as read)."""
        node, module = self.classes[cls]
        order = [cls]
        for base in node.bases:
            found = self.annotation(base, module, None)
            if found is not None and found.name in self.classes and found.name not in order:
                order += [c for c in self.mro(found.name) if c not in order]
        return order

    def member(self, cls: str, name: str) -> str | None:
        """The qualified name of the method ``name`` an instance of ``cls`` has."""
        return next((f"{c}.{name}" for c in self.mro(cls) if f"{c}.{name}" in self.functions), None)

    def overrides(self, cls: str, name: str) -> list[str]:
        """The methods ``name`` of the subclasses of ``cls`` (``self.m()`` may run them)."""
        return [
            f"{sub}.{name}"
            for sub in self.classes
            if sub != cls and cls in self.mro(sub) and f"{sub}.{name}" in self.functions
        ]

    # -- types ----------------------------------------------------------------------------
    def annotation(self, node: ast.expr | None, module: Module, this: str | None) -> Type | None:
        """What an annotation says a value is: an instance, ``items`` of a container or
        iterator; ``Optional[X]``/``X | None``: X; ``Self`` and TypeVars: ``this``'s."""
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.annotation(ast.parse(node.value, mode="eval").body, module, this)
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [self.annotation(s, module, this) for s in (node.left, node.right)]
            kept = [s for s in sides if s is not None and s.name != "builtins.None"]
            return kept[0] if len(kept) == 1 else None
        if isinstance(node, ast.Constant) and node.value is None:
            return Type("inst", "builtins.None")
        if isinstance(node, ast.Subscript):
            head = self.annotation(node.value, module, this)
            name = head.name.rsplit(".", 1)[-1] if head is not None else ""
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if name == "Optional":
                return self.annotation(args[0], module, this)
            inner = self.annotation(args[0], module, this) if name in _ITERATORS else None
            return Type("items", inner.name) if inner and inner.kind == "inst" else None
        found = self.expression(node, module, None)
        if found is None:
            return None
        if found.kind == "var" and this is not None:  # a TypeVar: the receiver's type
            owner, _, name = found.name.rpartition(".")
            value = self.modules[owner].values.get(name)
            if isinstance(value, ast.Call) and "TypeVar" in ast.unparse(value.func):
                return Type("inst", this)
        if found.kind == "external" and found.name.endswith(".Self") and this is not None:
            return Type("inst", this)
        if found.kind == "class":
            return Type("inst", found.name)
        if found.kind == "external" and found.name.rsplit(".", 1)[-1] in _ITERATORS | {"Optional"}:
            return Type("inst", found.name)  # a generic's head, for Subscript above
        return None

    def returns(self, qname: str, this: str | None) -> Type | None:
        """What calling the function ``qname`` gives, by its return annotation."""
        function = self.functions.get(qname)
        if function is None:
            return None
        found = self.annotation(function.node.returns, function.module, this)
        decorators = {ast.unparse(d).rsplit(".", 1)[-1] for d in function.node.decorator_list}
        if decorators & {"contextmanager", "asynccontextmanager"}:
            return Type("cm", found.name) if found and found.kind == "items" else None
        return found

    def expression(self, node: ast.expr, module: Module, function: Function | None) -> Type | None:
        """The type of an expression written in ``function`` (None: undecided)."""
        if isinstance(node, ast.Await):
            return self.expression(node.value, module, function)
        if isinstance(node, ast.Name):
            if function is not None:
                from python_locals import local_type  # function scopes (imports this module)

                bound, found = local_type(self, function, node.id, node.lineno)
                if bound:
                    return found
            found = self.name_in(module, node.id)
            return found or (Type("builtin", node.id) if node.id in dir(__builtins__) else None)
        if isinstance(node, ast.Attribute):
            base = self.expression(node.value, module, function)
            if base is None:
                return None
            if base.kind == "module":
                return self.symbol(f"{base.name}.{node.attr}")
            if base.kind == "external":
                return Type("external", f"{base.name}.{node.attr}")
            if base.kind == "class" and f"{base.name}.{node.attr}" in self.classes:
                return Type("class", f"{base.name}.{node.attr}")
            if base.kind in ("inst", "class") and base.name in self.classes:
                return self.attribute(base.name, node.attr, base.kind == "inst")
            return None
        if isinstance(node, ast.Call):
            callee = self.expression(node.func, module, function)
            if callee is None:
                return None
            if callee.kind == "class":
                return Type("inst", callee.name)
            if callee.kind in ("func", "method"):
                return self.returns(callee.name, callee.owner or None)
            if callee.kind == "external" and callee.name.rsplit(".", 1)[-1][:1].isupper():
                return Type("inst", callee.name)
            return None
        if isinstance(node, ast.IfExp):
            sides = {self.expression(n, module, function) for n in (node.body, node.orelse)}
            return sides.pop() if len(sides) == 1 else None
        for kind, name in _LITERALS.items():
            if isinstance(node, kind):
                return Type("inst", f"builtins.{name}")
        if isinstance(node, ast.Constant):
            return Type("inst", f"builtins.{type(node.value).__name__}")
        return None

    def attribute(self, cls: str, name: str, instance: bool) -> Type | None:
        """An attribute of a class or its instance: a method (bound to ``cls``), a
        property's value, an attribute annotated in a class or assigned in ``__init__``."""
        method = self.member(cls, name)
        if method is not None:
            decorators = {ast.unparse(d) for d in self.functions[method].node.decorator_list}
            if instance and decorators & _PROPERTIES:
                return self.returns(method, cls)
            return Type("method", method, cls)
        for owner in self.mro(cls):
            node, module = self.classes[owner]
            for item in ast.walk(node):
                if isinstance(item, ast.AnnAssign) and _is_self_attribute(item.target, name):
                    return self.annotation(item.annotation, module, owner)
            init = self.functions.get(f"{owner}.__init__")
            for item in ast.walk(init.node) if init is not None else ():
                if isinstance(item, ast.Assign) and any(
                    _is_self_attribute(t, name) for t in item.targets
                ):
                    return self.expression(item.value, module, init)
        return None

    # -- calls ----------------------------------------------------------------------------
    def targets(self, call: ast.Call, function: Function | None, module: Module) -> set[str] | None:
        """The functions a call reaches (qualified names; empty: none of the repository's),
        None when undecided."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return self._called(self.expression(func, module, function))
        value = func.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
            and function is not None
            and function.cls is not None
        ):  # super().m(): the next class along the MRO defining it
            after = self.mro(function.cls)[1:]
            return next(
                ({f"{c}.{func.attr}"} for c in after if f"{c}.{func.attr}" in self.functions), set()
            )
        base = self.expression(value, module, function)
        if base is None:
            return None
        if base.kind == "module":
            return self._called(self.symbol(f"{base.name}.{func.attr}"))
        if base.kind not in ("inst", "class") or base.name not in self.classes:
            return set()  # a builtin's, an external class's or a container's method
        method = self.member(base.name, func.attr)
        if method is None:  # an attribute holding something callable
            return self._called(self.attribute(base.name, func.attr, base.kind == "inst"))
        first = function.node.args.args[:1] if function is not None else []
        if first and isinstance(value, ast.Name) and value.id == first[0].arg and function.cls:
            return {method, *self.overrides(base.name, func.attr)}  # self.m()
        return {method}

    def _called(self, found: Type | None) -> set[str] | None:
        if found is None or found.kind == "var":
            return None
        if found.kind in ("func", "method"):
            return {found.name}
        if found.kind == "class" or (found.kind == "inst" and found.name in self.classes):
            method = self.member(found.name, "__init__" if found.kind == "class" else "__call__")
            return {method} if method is not None else set()
        return set()


def imported(node: ast.Import | ast.ImportFrom, alias: ast.alias, package: str) -> str:
    """The qualified name an import binds (``import a.b``: ``a``; ``from . import x``:
    ``<package>.x``; ``from m import *``: ``m``)."""
    if isinstance(node, ast.Import):
        return alias.name if alias.asname else alias.name.split(".")[0]
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([p for p in parts if p] + ([node.module] if node.module else []))
    return base if alias.name == "*" else f"{base}.{alias.name}"


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's body or a module, nested functions' bodies left out (a
    def's decorators and defaults are evaluated where it is)."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            stack += [*node.decorator_list, *node.args.defaults]
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _folders(package: str) -> list[str]:
    """The packages holding a module, the closest first (``a.b`` -> ``a.b``, ``a``)."""
    parts = package.split(".") if package else []
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def _is_self_attribute(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )
