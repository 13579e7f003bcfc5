"""Which address should phones use to reach this laptop?

Resolving the hostname is not enough: Debian and Ubuntu map it to ``127.0.1.1`` and many machines to
``127.0.0.1``, which no phone can reach. So every source the standard library offers is asked:

1. the *route probe*: a UDP socket "connected" to a non-routable address (no packet is sent); the
   kernel picks the source address of the interface that would carry the traffic;
2. every network interface's IPv4 address (Linux and macOS: ``socket.if_nameindex`` plus the
   ``SIOCGIFADDR`` ioctl; ``ifaddr`` or ``psutil`` when installed, e.g. on Windows);
3. the hostname's addresses (``getaddrinfo`` and ``gethostbyname_ex``; on Windows these list every
   interface).

Candidates are ranked: private LAN ranges first (10/8, 172.16/12, 192.168/16), the route probe's
address first among equals, virtual bridges (Docker, libvirt, VirtualBox, VPN tunnels) and
link-local addresses after real ones, public addresses after private ones, loopback last and
only when there is nothing else. ``plan()`` turns that into the URLs the server advertises.
"""
from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from dataclasses import dataclass, field

PROBE_TARGETS = (("10.254.254.254", 1), ("192.168.254.254", 1))  # never contacted: UDP connect sends nothing
LOOPBACK = "127.0.0.1"
VIRTUAL_PREFIXES = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxc", "lxd", "podman", "cni",
                    "flannel", "kube", "tailscale", "zt", "wg", "tun", "tap", "utun", "ham", "vEthernet",
                    "VirtualBox", "VMware", "Hyper-V")
PRIVATE_NETS = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))


@dataclass
class Candidate:
    address: str
    sources: list[str] = field(default_factory=list)   # "route", "eth0", "hostname", ...
    interface: str | None = None

    @property
    def ip(self) -> ipaddress.IPv4Address:
        return ipaddress.IPv4Address(self.address)

    @property
    def kind(self) -> str:
        ip = self.ip
        if ip.is_loopback:
            return "loopback"
        if ip.is_link_local:
            return "link-local"
        if any(ip in n for n in PRIVATE_NETS):
            return "virtual" if self.virtual else "private"
        return "virtual" if self.virtual else "other"

    @property
    def virtual(self) -> bool:
        name = (self.interface or "").lower()
        return bool(name) and any(name.startswith(p.lower()) for p in VIRTUAL_PREFIXES)

    def rank(self) -> tuple:
        order = {"private": 0, "other": 1, "virtual": 2, "link-local": 3, "loopback": 4}[self.kind]
        return (order, "route" not in self.sources, self.ip.packed)

    def describe(self) -> str:
        where = ", ".join(self.sources)
        label = {"private": "LAN", "other": "network", "virtual": "virtual network (probably not the Wi-Fi)",
                 "link-local": "link-local (no router)", "loopback": "this computer only"}[self.kind]
        return f"{self.address:<15}  {label}; found by {where}"


# -- sources (each wraps the system calls it needs; a failing source is just skipped) -----------------

def _probe_route() -> list[tuple[str, str]]:
    """The source address the kernel would use towards a LAN (nothing is sent)."""
    found = []
    for target in PROBE_TARGETS:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect(target)
            addr = s.getsockname()[0]
        except OSError:  # no route at all (no network)
            continue
        finally:
            s.close()
        if addr and addr != "0.0.0.0":
            found.append((addr, "route"))
    return found


SIOCGIFADDR = {"linux": 0x8915, "darwin": 0xC0206921}


def _interfaces_ioctl() -> list[tuple[str, str]]:
    """(address, interface name) of every IPv4 interface, via SIOCGIFADDR (Linux, macOS)."""
    request = next((v for k, v in SIOCGIFADDR.items() if sys.platform.startswith(k)), None)
    if request is None or not hasattr(socket, "if_nameindex"):
        return []
    try:
        import fcntl
    except ImportError:
        return []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return []
    found = []
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for name in names:
            try:
                packed = fcntl.ioctl(s.fileno(), request, struct.pack("256s", name.encode()[:15]))
            except OSError:  # no IPv4 address on this interface
                continue
            found.append((socket.inet_ntoa(packed[20:24]), name))
    finally:
        s.close()
    return found


def _interfaces_library() -> list[tuple[str, str]]:
    """The same from ``ifaddr`` or ``psutil`` when one is installed (both work on Windows)."""
    try:
        import ifaddr  # type: ignore[import-not-found]
    except ImportError:
        ifaddr = None
    if ifaddr is not None:
        try:
            return [(ip.ip, adapter.nice_name) for adapter in ifaddr.get_adapters() for ip in adapter.ips
                    if isinstance(ip.ip, str)]
        except Exception:  # noqa: BLE001 - an optional helper must never stop the server
            return []
    try:
        import psutil  # type: ignore[import-not-found]
    except ImportError:
        return []
    try:
        return [(a.address, name) for name, addrs in psutil.net_if_addrs().items() for a in addrs
                if a.family == socket.AF_INET]
    except Exception:  # noqa: BLE001
        return []


