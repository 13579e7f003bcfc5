"""Behaviour of companion.search over a small fixture corpus (tests/fixtures/corpus)."""
from __future__ import annotations

import io
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from companion.search import Hit, RuleSearch, get_search
from companion.search import cli
from companion.search.corpus import (
    Entry,
    corpus_dir,
    fingerprint,
    load_corpus,
    parse_entry,
    plain_text,
    read_corpus,
    validate,
)

FIXTURES = Path(__file__).parent / "fixtures" / "corpus"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def corpus(tmp_path) -> Path:
    """A writable copy of the fixture corpus."""
    d = tmp_path / "corpus"
    shutil.copytree(FIXTURES, d)
    return d


@pytest.fixture()
def rs(corpus, tmp_path) -> RuleSearch:
    s = RuleSearch(tmp_path / "index", corpus)
    yield s
    s.close()


def ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


# ---------------------------------------------------------------------------------------------
# corpus parsing


def test_front_matter_parsed_exactly():
    e = parse_entry((FIXTURES / "kiss-simple-dialing.md").read_text(), "kiss-simple-dialing.md")
    assert e.id == "kiss-simple-dialing"
    assert e.kind == "kiss-change"  # trailing "# comment" ignored
    assert e.title == "KISS — Simple Dialing"
    assert e.source == "KISS · Changes · Simple Dialing"
    assert e.factions == ("fremen", "emperor")
    assert e.phases == ("battle",)
    assert e.aliases == ("simple dialing", "dial cost")
    assert e.related == ("emperor-sardaukar",)
    assert e.text.startswith("**Rule.**")
    assert e.url == "/rules/kiss-simple-dialing"


def test_empty_lists_and_qa_sections():
    e = parse_entry((FIXTURES / "qa-ship-into-storm.md").read_text())
    assert e.factions == () and e.aliases == ()
    s = e.sections()
    assert set(s) == {"Question", "Answer", "Example"}
    assert s["Answer"].startswith("No.")


def test_malformed_file_is_reported_not_fatal(corpus):
    (corpus / "broken.md").write_text("no front matter here\n")
    (corpus / "half.md").write_text("---\nid: half\ntitle: Half\n")
    entries, problems = read_corpus(corpus)
    assert len(entries) == len(list(FIXTURES.glob("*.md")))
    assert len(problems) == 2 and all("broken.md" in p or "half.md" in p for p in problems)
    assert len(load_corpus(corpus)) == len(entries)


def test_fixture_corpus_is_valid():
    entries, problems = read_corpus(FIXTURES)
    assert validate(entries, problems) == []


def test_validate_finds_every_kind_of_problem():
    good = Entry("base-storm", "Storm", "procedure", "Base", text="body", filename="base-storm.md")
    bad = [
        good,
        Entry("base-storm", "Storm again", "procedure", "Base", text="x", filename="other.md"),
        Entry("x-1", "", "faction", "", factions=("atreides", "sith"), phases=("lunch",),
              related=("nope", "x-1"), text="x", filename="x-1.md"),
        Entry("qa-thing", "Q", "qa", "Table Q&A", text="## Question\nWhy?\n\n## Answer\nBecause.",
              filename="qa-thing.md"),
        Entry("y", "Y", "novel", "S", text="y", filename="y.md"),
    ]
    problems = "\n".join(validate(bad))
    assert "duplicate id 'base-storm'" in problems
    assert "does not match the file name" in problems
    assert "missing title" in problems and "missing source" in problems
    assert "unknown faction 'sith'" in problems and "'atreides'" not in problems
    assert "unknown phase 'lunch'" in problems
    assert "related id 'nope' does not exist" in problems
    assert "related lists the entry itself" in problems
    assert "'## Example'" in problems and "'## Question'" not in problems
    assert "unknown kind 'novel'" in problems


