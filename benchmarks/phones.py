"""A phone that does what the table page does (for bench_load.py ``--fetch phone``).

It reads the page the way a browser gets it and follows what the page itself says, so the model
follows the templates when they change:

- ``GET /t/CODE`` as a navigation (browser headers, ``Accept-Encoding: gzip, deflate, br``), then
  the live stream ``GET /t/CODE/events?since=REV`` as the page's ``sse-connect`` says;
- on each ``event: changed``, every element of the page whose ``hx-trigger`` lists ``sse:changed``
  fetches its ``hx-get`` with htmx's headers (``HX-Request``, ``HX-Target``, ``HX-Current-URL``),
  one request at a time per element, a trigger during a request queued once (htmx's default);
- when the page marks the revision it shows (``data-shown-revision`` in the view), a change the
  page already shows is not fetched again, and a change announced while the phone's own entry is
  on its way waits for that entry's answer (as static/app.js does);
- when the page listens to ``sse:view`` (its stream, ``?parts=view&have=…``, pushes the seat's
  view: companion/web/push.py), a pushed view is swapped as the page swaps it, with no request,
  held while its own entry is on its way, and fetched instead when it calls a part unchanged that
  the phone does not show (as static/refresh.js does);
- a tap is the page's form post: ``POST /t/CODE/act`` with ``HX-Request``, ``HX-Target: view`` and
  the CSRF header the page carries, answered by the fresh view, which the phone swaps in;
- a request for the view says which board part the page shows (``X-Have-Board``, as app.js does)
  and which parts (``X-Have-Parts``: the board, my panel),
  so an answer whose board is the same leaves it out.

Bodies are read as sent (``auto_decompress=False``) so the bytes transferred are counted, then
decoded here (gzip, deflate, br) to read the revision shown.
"""
from __future__ import annotations

import asyncio
import re
import time
import zlib
from urllib.parse import quote

import aiohttp

try:
    import brotli
except ImportError:  # pragma: no cover - then the phone does not offer br
    brotli = None

UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/126.0 Mobile Safari/537.36")
ENCODINGS = "gzip, deflate, br" if brotli else "gzip, deflate"
NAV = {"User-Agent": UA, "Accept-Encoding": ENCODINGS, "Accept-Language": "en-GB,en;q=0.9",
       "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
TAG = re.compile(rb"<([a-z]+)\b([^>]*)>", re.S)
ATTR = re.compile(rb'([a-zA-Z_:][-a-zA-Z0-9_:.]*)\s*=\s*(?:"([^"]*)"|\'([^\']*)\')')
SHOWN = re.compile(rb'data-shown-revision="(\d+)"')
BOARD = re.compile(rb'id="board" data-etag="([0-9a-f]{16})"')
PART = re.compile(rb'id="([a-z-]+)" data-etag="([0-9a-f]{16})"')  # every part the page keeps (board, my panel)
REV = re.compile(rb'class="muted rev"[^>]*>rev (\d+)<')
CSRF = re.compile(rb'"X-CSRF-Token":\s*"([^"]+)"|X-CSRF-Token&#34;:\s*&#34;([^&]+)&#34;')


async def read_changes(response, phone) -> None:
    """Read a live stream as the page's SSE extension does: ``retry:`` means connected, each
    ``changed`` event's revision goes to ``phone.changed``, each ``view`` event (a view pushed
    down a seat's stream) to ``phone.pushed`` with the bytes it took on the stream.

    Read in whatever chunks arrive and cut into events at their blank line, as a browser's own
    (native) EventSource parser does: not line by line in Python, which at 1,800 phones took the
    load generator a large share of a core that the servers on the same machine then lacked. The
    companion's streams end their lines with ``\\n`` only (companion/web/push.py ``sse_message``)."""
    buf = bytearray()
    while True:
        chunk = await response.content.readany()
        if not chunk:
            return
        buf += chunk
        start = 0
        while True:
            end = buf.find(b"\n\n", start)
            if end == -1:
                break
            sse_event(bytes(buf[start:end]), end + 2 - start, phone)
            start = end + 2
        if start:
            del buf[:start]


def sse_event(block: bytes, size: int, phone) -> None:
    """One server-sent event (its lines, without the blank line ending it)."""
    event, data = b"", []
    for line in block.split(b"\n"):
        if line.startswith(b"data:"):
            data.append(line[6:] if line[5:6] == b" " else line[5:])
        elif line.startswith(b"event:"):
            event = line[6:].strip()
        elif line.startswith(b"retry:"):
            phone.connected.set()
    if event == b"changed" and data:
        phone.changed(int(data[0].strip()))
    elif event == b"view" and data and hasattr(phone, "pushed"):
        phone.pushed(b"\n".join(data), size)


def decode(body: bytes, encoding: str | None) -> bytes:
    encoding = (encoding or "").lower()
    if encoding == "br" and brotli is not None:
        return brotli.decompress(body)
    if encoding == "gzip":
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(body)
    return body


def listeners(page: bytes) -> list[tuple[str, str]]:
    """(element id, hx-get path) of every element the page refreshes on ``sse:changed``."""
    out = []
    for _tag, attrs in TAG.findall(page):
        if b"sse:changed" not in attrs:
            continue
        a = {k.decode(): (v1 or v2).decode() for k, v1, v2 in ATTR.findall(attrs)}
        if "sse:changed" in a.get("hx-trigger", "") and a.get("hx-get"):
            out.append((a.get("id", ""), a["hx-get"]))
    return out


def shown_revision(html: bytes) -> int:
    m = SHOWN.search(html) or REV.search(html)
    return int(m.group(1)) if m else -1


class PagePhone:
    def __init__(self, run, base: str, code: str, faction: str, token: str):
        self.run, self.base, self.code, self.faction, self.token = run, base, code, faction, token
        self.views: list[tuple[float, int]] = []  # (when, revision the view shows after a swap)
        self.connected = asyncio.Event()
        self.shown = -1
        self.skips_shown = False   # the page does not refetch a revision it shows
        self.listen: list[tuple[str, str]] = []
        self.busy: dict[str, bool] = {}
        self.queued: dict[str, bool] = {}
        self.posting = False
        self.deferred = -1
        self.fetches = 0
        self.fetch_bytes = 0
        self.pushes = 0        # views the stream brought (and the bytes they took on it)
        self.push_bytes = 0
        self.takes_push = False  # the page listens to sse:view (its stream pushes its view)
        self.page_bytes = 0
        self.board: str | None = None  # the etag of the board part the page shows
        self.parts: dict[str, str] = {}  # element id -> etag of each part the page shows

    def url(self) -> str:
        return f"{self.base}/t/{self.code}"

    def hx(self, target: str) -> dict:
        headers = {"User-Agent": UA, "Accept-Encoding": ENCODINGS, "Accept": "*/*", "HX-Request": "true",
                   "HX-Target": target, "HX-Trigger": target, "HX-Current-URL": self.url(),
                   "X-CSRF-Token": self.csrf, "Accept-Language": "en-GB,en;q=0.9"}
        if target == "view" and self.board:  # as app.js does: the board this page shows
            headers["X-Have-Board"] = self.board
        if target == "view" and self.parts:  # and every part it shows (X-Have-Parts)
            headers["X-Have-Parts"] = ",".join(f"{k}={v}" for k, v in self.parts.items())
        return headers

    async def main(self) -> None:
        cookies = {f"seat_{self.code}": self.token}
        conn = aiohttp.TCPConnector(limit=6, force_close=False, keepalive_timeout=15)
        timeout = aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=10)
        async with aiohttp.ClientSession(self.base, connector=conn, cookies=cookies, timeout=timeout,
                                         auto_decompress=False) as session:
            self.session = session
            try:
                async with session.get(f"/t/{self.code}", headers=NAV) as r:
                    raw = await r.read()
                    if r.status != 200:
                        self.run.error(f"{self.code}/{self.faction}: page HTTP {r.status}")
                        return
                    page = decode(raw, r.headers.get("Content-Encoding"))
                self.page_bytes = len(raw)
                m = CSRF.search(page)
                self.csrf = (m.group(1) or m.group(2)).decode() if m else ""
                self.shown = shown_revision(page)
                board = BOARD.search(page)
                self.board = board.group(1).decode() if board else None
                self.skips_shown = bool(SHOWN.search(page))
                self.listen = listeners(page)
                self.takes_push = bool(re.search(rb'hx-trigger="[^"]*sse:view', page))
                for m in PART.finditer(page):
                    self.parts[m.group(1).decode()] = m.group(2).decode()
                connect = re.search(rb'sse-connect="([^"]+)"', page)
                path = connect.group(1).decode().replace("&amp;", "&") if connect else f"/t/{self.code}/events"
                if self.takes_push and "parts=view" in path and self.parts:  # as static/refresh.js does
                    path += "&have=" + quote(",".join(f"{k}={v}" for k, v in self.parts.items()))
                headers = {"User-Agent": UA, "Accept": "text/event-stream", "Cache-Control": "no-cache"}
                async with session.get(path, headers=headers) as r:
                    if r.status != 200:
                        self.run.error(f"{self.code}/{self.faction}: events HTTP {r.status}")
                        return
                    await read_changes(r, self)
                    if not self.run.stop.is_set():
                        self.run.error(f"{self.code}/{self.faction}: the stream ended")
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
                if not self.run.stop.is_set():
                    self.run.error(f"{self.code}/{self.faction}: stream {type(exc).__name__}: {exc}")
            finally:
                self.connected.set()

    def changed(self, rev: int) -> None:
        if self.skips_shown:
            if self.shown >= rev:
                return  # the page shows it already (its own entry's answer)
            if self.posting:
                self.deferred = max(self.deferred, rev)
                return  # the answer to its own entry is on its way
        for target, path in self.listen:
            self.trigger(target, path)

    def pushed(self, html: bytes, size: int) -> None:
        """A view the stream brought: swapped as the page does (static/refresh.js), or, while its own
        entry is on its way, held until that answer as a change is; a revision shown is dropped."""
        if not self.takes_push:
            return
        self.pushes += 1
        self.push_bytes += size
        rev = shown_revision(html)
        if rev <= self.shown:
            return
        if self.posting:
            self.deferred = max(self.deferred, rev)
            return
        for m in re.finditer(rb'<[^>]*\sdata-same[\s>=][^>]*>', html):  # a part kept must be the one shown
            ident, etag = re.search(rb'(?:^|[^\w-])id="([^"]+)"', m.group(0)), re.search(rb'data-etag="([^"]+)"', m.group(0))
            if not ident or not etag or self.parts.get(ident.group(1).decode()) != etag.group(1).decode():
                for target, path in self.listen:
                    self.trigger(target, path)
                return
        self.swapped(html)

    def trigger(self, target: str, path: str) -> None:
        if self.busy.get(path):
            self.queued[path] = True
            return
        self.busy[path] = True
        asyncio.ensure_future(self.fetch(target, path))

    async def fetch(self, target: str, path: str) -> None:
        try:
            while True:
                self.queued[path] = False
                async with self.session.get(path, headers=self.hx(target)) as r:
                    raw = await r.read()
                    if r.status != 200:
                        self.run.error(f"{self.code}/{self.faction}: {path} HTTP {r.status}")
                        return
                    self.fetches += 1
                    self.fetch_bytes += len(raw) + sum(len(k) + len(v) + 4 for k, v in r.raw_headers)
                    if target == "view":
                        self.swapped(decode(raw, r.headers.get("Content-Encoding")))
                if not self.queued.get(path):
                    return
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
            if not self.run.stop.is_set():
                self.run.error(f"{self.code}/{self.faction}: fetch {type(exc).__name__}: {exc}")
        finally:
            self.busy[path] = False

    def swapped(self, html: bytes) -> None:
        board = BOARD.search(html)  # a new board, or the empty data-same one naming the board kept
        if board:
            self.board = board.group(1).decode()
        for m in PART.finditer(html):  # a new part, or an empty data-same one naming the part kept
            self.parts[m.group(1).decode()] = m.group(2).decode()
        got = shown_revision(html)
        self.shown = got
        self.views.append((time.perf_counter(), got))

    async def tap(self, body: dict) -> tuple[int, float, float] | None:
        """Send an entry as the page's form does; (revision shown after, sent at, answered at)."""
        data = {**body, "revision": str(self.shown)}
        self.posting = True
        t0 = time.perf_counter()
        try:
            async with self.session.post(f"/t/{self.code}/act", data=data, headers=self.hx("view")) as r:
                raw = await r.read()
                t1 = time.perf_counter()
                html = decode(raw, r.headers.get("Content-Encoding"))
                if r.status != 200:
                    self.run.error(f"{self.code}/{self.faction}: entry HTTP {r.status}")
                    return None
                if r.headers.get("HX-Retarget"):
                    self.run.error(f"{self.code}/{self.faction}: entry refused: {html[:200]!r}")
                    return None
                if b"The table changed while you were typing" in html:
                    self.run.error(f"{self.code}/{self.faction}: entry stale (revision {self.shown})")
                    self.swapped(html)
                    return None
                self.swapped(html)
                return self.shown, t0, t1
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
            if not self.run.stop.is_set():
                self.run.error(f"{self.code}/{self.faction}: entry {type(exc).__name__}: {exc}")
            return None
        finally:
            self.posting = False
            if self.deferred > self.shown:
                for target, path in self.listen:
                    self.trigger(target, path)
            self.deferred = -1