def _hostname() -> list[tuple[str, str]]:
    found = []
    try:
        name = socket.gethostname()
    except OSError:
        return []
    try:
        for info in socket.getaddrinfo(name, None, socket.AF_INET):
            found.append((info[4][0], "hostname"))
    except (OSError, UnicodeError):
        pass
    try:
        for addr in socket.gethostbyname_ex(name)[2]:
            found.append((addr, "hostname"))
    except (OSError, UnicodeError):
        pass
    return found


def candidates() -> list[Candidate]:
    """Every IPv4 address of this machine, best first. Loopback addresses collapse into one
    127.0.0.1 entry, which is always last (and present, so the list is never empty)."""
    by_addr: dict[str, Candidate] = {}

    def add(addr: str, source: str, interface: str | None = None) -> None:
        try:
            ip = ipaddress.IPv4Address(addr)
        except ValueError:
            return
        if ip.is_unspecified or ip.is_multicast:
            return
        key = LOOPBACK if ip.is_loopback else str(ip)
        c = by_addr.setdefault(key, Candidate(key))
        if source not in c.sources:
            c.sources.append(source)
        if interface and not c.interface:
            c.interface = interface

    for addr, src in _probe_route():
        add(addr, src)
    for addr, name in _interfaces_ioctl() + _interfaces_library():
        add(addr, name, name)
    for addr, src in _hostname():
        add(addr, src)
    add(LOOPBACK, "loopback")
    return sorted(by_addr.values(), key=Candidate.rank)


def lan_addresses() -> list[str]:
    """The addresses phones could use, best first; 127.0.0.1 last (and alone when there is nothing else)."""
    return [c.address for c in candidates()]


# -- what the server advertises -------------------------------------------------------------------------

@dataclass
class Plan:
    public_url: str                  # goes into the QR codes and on the host page
    other_urls: list[str]            # "not reachable? try ..."
    candidates: list[Candidate]
    loopback_only: bool              # phones cannot reach public_url: say so, loudly
    reason: str = ""                 # why loopback_only (listening on loopback, or no network)

    def config(self) -> dict:
        """The app configuration keys the pages read."""
        return {"PUBLIC_URL": self.public_url, "LAN_OTHER_URLS": list(self.other_urls),
                "LAN_LOOPBACK_ONLY": self.loopback_only, "LAN_REASON": self.reason, "LAN_ADVICE": advice(self)}


def _url(addr: str, port: int) -> str:
    return f"http://{addr}:{port}"


def plan(host: str, port: int, public_url: str | None = None,
         found: list[Candidate] | None = None) -> Plan:
    """The address plan for a server listening on ``host``:``port``."""
    found = candidates() if found is None else found
    if public_url:
        url = public_url.rstrip("/")
        others = [_url(c.address, port) for c in found if c.kind != "loopback" and _url(c.address, port) != url]
        return Plan(url, others, found, False)
    if host not in ("0.0.0.0", "", "::"):
        try:
            only_here = ipaddress.ip_address(host).is_loopback
        except ValueError:  # a host name: trust it
            only_here = host == "localhost"
        if only_here:
            return Plan(_url(LOOPBACK, port), [], found, True,
                        f"the server listens on {host} only")
        return Plan(_url(host, port), [], found, False)
    reachable = [c for c in found if c.kind != "loopback"]
    if not reachable:
        return Plan(_url(LOOPBACK, port), [], found, True, "this computer has no network address")
    return Plan(_url(reachable[0].address, port), [_url(c.address, port) for c in reachable[1:]], found, False)


WHAT_TO_DO = ("Connect this computer to the same Wi-Fi as the phones and restart the companion, "
              "or start it with --public-url http://ADDRESS:PORT if you know an address the phones can reach.")
NOT_LOOPBACK = "Start the companion without --host (it then listens on every network), or with --host ADDRESS."
FIREWALL = ("On Windows and macOS, answer the firewall prompt with \"Allow\" (private networks) "
            "the first time the companion starts.")


def advice(p: Plan) -> list[str]:
    """What to do when phones cannot join (empty when they can)."""
    if not p.loopback_only:
        return []
    return [NOT_LOOPBACK if p.reason.startswith("the server listens") else WHAT_TO_DO, FIREWALL]


def report(p: Plan) -> list[str]:
    """The terminal lines about addresses (no trailing newlines)."""
    import textwrap

    lines = ["  addresses found (best first; * = advertised):"]
    chosen = p.public_url.split("//", 1)[-1].rsplit(":", 1)[0]
    for c in p.candidates:
        lines.append(f"   {'*' if c.address == chosen else ' '} {c.describe()}")
    if p.loopback_only:
        bar = "!" * 78
        text = [f"PHONES CANNOT JOIN: {p.reason}.", f"Only this computer can open {p.public_url}/"] + advice(p)
        lines += ["", bar]
        for para in text:
            lines += textwrap.wrap(para, 78, initial_indent="!! ", subsequent_indent="!!    ")
        lines += [bar, ""]
    else:
        lines.append(f"  phones use: {p.public_url}/")
        if p.other_urls:
            lines.append("  not reachable? try: " + "  ".join(u + "/" for u in p.other_urls))
        lines += textwrap.wrap("still not reachable? The phones must be on the same Wi-Fi. " + FIREWALL, 96,
                               initial_indent="  ", subsequent_indent="  ")
    return lines
