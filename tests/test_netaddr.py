"""Which address the companion advertises to phones, with the system calls faked.

Each test builds a fake machine: what the hostname resolves to, which interfaces carry which
IPv4 address (``socket.if_nameindex`` + the ``SIOCGIFADDR`` ioctl), and where the kernel would
route a UDP socket "connected" to a LAN address. The optional ``ifaddr``/``psutil`` helpers are
hidden, so the stdlib path is what is tested.
"""
from __future__ import annotations

import io
import re
import socket
import sys
from contextlib import redirect_stdout

from companion import netaddr


class FakeMachine:
    def __init__(self, *, hostname_addrs=("127.0.1.1",), interfaces=None, route=None, platform="linux"):
        self.hostname_addrs = list(hostname_addrs)
        self.interfaces = dict(interfaces or {"lo": "127.0.0.1"})   # name -> IPv4 (None: no IPv4)
        self.route = route                                          # None: no route (connect fails)
        self.platform = platform

    def install(self, monkeypatch):
        machine = self

        class FakeSocket:
            def __init__(self, family=socket.AF_INET, type_=socket.SOCK_DGRAM, *a, **k):
                self.peer = None

            def connect(self, target):
                if machine.route is None:
                    raise OSError(101, "Network is unreachable")
                self.peer = target

            def getsockname(self):
                return (machine.route if self.peer else "0.0.0.0", 40000)

            def fileno(self):
                return 99

            def close(self):
                pass

        def ioctl(fd, request, arg):
            assert fd == 99 and request == netaddr.SIOCGIFADDR["linux" if machine.platform == "linux" else "darwin"]
            name = arg[:16].rstrip(b"\0").decode()
            addr = machine.interfaces.get(name)
            if addr is None:
                raise OSError(99, "Cannot assign requested address")
            return arg[:20] + socket.inet_aton(addr) + arg[24:]

        class FakeFcntl:
            pass

        FakeFcntl.ioctl = staticmethod(ioctl)
        monkeypatch.setattr(socket, "socket", FakeSocket)
        monkeypatch.setattr(socket, "gethostname", lambda: "table-laptop")
        monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, family=0, *a, **k: [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (addr, 0)) for addr in machine.hostname_addrs])
        monkeypatch.setattr(socket, "gethostbyname_ex", lambda host: (host, [], list(machine.hostname_addrs)))
        monkeypatch.setattr(socket, "if_nameindex", lambda: list(enumerate(machine.interfaces, 1)), raising=False)
        monkeypatch.setattr(sys, "platform", machine.platform)
        monkeypatch.setitem(sys.modules, "fcntl", None if machine.platform == "win32" else FakeFcntl)
        monkeypatch.setitem(sys.modules, "ifaddr", None)  # optional helpers: absent
        monkeypatch.setitem(sys.modules, "psutil", None)
        return self


def addresses(c):
    return [x.address for x in c]


def test_hostname_mapped_to_127_0_1_1_does_not_hide_the_wifi_address(monkeypatch):
    """The Debian/Ubuntu case from the issue: the hostname says 127.0.1.1, the Wi-Fi has 192.168.1.23."""
    FakeMachine(hostname_addrs=["127.0.1.1"], route="192.168.1.23",
                interfaces={"lo": "127.0.0.1", "wlp2s0": "192.168.1.23", "enp3s0": None}).install(monkeypatch)
    found = netaddr.candidates()
    assert addresses(found) == ["192.168.1.23", "127.0.0.1"]
    assert found[0].sources == ["route", "wlp2s0"]
    assert "127.0.1.1" not in addresses(found)  # every loopback collapses into one 127.0.0.1, last
    plan = netaddr.plan("0.0.0.0", 8765)
    assert plan.public_url == "http://192.168.1.23:8765"
    assert plan.other_urls == [] and not plan.loopback_only
    text = "\n".join(netaddr.report(plan))
    assert "phones use: http://192.168.1.23:8765/" in text and "PHONES CANNOT JOIN" not in text


def test_several_interfaces_private_lan_first_virtual_and_link_local_after(monkeypatch):
    FakeMachine(hostname_addrs=["127.0.1.1", "172.17.0.1"], route="203.0.113.9",
                interfaces={"lo": "127.0.0.1", "eth1": "203.0.113.9", "docker0": "172.17.0.1",
                            "wlan0": "192.168.0.7", "eth0": "10.0.0.5", "usb0": "169.254.3.4"}).install(monkeypatch)
    found = netaddr.candidates()
    # private LAN addresses first, the public one next, the Docker bridge, link-local, loopback last
    assert addresses(found) == ["10.0.0.5", "192.168.0.7", "203.0.113.9", "172.17.0.1", "169.254.3.4", "127.0.0.1"]
    assert [x.kind for x in found] == ["private", "private", "other", "virtual", "link-local", "loopback"]
    plan = netaddr.plan("0.0.0.0", 9000)
    assert plan.public_url == "http://10.0.0.5:9000"
    assert plan.other_urls == ["http://192.168.0.7:9000", "http://203.0.113.9:9000", "http://172.17.0.1:9000",
                               "http://169.254.3.4:9000"]
    text = "\n".join(netaddr.report(plan))
    for addr in addresses(found):  # every candidate is printed
        assert addr in text
    assert "not reachable? try: http://192.168.0.7:9000/" in text


