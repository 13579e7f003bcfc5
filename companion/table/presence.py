"""Who holds a live stream right now, per table (in memory, per server process).

``enter(code, role)`` when a browser opens ``/t/<code>/events`` with a seat credential, ``leave``
when that stream ends; ``connected(code)`` answers role -> open streams. Every change (and every
seat claim or re-issue, through ``bump``) increases the table's ``epoch``, and wakes whoever
waits for it: the streams send ``event: seats`` / ``data: <epoch>`` so the host page refreshes its
seat list. Anonymous listeners (the public board screen) are not counted.

Waking: ``subscribe(callback)`` registers ``callback(code, epoch)`` (called in the thread that made
the change; keep it short), and ``wait(code, epoch, timeout)`` blocks a thread until the epoch
moves past ``epoch``. Both work for a threaded or an async server (an async server subscribes a
callback that hands over to its loop with ``call_soon_threadsafe``).
"""
from __future__ import annotations

import threading
from collections import defaultdict
from typing import Callable


class Presence:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._open: dict[str, dict[str, int]] = defaultdict(dict)
        self._epoch: dict[str, int] = defaultdict(int)
        self._subscribers: list[Callable[[str, int], None]] = []

    @staticmethod
    def _key(code: str) -> str:
        return (code or "").upper()

    # -- the contract ----------------------------------------------------------------------------
    def enter(self, code: str, role: str) -> int:
        """A stream for ``role`` opened at table ``code``; returns the new epoch."""
        code = self._key(code)
        with self._cond:
            roles = self._open[code]
            roles[role] = roles.get(role, 0) + 1
        return self.bump(code)

    def leave(self, code: str, role: str) -> int:
        """That stream ended (leaving more often than entering is harmless)."""
        code = self._key(code)
        with self._cond:
            roles = self._open[code]
            n = roles.get(role, 0) - 1
            if n > 0:
                roles[role] = n
            else:
                roles.pop(role, None)
        return self.bump(code)

    def connected(self, code: str) -> dict[str, int]:
        """role -> number of open streams (roles without one are absent)."""
        with self._cond:
            return dict(self._open.get(self._key(code), {}))

    def epoch(self, code: str) -> int:
        with self._cond:
            return self._epoch.get(self._key(code), 0)

    # -- additions -------------------------------------------------------------------------------
    def bump(self, code: str) -> int:
        """Something about the seats changed (a claim, a re-issue): wake every listener."""
        code = self._key(code)
        with self._cond:
            self._epoch[code] += 1
            epoch = self._epoch[code]
            self._cond.notify_all()
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(code, epoch)
            except Exception:  # noqa: BLE001 - a listener's fault must not break a join
                pass
        return epoch

    def subscribe(self, callback: Callable[[str, int], None]) -> None:
        with self._cond:
            self._subscribers.append(callback)

    def wait(self, code: str, epoch: int, timeout: float) -> int:
        """Block until the table's epoch differs from ``epoch`` (or ``timeout`` seconds); returns it."""
        code = self._key(code)
        with self._cond:
            self._cond.wait_for(lambda: self._epoch.get(code, 0) != epoch, timeout)
            return self._epoch.get(code, 0)
