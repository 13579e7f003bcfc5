"""The SQLite store's file: the start-up check, salvage of a damaged file, and backups.

At start-up the file is checked (``PRAGMA quick_check``); a damaged or foreign file is moved
aside (never deleted), the tables that can still be read are copied into a fresh store, and
``report`` says so in one sentence. A WAL journal whose checksums break before committed
transactions (which SQLite would drop without a word) is kept aside and reported. A timestamped
copy (SQLite's online backup) is taken at start-up and on export, kept ``keep_backups`` deep in
``<data>/backups``.

``SQLiteFiles`` is mixed into ``SQLiteStore`` and works through its connections
(``_read``, ``_connect``, ``_ensure_schema``, ``_bump_head``) and settings (``path``,
``backup_dir``, ``keep_backups``, ``busy_timeout``, ``report``).
"""
from __future__ import annotations

import datetime as _dt
import os
import sqlite3
import threading
import time
from pathlib import Path

from . import sqlite_recover as recover
from .base import StorageUnavailable, log

EXPECTED_COLUMNS = {
    "tables": {"code", "created", "config"},
    "seats": {"token_hash", "table_code", "role", "active", "claimed", "issued"},
    "events": {"table_code", "seq", "seat", "type", "payload", "ts", "secret_for", "summary"},
}


def fault_message(exc: sqlite3.Error) -> str:
    """One sentence for a player (and the host reading over their shoulder)."""
    text = str(exc).lower()
    code = getattr(exc, "sqlite_errorcode", None)
    if "full" in text or code == 13:
        return ("The host laptop's disk is full, so the entry was not saved: free some disk space "
                "on it, then tap Retry.")
    if "readonly" in text or "read-only" in text or code in (8,):
        return ("The table's data folder is read-only, so the entry was not saved: let the server "
                "write to its data folder again, then tap Retry.")
    if "locked" in text or "busy" in text or code in (5, 6):
        return "The table's storage is busy (another program holds it): tap Retry in a moment."
    if "malformed" in text or "not a database" in text or code in (11, 26):
        return ("The table's storage file is damaged: restart the server to check and repair it "
                "(a backup is in the data folder).")
    if "unable to open" in text or code == 14:
        return ("The server cannot open the table's storage file (was the data folder moved, "
                "renamed or made read-only?): fix that, then tap Retry.")
    return "The table's storage could not be used just now (disk error): tap Retry in a moment."


def read_only_uri(path: str) -> str:
    """``file:`` URI opening ``path`` read-only (spaces, ``?`` and ``#`` in folder names escaped)."""
    return Path(path).resolve().as_uri() + "?mode=ro"


def _stamp() -> str:
    return _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")


