"""Who is connected: open live streams per table and seat, in this process.

``enter``/``leave`` are called when a seat's live stream opens and closes; ``bump`` when seat
claims change (a phone joined a seat). Each of them increases the table's epoch and calls every
subscriber with ``(code, epoch)`` so the open streams can send ``event: seats``.
Thread-safe: streams run on the event loop, joins in worker threads.
"""
from __future__ import annotations

import threading
from collections import defaultdict
from typing import Callable


class Presence:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[str, dict[str, int]] = defaultdict(dict)
        self._epoch: dict[str, int] = defaultdict(int)
        self._subscribers: list[Callable[[str, int], None]] = []

    def subscribe(self, callback: Callable[[str, int], None]) -> None:
        """``callback(code, epoch)`` after every change (called in the changing thread)."""
        self._subscribers.append(callback)

    def _changed(self, code: str) -> None:
        self._epoch[code] += 1
        epoch = self._epoch[code]
        return epoch

    def _publish(self, code: str, epoch: int) -> None:
        for cb in list(self._subscribers):
            cb(code, epoch)

    def enter(self, code: str, role: str) -> None:
        code = code.upper()
        with self._lock:
            seats = self._open[code]
            seats[role] = seats.get(role, 0) + 1
            epoch = self._changed(code)
        self._publish(code, epoch)

    def leave(self, code: str, role: str) -> None:
        code = code.upper()
        with self._lock:
            seats = self._open.get(code, {})
            if seats.get(role, 0) <= 1:
                seats.pop(role, None)
            else:
                seats[role] -= 1
            if not seats:
                self._open.pop(code, None)
            epoch = self._changed(code)
        self._publish(code, epoch)

    def bump(self, code: str) -> None:
        """Seat claims changed (someone joined or a seat was re-issued)."""
        code = code.upper()
        with self._lock:
            epoch = self._changed(code)
        self._publish(code, epoch)

    def connected(self, code: str) -> dict[str, int]:
        with self._lock:
            return dict(self._open.get(code.upper(), {}))

    def epoch(self, code: str) -> int:
        with self._lock:
            return self._epoch.get(code.upper(), 0)
