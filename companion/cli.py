"""The ``companion`` command: serve the table on the LAN, or search the rules in a terminal.

    companion [--host 0.0.0.0] [--port 8765] [--data DIR] [--threads N] [--database URL]
              [--max-connections N] [--keep-alive S] [--header-timeout S] [--body-timeout S] [--unload-idle S]
              [--gc tuned|default]
    companion rules "query" [--limit N] [--faction F] [--phase P]
"""
from __future__ import annotations

import argparse
import os
import sys

DEFAULT_PORT = 8765
CONNECTIONS_PER_PHONE = 3  # its live stream + the 1-2 keep-alive connections a browser keeps for fetches
DEFAULT_MAX_CONNECTIONS = 300 * 7 * CONNECTIONS_PER_PHONE + 1700  # 300 tables x (6 phones + a board): 8000
# Worker threads: Python runs one at a time (the GIL), so more threads than the pages' waits on
# the store need only make every answer wait its turn longer. At 150 busy mid-game tables on one
# process, entry p99 was 132-228 ms with 6 (three runs), 534 with 4, 555 with 8, 621-1729 with 16.
DEFAULT_THREADS = 6


def terminal_qr(url: str) -> str:
    import io

    import qrcode

    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


def print_banner(app, addresses) -> None:
    """What the terminal shows at start: every address, the advertised one, and a QR code that opens
    the newest table's join page (or the start page when there is no table yet)."""
    from .netaddr import report

    public = addresses.public_url
    print("Dune Table Companion")
    print(f"  data:   {app.config['DATA_DIR']}")
    print(f"  store:  {app.extensions['tables'].store.describe()}")
    for line in app.extensions.get("store_report", []):
        print(f"  NOTE:   {line}")
    print(f"  open:   {public}/   (host a table here, on this laptop)")
    for line in report(addresses):
        print(line)
    newest = app.extensions["tables"].store.list_tables()[:1]
    if newest:
        code = newest[0]["code"]
        target = f"{public}/t/{code}/join"
        print(f"  This QR code opens the join page of the newest table, {code}: {target}")
    else:
        target = public + "/"
        print(f"  No table yet. This QR code opens the start page ({target}): host a table there,")
        print("  or join one with its code. Each new table prints its own QR code here.")
    print(terminal_qr(target))
    print("  Ctrl-C stops the server; every entry is already saved.")


def serve(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion", description="Host a Dune table on the local network.")
    parser.add_argument("--host", default="0.0.0.0", help="interface to listen on (default: all, 0.0.0.0)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--data", default=None, help="folder for the SQLite store and search index "
                                                     "(default: a per-user data folder)")
    parser.add_argument("--database", default=os.environ.get("COMPANION_DATABASE"),
                        help="where tables are stored: the SQLite file in the data folder (default) or "
                             "postgresql://user:password@host/dbname to share one database between "
                             "several server processes (env COMPANION_DATABASE)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"worker threads for pages and entries (default {DEFAULT_THREADS}, at least 4); "
                             "live streams hold no thread")
    parser.add_argument("--public-url", default=None,
                        help="address phones should use, if the detected LAN address is wrong")
    add_server_options(parser)
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error("--port must be between 1 and 65535")

    from . import create_app
    from .netaddr import plan as address_plan

    addresses = address_plan(args.host, args.port, args.public_url)
    try:
        app = create_app({"DATA_DIR": args.data, "DATABASE": args.database, "TERMINAL_QR": True,
                          **addresses.config()})
    except ValueError as exc:  # e.g. an unknown --database scheme
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. a data folder that cannot be created
        print(f"companion: cannot use the data folder {args.data or ''}: {exc.strerror or exc}; "
              f"choose another with --data.", file=sys.stderr)
        return 2
    app.extensions["search"].warm()
    server = make_server(app, args)
    tune_gc(args.gc)
    print_banner(app, addresses)
    sys.stdout.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0


# -- the server (uvicorn running companion.web.asgi: streams on the event loop, Flask in threads) --

def add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                        help="open connections before new requests get 503 saying the server is at "
                             "its limit; a phone holds about three (its live stream and 1-2 keep-alive "
                             f"connections): the default {DEFAULT_MAX_CONNECTIONS} serves some 300 tables of "
                             "seven screens (docs/deploy.md)")
    parser.add_argument("--keep-alive", type=float, default=15,
                        help="seconds an idle keep-alive connection stays open (default 15)")
    parser.add_argument("--unload-idle", type=float, default=1800,
                        help="seconds after which a table nobody asked for (and no live stream watches) "
                             "is dropped from memory; it loads again on the next request "
                             "(default 1800; 0: never)")
    parser.add_argument("--gc", choices=("tuned", "default"), default="tuned",
                        help="garbage collector: 'tuned' for a long-running server (what start-up loaded "
                             "frozen, then a short young collection every second whose survivors "
                             "are frozen; default) or CPython's 'default'")
    parser.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto",
                        help="how requests are read: httptools (in C; the default when installed) or "
                             "h11 (pure Python)")
    parser.add_argument("--loop", choices=("auto", "uvloop", "asyncio"), default="auto",
                        help="the event loop: uvloop (the default when installed; not on Windows) or "
                             "Python's asyncio")
    parser.add_argument("--header-timeout", type=float, default=10,
                        help="seconds a new connection has to send its request headers before it is "
                             "dropped (default 10)")
    parser.add_argument("--body-timeout", type=float, default=30,
                        help="seconds a request's body has to arrive once its headers have, before it is "
                             "answered 408 and dropped (default 30)")