class SQLiteFiles:
    """Backups, the start-up check and salvage of ``SQLiteStore`` (see the module's docstring)."""

    # -- backups ---------------------------------------------------------------------------------
    def _has_tables(self) -> bool:
        return self._read("SELECT 1 FROM tables LIMIT 1", one=True) is not None

    def backup(self, reason: str = "manual") -> str | None:
        """A consistent copy of the whole store through SQLite's online backup, while the server
        keeps serving. Only the ``keep_backups`` newest copies are kept."""
        if self.keep_backups <= 0:
            return None
        self.backup_dir.mkdir(parents=True, exist_ok=True)
        final = self.backup_dir / f"companion-{_stamp()}-{reason}.sqlite3"
        part = final.with_suffix(".part")
        src = None
        try:
            src = sqlite3.connect(self.path, timeout=self.busy_timeout)
            dst = sqlite3.connect(str(part))
            try:
                src.backup(dst)
            finally:
                dst.close()
            os.replace(part, final)
        except sqlite3.Error as exc:
            part.unlink(missing_ok=True)
            raise StorageUnavailable(fault_message(exc)) from exc
        finally:
            if src is not None:
                src.close()
        self._rotate()
        return str(final)

    def backup_soon(self, reason: str = "export", min_interval: float = 60.0) -> None:
        """A backup in the background, at most one per ``min_interval`` seconds (exports)."""
        now = time.monotonic()
        if now - self._last_export_backup < min_interval:
            return
        self._last_export_backup = now

        def run():
            try:
                self.backup(reason)
            except (StorageUnavailable, OSError) as exc:
                log.warning("backup on %s failed: %s", reason, exc)
        threading.Thread(target=run, name="store-backup", daemon=True).start()

    def backups(self) -> list[Path]:
        if not self.backup_dir.is_dir():
            return []
        return sorted(self.backup_dir.glob("companion-*.sqlite3"))

    def _rotate(self) -> None:
        for old in self.backups()[:-self.keep_backups]:
            try:
                old.unlink()
            except OSError:
                pass

    # -- start-up check and salvage --------------------------------------------------------------
    def _check_at_start(self) -> None:
        path = Path(self.path)
        if not path.exists() or path.stat().st_size == 0:
            return
        lost = wal_damage(self.path + "-wal")
        if lost:  # SQLite would drop these committed transactions without a word: say so, keep a copy
            import shutil
            kept = f"{self.path}-wal.damaged-{_stamp()}"
            shutil.copyfile(self.path + "-wal", kept)
            count = "some of the" if lost < 0 else f"the last {lost}"
            self.report.append(
                f"The store's journal {path.name}-wal is damaged, so {count} saved change(s) "
                f"before the server stopped could not be read back and those entries are missing; a copy of "
                f"the journal is kept as {kept}, and the latest backup or the tables' exports have them.")
        verdict = self._verdict()
        if verdict is None:
            return
        kind, detail = verdict
        aside = path.with_name(f"{path.name}.{kind}-{_stamp()}")
        for suffix in ("", "-wal", "-shm"):
            src = Path(self.path + suffix)
            if src.exists():
                os.replace(src, str(aside) + suffix)
        latest = self.backups()
        hint = ""
        if latest:  # kept out of the rotation, so later start-up backups never push it out
            kept = self.backup_dir / f"kept-{latest[-1].name}"
            try:
                import shutil
                shutil.copyfile(latest[-1], kept)
                hint = f" The newest backup from before the damage is {kept}."
            except OSError:
                hint = f" The newest backup is {latest[-1]}."
        self._damaged_at_start = True
        if kind == "foreign":
            self.report.append(
                f"{path} is not a Dune Table Companion store ({detail}): it was moved aside to {aside} "
                f"untouched and a new, empty store was started.")
            return
        backs, lost = self._recover(str(aside))
        self.recovery.update({b.code: recover.sentence(b) for b in backs})
        told = "; ".join(f"{b.code} {len(b.events)} entries from {b.source}" for b in backs[:12])
        told += "; ..." if len(backs) > 12 else ""
        lost_text = (f"; {len(lost)} could not be read at all ({', '.join(lost[:10])}"
                     f"{', ...' if len(lost) > 10 else ''}) and are missing" if lost else "")
        self.report.append(
            f"The store {path} was damaged ({detail}): {len(backs)} table(s) came back and are served "
            f"({told or 'none'}){lost_text}; the damaged file is kept as {aside}, and a missing table or entry "
            f"comes back by importing the table's export.{hint}")

    def _looks_ours(self) -> bool:
        """An SQLite header, or (a header overwritten) our schema's text in the file, or our own
        backups beside it: a store of ours that is damaged, not another program's file."""
        try:
            with open(self.path, "rb") as f:
                head = f.read(1 << 20)
        except OSError:
            return False
        if head.startswith(b"SQLite format 3\0") or b"table_code TEXT NOT NULL REFERENCES tables(code)" in head:
            return True
        return bool(self.backups()) and b"SQLite format 3\0" not in head[:16] and not head[:200].isascii()

    def _verdict(self):
        """None if the file is a sound store; else ('damaged' | 'foreign', what is wrong). Transient
        troubles (locked, read-only, permissions) are not damage: the file is left alone."""
        try:
            conn = sqlite3.connect(read_only_uri(self.path), uri=True, timeout=self.busy_timeout)
        except sqlite3.Error:
            return None
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
            if [tuple(r) for r in rows] != [("ok",)]:
                return "damaged", "; ".join(str(r[0]) for r in rows[:3])
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            for table, cols in EXPECTED_COLUMNS.items():
                if table in names:
                    have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
                    if not cols <= have:
                        return "foreign", f"its {table!r} table is not ours"
                elif names - {"sqlite_sequence", "sqlite_stat1"} and not names & set(EXPECTED_COLUMNS):
                    return "foreign", "it holds another program's tables"
            return None
        except sqlite3.DatabaseError as exc:
            text = str(exc).lower()
            if "not a database" in text or "encrypted" in text:
                if self._looks_ours():
                    return "damaged", str(exc)
                return "foreign", "it is not an SQLite database"
            if "malformed" in text or "corrupt" in text:
                return "damaged", str(exc)
            return None  # locked, I/O, read-only: a fault to report later, not damage
        finally:
            conn.close()

    def _recover(self, damaged: str):
        """Every table that can be read back from the damaged file (or the newest backup holding
        it) into a fresh store (``sqlite_recover``). Returns (tables back, codes that are not)."""
        work = damaged + ".salvage"
        found = recover.Found()
        try:
            copy_padded(damaged, work)
            recover.repair_header(work, self.backups())
            copy_padded(work, work + ".padded")   # a header repaired: pad to the size it declares
            os.replace(work + ".padded", work)
            recover.read_with_cli(work, found)
            recover.read_all(work, found)
        except OSError as exc:
            log.warning("store %s: the damaged file could not be read (%s)", damaged, exc)
        finally:
            for suffix in ("", "-wal", "-shm", ".padded-wal"):
                Path(work + suffix).unlink(missing_ok=True)
        olds = []
        for b in self.backups():
            one = recover.Found()
            recover.read_all(str(b), one)
            olds.append((b.name, one))
        backs, lost = recover.choose(found, olds)
        self._ensure_schema()
        new = self._connect()
        try:
            for b in backs:
                new.execute("BEGIN IMMEDIATE")
                new.execute("INSERT INTO tables(code, created, config) VALUES (?,?,?)", tuple(b.table))
                new.executemany("INSERT INTO seats VALUES (?,?,?,?,?,?)", b.seats)
                new.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?)", b.events)
                if b.events:
                    self._bump_head(new, b.code, b.events[-1][1])
                new.execute("COMMIT")
        finally:
            new.close()
        return backs, lost


