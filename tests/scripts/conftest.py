"""The measurement scripts are plain files in ``scripts/`` that import their siblings by
name (``python scripts/capture_eval.py`` puts that folder on ``sys.path``); tests do the same."""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))
