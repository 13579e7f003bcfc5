"""Writing a table's snapshot file: in the background, one write of a table at a time, each
through a temporary file of its own, and a write asked for earlier never replacing a later one
(two writers of one table once shared a temporary name, and the older fold ended up on disk)."""
from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger("companion.table.service")


def in_background(work, name: str) -> None:
    """Run ``work()`` on a daemon thread of its own (the snapshot writers; tests hold them here)."""
    threading.Thread(target=work, name=name, daemon=True).start()


def write_in_order(t, ticket: int, path: Path, doc: dict) -> None:
    """Write ``doc`` (its "state" a table's fold) to ``path`` as table ``t``'s write number
    ``ticket``, unless a later one is on disk already."""
    with t.snapshot_lock:
        if ticket < t.snapshot_done:  # a later fold is on disk already
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(doc)
            if json.loads(text)["state"] != doc["state"]:  # something JSON cannot carry: no snapshot
                log.warning("table %s: its state does not survive JSON; no snapshot", t.code)
                return
            tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(text, "utf-8")
            os.replace(tmp, path)
            t.snapshot_done = ticket
        except OSError as exc:
            log.warning("table %s: snapshot not written (%s)", t.code, exc)
