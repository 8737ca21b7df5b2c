"""The names of a function, for ``scripts/python_callers.py``: what each binding of a name
gives (parameters, assignments, imports, ``with``, ``for``), and the pytest fixture a
parameter of a test (or of a fixture) is bound to.

A fixture is found as pytest finds it: in the classes holding the test (innermost first),
its module (defined or imported there), then the ``conftest.py`` files from its folder up
to the repository's root; ``@pytest.fixture(name=...)`` renames; a fixture asking for its
own name gets the one further out. Its type is its return annotation (``Iterator[T]`` of
a yield fixture: ``T``), or else the one type all its ``return``s (or ``yield``s) give.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterator

from python_callers import Function, FunctionNode, Reader, Type, imported, own_nodes

_FIXTURES = {"pytest.fixture", "fixture", "pytest_asyncio.fixture"}


def local_type(
    reader: Reader, function: Function, name: str, line: int
) -> tuple[bool, Type | None]:
    """(whether ``function`` binds ``name``, the type it has at ``line``): its last
    binding above that line's (``x = x.copy()`` reads the one before), or with none above
    (a loop's, a comprehension's) the one type all its bindings agree on."""
    bindings = sorted(_bindings(function, name), key=lambda b: b[0])
    if not bindings:
        return False, None
    above = [node for at, node in bindings if at < line]
    key = (function.qname, name, id(above[-1]) if above else 0)
    if key not in reader.cache:
        reader.cache[key] = None  # a binding reading itself: undecided
        if above:
            found = _binding(reader, function, above[-1])
        else:
            types = {_binding(reader, function, node) for _at, node in bindings}
            found = types.pop() if len(types) == 1 else None
        reader.cache[key] = found
    return True, reader.cache[key]


def _bindings(function: Function, name: str) -> Iterator[tuple[int, ast.AST]]:
    """(line, node) of every binding of ``name`` in a function (a parameter's: the def's
    line; an unpacking's: ``ast.Pass``, undecided; an import's: an ``ast.alias`` of the
    qualified name)."""
    args = function.node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.arg == name:
            yield function.node.lineno, arg
    for node in own_nodes(function.node):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.For | ast.AsyncFor | ast.NamedExpr):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                yield node.lineno, node
            elif any(name in _names(t) for t in targets):
                yield node.lineno, ast.Pass()
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[0]) == name:
                    qualified = imported(node, alias, function.module.package)
                    yield node.lineno, ast.alias(qualified)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            if name in _names(node.optional_vars):
                yield node.context_expr.lineno, node
        elif isinstance(node, ast.comprehension) and name in _names(node.target):
            yield node.iter.lineno, node


def _binding(reader: Reader, function: Function, node: ast.AST) -> Type | None:
    module = function.module
    if isinstance(node, ast.arg):
        return _parameter(reader, function, node)
    if isinstance(node, ast.alias):
        return reader.symbol(node.name) or Type("external", node.name)
    if isinstance(node, ast.AnnAssign):
        return reader.annotation(node.annotation, module, function.cls)
    if isinstance(node, ast.Assign | ast.NamedExpr):
        return reader.expression(node.value, module, function)
    if isinstance(node, ast.withitem):
        manager = reader.expression(node.context_expr, module, function)
        if manager is not None and manager.kind == "cm":
            return Type("inst", manager.name)
        if manager is not None and manager.kind == "inst" and manager.name in reader.classes:
            for enter in ("__enter__", "__aenter__"):
                method = reader.member(manager.name, enter)
                if method is not None:
                    return reader.returns(method, manager.name)
        return None
    if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        return _element(reader, reader.expression(node.iter, module, function))
    return None


def _element(reader: Reader, found: Type | None) -> Type | None:
    """What iterating a value gives: a container's items, or what an instance's
    ``__iter__`` is annotated to iterate."""
    if found is not None and found.kind == "items":
        return Type("inst", found.name)
    if found is not None and found.kind == "inst" and found.name in reader.classes:
        method = reader.member(found.name, "__iter__")
        iterated = reader.returns(method, found.name) if method is not None else None
        return Type("inst", iterated.name) if iterated and iterated.kind == "items" else None
    return None


def _parameter(reader: Reader, function: Function, arg: ast.arg) -> Type | None:
    args = function.node.args
    decorators = {ast.unparse(d) for d in function.node.decorator_list}
    first = [*args.posonlyargs, *args.args][:1]
    if function.cls is not None and first and first[0] is arg and "staticmethod" not in decorators:
        return Type("class" if "classmethod" in decorators else "inst", function.cls)
    if arg.annotation is not None:
        return reader.annotation(arg.annotation, function.module, function.cls)
    return fixture_type(reader, function, arg.arg)


def _names(target: ast.AST) -> set[str]:
    """The names a binding target binds (``a``, ``a, (b, *c)``; not ``a.x`` nor ``a[0]``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return {name for item in target.elts for name in _names(item)}
    return set()


# -- pytest fixtures -----------------------------------------------------------------------
def fixture_name(node: FunctionNode) -> str | None:
    """The name of the fixture a def defines, None when it is no fixture."""
    for decorator in node.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if ast.unparse(call.func if call is not None else decorator) not in _FIXTURES:
            continue
        for keyword in call.keywords if call is not None else []:
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
        return node.name
    return None


def _bound_by_pytest(function: Function) -> bool:
    """A fixture, or a test (``test*`` in ``test_*.py``/``*_test.py``, at module level or
    in ``Test*`` classes)."""
    if fixture_name(function.node) is not None:
        return True
    base = posixpath.basename(function.module.path)
    classes = (function.cls or "").removeprefix(function.module.name).strip(".")
    return (
        (base.startswith("test_") or base.endswith("_test.py"))
        and function.node.name.startswith("test")
        and all(c.startswith("Test") for c in classes.split(".") if c)
    )


def _candidates(reader: Reader, function: Function, name: str) -> Iterator[Function]:
    """The fixtures named ``name`` visible from ``function``, the closest first."""
    owner = function.cls
    while owner in reader.classes:
        for node in reversed(reader.classes[owner][0].body):  # the last definition wins
            if isinstance(node, FunctionNode) and fixture_name(node) == name:
                yield reader.functions[f"{owner}.{node.name}"]
        owner = owner.rpartition(".")[0]
    modules = [function.module]
    folder = posixpath.dirname(function.module.path)
    while True:
        conftest = posixpath.join(folder, "conftest.py")
        modules += [m for m in reader.modules.values() if m.path == conftest and m not in modules]
        if not folder:
            break
        folder = posixpath.dirname(folder)
    for module in modules:
        for node in reversed(module.tree.body):
            if isinstance(node, FunctionNode) and fixture_name(node) == name:
                yield reader.functions[f"{module.name}.{node.name}"]
        target = reader.functions.get(module.imports.get(name, ""))
        if target is not None and fixture_name(target.node) == name:
            yield target


def fixture_type(reader: Reader, function: Function, name: str) -> Type | None:
    """The type of what pytest passes for parameter ``name`` of ``function`` (None: no
    fixture, or its type is not written down)."""
    if not _bound_by_pytest(function):
        return None
    candidates = list(_candidates(reader, function, name))
    if fixture_name(function.node) == name and function in candidates:  # overrides one
        candidates = candidates[candidates.index(function) + 1 :]
    if not candidates:
        return None
    fixture = candidates[0]
    key = ("fixture", fixture.qname)
    if key not in reader.cache:
        reader.cache[key] = None  # a fixture asking for itself, through others
        reader.cache[key] = _fixture_value(reader, fixture)
    return reader.cache[key]


def _fixture_value(reader: Reader, fixture: Function) -> Type | None:
    declared = reader.annotation(fixture.node.returns, fixture.module, fixture.cls)
    nodes = list(own_nodes(fixture.node))
    yields = [n for n in nodes if isinstance(n, ast.Yield | ast.YieldFrom)]
    if declared is not None:
        if yields:
            return Type("inst", declared.name) if declared.kind == "items" else None
        return declared
    if yields:
        values = [n.value for n in yields if isinstance(n, ast.Yield) and n.value is not None]
    else:
        values = [n.value for n in nodes if isinstance(n, ast.Return) and n.value is not None]
    types = {reader.expression(v, fixture.module, fixture) for v in values}
    return types.pop() if len(types) == 1 else None