def test_corpus_dir_finds_checkout_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPANION_RULES_CORPUS", raising=False)
    import companion

    pkg = Path(getattr(companion, "__file__", None) or Path(__file__).parent.parent / "companion" / "x").parent
    if (pkg / "rules_corpus").is_dir():
        assert corpus_dir() == pkg / "rules_corpus"  # installed layout
    else:
        assert corpus_dir() == ROOT / "rules_corpus"  # source checkout
    monkeypatch.setenv("COMPANION_RULES_CORPUS", str(tmp_path))
    assert corpus_dir() == tmp_path


def test_plain_text_strips_markdown():
    md = "## Answer\n**No.** See `base-storm` and [the storm](/rules/base-storm).\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert plain_text(md) == "Answer: No. See base-storm and the storm. one two a | b 1 | 2"


# ---------------------------------------------------------------------------------------------
# search quality


@pytest.mark.parametrize("q, expected", [
    ("kwizatz", "atreides-kwisatz-haderach"),
    ("kwisatz hadrach", "atreides-kwisatz-haderach"),
    ("sardukar", "emperor-sardaukar"),
    ("karma", "karama-atreides"),
    ("Wormriderz", "fremen-wormriders"),
])
def test_typos(rs, q, expected):
    assert ids(rs.search(q))[:1] == [expected]


@pytest.mark.parametrize("q, expected", [
    ("KH", "atreides-kwisatz-haderach"),
    ("BG voice", "bg-voice"),
    ("EomE", "moritani-enemy-of-my-enemy"),
    ("worm", "fremen-wormriders"),  # worm -> Shai-Hulud in the body
    ("dial cost", "kiss-simple-dialing"),  # an entry alias
    ("elite forces", "emperor-sardaukar"),  # an entry alias, not in the body
])
def test_slang_and_aliases(rs, q, expected):
    assert ids(rs.search(q))[:1] == [expected]


def test_stemming(rs):
    assert ids(rs.search("dialed"))[:1] == ["kiss-simple-dialing"]
    assert "qa-ship-into-storm" in ids(rs.search("shipping"))


def test_title_weighs_more_than_body(rs):
    # "storm" appears in the body of several entries; the entry titled Storm wins
    assert ids(rs.search("storm"))[0] == "base-storm"


def test_word_being_typed_matches_by_prefix(rs):
    assert ids(rs.search("kwisa"))[:1] == ["atreides-kwisatz-haderach"]


def test_filters(rs):
    fremen = rs.search("storm", faction="fremen")
    assert fremen and all("fremen" in rs.get(h.id).factions for h in fremen)
    assert "base-storm" not in ids(fremen)
    battle = rs.search("forces", phase="battle")
    assert battle and all("battle" in rs.get(h.id).phases for h in battle)
    both = rs.search("forces", faction="emperor", phase="battle")
    assert set(ids(both)) == {"emperor-sardaukar", "kiss-simple-dialing"}
    assert rs.search("storm", faction="bg") == []
    with pytest.raises(ValueError):
        rs.search("storm", faction="sith")
    with pytest.raises(ValueError):
        rs.search("storm", phase="lunch")


def test_limit_and_empty_queries(rs):
    assert len(rs.search("forces", limit=2)) == 2
    assert rs.search("") == [] and rs.search("   ") == []
    assert rs.search("the of and") == []


def test_hit_fields(rs):
    h = rs.search("sardaukar")[0]
    assert h.id == "emperor-sardaukar"
    assert h.title == "Emperor — Sardaukar"
    assert h.source == "KISS · Emperor · Sardaukar"
    assert h.url == "/rules/emperor-sardaukar"
    assert h.score > 0
    assert set(h.to_dict()) >= {"id", "title", "source", "snippet", "url", "score"}


def test_snippets_highlighted_and_escaped(rs):
    h = rs.search("dial spice")[0]
    assert h.id == "kiss-simple-dialing"
    assert "<mark>dial</mark>" in h.snippet and "<mark>spice</mark>" in h.snippet
    assert "&lt;" in h.snippet and "&amp;" in h.snippet and "&lt;not&gt;" in h.snippet
    # no markup other than <mark>
    stripped = h.snippet.replace("<mark>", "").replace("</mark>", "")
    assert "<" not in stripped and ">" not in stripped
    assert "**" not in h.snippet and "|---" not in h.snippet


