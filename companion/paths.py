"""Where things live: the per-user data folder, and the package's shipped folders."""
from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def default_data_dir() -> Path:
    """A per-user data folder: XDG on Linux, Application Support on macOS, APPDATA on Windows."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "dune-table-companion"


def shipped_dir(name: str) -> Path:
    """``templates`` or ``rules_corpus``: inside the installed package, or at the top of a checkout."""
    inside = PACKAGE / name
    if inside.is_dir():
        return inside
    return PACKAGE.parent / name
