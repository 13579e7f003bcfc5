"""docs/api.md stays true to the app: documented endpoints exist, every /api route and every
entry type is documented."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
ENDPOINT = re.compile(r"^#{2,4}\s+`?(GET|POST|PUT|PATCH|DELETE)\s+(/[^\s`]*)`?\s*$", re.M)


def norm(path: str) -> str:
    """/api/tables/{code}/state and /api/tables/<code>/state -> /api/tables/<>/state"""
    return re.sub(r"\{[^}]*\}|<[^>]*>", "<>", path)


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def routes(tmp_path_factory) -> set[tuple[str, str]]:
    from companion import create_app
    app = create_app({"DATA_DIR": str(tmp_path_factory.mktemp("docs")), "TESTING": True})
    out = set()
    for rule in app.url_map.iter_rules():
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            out.add((method, norm(rule.rule)))
    return out


def documented(doc: str) -> set[tuple[str, str]]:
    return {(m, norm(p)) for m, p in ENDPOINT.findall(doc)}


def test_the_doc_describes_endpoints(doc):
    assert len(documented(doc)) >= 15


def test_every_documented_endpoint_exists(doc, routes):
    missing = sorted(documented(doc) - routes)
    assert not missing, f"docs/api.md documents endpoints the app does not have: {missing}"


def test_every_api_route_is_documented(doc, routes):
    api = {r for r in routes if r[1].startswith("/api/")}
    undocumented = sorted(api - documented(doc))
    assert not undocumented, f"add these to docs/api.md: {undocumented}"


def test_the_live_stream_is_documented(doc, routes):
    assert ("GET", "/t/<>/events") in documented(doc) & routes
    assert "event: changed" in doc


def test_every_entry_type_is_documented(doc):
    from companion.games.dune.entries import load_all
    names = sorted(load_all())
    missing = [n for n in names if f"`{n}`" not in doc]
    assert not missing, f"add these entry types to docs/api.md: {missing}"


def test_documented_entry_types_exist(doc):
    from companion.games.dune.entries import load_all
    names = set(load_all())
    table = doc.split("## Entry types", 1)[1]
    rows = re.findall(r"^\| `([a-z_]+(?:\.[a-z_]+)*)` \|", table, re.M)
    assert rows
    unknown = [r for r in rows if r not in names]
    assert not unknown, f"docs/api.md lists entry types the server does not know: {unknown}"


def test_the_spine_examples_are_right(client):
    """The two entries the doc spells out work as written."""
    from conftest import act, create_table, state
    t = create_table(client, ["atreides", "harkonnen"])
    act(client, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=12)
    act(client, t.code, t.seats["atreides"], type="storm.set", sector=7)
    s = state(client, t.code, t.seats["harkonnen"])
    assert s["storm"] == {"sector": 7} and s["factions"]["atreides"]["spice"] is None


# -- the folder map in docs/design.md matches the tree ------------------------------------------------

REPO = Path(__file__).resolve().parents[1]


def design_map_folders() -> set[str]:
    text = (REPO / "docs" / "design.md").read_text("utf-8")
    section = text[text.index("## Layers and folders"):text.index("## Identifiers")]
    return {m.rstrip("/") for m in re.findall(r"^\| `([a-z_/]+/)` \|", section, re.M)}


def tree_folders() -> set[str]:
    out = set()
    for top in ("companion", "templates"):
        for p in [REPO / top, *(REPO / top).rglob("*")]:
            if p.is_dir() and "__pycache__" not in p.parts and "vendor" not in p.parts and p.name != "icons":
                out.add(str(p.relative_to(REPO)))
    return out


def test_the_design_folder_map_matches_the_tree():
    listed = design_map_folders()
    assert {f for f in listed if not (REPO / f).is_dir()} == set(), "folders in docs/design.md that do not exist"
    # every folder of the package and the templates is in the map (a folder's own parts may be
    # described in its parent's row: the package root, static's icons and vendor)
    unlisted = tree_folders() - listed - {"companion"}
    assert unlisted == set(), f"folders missing from docs/design.md's map: {sorted(unlisted)}"
