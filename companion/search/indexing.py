"""Building and opening the Whoosh index of a set of entries.

One index per fingerprint, in ``<index_dir>/<fingerprint[:32]>/``, built into a temporary
folder and renamed into place (atomic; concurrent builders do not clash), then loaded into
memory (RamStorage) for querying. Fields: title, aliases, source, tags (an entry's tag ids
spelled out with the corpus data's words), body (plain text), all with the stemming analyzer;
plus id, kind and one keyword field per tag group.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
from pathlib import Path
from typing import Sequence

from whoosh import index as windex
from whoosh.fields import ID, KEYWORD, TEXT, Schema
from whoosh.filedb.filestore import RamStorage

from .analysis import ANALYZER
from .corpus import Entry, plain_text
from .vocabulary import TAG_GROUPS, TAG_WORDS

log = logging.getLogger(__name__)


def make_schema() -> Schema:
    return Schema(
        id=ID(stored=True, unique=True),
        kind=ID(stored=True),
        title=TEXT(analyzer=ANALYZER, phrase=True),
        aliases=TEXT(analyzer=ANALYZER, phrase=True),
        source=TEXT(analyzer=ANALYZER, phrase=False),
        tags=TEXT(analyzer=ANALYZER, phrase=False),
        body=TEXT(analyzer=ANALYZER, phrase=False),
        **{g.key: KEYWORD(commas=True, lowercase=True) for g in TAG_GROUPS},
    )


def _alias_text(e: Entry) -> str:
    # aliases are separated by a full stop so they do not form phrases across each other
    return " . ".join(e.aliases)


def tag_text(e: Entry) -> str:
    """The entry's tags of every group, spelled out as players name them ("tags" field)."""
    return " . ".join(TAG_WORDS.get(t, t) for g in TAG_GROUPS for t in getattr(e, g.key))


def _write(ix, entries: Sequence[Entry]) -> None:
    w = ix.writer(procs=1, limitmb=64)
    try:
        for e in entries:
            w.add_document(
                id=e.id,
                kind=e.kind,
                title=e.title,
                aliases=_alias_text(e),
                source=e.source,
                tags=tag_text(e),
                body=plain_text(e.text),
                **{g.key: ",".join(getattr(e, g.key)) for g in TAG_GROUPS},
            )
    except BaseException:
        w.cancel()
        raise
    w.commit(optimize=True)


def build_index(path: Path, entries: Sequence[Entry]) -> None:
    """Write a fresh index of ``entries`` into the (new, empty) folder ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    _write(windex.create_in(str(path), make_schema()), entries)


def open_or_build(index_dir: Path, fp: str, entries: Sequence[Entry]) -> tuple[object, bool]:
    """Open the index for fingerprint ``fp`` under ``index_dir``, building it if missing.

    Returns (whoosh index, built?). Old indexes of other fingerprints are removed. When the
    folder cannot be written, the index is built in memory (and rebuilt at every start).
    """
    try:
        return _open_or_build_on_disk(index_dir, fp, entries)
    except OSError as exc:
        log.warning("search index folder %s unusable (%s): index kept in memory", index_dir, exc)
        ix = RamStorage().create_index(make_schema())
        _write(ix, entries)
        return ix, True


def _open_or_build_on_disk(index_dir: Path, fp: str, entries: Sequence[Entry]):
    index_dir.mkdir(parents=True, exist_ok=True)
    final = index_dir / fp[:32]
    built = False
    if not (final / "READY").exists():
        tmp = index_dir / f".tmp-{uuid.uuid4().hex}"
        try:
            build_index(tmp, entries)
            (tmp / "READY").write_text(fp + "\n", encoding="utf-8")
            try:
                os.rename(tmp, final)
                built = True
            except OSError:
                if not (final / "READY").exists():  # a broken leftover: replace it
                    shutil.rmtree(final, ignore_errors=True)
                    os.rename(tmp, final)
                    built = True
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    for other in index_dir.iterdir():
        if other != final and other.is_dir() and re.fullmatch(r"[0-9a-f]{32}", other.name):
            shutil.rmtree(other, ignore_errors=True)
    return _open_in_ram(final), built


def _open_in_ram(path: Path):
    """Open the index from a copy in memory: queries never touch the disk, and the folder
    can be replaced or removed while the index is in use."""
    ram = RamStorage()
    for p in path.iterdir():
        if p.is_file() and p.name != "READY":
            ram.files[p.name] = p.read_bytes()
    return ram.open_index()
