"""Where a server process spends its time: a py-spy sample of a running process, summed by part.

    from profile_server import Sampler
    s = Sampler(pid, seconds, out_path); s.start(); ...; print("\\n".join(s.report()))

py-spy (``pip install py-spy``, in the ``bench`` extra) samples the process from outside at 100 Hz
without slowing it much. Only the thread holding the GIL is sampled (``--gil``): a GIL-bound
server's busy time, without the threads that wait for it (C code that releases the GIL, such as
SQLite's or brotli's, runs beside it and shows less). Each sample's stack is
put in the part of its frame nearest the leaf that any pattern below matches (so time inside
escaping counts as escaping even when a template called it), and the top functions by their own
time are listed after.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

# (part, pattern on one frame "function (file:line)"). A sample goes to the part of the frame
# nearest its leaf that matches any pattern (the first pattern that frame matches, in this order):
# time spent inside escaping counts as escaping, a rules function called from a template as rules.
PARTS = [
    ("garbage collection", re.compile(r"^<gc>|\bgc_collect")),
    ("markup escaping (markupsafe)", re.compile(r"\((?:[^)]*/)?markupsafe/")),
    ("templates (Jinja and the templates' own code)", re.compile(r"\((?:[^)]*/)?jinja2/|\.html:|\(<template>")),
    ("state copies", re.compile(r"\(copy\.py|\bdeepcopy\b")),
    ("SVG map", re.compile(r"board_svg\.py")),
    ("legal-move rules", re.compile(r"companion/games/[a-z_]+/rules/")),
    ("per-seat views (spine and game)", re.compile(r"companion/table/views\.py|companion/games/[a-z_]+/views\.py")),
    ("entries and state (game)", re.compile(r"companion/games/[a-z_]+/(?:entries/|state\.py|battles\.py|__init__\.py)")),
    ("store (SQLite/PostgreSQL)", re.compile(r"companion/table/store/|sqlite3|psycopg")),
    ("compression", re.compile(r"brotli|gzip|zlib|flask_compress")),
    ("JSON", re.compile(r"\(json/|json\.py")),
    ("live streams and the spine", re.compile(r"companion/table/")),
    ("our pages (web shell and game pages)", re.compile(r"companion/web/|companion/games/[a-z_]+/web/")),
    ("Flask/Werkzeug", re.compile(r"\((?:[^)]*/)?(?:flask|werkzeug|itsdangerous)/")),
    ("HTTP server and event loop (uvicorn, h11, asyncio)",
     re.compile(r"\((?:[^)]*/)?(?:uvicorn|h11|asyncio|a2wsgi)/|selectors\.py|socket\.py")),
    ("threads waiting/handing off", re.compile(r"\(threading\.py|\(concurrent/|queue\.py")),
]


def available() -> bool:
    return shutil.which("py-spy") is not None


class Sampler:
    """``py-spy record`` on one process for ``seconds``, written as collapsed stacks."""

    def __init__(self, pid: int, seconds: float, out: Path, rate: int = 100):
        self.pid, self.seconds, self.out, self.rate = pid, seconds, Path(out), rate
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = ["py-spy", "record", "--pid", str(self.pid), "--duration", str(max(1, int(self.seconds))),
               "--rate", str(self.rate), "--gil", "--format", "raw", "--nonblocking", "-o", str(self.out)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def wait(self, timeout: float = 60) -> str | None:
        """Wait for the sample; the error text if py-spy failed."""
        if self.proc is None:
            return "not started"
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return "py-spy did not finish"
        if not self.out.exists():
            return (err or b"").decode(errors="replace").strip()[-300:] or "no output"
        return None

    def report(self, top: int = 12) -> list[str]:
        return summarise(self.out.read_text("utf-8", errors="replace"), top)


def _stacks(text: str):
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def summarise(text: str, top: int = 12) -> list[str]:
    parts: Counter = Counter()
    own: Counter = Counter()
    total = 0
    for frames, n in _stacks(text):
        total += n
        part = "other Python"
        for f in reversed(frames):
            hit = next((name for name, pat in PARTS if pat.search(f)), None)
            if hit:
                part = hit
                break
        parts[part] += n
        leaf = re.sub(r":\d+\)$", ")", frames[-1])
        own[leaf] += n
    if not total:
        return ["  (no samples)"]
    out = [f"  {total} samples; share of the process's busy time by part:"]
    for name, n in parts.most_common():
        out.append(f"    {name:<52} {100 * n / total:5.1f}%")
    out.append(f"  top {top} functions by own time:")
    for name, n in own.most_common(top):
        out.append(f"    {100 * n / total:5.1f}%  {name[:110]}")
    return out


def main(argv: list[str] | None = None) -> int:
    """``python benchmarks/profile_server.py FILE``: summarise a collapsed py-spy file again."""
    import argparse
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("file")
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args(argv)
    print("\n".join(summarise(Path(a.file).read_text("utf-8", errors="replace"), a.top)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
