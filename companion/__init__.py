"""Dune Table Companion: a LAN companion for Dune (GF9 2019) tables playing the KISS rules."""
from __future__ import annotations

__version__ = "0.1.0"


def create_app(config: dict | None = None):
    """Flask app factory. Config keys: DATA_DIR (folder for the SQLite store and the search
    index), TESTING, PUBLIC_URL (address phones use, for the QR code), SECRET_KEY."""
    from .web.app import build_app

    return build_app(config)
