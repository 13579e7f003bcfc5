"""The ``companion`` command: serve the table on the LAN, or search the rules in a terminal.

    companion [--host 0.0.0.0] [--port 8765] [--data DIR] [--threads N]
    companion rules "query" [--limit N] [--faction F] [--phase P]
"""
from __future__ import annotations

import argparse
import sys

DEFAULT_PORT = 8765


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine that phones on the LAN can reach, best first (loopback last)."""
    from .netaddr import lan_addresses as found
    return found()


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
    parser.add_argument("--threads", type=int, default=48,
                        help="server threads; each phone's live stream holds one (default 48)")
    parser.add_argument("--public-url", default=None,
                        help="address phones should use, if the detected LAN address is wrong")
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error("--port must be between 1 and 65535")

    from waitress import create_server

    from . import create_app
    from .netaddr import plan as address_plan

    addresses = address_plan(args.host, args.port, args.public_url)
    app = create_app({"DATA_DIR": args.data, "TERMINAL_QR": True, **addresses.config()})
    app.extensions["search"].warm()
    server = create_server(app, host=args.host, port=args.port, threads=max(8, args.threads),
                           channel_timeout=300, connection_limit=200, ident="dune-table-companion")
    print_banner(app, addresses)
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
