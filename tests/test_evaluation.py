"""The evaluation metrics and loaders, on tiny fixtures made here (no shared data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from conftest import write
from typer.testing import CliRunner

from docsassistant import beir_eval as beir
from docsassistant import evaluation as ev

# --------------------------------------------------------------------------- pure metrics


def test_source_recall_counts_distinct_expected_sources() -> None:
    assert ev.source_recall(["a", "b"], ["x", "a", "a"]) == 0.5
    assert ev.source_recall(["a", "b"], ["b", "a"]) == 1.0
    assert ev.source_recall(["a"], []) == 0.0
    assert ev.source_recall([], ["a"]) is None


def test_reciprocal_rank_uses_first_expected_hit() -> None:
    assert ev.reciprocal_rank(["b", "c"], ["a", "c", "b"]) == 0.5
    assert ev.reciprocal_rank(["a"], ["a"]) == 1.0
    assert ev.reciprocal_rank(["z"], ["a", "b"]) == 0.0


def test_percentile_interpolates() -> None:
    assert ev.percentile([], 50) is None
    assert ev.percentile([3.0], 95) == 3.0
    assert ev.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert ev.percentile(list(map(float, range(101))), 95) == 95.0


def test_evidence_matching_ignores_markup_and_whitespace() -> None:
    contents = ["Set `ivfflat.probes`\nto 10 for **better** recall.", "other"]
    assert ev.evidence_found(["set ivfflat.probes to 10", "not there"], contents) == 0.5
    assert ev.evidence_found([], contents) is None


def test_document_run_keeps_each_documents_best_rank() -> None:
    hits = [{"source_path": p} for p in ("d2", "d1", "d2", "d3", "d1")]
    assert beir.document_run(hits) == {"d2": 3.0, "d1": 2.0, "d3": 1.0}
    assert beir.document_run(hits, limit=2) == {"d2": 2.0, "d1": 1.0}


def test_ranx_metrics_known_values_and_queries_without_hits() -> None:
    qrels = {"q1": {"d1": 1, "d2": 1}, "q2": {"x": 1}, "q3": {"z": 2}}
    run = {"q1": {"d1": 3.0, "d3": 2.0, "d2": 1.0}, "q2": {"y": 2.0, "x": 1.0}}  # q3: no hit at all
    means, per_query = beir.ranx_metrics(qrels, run, k=10)
    assert per_query["q1"]["mrr@10"] == 1.0
    assert per_query["q1"]["recall@10"] == 1.0
    assert per_query["q1"]["ndcg@10"] == pytest.approx((1 + 1 / 2) / (1 + 1 / 1.5849625), rel=1e-6)
    assert per_query["q2"]["mrr@10"] == 0.5
    assert per_query["q3"] == {"ndcg@10": 0.0, "recall@10": 0.0, "mrr@10": 0.0}
    assert means["mrr@10"] == pytest.approx(0.5)
    assert means["recall@10"] == pytest.approx(2 / 3)


def test_ranx_metrics_adds_recall_at_other_cutoffs() -> None:
    qrels = {"q1": {"d1": 1, "d6": 1}}
    run = {"q1": {f"d{i}": float(10 - i) for i in range(1, 8)}}  # d6 comes 6th
    means, per_query = beir.ranx_metrics(qrels, run, k=10, recall_at=(5,))
    assert list(means) == ["ndcg@10", "recall@5", "recall@10", "mrr@10"]
    assert per_query["q1"]["recall@5"] == 0.5 and per_query["q1"]["recall@10"] == 1.0


def test_aggregate_gives_each_type_its_own_figures() -> None:
    def result(qid: str, qtype: str, **kw) -> ev.QuestionResult:
        base = dict(
            id=qid, type=qtype, component=None, question="?", sources=[], retrieved=[], recall=None,
            rr=None, hit=None, all_found=None, evidence=None, top_score=0.03, top_similarity=0.5,
        )  # fmt: skip
        return ev.QuestionResult(**{**base, **kw})

    agg = ev.aggregate(
        [
            result("s1", "single", recall=1.0, rr=1.0, hit=True, all_found=True, top_similarity=0.7),
            result("s2", "single", recall=0.0, rr=0.0, hit=False, all_found=False, top_similarity=0.4),
            result("m1", "multi", recall=0.5, rr=0.5, hit=True, all_found=False, top_similarity=0.6),
            result("u1", "unanswerable", top_similarity=0.45),
            result("c1", "count", in_scope=0.6, store_count=3, expected_count=3),
        ]
    )
    assert agg["single"]["recall"] == 0.5 and agg["single"]["hit_rate"] == 0.5
    assert agg["single"]["mrr"] == 0.5
    assert agg["answerable"]["n"] == 3 and agg["answerable"]["all_found_rate"] == pytest.approx(1 / 3)
    assert agg["answerable"]["top_similarity_min"] == 0.4
    assert "recall" not in agg["unanswerable"] and "recall" not in agg["count"]
    assert agg["unanswerable"]["top_similarity_max"] == 0.45
    assert agg["unanswerable"]["answerable_below_max"] == 1  # only s2 (0.4) scores below 0.45
    assert agg["count"]["store_count_matches"] == 1 and agg["count"]["in_scope"] == 0.6


# --------------------------------------------------------------------------- loaders


def test_load_qa_reads_records_and_names_bad_lines(tmp_path: Path) -> None:
    good = {"id": "q1", "question": "Q?", "type": "single", "component": None, "sources": ["a/b.md"]}
    path = write(tmp_path / "qa.jsonl", json.dumps(good) + "\n\n")
    [item] = ev.load_qa(path)
    assert item.sources == ["a/b.md"] and item.component is None and item.evidence == []
    bad = write(tmp_path / "bad.jsonl", json.dumps(good) + "\n" + json.dumps({"id": "x"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        ev.load_qa(bad)
    wrong_type = write(tmp_path / "t.jsonl", json.dumps({**good, "type": "trivia"}))
    with pytest.raises(ValueError, match="trivia"):
        ev.load_qa(wrong_type)


def _beir_folder(root: Path) -> Path:
    folder = root / "tinyset_sample3" / "beir"
    docs = [
        ("t-1", "Aurora Borealis", "The aurora borealis is a natural light display in polar skies."),
        (
            "t-2",
            "Sourdough Bread",
            "Sourdough bread is leavened with a fermented starter of flour and water.",
        ),
        ("t-3", "Volcanic Eruption", "A volcanic eruption expels lava, ash and gases from a volcano."),
        ("t-4", "Chess Opening", "The Sicilian Defence is a chess opening that begins 1.e4 c5."),
    ]
    write(
        folder / "corpus.jsonl",
        "\n".join(json.dumps({"_id": i, "title": t, "text": x}) for i, t, x in docs) + "\n",
    )
    queries = [
        ("q-bread", "How is sourdough bread leavened?"),
        ("q-chess", "Which chess opening starts with e4 c5?"),
        ("q-none", "A query without positive judgments"),
    ]
    write(folder / "queries.jsonl", "\n".join(json.dumps({"_id": i, "text": t}) for i, t in queries))
    write(
        folder / "qrels" / "test.tsv",
        "query-id\tcorpus-id\tscore\nq-bread\tt-2\t1\nq-chess\tt-4\t2\nq-none\tt-1\t0\n",
    )
    return folder


def test_load_beir_keeps_positive_judgments_only(tmp_path: Path) -> None:
    folder = _beir_folder(tmp_path)
    data = beir.load_beir(folder)
    assert len(data.corpus) == 4 and data.corpus["t-1"][0] == "Aurora Borealis"
    assert data.qrels == {"q-bread": {"t-2": 1}, "q-chess": {"t-4": 2}}
    assert beir.beir_component(folder) == "beir-tinyset_sample3"
    assert beir.beir_missing(tmp_path) == ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"]
    with pytest.raises(ValueError, match="not a BEIR folder"):
        beir.load_beir(tmp_path)


# --------------------------------------------------------------------------- against the store


def _tiny_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    write(
        corpus / "alpha" / "guide.md",
        "# Alpha guide\n\n## Tuning\n\nSet the zorblax threshold to 42 to make the flux capacitor stable.\n",
    )
    write(
        corpus / "alpha" / "extra" / "notes.md",
        "# Alpha notes\n\n## Storage\n\nQuibble files are kept in the vault directory for seven days.\n",
    )
    write(
        corpus / "beta" / "ops.md",
        "# Beta operations\n\n## Restarts\n\nRestart the gizmotron daemon with the restart-gizmo command.\n",
    )
    return corpus


def _tiny_qa(root: Path) -> Path:
    records = [
        {
            "id": "s1",
            "question": "What zorblax threshold makes the flux capacitor stable?",
            "component": "alpha",
            "type": "single",
            "sources": ["alpha/guide.md"],
            "evidence": ["Set the zorblax threshold to 42"],
            "answer": "42",
        },
        {
            "id": "m1",
            "question": "How long are quibble files kept, and how do I restart the gizmotron daemon?",
            "component": None,
            "type": "multi",
            "sources": ["alpha/extra/notes.md", "beta/ops.md"],
            "evidence": [],
            "answer": "seven days; restart-gizmo",
        },
        {
            "id": "c1",
            "question": "How many alpha documents are there?",
            "component": "alpha",
            "type": "count",
            "sources": [],
            "scope": "alpha",
            "answer": "2",
        },
        {
            "id": "u1",
            "question": "How do I configure Kubernetes autoscaling?",
            "component": "beta",
            "type": "unanswerable",
            "sources": [],
            "answer": "not in the documentation",
        },
    ]
    return write(root / "qa.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")


def test_evaluate_qa_on_a_tiny_corpus(clean_db, settings, tmp_path: Path) -> None:
    corpus = _tiny_corpus(tmp_path)
    reports = ev.index_corpus(corpus, settings=settings)
    assert sorted(reports) == ["alpha", "beta"]
    assert ev.index_corpus(corpus, settings=settings) == {}  # both components present: nothing to do

    result = ev.evaluate_qa(ev.load_qa(_tiny_qa(tmp_path)), k=3, settings=settings)
    by_id = {q["id"]: q for q in result["questions"]}
    assert by_id["s1"]["recall"] == 1.0 and by_id["s1"]["rr"] == 1.0
    assert by_id["s1"]["evidence"] == 1.0
    assert by_id["m1"]["recall"] == 1.0  # three documents, k=3: both sources come back
    assert by_id["c1"]["store_count"] == 2 and by_id["c1"]["expected_count"] == 2
    assert by_id["c1"]["in_scope"] == 1.0 and by_id["c1"]["recall"] is None
    assert by_id["u1"]["recall"] is None and by_id["u1"]["top_similarity"] is not None
    agg = result["aggregate"]
    assert agg["single"]["hit_rate"] == 1.0
    assert agg["count"]["store_count_matches"] == 1
    assert set(agg) == {"single", "multi", "answerable", "count", "unanswerable"}


def test_evaluate_beir_on_a_tiny_folder(clean_db, settings, tmp_path: Path) -> None:
    data = beir.load_beir(_beir_folder(tmp_path))
    report = beir.index_beir(data, "beir-tiny", settings=settings)
    assert report.counts()["added"] == 4
    again = beir.index_beir(data, "beir-tiny", settings=settings)
    assert again.counts()["unchanged"] == 4  # idempotent by content hash

    result = beir.evaluate_beir(data, "beir-tiny", k=3, settings=settings)
    assert result["queries"] == 2 and result["queries_without_judgments"] == 1
    assert result["chunk_k"] == 9
    assert result["per_query"]["q-bread"]["ranking"][0] == "t-2"
    assert result["metrics"]["mrr@3"] == 1.0 and result["metrics"]["ndcg@10"] == 1.0

    # A record dropped from the corpus is dropped from the component too.
    del data.corpus["t-3"]
    pruned = beir.index_beir(data, "beir-tiny", settings=settings)
    assert [r.source_path for r in pruned.by_status("removed")] == ["t-3"]


def test_cli_eval_search_writes_json_and_fails_on_missing_data(clean_db, tmp_path: Path) -> None:
    from docsassistant.cli import eval_commands

    app = typer.Typer()
    eval_commands.register(app)
    runner = CliRunner()

    missing = runner.invoke(app, ["eval", "search", "--beir", str(tmp_path / "nope")])
    # A missing input fails: a script must not read a skipped evaluation as a passed one.
    assert missing.exit_code == 1 and "Not found" in missing.output and "nope" in missing.output
    assert "Not found" in missing.stderr and not missing.stdout  # errors on stderr (QA round 7b, F4)
    both = runner.invoke(app, ["eval", "search"])
    assert both.exit_code == 2

    out = tmp_path / "out.json"
    args = ["eval", "search", "--qa", str(_tiny_qa(tmp_path)), "--corpus", str(_tiny_corpus(tmp_path))]
    done = runner.invoke(app, [*args, "-k", "3", "--json-out", str(out)])
    assert done.exit_code == 0, done.output
    assert "Single-source questions with the expected source in the top 3" in done.output
    saved = json.loads(out.read_text())
    assert saved["k"] == 3 and len(saved["questions"]) == 4
    assert saved["aggregate"]["single"]["hit_rate"] == 1.0


# --------------------------------------------------------------------------- benchmarks


def test_synthetic_vectors_are_unit_length_and_near_their_base() -> None:
    import numpy as np

    from docsassistant.bench.measure import latency_summary
    from docsassistant.bench.synthetic import _unit, synthetic_vectors

    base = _unit(np.random.default_rng(1).normal(size=(5, 16)))
    vectors = synthetic_vectors(base, 50, sigma=0.01)
    assert vectors.shape == (50, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (vectors @ base.T).max(axis=1).min() > 0.9  # each stays close to one base vector
    summary = latency_summary([1.0, 2.0, 3.0, 4.0])
    assert summary["p50_ms"] == 2.5 and summary["max_ms"] == 4.0 and summary["n"] == 4


def test_bench_ingest_search_and_synthetic_on_a_tiny_corpus(clean_db, settings, tmp_path: Path) -> None:
    import sqlalchemy as sa

    from docsassistant.bench import ingest, search, synthetic

    corpus = _tiny_corpus(tmp_path)
    result = ingest.bench_ingest(corpus, chunk_size=400, overlap=50, settings=settings)
    assert result["files"] == 3 and result["files_by_status"]["added"] == 3
    assert result["chunks"] == result["embedded_texts"] > 0
    assert result["reingest_changed_files"] == 0 and result["ratio"] > 0
    assert result["settings"]["chunk_size"] == 400 and result["peak_rss_mb"] > 0
    assert result["query_embedding"]["n"] > 0 and result["query_embedding"]["p50_ms"] > 0
    with clean_db.connect() as conn:  # the benchmark's components are gone again
        assert conn.execute(sa.text("SELECT count(*) FROM documents")).scalar() == 0

    ev.index_corpus(corpus, settings=settings)
    latency = search.bench_search(queries=4, warmup=1, qa_path=_tiny_qa(tmp_path), settings=settings)
    assert latency["queries"] == 4 and latency["queries_from_qa"] == 4
    assert latency["unfiltered"]["n"] == 4 and latency["filtered"]["p95_ms"] > 0
    assert latency["unfiltered_paced"]["n"] == 4 and latency["paced_pause_s"] > 0
    assert latency["store_hnsw"]["100"]["recall_at_10"] == 1.0  # 3 chunks: nothing to miss

    synthetic = synthetic.bench_synthetic(300, n_queries=5, ef_values=(40,), settings=settings)
    assert synthetic["exact_vs_numpy_agreement"] == 1.0
    assert 0.0 <= synthetic["ann"]["40"]["recall_at_10"] <= 1.0 and synthetic["ann"]["40"]["uses_index"]
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT to_regclass('bench_chunks')")).scalar() is None


def test_bench_ingest_with_nothing_to_index_says_so(clean_db, settings, tmp_path: Path) -> None:
    """A component folder with no supported file (or only symlinks) gave a TypeError deep in
    the report; now a clear error names the folder."""
    from docsassistant.bench import ingest

    (tmp_path / "corpus" / "empty").mkdir(parents=True)
    (tmp_path / "corpus" / "empty" / "notes.xyz").write_text("not a supported type", encoding="utf-8")
    with pytest.raises(ValueError, match="No chunks were indexed"):
        ingest.bench_ingest(tmp_path / "corpus", settings=settings)


def test_embedder_speedups_are_over_torch_for_each_onnx_run() -> None:
    from docsassistant.bench.embedders import speedups

    runs = {
        "torch": {"chunks_per_s": 2.0, "chunks_per_cpu_s": 4.0},
        "onnx": {"chunks_per_s": 5.0, "chunks_per_cpu_s": 8.0},
        "onnx-int8": {"chunks_per_s": 6.0, "chunks_per_cpu_s": None},
    }
    assert speedups(runs) == {
        "onnx_speedup": 2.5,
        "onnx_speedup_cpu": 2.0,
        "onnx_int8_speedup": 3.0,
        "onnx_int8_speedup_cpu": None,
    }
    assert speedups({"onnx": runs["onnx"]}) == {}
