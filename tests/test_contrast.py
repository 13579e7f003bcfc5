"""Faction colours pass WCAG contrast where they are used (issue 24), read from the stylesheets: a map
chip's text on its chip 4.5:1 (text), the chip against its dark ring 3:1 and the ring against every
piece it may sit on 3:1 (shapes), the faction stripe on a card 3:1 (a shape). WCAG 2 relative luminance:
https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio."""
from __future__ import annotations

import re

import pytest

from contrast import _css, _last, faction_colours, ratio

FACTIONS = sorted(faction_colours())


def test_the_stylesheets_give_every_faction_its_colours():
    from companion.games.dune.web.board_svg import SHORT
    assert set(FACTIONS) == set(SHORT)   # every faction the map draws has a chip colour
    for f, c in faction_colours().items():
        assert all(c.values()), (f, c)


@pytest.mark.parametrize("a,b,want", [("#000000", "#ffffff", 21.0), ("#ffffff", "#ffffff", 1.0),
                                      ("#777777", "#ffffff", 4.48), ("#e05545", "#ffffff", 3.78)])
def test_contrast_ratio_matches_known_values(a, b, want):
    assert ratio(a, b) == pytest.approx(want, abs=0.01)


@pytest.mark.parametrize("faction", FACTIONS)
def test_chip_text_reads_on_its_chip(faction):
    c = faction_colours()[faction]
    assert ratio(c["chip_text"], c["chip"]) >= 4.5, c


@pytest.mark.parametrize("faction", FACTIONS)
def test_the_chip_stands_out_from_its_dark_ring(faction):
    c = faction_colours()[faction]
    assert ratio(c["chip"], c["ring"]) >= 3, c


@pytest.mark.parametrize("faction", FACTIONS)
def test_the_faction_stripe_stands_out_on_a_card(faction):
    c = faction_colours()[faction]
    assert ratio(c["stripe"], c["card"]) >= 3, c


@pytest.mark.parametrize("faction", FACTIONS + ["spice"])
def test_a_chip_reads_on_every_piece_of_the_map_lit_or_not(faction):
    """A chip is its colour in a dark ring in a thin light halo: on a light piece the ring stands out, on a
    dark one the halo (or the chip itself): 3:1 either way."""
    css = _css("map.css")
    c = faction_colours().get(faction) or {"chip": _last(css, ".dune-map .chip.sp rect", "fill"),
                                           "ring": next(iter(faction_colours().values()))["ring"]}
    halo = re.search(r"\.dune-map \.chips \{[^}]*drop-shadow\([^)]*?(#[0-9a-fA-F]{3,6})", css).group(1)
    fills = re.findall(r"\.dune-map \.(?:sand|rock|stronghold|polar|pc)[^{]*\{[^}]*?fill:\s*(#[0-9a-fA-F]{3,6})", css)
    assert len(fills) >= 10, fills
    for fill in fills:
        assert max(ratio(c["ring"], fill), ratio(halo, fill), ratio(c["chip"], fill)) >= 3, (faction, c, fill)
        assert ratio(c["ring"], halo) >= 3
