"""Opening a store: which backend a file path or URL names.

The backends import ``base``; this module imports the backends (PostgreSQL's only when a
``postgresql://`` URL asks for it, so psycopg stays optional), and it is what ``Store(target)``
asks for its backend class.
"""
from __future__ import annotations

from .base import Store


def _is_url(target) -> bool:
    return isinstance(target, str) and "://" in target


def backend_class(target) -> type[Store]:
    if _is_url(target):
        scheme = target.split("://", 1)[0].lower()
        if scheme in ("postgresql", "postgres"):
            from .postgres import PostgresStore
            return PostgresStore
        if scheme == "sqlite":
            from .sqlite import SQLiteStore
            return SQLiteStore
        raise ValueError(f"Unknown database {target!r}: use a file path, sqlite:///path or postgresql://...")
    from .sqlite import SQLiteStore
    return SQLiteStore


def open_store(url_or_path, **options) -> Store:
    """The store at a file path (SQLite), ``sqlite:///path`` or ``postgresql://...``."""
    return Store(url_or_path, **options)


Store._pick_backend = staticmethod(backend_class)
