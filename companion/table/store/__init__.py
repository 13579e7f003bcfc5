"""Storage of tables, seat credentials and entries: one interface, two backends.

``from companion.table.store import Store, StaleWrite`` keeps working: ``Store(path)`` opens the
embedded SQLite store (the default, no setup), ``Store("postgresql://...")`` or
``open_store(url_or_path)`` the PostgreSQL one. See ``base.Store`` for the promises every
backend keeps, ``factory`` for which backend a path or URL names.
"""
from .base import AnswerTaken, StaleWrite, StorageUnavailable, Store, TableDamaged, token_hash
from .factory import backend_class, open_store
from .sqlite import SCHEMA, SQLiteStore

__all__ = ["AnswerTaken", "Store", "StaleWrite", "StorageUnavailable", "TableDamaged", "open_store", "backend_class",
           "token_hash", "SQLiteStore", "SCHEMA"]
