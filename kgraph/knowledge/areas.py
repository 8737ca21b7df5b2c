"""Code areas: which part of the project a file belongs to ("Testing", "Database", "API").

An ordered rule list maps repo-relative POSIX paths to an area; the first matching rule
wins. Patterns are gitignore-style globs: ``*`` and ``?`` stay inside one path segment,
``**`` spans segments, a pattern without ``/`` matches the file name at any depth, a
pattern containing ``/`` is anchored at the repository root, and a trailing ``/`` means
"everything under this folder" (``docs/`` is the top-level docs folder; ``**/docs/`` any).

A project adds its own rules (tried before the defaults) in ``.claude/kgraph.toml``::

    [areas]
    use_defaults = true          # keep the built-in rules after yours (default true)
    fallback = "directory"       # or a fixed area name such as "General"
    rules = [
      { pattern = "src/payments/", area = "Payments" },
      { pattern = "*.proto", area = "API" },
    ]

When nothing matches, ``fallback = "directory"`` names the area after the directory: the
second directory level when there are two or more (``kgraph/knowledge/store.py`` →
"Knowledge", ``src/billing/x.py`` → "Billing"), else the top directory, else "Root".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from kgraph.config import load_config, section
from kgraph.errors import InvalidValueError

# Ordered: the first match wins, so the specific rules (tests, migrations) come before the
# broad ones (*.md, api/).
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    ("tests/", "Testing"),
    ("**/tests/", "Testing"),
    ("**/test/", "Testing"),
    ("**/__tests__/", "Testing"),
    ("**/spec/", "Testing"),
    ("test_*.py", "Testing"),
    ("*_test.py", "Testing"),
    ("*_test.go", "Testing"),
    ("*.test.*", "Testing"),
    ("*.spec.*", "Testing"),
    ("conftest.py", "Testing"),
    (".github/", "CI/CD"),
    (".gitlab-ci.yml", "CI/CD"),
    (".circleci/", "CI/CD"),
    (".buildkite/", "CI/CD"),
    ("Jenkinsfile", "CI/CD"),
    ("ci/", "CI/CD"),
    ("**/migrations/", "Database"),
    ("**/alembic/", "Database"),
    ("alembic/", "Database"),
    ("*.sql", "Database"),
    ("**/db/", "Database"),
    ("**/database/", "Database"),
    ("**/docs/", "Documentation"),
    ("**/doc/", "Documentation"),
    ("*.md", "Documentation"),
    ("*.mdx", "Documentation"),
    ("*.markdown", "Documentation"),
    ("*.rst", "Documentation"),
    ("*.adoc", "Documentation"),
    ("**/api/", "API"),
    ("**/routes/", "API"),
    ("**/endpoints/", "API"),
    ("**/handlers/", "API"),
    ("**/controllers/", "API"),
    ("*.proto", "API"),
    ("**/cli/", "CLI"),
    ("**/commands/", "CLI"),
    ("**/cmd/", "CLI"),
    ("**/auth/", "Authentication"),
    ("**/components/", "Frontend"),
    ("**/pages/", "Frontend"),
    ("*.tsx", "Frontend"),
    ("*.jsx", "Frontend"),
    ("*.vue", "Frontend"),
    ("*.svelte", "Frontend"),
    ("*.css", "Frontend"),
    ("*.scss", "Frontend"),
    ("scripts/", "Scripts"),
    ("Dockerfile", "Build & Config"),
    ("docker-compose*.yml", "Build & Config"),
    ("Makefile", "Build & Config"),
    ("pyproject.toml", "Build & Config"),
    ("setup.py", "Build & Config"),
    ("setup.cfg", "Build & Config"),
    ("package.json", "Build & Config"),
    ("tsconfig*.json", "Build & Config"),
    ("Cargo.toml", "Build & Config"),
    ("go.mod", "Build & Config"),
    ("go.sum", "Build & Config"),
    ("*.lock", "Build & Config"),
    ("*-lock.json", "Build & Config"),
    ("*-lock.yaml", "Build & Config"),
    ("*.toml", "Build & Config"),
    ("*.ini", "Build & Config"),
    ("*.cfg", "Build & Config"),
    (".env*", "Build & Config"),
    (".claude/", "Claude Config"),
)

DIRECTORY_FALLBACK = "directory"
ROOT_AREA = "Root"
# Areas other code reads: "only documents changed" (kgraph.capture), and the files beside
# the code itself (kgraph.recall.file).
DOCUMENTATION = "Documentation"
TESTING = "Testing"
SUPPORTING_AREAS = frozenset({DOCUMENTATION, TESTING, "CI/CD", "Build & Config", "Claude Config"})
# Wrapper directories that say nothing about the area: look one level further.
_SOURCE_ROOTS = frozenset({"src", "lib", "app", "pkg", "packages", "internal", "source"})


@dataclass(frozen=True)
class AreaRules:
    """Ordered (pattern, area) rules plus the fallback ("directory" or a fixed name)."""

    rules: tuple[tuple[str, str], ...] = DEFAULT_RULES
    fallback: str = DIRECTORY_FALLBACK

    def match(self, path: str) -> str | None:
        """The area of the first rule matching ``path``, else None."""
        for pattern, area in self.rules:
            if _compile(pattern).match(path):
                return area
        return None


DEFAULT_AREA_RULES = AreaRules()


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    """A gitignore-style glob as a regex over a whole repo-relative path."""
    directory = pattern.endswith("/")
    body = pattern.strip("/")
    anchored = directory or "/" in body or pattern.startswith("/")
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    suffix = "/.*" if directory else ""
    return re.compile(prefix + "".join(out) + suffix + r"\Z")


def glob_match(pattern: str, path: str) -> bool:
    """True when the repo-relative ``path`` matches the gitignore-style ``pattern`` (the
    same syntax as the area rules: see the module docstring)."""
    return _compile(pattern).match(path) is not None


def normalise_path(path: str) -> str:
    """``path`` as a clean POSIX path (backslashes turned, ``./`` and ``a//b`` removed)."""
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return str(PurePosixPath(text)) if text else text


def relative_path(path: str, root: Path | None) -> str:
    """``path`` relative to the project ``root`` as POSIX (absolute paths outside stay as is)."""
    text = normalise_path(path)
    if root is not None and text.startswith("/"):
        try:
            return Path(text).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return text
    return text


def _directory_area(path: str) -> str:
    parts = PurePosixPath(path).parts[:-1]
    if parts and parts[0] == "/":
        parts = parts[1:]
    if not parts:
        return ROOT_AREA
    if len(parts) >= 2 or parts[0].lower() in _SOURCE_ROOTS:
        name = parts[1] if len(parts) >= 2 else parts[0]
    else:
        name = parts[0]
    name = name.lstrip(".").replace("_", " ").replace("-", " ").strip()
    return name[:1].upper() + name[1:] if name else ROOT_AREA


def infer_code_area(path: str, rules: AreaRules | None = None) -> str:
    """The code area of the repo-relative ``path`` (first matching rule, else the fallback)."""
    rules = rules or DEFAULT_AREA_RULES
    text = normalise_path(path)
    area = rules.match(text)
    if area is not None:
        return area
    if rules.fallback != DIRECTORY_FALLBACK:
        return rules.fallback
    return _directory_area(text)


def _parse_rules(value: Any, where: str) -> list[tuple[str, str]]:
    if value is None:
        return []
    pairs: list[tuple[str, str]] = []
    if isinstance(value, dict):  # rules = { "src/payments/" = "Payments" } (ordered)
        items: list[Any] = [{"pattern": k, "area": v} for k, v in value.items()]
    elif isinstance(value, list):
        items = value
    else:
        raise InvalidValueError(f"{where}: [areas] rules must be a list or a table")
    for item in items:
        if not isinstance(item, dict):
            raise InvalidValueError(f"{where}: each area rule needs pattern and area")
        pattern, area = item.get("pattern"), item.get("area")
        if not isinstance(pattern, str) or not isinstance(area, str) or not pattern or not area:
            raise InvalidValueError(f"{where}: each area rule needs pattern and area strings")
        pairs.append((pattern, area))
    return pairs


def load_area_rules(project_root: Path) -> AreaRules:
    """The area rules of the project at ``project_root`` (defaults plus ``[areas]``)."""
    config = section(load_config(project_root), "areas")
    if not config:
        return DEFAULT_AREA_RULES
    where = str(project_root / ".claude" / "kgraph.toml")
    custom = _parse_rules(config.get("rules"), where)
    use_defaults = config.get("use_defaults", True)
    if not isinstance(use_defaults, bool):
        raise InvalidValueError(f"{where}: [areas] use_defaults must be true or false")
    fallback = config.get("fallback", DIRECTORY_FALLBACK)
    if not isinstance(fallback, str) or not fallback:
        raise InvalidValueError(f"{where}: [areas] fallback must be a string")
    rules = tuple(custom) + (DEFAULT_RULES if use_defaults else ())
    return AreaRules(rules=rules, fallback=fallback)
