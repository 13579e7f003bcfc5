"""The ``companion`` command: serve the table on the LAN, or search the rules in a terminal.

    companion [--host 0.0.0.0] [--port 8765] [--data DIR] [--threads N] [--database URL]
    companion rules "query" [--limit N] [--faction F] [--phase P]
"""
from __future__ import annotations

import argparse
import os
import socket
import sys

DEFAULT_PORT = 8765


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine that phones on the LAN can reach (loopback last)."""
    found: list[str] = []
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = info[4][0]
            if addr not in found:
                found.append(addr)
    except OSError:
        pass
    lan = [a for a in found if not a.startswith("127.")]
    return lan + ["127.0.0.1"]


def terminal_qr(url: str) -> str:
    import io

    import qrcode

    qr = qrcode.QRCode(border=1)
    qr.add_data(url)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


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
    parser.add_argument("--threads", type=int, default=48,
                        help="server threads; each phone's live stream holds one (default 48)")
    parser.add_argument("--public-url", default=None,
                        help="address phones should use, if the detected LAN address is wrong")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error("--port must be between 1 and 65535")

    from waitress import create_server

    from . import create_app

    host_addr = args.host if args.host not in ("0.0.0.0", "::", "") else lan_addresses()[0]
    public = args.public_url or f"http://{host_addr}:{args.port}"
    try:
        app = create_app({"DATA_DIR": args.data, "DATABASE": args.database, "PUBLIC_URL": public,
                          "TERMINAL_QR": True})
    except ValueError as exc:  # e.g. an unknown --database scheme
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. a data folder that cannot be created
        print(f"companion: cannot use the data folder {args.data or ''}: {exc.strerror or exc}; "
              f"choose another with --data.", file=sys.stderr)
        return 2
    app.extensions["search"].warm()
    server = create_server(app, host=args.host, port=args.port, threads=max(8, args.threads),
                           channel_timeout=300, connection_limit=200, ident="dune-table-companion")
    print("Dune Table Companion")
    print(f"  data:   {app.config['DATA_DIR']}")
    print(f"  store:  {app.extensions['tables'].store.describe()}")
    for line in app.extensions.get("store_report", []):
        print(f"  NOTE:   {line}")
    print(f"  open:   {public}/   (host a table here, on this laptop)")
    print("  phones join by scanning the QR code the table page shows. This one opens the start page:")
    print(terminal_qr(public + "/"))
    print("  Ctrl-C stops the server; every entry is already saved.")
    sys.stdout.flush()
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0


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
