"""Which project a server database URL means, and the PostgreSQL schema that holds it.

One PostgreSQL database can hold many projects: each lives in its own schema (``kg_<name>_
<hash>``), so items, sessions, checkpoints and code graphs of two repositories never mix
and every query stays unchanged (the connection's ``search_path`` is the project's schema).

The project comes from the URL's ``project`` parameter when it has one; else from
``KGRAPH_PROJECT``; else from the clone itself: its ``origin`` remote (so two developers'
clones of one repository share one memory, wherever they live on disk), else the name of
its folder. Standard library only (the hooks resolve it on every call).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

PROJECT_ENV_VAR = "KGRAPH_PROJECT"
PROJECT_PARAM = "project"
DEFAULT_PROJECT = "default"  # a server URL without a project (only a library caller gives one)
_SLUG = re.compile(r"[^a-z0-9]+")
_REMOTE = re.compile(r'^\s*\[remote\s+"origin"\]\s*$')
_SECTION = re.compile(r"^\s*\[")
_URL_LINE = re.compile(r"^\s*url\s*=\s*(.+?)\s*$")


def _git_config(root: Path) -> Path | None:
    """The config file of the repository at ``root`` (a worktree's ``.git`` file followed)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git / "config"
    try:
        text = dot_git.read_text(encoding="utf-8")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (root / text[len("gitdir:") :].strip()).resolve()
    common = git_dir / "commondir"
    if common.is_file():
        git_dir = (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
    return git_dir / "config"


def origin_url(root: Path) -> str | None:
    """The ``origin`` remote's URL of the clone at ``root`` (read from its config file)."""
    config = _git_config(root)
    if config is None:
        return None
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    inside = False
    for line in lines:
        if _REMOTE.match(line):
            inside = True
        elif _SECTION.match(line):
            inside = False
        elif inside and (found := _URL_LINE.match(line)):
            return found.group(1)
    return None


def normalise_remote(url: str) -> str:
    """``git@host:org/repo.git``, ``https://user@host/org/repo`` -> ``host/org/repo``."""
    text = url.strip()
    scheme = re.match(r"^[a-z+]+://", text)
    text = text[scheme.end() :] if scheme else text
    text = text.split("@", 1)[-1]
    if not scheme and ":" in text and "/" not in text.split(":", 1)[0]:  # host:org/repo
        host, rest = text.split(":", 1)
        text = f"{host}/{rest.lstrip('/')}"
    text = text.rstrip("/")
    if text.endswith(".git"):
        text = text[:-4]
    return text.lower()


def project_id(root: Path, environ: Mapping[str, str]) -> str:
    """The project a clone at ``root`` belongs to (see the module docstring)."""
    explicit = environ.get(PROJECT_ENV_VAR, "").strip()
    if explicit:
        return explicit
    remote = origin_url(root)
    if remote:
        return normalise_remote(remote)
    return root.name or "default"


def split_project(url: str) -> tuple[str, str | None]:
    """``url`` without its ``project`` parameter, and that parameter (None when absent)."""
    if "?" not in url:
        return url, None
    base, query = url.split("?", 1)
    pairs = parse_qsl(query, keep_blank_values=True)
    project = next((v for k, v in pairs if k == PROJECT_PARAM), None)
    rest = [(k, v) for k, v in pairs if k != PROJECT_PARAM]
    return (f"{base}?{urlencode(rest, safe='/')}" if rest else base), project


def with_project(url: str, root: Path, environ: Mapping[str, str]) -> str:
    """``url`` with a ``project`` parameter: its own, else the one of the clone at ``root``."""
    if split_project(url)[1]:
        return url
    separator = "&" if "?" in url else "?"
    return f"{url}{separator}{urlencode({PROJECT_PARAM: project_id(root, environ)})}"


def schema_name(project: str) -> str:
    """The PostgreSQL schema of ``project``: readable, unique, within 63 bytes."""
    import hashlib  # loads OpenSSL: not at import, which every hook pays

    slug = _SLUG.sub("_", project.lower()).strip("_")[-40:].strip("_")
    digest = hashlib.sha1(project.encode("utf-8")).hexdigest()[:10]
    return f"kg_{slug}_{digest}" if slug else f"kg_{digest}"


def project_schema(url: str) -> str:
    """The schema a PostgreSQL URL's project lives in."""
    return schema_name(split_project(url)[1] or DEFAULT_PROJECT)
