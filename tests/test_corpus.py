"""The real rules corpus (rules_corpus/), the evaluation set, and the rule ids the code cites."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from companion.search.corpus import (
    FACTIONS,
    PHASES,
    QA_SECTIONS,
    RULESET_GAME,
    RULESETS,
    plain_text,
    corpus_files,
    read_corpus,
    validate,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "rules_corpus"
EVAL = ROOT / "benchmarks" / "search_eval.json"

# docs/design.md, "Rule ids (stable; the code cites these, so they must exist)"
KISS_IDS = """kiss-faster-storm kiss-less-worms kiss-single-nexus kiss-simple-dialing
kiss-treachery-deck kiss-truthtrance kiss-karama kiss-discovery-tokens""".split()
DISCOVERY_IDS = """discovery-token-territories discovery-jacurutu-sietch discovery-cistern
discovery-ecological-testing-station discovery-shrine discovery-orgiz-processing-station
discovery-treachery-card-stash discovery-spice-stash discovery-ornithopter""".split()
PER_FACTION = ["at-start", "free-revival", "alliance", "special-karama", "vulnerable", "kiss-changes"]
POWERS = {
    "atreides": "prescience-bidding prescience-spice prescience-battle kwisatz-haderach",
    "harkonnen": "traitors treachery captured-leaders",
    "fremen": "shipment movement wormriders sandworms special-victory storm-deck fedaykin battles",
    "emperor": "bidding sardaukar",
    "guild": "payment shipment-types half-price ship-when-you-wish special-victory",
    "bg": "prediction voice charity advisors coexistence spiritual-advisors",
    "ecaz": "ambassadors occupy revival loyalty collection",
    "moritani": "terrorize terror-tokens enemy-of-my-enemy duke-vidal assassinate",
    "tleilaxu": "facedancers false-flag spice-substitute paranoid axolotl-tanks",
}
BASE_IDS = """base-setup base-turn-sequence base-board base-storm base-storm-losses
base-spice-blow base-nexus base-charity base-bidding base-hand-limit base-revival
base-leader-revival base-shipment base-shipment-cost base-movement base-ornithopters
base-storm-movement base-occupancy base-alliance-occupancy base-battle base-collection
base-mentat-pause base-victory base-alliances base-tanks base-family-atomics base-shield-wall
base-polar-sink base-spice""".split()

REQUIRED_IDS = sorted(
    set(KISS_IDS + DISCOVERY_IDS + BASE_IDS)
    | {f"{f}-{s}" for f in FACTIONS for s in PER_FACTION}
    | {f"{f}-{p}" for f, powers in POWERS.items() for p in powers.split()}
    | {f"karama-{f}" for f in FACTIONS}
)


@pytest.fixture(scope="module")
def corpus():
    entries, problems = read_corpus(CORPUS)
    return entries, problems


@pytest.fixture(scope="module")
def ids(corpus) -> set[str]:
    return {e.id for e in corpus[0]}


def test_every_file_parses(corpus):
    assert corpus[1] == []


def test_corpus_is_valid(corpus):
    problems = validate(*corpus)
    assert problems == [], "\n".join(problems)


def test_ids_unique_and_match_file_names(corpus):
    entries = corpus[0]
    seen = [e.id for e in entries]
    assert len(seen) == len(set(seen)), sorted({i for i in seen if seen.count(i) > 1})
    assert [e.id for e in entries if e.filename != f"{e.id}.md"] == []
    assert len(entries) == len(corpus_files(CORPUS))


def test_related_ids_exist(corpus, ids):
    missing = sorted({(e.id, r) for e in corpus[0] for r in e.related if r not in ids})
    assert missing == []


def test_tags_known(corpus):
    bad = sorted({(e.id, t) for e in corpus[0] for t in e.factions if t not in FACTIONS}
                 | {(e.id, t) for e in corpus[0] for t in e.phases if t not in PHASES})
    assert bad == []


def test_titles_and_sources(corpus):
    assert [e.id for e in corpus[0] if not e.title.strip() or not e.source.strip()] == []


def test_qa_count_and_sections(corpus):
    qa = [e for e in corpus[0] if e.kind == "qa"]
    assert len(qa) >= 60, f"only {len(qa)} Q&A entries"
    incomplete = [e.id for e in qa if any(not e.sections().get(s, "").strip() for s in QA_SECTIONS)]
    assert incomplete == []
    assert [e.id for e in qa if not e.id.startswith("qa-")] == []
    assert [e.id for e in qa if not e.related] == [], "Q&A entries list the rules they rest on"


def test_every_entry_names_its_ruleset(corpus):
    entries = corpus[0]
    assert {e.ruleset for e in entries} == set(RULESETS)
    text = {e.id: (CORPUS / e.filename).read_text(encoding="utf-8") for e in entries}
    assert [i for i, t in text.items() if "\nruleset: " not in t.split("\n---", 1)[0]] == []
    # every id the code cites is a Dune entry (KISS, or the CHOAM & Richese add-on)
    by_id = {e.id: e for e in entries}
    assert [i for i in REQUIRED_IDS if RULESET_GAME[by_id[i].ruleset] != "kiss"] == []


def test_related_links_stay_within_their_game(corpus):
    """KISS and its CHOAM & Richese add-on are one game (Dune) and may link to each other; the
    other games on the shelf link only within themselves."""
    by_id = {e.id: e for e in corpus[0]}
    crossing = sorted((e.id, r) for e in corpus[0] for r in e.related
                      if RULESET_GAME[by_id[r].ruleset] != RULESET_GAME[e.ruleset])
    assert crossing == []
    assert any(by_id[r].ruleset == "kiss" for e in corpus[0] if e.ruleset == "choam-richese" for r in e.related)


WFA_TOPICS = """wfa-board wfa-air-zones wfa-north-pole wfa-impassable-borders wfa-free-areas
wfa-house-atreides wfa-fremen-ally wfa-house-harkonnen wfa-corrino-ally wfa-turn-sequence
wfa-action-dice wfa-desert-power wfa-battle wfa-combat-dice wfa-sandworms wfa-prescience-cards
wfa-victory wfa-secret-objectives wfa-spice-harvesting wfa-desert-hazards""".split()
IMP_TOPICS = """imp-agent-turn imp-board-spaces imp-costs imp-influence imp-alliances imp-conflict
imp-combat-intrigue imp-conflict-rewards imp-reveal-turn imp-persuasion imp-resources imp-mentat
imp-house-hagal-two-player imp-house-hagal-solo imp-end-of-game imp-ties imp-harvesting""".split()


@pytest.mark.parametrize("ruleset, prefix, topics, min_qa", [
    ("war-for-arrakis", "wfa-", WFA_TOPICS, 25),
    ("imperium", "imp-", IMP_TOPICS, 40),
])
def test_other_rulesets_cover_their_game(corpus, ids, ruleset, prefix, topics, min_qa):
    entries = [e for e in corpus[0] if e.ruleset == ruleset]
    assert [t for t in topics if t not in ids] == []
    qa = [e for e in entries if e.kind == "qa"]
    assert len(qa) >= min_qa, f"{ruleset}: only {len(qa)} Q&A entries"
    # ids say which game they belong to, so a KISS id can never be taken by another game
    assert [e.id for e in entries if not e.id.startswith((prefix, "qa-" + prefix))] == []
    assert [e.id for e in entries if e.factions or e.phases] == []  # KISS tags only
    assert all(e.source.startswith(("War for Arrakis", "Dune: Imperium")) for e in entries)


def test_imperium_qa_keeps_the_seed_citations(corpus):
    qa = [e for e in corpus[0] if e.ruleset == "imperium" and e.kind == "qa"]
    uncited = [e.id for e in qa if not any(k in e.source for k in ("Rules p", "Board Space Guide", "FAQ p"))]
    assert uncited == []


SEEDS = Path("/work/shared/seeds")


@pytest.mark.skipif(not (SEEDS / "war-for-arrakis.txt").exists(), reason="seed documents not on this machine")
def test_new_entries_are_in_our_own_words(corpus):
    """Facts, numbers and names carry over from the seeds; sentences do not: no run of 10
    words of a War for Arrakis or Imperium entry appears in its seed."""
    import re

    def words(t):
        return re.findall(r"[a-z0-9]+", t.lower())

    n = 10
    grams = set()
    for name in ("war-for-arrakis.txt", "dune-imperium-howto.txt"):
        w = words((SEEDS / name).read_text(encoding="utf-8"))
        grams |= {tuple(w[i:i + n]) for i in range(len(w) - n + 1)}
    copied = []
    for e in corpus[0]:
        if e.ruleset == "kiss":
            continue
        w = words(plain_text(e.text))
        copied += [(e.id, " ".join(w[i:i + n])) for i in range(len(w) - n + 1) if tuple(w[i:i + n]) in grams]
    assert copied == []


def test_required_ids_exist(ids):
    assert len(REQUIRED_IDS) > 100
    assert [i for i in REQUIRED_IDS if i not in ids] == []


def _load_eval() -> list[tuple[str, list[str]]]:
    data = json.loads(EVAL.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    for item in data:  # the one format the benchmark reads
        assert set(item) == {"q", "accept"} and isinstance(item["q"], str) and isinstance(item["accept"], list), item
    return [(item["q"], item["accept"]) for item in data]


def test_eval_set_per_ruleset(corpus):
    by_id = {e.id: e for e in corpus[0]}
    counts = {r: 0 for r in RULESETS}
    for q, acc in _load_eval():
        games = {by_id[i].ruleset for i in acc if i in by_id}
        assert len(games) == 1, f"{q!r}: accepted ids from several rulesets {games}"
        counts[games.pop()] += 1
    assert counts["kiss"] >= 80
    assert counts["war-for-arrakis"] >= 30 and counts["imperium"] >= 30, counts
    assert counts["choam-richese"] >= 10, counts


def test_eval_set(ids):
    assert EVAL.exists(), "benchmarks/search_eval.json is missing"
    items = _load_eval()
    assert len(items) >= 80, f"only {len(items)} questions"
    assert all(q.strip() and acc for q, acc in items)
    unknown = sorted({(q, i) for q, acc in items for i in acc if i not in ids})
    assert unknown == []
    questions = [q.strip().lower() for q, _ in items]
    assert len(questions) == len(set(questions)), "duplicate questions"


# ---------------------------------------------------------------------------------------------
# every rule id the code cites


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _str(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def citations(tree: ast.AST):
    """(line, id) for string literals given as the rule (2nd positional or ``rule=``) to calls
    named RuleViolation or hard."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or _call_name(node.func) not in ("RuleViolation", "hard"):
            continue
        values = [_str(node.args[1])] if len(node.args) >= 2 else []
        values += [_str(k.value) for k in node.keywords if k.arg == "rule"]
        for v in values:
            if v is not None:
                yield node.lineno, v


