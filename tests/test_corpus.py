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


def test_required_ids_exist(ids):
    assert len(REQUIRED_IDS) > 100
    assert [i for i in REQUIRED_IDS if i not in ids] == []


def _load_eval() -> list[tuple[str, list[str]]]:
    data = json.loads(EVAL.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    for item in data:  # the one format the benchmark reads
        assert set(item) == {"q", "accept"} and isinstance(item["q"], str) and isinstance(item["accept"], list), item
    return [(item["q"], item["accept"]) for item in data]


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
    for path in sorted((ROOT / "companion" / "data").glob("*.json")):
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
            if e.id not in [h.id for h in rs.search(e.title, limit=3)]:
                lost.append(e.id)
        assert lost == []
    finally:
        rs.close()