GC_THRESHOLDS = (50_000, 50, 100)  # CPython's default is (700, 10, 10): here the fallback only
GC_YOUNG_EVERY = 1.0  # seconds between the young collections, each followed by a freeze (0.5 s: pauses
# half as long, but the collector's CPU 1.3-2.3% of a core instead of 1.3% at 150 busy tables a process)


def young_collection() -> int:
    """Collect what was made since the last one (the young generations) and freeze what survived:
    the objects that outlive one collection (tables loaded, states, kept parts) are never
    walked again, so the next collection is as small as what was made in between. Returns the
    number of objects freed (garbage of reference cycles)."""
    import gc

    freed = gc.collect(1)
    gc.freeze()
    return freed


def tune_gc(mode: str = "tuned") -> None:
    """A long-running server keeps hundreds of thousands of long-lived objects (tables, their
    states, rendered parts, the rules index). CPython's collector walks its young generation when
    enough objects were made and not freed, so a busy server paused for everything made in the
    last seconds (30 ms at the median, 107 ms at worst, with 150 mid-game tables), then for a
    minute's survivors at the next older collection. Here what is loaded is frozen after start-up
    (``gc.freeze()``), and a thread collects the young generations every ``GC_YOUNG_EVERY``
    seconds and freezes the survivors: each pause is what a second made (13 ms at the median, 26
    ms at worst, same load), and nothing is walked twice. Garbage of reference cycles is freed at
    the next young collection; a cycle among objects that had already outlived one (rare: the
    server makes none per request, web/routing.py) is kept, as with any frozen object. A frozen object is still freed by
    reference counting when nothing uses it any more. ``mode`` "default" leaves CPython's
    settings (docs/deploy.md, "Garbage collection")."""
    import gc
    import threading

    if mode == "default":
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)

    def young_collector():
        import time
        while True:
            time.sleep(GC_YOUNG_EVERY)
            young_collection()

    threading.Thread(target=young_collector, name="gc-young", daemon=True).start()


def raise_open_file_limit(wanted: int) -> None:
    """Each connection is a file descriptor: lift the soft limit toward ``wanted`` (POSIX)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to lift
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass


def make_server(app, args):
    """A uvicorn server for ``app`` with the limits from the command line."""
    import uvicorn

    from .web.asgi import HEAD_LIMIT, GuardedProtocol, asgi_app, event_loop, http_protocol
    from .web.bridge import WSGIBridge

    if args.max_connections < 10:
        raise SystemExit("--max-connections must be at least 10")
    raise_open_file_limit(args.max_connections + 256)
    protocol = http_protocol(getattr(args, "http", "auto"))
    GuardedProtocol.header_timeout = max(0.5, float(args.header_timeout))
    GuardedProtocol.max_connections = args.max_connections
    asgi = asgi_app(app, threads=max(4, args.threads))
    asgi.unload_idle = max(0.0, float(getattr(args, "unload_idle", 0) or 0))
    WSGIBridge.body_timeout = max(0.5, float(getattr(args, "body_timeout", WSGIBridge.body_timeout)))
    config = uvicorn.Config(
        asgi, host=args.host, port=args.port,
        http=protocol, loop=event_loop(getattr(args, "loop", "auto")), lifespan="on", ws="none", interface="asgi3",
        limit_concurrency=args.max_connections, timeout_keep_alive=max(1, int(args.keep_alive)),
        h11_max_incomplete_event_size=HEAD_LIMIT, backlog=1024, access_log=False, log_level="warning",
        timeout_graceful_shutdown=2, server_header=False)
    return uvicorn.Server(config)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "rules":
        from .search.cli import main as rules_main
        try:
            return rules_main(argv[1:])
        except BrokenPipeError:  # `companion rules ... | head`: the reader has had enough
            sys.stderr.close()
            return 0
    if argv and argv[0] == "serve":
        argv = argv[1:]
    return serve(argv)


if __name__ == "__main__":
    raise SystemExit(main())