def copy_padded(src: str, dst: str) -> None:
    """Copy a database file (and its WAL) for salvage. A truncated file is padded with zeros up to
    the size its header declares, so SQLite reads every page that is still there instead of
    refusing the whole file."""
    import shutil
    shutil.copyfile(src, dst)
    if os.path.exists(src + "-wal"):
        shutil.copyfile(src + "-wal", dst + "-wal")
    with open(dst, "r+b") as f:
        header = f.read(100)
        if len(header) < 100 or not header.startswith(b"SQLite format 3\0"):
            return
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        size = os.fstat(f.fileno()).st_size
        if page_size and pages and size < page_size * pages:
            f.truncate(page_size * pages)


def wal_damage(wal: str) -> int:
    """How many committed transactions in a WAL file SQLite would silently skip because a frame
    before them (or the file's header) fails its checksum (0: none; -1: some, how many unknown). Frames of an unfinished transaction (no commit frame
    after them, e.g. a crash mid-write that was never acknowledged) are not counted."""
    import struct
    try:
        with open(wal, "rb") as f:
            data = f.read()
    except OSError:
        return 0
    if len(data) < 32:
        return 0
    magic, _version, page_size, _ckpt = struct.unpack(">IIII", data[:16])
    if magic not in (0x377F0682, 0x377F0683) or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
        # no valid header: SQLite ignores the whole file. Empty of frames, nothing is lost; with
        # frames in it (a header overwritten), every change it held is (how many: unknown)
        return -1 if len(data) >= 32 + 24 + 512 and any(data[32:]) else 0
    order = ">" if magic & 1 else "<"
    salts = data[16:24]

    def checksum(chunk: bytes, s0: int, s1: int) -> tuple[int, int]:
        words = struct.unpack(f"{order}{len(chunk) // 4}I", chunk)
        for i in range(0, len(words), 2):
            s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
            s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
        return s0, s1

    s0, s1 = checksum(data[:24], 0, 0)
    if (s0, s1) != struct.unpack(">II", data[24:32]):  # a broken header: SQLite skips every frame
        frame, commits = 24 + page_size, 0
        for offset in range(32, len(data) - frame + 1, frame):
            if data[offset + 8:offset + 16] == salts and struct.unpack(">I", data[offset + 4:offset + 8])[0]:
                commits += 1
        return commits or (-1 if len(data) >= 32 + frame else 0)
    frame = 24 + page_size
    offset, broken = 32, False
    skipped_commits = 0
    while offset + frame <= len(data):
        header = data[offset:offset + 24]
        if header[8:16] != salts:
            break  # frames left over from an earlier round of the journal: its normal end
        commit = struct.unpack(">I", header[4:8])[0] != 0
        if not broken:
            s0, s1 = checksum(header[:8], s0, s1)
            s0, s1 = checksum(data[offset + 24:offset + frame], s0, s1)
            if (s0, s1) != struct.unpack(">II", header[16:24]):
                broken = True
        if broken and commit:
            skipped_commits += 1
        offset += frame
    return skipped_commits

