"""Side-by-side evaluation: the offline fusion of collected lists is exactly search_docs'
ranking, and the QA / BEIR figures count what they claim."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write

from docsassistant import compare_retrievers as cr
from docsassistant.beir_eval import BeirData
from docsassistant.evaluation import QAQuestion
from docsassistant.fusion_grid import grid, objective
from docsassistant.ingest import index_paths
from docsassistant.search import search_docs

PAGES = {
    "kb/kettle.md": "# Kettle\n\n## Descaling\n\nDescale the kettle monthly with citric acid.",
    "kb/toaster.md": "# Toaster\n\n## Crumbs\n\nEmpty the crumb tray of the toaster weekly.",
    "kb/oven.md": "# Oven\n\n## Cleaning\n\nRun the pyrolytic cycle to clean the oven; `oven.pyro_mode` sets it.",
}


@pytest.fixture
def kitchen(clean_db, tmp_path: Path) -> Path:
    for name, text in PAGES.items():
        write(tmp_path / name, text)
    index_paths([tmp_path / "kb"], "kb", base=tmp_path)
    return tmp_path


QUESTIONS = [
    QAQuestion(
        "s1", "How often should I descale the kettle?", "single", "kb", ["kb/kettle.md"], ["citric acid"]
    ),
    QAQuestion("p1", "bread heater leftovers", "single", "kb", ["kb/toaster.md"], [], paraphrase=True),
    QAQuestion("m1", "kettle descaling and oven.pyro_mode", "multi", "kb", ["kb/kettle.md", "kb/oven.md"]),
    QAQuestion("u1", "How do I fix my car?", "unanswerable", "kb"),
]


def test_offline_fusion_equals_search_docs(kitchen: Path) -> None:
    collected = cr.collect([(q.question, q.component) for q in QUESTIONS])
    for q, lists in zip(QUESTIONS, collected, strict=True):
        hits = search_docs(q.question, q.component, k=3)
        assert lists.ranking(cr.SHIPPED)[:3] == [h["chunk_id"] for h in hits]
        dense = search_docs(q.question, q.component, k=3, mode="dense")
        assert lists.ranking(cr.SINGLE_LISTS[0])[:3] == [h["chunk_id"] for h in dense]


def test_qa_metrics_count_each_type(kitchen: Path) -> None:
    collected = cr.collect([(q.question, q.component) for q in QUESTIONS])
    m = cr.qa_metrics(QUESTIONS, collected, cr.SHIPPED, k=1, multi_k=3)
    assert (m["single_n"], m["paraphrase_n"], m["multi_n"]) == (2, 1, 1)
    assert m["multi_all_found"] == 1.0  # 3 chunks, 3 files: both expected files are in
    s1 = cr.qa_metrics(QUESTIONS[:1], collected[:1], cr.SHIPPED, k=1)
    assert s1["single_hit"] == 1.0 and s1["evidence"] == 1.0 and s1["mrr"] == 1.0
    ident = cr.qa_metrics(QUESTIONS[:1], collected[:1], cr.SINGLE_LISTS[2], k=1)
    assert ident["single_hit"] == 0.0  # no identifier in the question: the list is empty


def test_beir_metrics_collapse_chunks_to_documents(kitchen: Path) -> None:
    data = BeirData(corpus={}, queries={"q1": "descale kettle"}, qrels={"q1": {"kb/kettle.md": 1}})
    collected = cr.collect([("descale kettle", "kb")])
    figures = cr.beir_metrics(data, ["q1"], collected, cr.SHIPPED)
    assert figures == {"ndcg@10": pytest.approx(1.0), "recall@5": pytest.approx(1.0)}


def test_grid_and_objective() -> None:
    configs = list(grid())
    assert len({c.name for c in configs}) == len(configs)
    assert any(dict(c.weights) == {"dense": 1.0} for c in configs)
    figures = {"qa-dev": {"a": 1.0, "b": 0.0}, "x-dev": {"n": 0.5}, "qa-test": {"a": 0.0}}
    assert objective(figures, "dev") == pytest.approx(0.5)
    assert objective(figures, "test") == 0.0
    assert cr.beir_split(["3", "1", "2", "4"]) == {"dev": ["1", "3"], "test": ["2", "4"]}
