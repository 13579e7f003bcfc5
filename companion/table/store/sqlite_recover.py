"""Recovery of a damaged SQLite store, table by table.

Every table and entry SQLite can still read is read back from the damaged file: through the
``sqlite3`` command's ``.recover`` (Debian's ``sqlite3`` package) where it is installed, and row
by row in any case (a damaged page costs only its own rows). A table comes back with its settings,
its credentials and its entries numbered 1, 2, 3... up to the first one that cannot be read; when
the newest backup holding that table has more of it (or the damaged file has nothing of it), the
backup's entries are used, topped up with any later entries the damaged file still holds (entries
are append-only: entry n is the same entry in both). ``recover`` says, per table, how many entries
came back and from where.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .base import StorageUnavailable, check_config, check_row

COLUMNS = {
    "tables": "code, created, config",
    "seats": "token_hash, table_code, role, active, claimed, issued",
    "events": "table_code, seq, seat, type, payload, ts, secret_for, summary",
    "heads": "table_code, seq, tick",
}
EVENT_KEYS = ("table_code", "seq", "seat", "type", "payload", "ts", "secret_for", "summary")
CLI_TIMEOUT = 120  # seconds the sqlite3 command may take over one file


@dataclass
class Found:
    """What one source holds, by table."""
    tables: dict = field(default_factory=dict)   # code -> (code, created, config)
    seats: dict = field(default_factory=dict)    # code -> {token_hash: row}
    events: dict = field(default_factory=dict)   # code -> {seq: row}
    heads: dict = field(default_factory=dict)    # code -> recorded latest seq

    def add(self, table: str, row: tuple) -> None:
        if table == "tables":
            if isinstance(row[0], str) and _config_ok(row[0], row[2]):
                self.tables.setdefault(row[0], tuple(row))
        elif table == "seats":
            if isinstance(row[1], str) and isinstance(row[0], str):
                self.seats.setdefault(row[1], {}).setdefault(row[0], tuple(row))
        elif table == "events":
            if isinstance(row[0], str) and isinstance(row[1], int) and _event_ok(row):
                self.events.setdefault(row[0], {}).setdefault(row[1], tuple(row))
        elif table == "heads" and isinstance(row[0], str) and isinstance(row[1], int):
            self.heads[row[0]] = max(self.heads.get(row[0], 0), row[1])


def _config_ok(code, config) -> bool:
    try:
        check_config(code, config)
        return True
    except (StorageUnavailable, ValueError, TypeError):
        return False


def _event_ok(row) -> bool:
    try:
        check_row(row[0], dict(zip(EVENT_KEYS, row)))
        return True
    except (StorageUnavailable, ValueError, TypeError, KeyError):
        return False


def read_rows(conn: sqlite3.Connection, table: str, into: Found, give_up_after: int = 5000) -> None:
    """Every row of ``table`` that can still be read, one rowid at a time."""
    try:
        top = conn.execute(f"SELECT MAX(rowid) FROM {table}").fetchone()[0]
    except sqlite3.Error:
        top = None
    misses, rowid = 0, 0
    while (top is not None and rowid < top) or (top is None and misses < give_up_after):
        rowid += 1
        try:
            row = conn.execute(f"SELECT {COLUMNS[table]} FROM {table} WHERE rowid=?", (rowid,)).fetchone()
        except sqlite3.Error:
            row = None
        if row is None:
            misses += 1
        else:
            misses = 0
            into.add(table, tuple(row))


def read_all(path: str, into: Found) -> None:
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error:
        return
    try:
        for table in COLUMNS:
            read_rows(conn, table, into)
    finally:
        conn.close()


def read_with_cli(path: str, into: Found) -> bool:
    """Read ``path`` through ``sqlite3 path .recover`` (False when the command is not installed or fails)."""
    cli = shutil.which("sqlite3")
    if cli is None:
        return False
    out = path + ".recovered"
    try:
        dump = subprocess.run([cli, path, ".recover"], capture_output=True, timeout=CLI_TIMEOUT)
        if not dump.stdout:
            return False
        Path(out).unlink(missing_ok=True)
        subprocess.run([cli, out], input=dump.stdout, capture_output=True, timeout=CLI_TIMEOUT)
        if not os.path.exists(out):
            return False
        read_all(out, into)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(out + suffix).unlink(missing_ok=True)


def repair_header(work: str, backups: list[Path]) -> None:
    """A file whose first 100 bytes are not an SQLite header gets one (from the newest backup, else
    from a fresh empty database), so the pages behind it can be read."""
    with open(work, "rb") as f:
        if f.read(16) == b"SQLite format 3\0":
            return
    header = None
    for b in reversed(backups):
        try:
            with open(b, "rb") as f:
                header = f.read(100)
            if header.startswith(b"SQLite format 3\0"):
                break
        except OSError:
            header = None
    if header is None or not header.startswith(b"SQLite format 3\0"):
        blank = work + ".blank"
        conn = sqlite3.connect(blank)
        conn.execute("CREATE TABLE x(y)")
        conn.close()
        with open(blank, "rb") as f:
            header = f.read(100)
        Path(blank).unlink(missing_ok=True)
    header = header[:24] + b"\0\0\0\0" + header[28:]  # database size unknown: SQLite uses the file's
    with open(work, "r+b") as f:
        f.write(header)


@dataclass
class Back:
    """One table as it comes back: its rows and a few words on where they came from."""
    code: str
    table: tuple
    seats: list
    events: list
    source: str
    recorded: int | None   # the latest entry the damaged file recorded, when it says


def choose(damaged: Found, backups: list[tuple[str, Found]]) -> tuple[list[Back], list[str]]:
    """Per table, the most entries that come back: the damaged file's, else (or topped up with them)
    the newest backup holding it. Returns (tables that come back, codes that do not)."""
    codes = set(damaged.tables) | set(damaged.events) | set(damaged.seats)
    for _, found in backups:
        codes |= set(found.tables)
    out, lost = [], []
    for code in sorted(codes):
        backup_name, backup = next(((n, f) for n, f in reversed(backups) if code in f.tables), (None, None))
        events = dict(backup.events.get(code, {})) if backup else {}
        from_backup = len(_prefix(events))
        for seq, row in damaged.events.get(code, {}).items():
            events.setdefault(seq, row)
        rows = _prefix(events)
        mine = len(_prefix(damaged.events.get(code, {})))
        table = damaged.tables.get(code) or (backup.tables.get(code) if backup else None)
        seats = dict(backup.seats.get(code, {})) if backup else {}
        seats.update(damaged.seats.get(code, {}))  # the damaged file's credentials are the newer
        if table is None or not any(s[2] == "host" and s[3] for s in seats.values()):
            lost.append(code)
            continue
        if backup is None or mine >= len(rows):
            source = "the damaged file"
        elif mine == 0 or from_backup >= len(rows):
            source = f"the backup {backup_name}"
        else:
            source = f"the backup {backup_name} and the damaged file"
        recorded = damaged.heads.get(code)
        out.append(Back(code, table, list(seats.values()), rows, source, recorded))
    return out, lost


def _prefix(events: dict) -> list:
    rows, seq = [], 1
    while seq in events:
        rows.append(events[seq])
        seq += 1
    return rows


def sentence(b: Back) -> str:
    """What the host page says about a recovered table."""
    of = f" of the {b.recorded} it had" if b.recorded and b.recorded > len(b.events) else ""
    return (f"The store was damaged: {len(b.events)} entr{'y' if len(b.events) == 1 else 'ies'}{of} of this "
            f"table came back from {b.source}.")