def cited_in_python() -> set[tuple[str, str]]:
    out = set()
    for path in sorted((ROOT / "companion").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out |= {(f"{path.relative_to(ROOT)}:{line}", v) for line, v in citations(tree)}
    return out


def _rule_values(obj, where: str, out: set) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "rule" and isinstance(v, str):
                out.add((where, v))
            elif k == "rule" and isinstance(v, list):
                out.update((where, x) for x in v if isinstance(x, str))
            else:
                _rule_values(v, where, out)
    elif isinstance(obj, list):
        for v in obj:
            _rule_values(v, where, out)


def cited_in_data() -> set[tuple[str, str]]:
    out: set = set()
    for path in sorted((ROOT / "companion").glob("**/data/*.json")):
        _rule_values(json.loads(path.read_text(encoding="utf-8")), str(path.relative_to(ROOT)), out)
    return out


def test_citation_collector_sees_both_call_forms(tmp_path):
    src = ("from x import RuleViolation, hard, errors\n"
           "raise RuleViolation('m', 'base-storm')\n"
           "raise errors.hard('m', rule='base-tanks')\n"
           "raise RuleViolation('m', rule=None)\n"
           "raise RuleViolation('m')\n")
    assert {v for _, v in citations(ast.parse(src))} == {"base-storm", "base-tanks"}


def test_every_rule_id_cited_in_code_exists(ids):
    cited = cited_in_python() | cited_in_data()
    missing = sorted(f"{where}: {rule}" for where, rule in cited if rule not in ids)
    assert missing == [], "\n".join(missing)


# ---------------------------------------------------------------------------------------------
# the real corpus is searchable


def test_every_title_finds_its_entry(tmp_path_factory, corpus):
    from companion.search import RuleSearch

    rs = RuleSearch(tmp_path_factory.mktemp("index"), CORPUS)
    try:
        lost = []
        for e in corpus[0]:
            # within its own ruleset in the first three; across every game on the shelf (where
            # another game may have an entry of the same name, e.g. a card) in the first five
            if (e.id not in [h.id for h in rs.search(e.title, limit=3, ruleset=e.ruleset)]
                    or e.id not in [h.id for h in rs.search(e.title, limit=5)]):
                lost.append(e.id)
        assert lost == []
    finally:
        rs.close()
