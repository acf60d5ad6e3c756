"""The docs QA set (eval/docs_qa.jsonl) and its checker (eval/check_qa.py).

The file's schema, counts and split minimums are checked without the shared data; the
checks against the corpus run only when the shared corpus is on this machine
(../shared/data/corpus beside the project, or $SHARED/corpus as in the Makefile).
The checker itself is exercised on a tiny corpus made here, so each rule is seen to fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QA_FILE = ROOT / "eval" / "docs_qa.jsonl"


def _load_checker():
    spec = importlib.util.spec_from_file_location("check_qa", ROOT / "eval" / "check_qa.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_qa = _load_checker()


def _shared_corpus() -> Path:
    shared = os.environ.get("SHARED")
    return Path(shared) / "corpus" if shared else ROOT.parent / "shared" / "data" / "corpus"


@pytest.fixture(scope="module")
def records() -> list[dict]:
    loaded, problems = check_qa.load(QA_FILE)
    assert not problems, problems
    return loaded


# --------------------------------------------------------------------------- the file itself


def test_file_schema_ids_and_minimums_hold(records: list[dict]) -> None:
    assert check_qa.check(records, corpus=None) == []


def test_every_split_meets_its_minimums(records: list[dict]) -> None:
    counts = check_qa.tally(records)
    for split in ("dev", "test"):
        for name, minimum in check_qa.SPLIT_MINIMUMS.items():
            assert counts[split][name] >= minimum, (split, name, counts[split][name])


def test_splits_are_stratified_by_type(records: list[dict]) -> None:
    """Each type (and the paraphrases) is split roughly 50/50, never more lopsided than 60/40."""
    groups = Counter((r["type"], r["paraphrase"], r["split"]) for r in records)
    for kind in check_qa.TYPES:
        for para in (False, True):
            dev, test = groups[(kind, para, "dev")], groups[(kind, para, "test")]
            if dev + test >= 4:
                assert 0.4 <= dev / (dev + test) <= 0.6, (kind, para, dev, test)


def test_questions_spread_over_many_files(records: list[dict]) -> None:
    uses = Counter(s for r in records for s in r["sources"])
    assert len(uses) >= 40
    answerable = sum(r["type"] in ("single", "multi") for r in records)
    assert max(uses.values()) <= answerable // 10  # no page dominates the set


def test_multi_questions_include_cross_component_ones(records: list[dict]) -> None:
    assert check_qa.tally(records)["all"]["cross-component"] >= 5


def test_file_loads_with_the_projects_qa_loader() -> None:
    from docsassistant.evaluation import load_qa

    questions = load_qa(QA_FILE)
    assert len(questions) == sum(
        1 for line in QA_FILE.read_text(encoding="utf-8").splitlines() if line.strip()
    )
    assert all(q.scope for q in questions if q.type == "count")


# --------------------------------------------------------------------------- against the corpus


def test_file_holds_against_the_shared_corpus(records: list[dict]) -> None:
    corpus = _shared_corpus()
    if not corpus.is_dir():
        pytest.skip(f"shared corpus not found at {corpus} (set SHARED=<path to shared/data> to run this)")
    assert check_qa.check(records, corpus) == []


# --------------------------------------------------------------------------- the checker's rules


@pytest.fixture
def tiny_corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "corpus" / "vector-rag" / "db"
    docs.mkdir(parents=True)
    (docs / "a.md").write_text("# A\n\nThe index is built\nwith 16 links per node.\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\nQueries wait 20 seconds before they time out.\n", encoding="utf-8")
    (docs / "copy.md").write_text("Queries wait 20 seconds before they time out.\n", encoding="utf-8")
    (docs / "notes.txt").write_text("not counted\n", encoding="utf-8")
    return tmp_path / "corpus"


def _single(**changes) -> dict:
    record = {
        "id": "s1",
        "question": "How many links per node does the index use?",
        "component": "vector-rag",
        "type": "single",
        "sources": ["vector-rag/db/a.md"],
        "evidence": ["The index is built with 16 links per node."],
        "answer": "16.",
        "split": "dev",
        "paraphrase": False,
    }
    return {**record, **changes}


def _problems(record: dict, corpus: Path) -> list[str]:
    return check_qa.check_record(record) + check_qa.check_against_corpus(
        record, corpus, check_qa.load_corpus(corpus)
    )


def test_checker_accepts_evidence_across_a_line_break(tiny_corpus: Path) -> None:
    assert _problems(_single(), tiny_corpus) == []


def test_checker_rejects_evidence_not_in_the_source(tiny_corpus: Path) -> None:
    problems = _problems(_single(evidence=["The index is built with 32 links per node."]), tiny_corpus)
    assert any("not found verbatim" in p for p in problems)


def test_checker_rejects_a_missing_source(tiny_corpus: Path) -> None:
    problems = _problems(_single(sources=["vector-rag/db/gone.md"]), tiny_corpus)
    assert any("does not exist" in p for p in problems)


def test_checker_rejects_a_source_whose_evidence_is_duplicated_elsewhere(tiny_corpus: Path) -> None:
    record = _single(sources=["vector-rag/db/b.md"], evidence=["Queries wait 20 seconds"])
    problems = _problems(record, tiny_corpus)
    assert any("vector-rag/db/copy.md" in p for p in problems)


def test_checker_names_the_words_a_paraphrase_shares(tiny_corpus: Path) -> None:
    problems = _problems(
        _single(paraphrase=True, question="How many links does each graph node get?"), tiny_corpus
    )
    assert any("links" in p and "node" in p for p in problems)
    fine = _single(paraphrase=True, question="How many neighbours is every vertex wired to?")
    assert _problems(fine, tiny_corpus) == []


def test_stemming_catches_inflected_forms() -> None:
    assert check_qa.shared_content_words("Which indexes were building?", ["index build"]) == [
        "building~build",
        "indexes~index",
    ]
    assert check_qa.shared_content_words("What is it for?", ["it is for"]) == []


def test_checker_recounts_count_answers(tiny_corpus: Path) -> None:
    record = _single(
        type="count", sources=[], evidence=[], scope="vector-rag/db", answer="3", question="How many pages?"
    )
    assert _problems(record, tiny_corpus) == []
    wrong = _problems({**record, "answer": "4"}, tiny_corpus)
    assert any("holds 3" in p for p in wrong)


def test_checker_enforces_shapes_ids_and_minimums() -> None:
    records = [_single(), _single(), _single(id="m1", type="multi"), _single(id="u1", type="unanswerable")]
    problems = check_qa.check(records, corpus=None)
    assert any("id used 2 times" in p for p in problems)
    assert any("m1: a multi question needs at least 2" in p for p in problems)
    assert any("u1: a unanswerable question has no sources" in p for p in problems)
    assert any("only 0 count questions" in p for p in problems)
    assert any("test split: only 0 total" in p for p in problems)


def test_checker_cli_exits_nonzero_on_problems(tmp_path: Path, tiny_corpus: Path, capsys) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps(_single()) + "\n", encoding="utf-8")
    assert check_qa.main([str(path), "--corpus", str(tiny_corpus)]) == 1
    out = capsys.readouterr().out
    assert "PROBLEM only 1 total questions (minimum 80)" in out
    assert check_qa.main([str(tmp_path / "absent.jsonl")]) == 2