def test_snippet_marks_corrected_and_synonym_words(rs):
    assert "<mark>Kwisatz</mark>" in rs.search("kwizatz")[0].snippet
    assert "<mark>Shai</mark>" in rs.search("worm")[0].snippet


def test_did_you_mean(rs):
    assert rs.suggest("kwizatz") == "kwisatz"
    assert rs.suggest("kwisatz hadrach") == "kwisatz haderach"
    assert rs.suggest("storm") is None
    assert rs.suggest("") is None
    assert rs.search("zzqxv") == [] and rs.suggest("zzqxv") is None


def test_get_and_entries(rs):
    e = rs.get("fremen-wormriders")
    assert e is not None and e.title == "Fremen — Wormriders" and e.factions == ("fremen",)
    assert rs.get("nope") is None
    all_ids = [e.id for e in rs.entries()]
    assert all_ids == sorted(all_ids) and len(all_ids) == len(list(FIXTURES.glob("*.md")))


# ---------------------------------------------------------------------------------------------
# the index: built once, rebuilt when the corpus changes


def _index_files(index_dir: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in index_dir.rglob("*") if p.is_file()}


def test_index_not_rebuilt_when_unchanged(corpus, tmp_path):
    index = tmp_path / "index"
    first = RuleSearch(index, corpus)
    assert first.built
    before = _index_files(index)
    second = RuleSearch(index, corpus)
    assert not second.built and second.builds == 0
    assert _index_files(index) == before
    for _ in range(20):
        second.search("storm")
    assert not second.refresh()
    assert _index_files(index) == before
    first.close()
    second.close()


def test_index_rebuilt_when_a_file_changes(corpus, tmp_path):
    index = tmp_path / "index"
    first = RuleSearch(index, corpus)
    assert first.search("melangeberry") == []
    path = corpus / "base-storm.md"
    path.write_text(path.read_text() + "\nA melangeberry grows where the storm passed.\n")
    second = RuleSearch(index, corpus)
    assert second.built
    assert ids(second.search("melangeberry")) == ["base-storm"]
    # an open instance picks the change up on refresh(), once
    assert first.refresh() is True
    assert ids(first.search("melangeberry")) == ["base-storm"]
    assert first.refresh() is False
    # a new file too
    (corpus / "base-spice.md").write_text(
        "---\nid: base-spice\ntitle: Spice\nkind: procedure\nsource: Base\nruleset: kiss\nfactions: []\n"
        "phases: []\naliases: []\nrelated: []\n---\nSpice is the only currency.\n")
    assert first.refresh() is True
    assert first.get("base-spice") is not None
    assert ids(first.search("currency")) == ["base-spice"]
    # the folder keeps only the current index
    assert len([p for p in index.iterdir() if p.is_dir()]) == 1
    first.close()
    second.close()


def test_fingerprint_tracks_contents(corpus):
    a = fingerprint(corpus)
    assert fingerprint(corpus) == a
    os.utime(corpus / "bg-voice.md", ns=(1, 1))  # mtime alone does not matter
    assert fingerprint(corpus) == a
    (corpus / "bg-voice.md").write_text((corpus / "bg-voice.md").read_text() + "x")
    assert fingerprint(corpus) != a


def test_get_search_shares_one_instance(corpus, tmp_path):
    a = get_search(tmp_path / "shared", corpus)
    b = get_search(tmp_path / "shared", corpus)
    assert a is b


def test_concurrent_searches(rs):
    queries = ["kwizatz", "BG voice", "storm", "dial spice", "EomE", "worm", "sardukar"]
    expected = {q: ids(rs.search(q)) for q in queries}
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(40):
                q = queries[(n + i) % len(queries)]
                assert ids(rs.search(q)) == expected[q]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    # a refresh with an unchanged corpus in the middle changes nothing
    assert rs.refresh() is False
    for t in threads:
        t.join()
    assert errors == []