def test_the_route_probe_wins_among_private_addresses(monkeypatch):
    FakeMachine(route="192.168.0.7", interfaces={"lo": "127.0.0.1", "eth0": "10.0.0.5",
                                                  "wlan0": "192.168.0.7"}).install(monkeypatch)
    assert addresses(netaddr.candidates())[:2] == ["192.168.0.7", "10.0.0.5"]


def test_only_loopback_warns_loudly_and_says_what_to_do(monkeypatch):
    FakeMachine(hostname_addrs=["127.0.1.1"], route=None, interfaces={"lo": "127.0.0.1"}).install(monkeypatch)
    assert netaddr.lan_addresses() == ["127.0.0.1"]
    plan = netaddr.plan("0.0.0.0", 8765)
    assert plan.loopback_only and plan.public_url == "http://127.0.0.1:8765"
    assert plan.config()["LAN_LOOPBACK_ONLY"] is True
    text = "\n".join(netaddr.report(plan))
    assert "PHONES CANNOT JOIN: this computer has no network address." in text
    assert "same Wi-Fi" in text and "--public-url" in text and "firewall" in text and "Windows and macOS" in text


def test_windows_without_fcntl_uses_the_route_and_the_hostname_addresses(monkeypatch):
    """Windows: no ioctl; the hostname resolves to every interface's address (here a Hyper-V switch
    too), and the route probe says which one carries the LAN."""
    FakeMachine(hostname_addrs=["172.24.160.1", "192.168.1.40"], route="192.168.1.40",
                platform="win32").install(monkeypatch)
    assert addresses(netaddr.candidates()) == ["192.168.1.40", "172.24.160.1", "127.0.0.1"]
    assert netaddr.plan("0.0.0.0", 8765).public_url == "http://192.168.1.40:8765"


def test_macos_uses_its_own_ioctl_number(monkeypatch):
    FakeMachine(hostname_addrs=["127.0.0.1"], route=None, platform="darwin",
                interfaces={"lo0": "127.0.0.1", "en0": "192.168.2.14", "utun3": None}).install(monkeypatch)
    assert addresses(netaddr.candidates()) == ["192.168.2.14", "127.0.0.1"]


def test_a_failing_source_is_skipped(monkeypatch):
    FakeMachine(route="192.168.1.23").install(monkeypatch)

    def broken():
        raise OSError("no interfaces for you")

    monkeypatch.setattr(socket, "if_nameindex", broken)
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: (_ for _ in ()).throw(socket.gaierror(-2, "unknown")))
    assert addresses(netaddr.candidates()) == ["192.168.1.23", "127.0.0.1"]


def test_public_url_and_host_flags(monkeypatch):
    FakeMachine(route="192.168.1.23", interfaces={"lo": "127.0.0.1", "wlan0": "192.168.1.23",
                                                  "eth0": "10.1.1.2"}).install(monkeypatch)
    p = netaddr.plan("0.0.0.0", 8765, "http://dune.lan:8765/")
    assert p.public_url == "http://dune.lan:8765" and not p.loopback_only
    assert p.other_urls == ["http://192.168.1.23:8765", "http://10.1.1.2:8765"]
    p = netaddr.plan("192.168.1.23", 8765)
    assert p.public_url == "http://192.168.1.23:8765" and not p.loopback_only
    p = netaddr.plan("127.0.0.1", 8765)  # listening on loopback: phones cannot join, whatever the machine has
    assert p.loopback_only and "listens on 127.0.0.1 only" in p.reason
    assert any("without --host" in line for line in netaddr.advice(p))


# -- the terminal at start ----------------------------------------------------------------------------

def banner(app, plan) -> str:
    from companion.cli import print_banner
    out = io.StringIO()
    with redirect_stdout(out):
        print_banner(app, plan)
    return out.getvalue()


def qr_url(text: str) -> str:
    return next(line for line in text.splitlines() if "QR code opens" in line)


def test_terminal_qr_opens_the_start_page_then_the_newest_tables_join_page(monkeypatch, tmp_path):
    from companion import create_app
    from conftest import create_table

    FakeMachine(route="192.168.1.23", interfaces={"lo": "127.0.0.1", "wlan0": "192.168.1.23"}).install(monkeypatch)
    plan = netaddr.plan("0.0.0.0", 8765)
    monkeypatch.undo()  # the app itself runs on the real machine
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, **plan.config()})
    text = banner(app, plan)
    assert "No table yet. This QR code opens the start page (http://192.168.1.23:8765/)" in text
    assert re.search(r"\* 192\.168\.1\.23 +LAN", text)  # every address, the advertised one starred
    client = app.test_client()
    create_table(client, ["atreides", "harkonnen"])
    newest = create_table(client, ["fremen", "bg"])
    text = banner(app, plan)
    assert qr_url(text).endswith(f"the newest table, {newest.code}: http://192.168.1.23:8765/t/{newest.code}/join")
    assert "█" in text  # the QR code itself