def test_search_is_fast_enough_to_not_rebuild(rs):
    # not a benchmark: only proves no per-request rebuild (a build takes >50 ms)
    rs.search("storm")
    t = time.perf_counter()
    for _ in range(10):
        rs.search("storm")
    assert rs.builds == 1
    assert (time.perf_counter() - t) / 10 < 0.5


# ---------------------------------------------------------------------------------------------
# CLI


@pytest.fixture()
def cli_env(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_RULES_CORPUS", str(corpus))
    monkeypatch.setenv("COMPANION_SEARCH_INDEX", str(tmp_path / "cli-index"))
    return corpus


def test_cli_prints_top_answers(cli_env):
    out = io.StringIO()
    assert cli.main(["kwisatz", "haderach", "--limit", "2"], out=out) == 0
    text = out.getvalue()
    assert text.startswith("1. Atreides — Kwisatz Haderach  [atreides-kwisatz-haderach]")
    assert "KISS · Atreides · Kwisatz Haderach" in text
    assert "/rules/atreides-kwisatz-haderach" in text
    assert "<mark>" not in text and "Kwisatz Haderach joins a leader" in text
    assert "3. " not in text


def test_cli_filters_and_unescapes(cli_env):
    out = io.StringIO()
    assert cli.main(["dial", "spice", "--faction", "emperor", "--phase", "battle"], out=out) == 0
    text = out.getvalue()
    assert "[kiss-simple-dialing]" in text and "[fremen-wormriders]" not in text
    assert "spice < 1 & you dial 3" in " ".join(text.split())


def test_cli_no_match_and_did_you_mean(cli_env):
    out = io.StringIO()
    assert cli.main(["zzqxv"], out=out) == 1
    assert 'No rule matches "zzqxv"' in out.getvalue()
    out = io.StringIO()
    assert cli.main(["kwizatz", "--faction", "bg"], out=out) == 1
    assert 'Did you mean: companion rules "kwisatz"' in out.getvalue()


def test_cli_bad_arguments(cli_env, capsys):
    assert cli.main(["storm", "--faction", "sith"]) == 2
    assert cli.main([]) == 2
    assert cli.main(["storm", "--limit", "0"]) == 2


def test_unwritable_index_folder_falls_back_to_memory(corpus, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    rs = RuleSearch(blocker / "index", corpus)
    assert rs.built
    assert ids(rs.search("kwizatz"))[:1] == ["atreides-kwisatz-haderach"]
    rs.close()


# ---------------------------------------------------------------------------------------------
# several rulesets in one corpus


def _write_entry(folder: Path, eid: str, ruleset: str, title: str, body: str, related: str = "") -> None:
    (folder / f"{eid}.md").write_text(
        f"---\nid: {eid}\ntitle: {title}\nkind: procedure\nsource: Test · {title}\nruleset: {ruleset}\n"
        f"factions: []\nphases: []\naliases: []\nrelated: [{related}]\n---\n{body}\n", encoding="utf-8")


@pytest.fixture()
def shelf(corpus) -> Path:
    """The fixture corpus plus entries of two other games that talk about the same things
    (storm, worms, karama, dialing), so they would compete with the KISS answers."""
    _write_entry(corpus, "wfa-coriolis-storms", "war-for-arrakis", "Coriolis storms",
                 "Storms roll dice against Harkonnen Legions in the desert; the storm never moves sectors. "
                 "Storm storm storm. Sandworms and worm riders too.")
    _write_entry(corpus, "wfa-sandworms", "war-for-arrakis", "Sandworms",
                 "A sandworm (worm) attacks a Legion; worm riders ride sandworms across the desert.",
                 related="wfa-coriolis-storms")
    _write_entry(corpus, "imp-conflict", "imperium", "The Conflict",
                 "Strength: 2 per troop, 1 per sword. Dial? No dialing here; the Kwisatz Haderach is a card.")
    return corpus


def test_entries_carry_their_ruleset_and_the_filter_keeps_to_it(shelf, tmp_path):
    rs = RuleSearch(tmp_path / "idx", shelf)
    try:
        assert rs.rulesets() == ["kiss", "war-for-arrakis", "imperium"]
        assert rs.get("wfa-sandworms").ruleset == "war-for-arrakis"
        assert rs.get("base-storm").ruleset == "kiss"
        for game in ("kiss", "war-for-arrakis", "imperium"):
            hits = rs.search("storm worm dial", limit=20, ruleset=game)
            assert hits and {h.ruleset for h in hits} == {game}
        mixed = rs.search("storm worm", limit=20)  # no ruleset: every game, merged by score
        assert {h.ruleset for h in mixed} == {"kiss", "war-for-arrakis"}
        assert [h.score for h in mixed] == sorted((h.score for h in mixed), reverse=True)
        with pytest.raises(ValueError, match="unknown ruleset"):
            rs.search("storm", ruleset="monopoly")
        assert [e.id for e in rs.entries("imperium")] == ["imp-conflict"]
    finally:
        rs.close()


def test_kiss_answers_do_not_drown_in_the_other_games(corpus, shelf, tmp_path):
    """A KISS question scores exactly as it did before the other games came onto the shelf."""
    queries = ["storm", "worm riders", "kwizatz", "sardukar dial", "ship thru storm", "karama"]
    plain_dir = tmp_path / "plain"
    shutil.copytree(FIXTURES, plain_dir)
    alone = RuleSearch(tmp_path / "idx-alone", plain_dir)
    together = RuleSearch(tmp_path / "idx-shelf", shelf)
    try:
        for q in queries:
            a = [(h.id, h.score) for h in alone.search(q, limit=10, ruleset="kiss")]
            b = [(h.id, h.score) for h in together.search(q, limit=10, ruleset="kiss")]
            assert a == b, q
        # and the other way round: a War for Arrakis table sees only its own worms
        assert ids(together.search("worm", ruleset="war-for-arrakis")) == ["wfa-sandworms", "wfa-coriolis-storms"]
    finally:
        alone.close()
        together.close()


def test_spelling_suggestions_come_from_the_chosen_game(shelf, tmp_path):
    rs = RuleSearch(tmp_path / "idx", shelf)
    try:
        assert rs.suggest("coriolus", ruleset="war-for-arrakis") == "coriolis"
        assert rs.suggest("kwizatz", ruleset="kiss") == "kwisatz"
        assert rs.suggest("coriolis") is None  # known in one of the games
    finally:
        rs.close()


def test_ruleset_is_required_and_checked():
    base = "---\nid: x-1\ntitle: X\nkind: procedure\nsource: S\n{extra}---\nbody\n"
    with pytest.raises(Exception, match="missing 'ruleset:'"):
        parse_entry(base.format(extra=""), "x-1.md")
    with pytest.raises(Exception, match="unknown ruleset 'chess'"):
        parse_entry(base.format(extra="ruleset: chess\n"), "x-1.md")
    assert parse_entry(base.format(extra="ruleset: Imperium\n"), "x-1.md").ruleset == "imperium"
    kiss = Entry("base-storm", "Storm", "procedure", "S", text="b", filename="base-storm.md")
    other = Entry("imp-a", "A", "procedure", "S", factions=("fremen",), related=("base-storm",), text="b",
                  filename="imp-a.md", ruleset="imperium")
    problems = "\n".join(validate([kiss, other]))
    assert "related id 'base-storm' belongs to another game" in problems
    assert "leave them [] outside the Dune rulesets" in problems
    assert validate([kiss]) == []


def test_one_index_per_ruleset_and_old_single_index_removed(shelf, tmp_path):
    old = tmp_path / "idx" / ("ab" * 16)
    old.mkdir(parents=True)
    (old / "READY").write_text("x")
    rs = RuleSearch(tmp_path / "idx", shelf)
    try:
        assert not old.exists()
        paths = rs.index_paths()
        assert sorted(paths) == ["imperium", "kiss", "war-for-arrakis"]
        assert all(p.parent == tmp_path / "idx" / r for r, p in paths.items())
        assert rs.index_path == paths["kiss"]
    finally:
        rs.close()
