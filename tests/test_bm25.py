"""BM25 in PostgreSQL: the trigger-kept statistics always equal a recount from the chunks,
and the SQL ranker's scores equal a plain-Python BM25 over the same tsvectors."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import write

from docsassistant.bm25 import K1, B, bm25_ranked
from docsassistant.ingest import index_paths
from docsassistant.reindex import reindex

PAGES = {
    "alpha/cats.md": "# Cats\n\n## Feeding\n\nCats eat fish. Cats sleep a lot. A cat purrs.",
    "alpha/dogs.md": "# Dogs\n\n## Walking\n\nDogs need walks every day. Dogs chase cats in the park.",
    "alpha/birds.md": "# Birds\n\nBirds sing at dawn and build nests; `nest_depth` controls the nest.",
    "beta/fish.md": "# Fish\n\nFish swim in water. Fish are eaten by cats and by bears.",
}

# The statistics recomputed from scratch, for comparison with what the triggers kept.
RECOUNT_POSTINGS = """
    SELECT t.lexeme, c.component, c.id, coalesce(array_length(t.positions, 1), 1) AS tf
    FROM chunks c, unnest(c.tsv) AS t(lexeme, positions, weights) ORDER BY 1, 2, 3"""
RECOUNT_DF = """
    SELECT t.lexeme, c.component, count(*) FROM chunks c, unnest(tsvector_to_array(c.tsv)) AS t(lexeme)
    GROUP BY 1, 2 ORDER BY 1, 2"""
RECOUNT_STATS = """
    SELECT c.component, count(DISTINCT c.id), sum(coalesce(array_length(t.positions, 1), 1))
    FROM chunks c, unnest(c.tsv) AS t(lexeme, positions, weights) GROUP BY 1 ORDER BY 1"""


def _kept_and_recounted(conn: sa.Connection) -> tuple[list, list]:
    kept = [
        conn.execute(
            sa.text("SELECT lexeme, component, chunk_id, tf FROM bm25_postings ORDER BY 1, 2, 3")
        ).all(),
        conn.execute(sa.text("SELECT lexeme, component, df FROM bm25_df ORDER BY 1, 2")).all(),
        conn.execute(sa.text("SELECT component, chunks, total_len FROM bm25_stats ORDER BY 1")).all(),
    ]
    recounted = [conn.execute(sa.text(sql)).all() for sql in (RECOUNT_POSTINGS, RECOUNT_DF, RECOUNT_STATS)]
    return [list(map(tuple, rows)) for rows in kept], [list(map(tuple, rows)) for rows in recounted]


def assert_statistics_consistent(engine: sa.Engine) -> None:
    with engine.connect() as conn:
        kept, recounted = _kept_and_recounted(conn)
        lengths = conn.execute(
            sa.text(
                "SELECT count(*) FROM bm25_postings p JOIN (SELECT chunk_id, sum(tf) AS dl FROM bm25_postings "
                "GROUP BY 1) l USING (chunk_id) WHERE p.dl <> l.dl"
            )
        ).scalar_one()
    assert kept == recounted
    assert lengths == 0


@pytest.fixture
def corpus(clean_db, tmp_path: Path) -> Path:
    for name, text in PAGES.items():
        write(tmp_path / name, text)
    index_paths([tmp_path / "alpha"], "alpha", base=tmp_path)
    index_paths([tmp_path / "beta"], "beta", base=tmp_path)
    return tmp_path


def test_statistics_follow_insert_replace_delete_prune_reindex(corpus: Path, clean_db, settings) -> None:
    assert_statistics_consistent(clean_db)
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM bm25_postings")).scalar_one() > 20
    # replace: a changed file re-indexes its chunks
    write(corpus / "alpha/cats.md", "# Cats\n\nCats are now described differently: felines nap.")
    index_paths([corpus / "alpha"], "alpha", base=corpus)
    assert_statistics_consistent(clean_db)
    # prune: a file gone from the folder is removed from the store
    (corpus / "alpha/birds.md").unlink()
    index_paths([corpus / "alpha"], "alpha", base=corpus, prune=True)
    assert_statistics_consistent(clean_db)
    # delete by cascade from documents
    with clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM documents WHERE component = 'beta'"))
    assert_statistics_consistent(clean_db)
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM bm25_stats WHERE component = 'beta'")).scalar() == 0
    # reindex rewrites every embedding (the text stays): statistics unchanged and consistent
    reindex(settings)
    assert_statistics_consistent(clean_db)
    # an UPDATE of the text itself
    with clean_db.begin() as conn:
        conn.execute(sa.text("UPDATE chunks SET content = content || ' walrus walrus' WHERE ordinal = 0"))
    assert_statistics_consistent(clean_db)


def test_failed_write_leaves_statistics_untouched(corpus: Path, clean_db) -> None:
    with clean_db.connect() as conn:
        before = _kept_and_recounted(conn)[0]
    with pytest.raises(RuntimeError), clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM chunks"))
        raise RuntimeError("abort the transaction")
    with clean_db.connect() as conn:
        assert _kept_and_recounted(conn)[0] == before


def test_truncate_empties_statistics(corpus: Path, clean_db) -> None:
    with clean_db.begin() as conn:
        conn.execute(sa.text("TRUNCATE chunks CASCADE"))
    with clean_db.connect() as conn:
        counts = [
            conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one()
            for t in ("bm25_postings", "bm25_df", "bm25_stats")
        ]
    assert counts == [0, 0, 0]


def _reference_bm25(conn: sa.Connection, lexemes: list[str], scope: list[str] | None) -> dict[int, float]:
    """BM25 computed in Python from the chunks' tsvectors (not from the kept statistics)."""
    rows = conn.execute(
        sa.text(
            "SELECT c.id, c.component, t.lexeme, t.positions FROM chunks c, unnest(c.tsv) AS t(lexeme, positions, weights)"
        )
    ).all()
    tf: dict[int, dict[str, int]] = {}
    for row in rows:
        if scope is None or row.component in scope:
            tf.setdefault(row.id, {})[row.lexeme] = len(row.positions) if row.positions else 1
    n = len(tf)
    avgdl = sum(sum(t.values()) for t in tf.values()) / n
    scores: dict[int, float] = {}
    for chunk_id, terms in tf.items():
        dl = sum(terms.values())
        score = 0.0
        for lexeme in lexemes:
            if lexeme in terms:
                df = sum(lexeme in t for t in tf.values())
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                f = terms[lexeme]
                score += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * dl / avgdl))
        if score:
            scores[chunk_id] = score
    return scores


@pytest.mark.parametrize("scope", [None, ["alpha"], ["alpha", "beta"]])
def test_scores_equal_a_python_bm25(corpus: Path, clean_db, scope: list[str] | None) -> None:
    with clean_db.connect() as conn:
        got = dict(bm25_ranked(conn, "cats eating fish", [], scope, 50, common_share=1.0))
        expected = _reference_bm25(conn, ["cat", "eat", "fish"], scope)
    assert got.keys() == expected.keys() and got
    for chunk_id, score in expected.items():
        assert got[chunk_id] == pytest.approx(score, rel=1e-9)


def test_common_lexemes_only_score_chunks_found_by_rarer_ones(corpus: Path, clean_db) -> None:
    with clean_db.connect() as conn:
        exact = dict(bm25_ranked(conn, "cats eating fish", [], None, 50, common_share=1.0))
        # 'cat' is in 3 of the 4 chunks, 'fish' in 2, 'eat' in 1: with a 0.3 share only 'eat' brings candidates
        pruned = dict(bm25_ranked(conn, "cats eating fish", [], None, 50, common_share=0.3))
        eat = set(
            conn.execute(sa.text("SELECT id FROM chunks WHERE tsv @@ to_tsquery('english', 'eat')")).scalars()
        )
        only_common = dict(bm25_ranked(conn, "cats fish", [], None, 50, common_share=0.3))
    assert pruned.keys() == eat and len(eat) == 1
    assert all(
        pruned[c] == pytest.approx(exact[c], rel=1e-9) for c in eat
    )  # full scores, common terms included
    assert len(only_common) == 3  # no rarer lexeme: every chunk with a common one is scored


def test_common_terms_are_added_to_candidates_that_hold_them_and_only_to_those(
    corpus: Path, clean_db
) -> None:
    """'cat' is in 3 of the 4 chunks (common at 0.3); 'nest' brings birds.md and 'walk'
    dogs.md. dogs.md also holds 'cat', whose term is added to it; birds.md does not, and
    keeps the score of its rarer terms alone."""
    with clean_db.connect() as conn:
        pruned = dict(bm25_ranked(conn, "nests walks cats", [], None, 50, common_share=0.3))
        exact = dict(bm25_ranked(conn, "nests walks cats", [], None, 50, common_share=1.0))
        reference = _reference_bm25(conn, ["nest", "walk", "cat"], None)
        rare_only = _reference_bm25(conn, ["nest", "walk"], None)
        paths = dict(
            conn.execute(
                sa.text("SELECT c.id, d.source_path FROM chunks c JOIN documents d ON d.id = c.document_id")
            ).all()
        )
    assert sorted(paths[c] for c in pruned) == ["alpha/birds.md", "alpha/dogs.md"]
    for chunk_id, score in pruned.items():
        assert (
            score == pytest.approx(exact[chunk_id], rel=1e-9) == pytest.approx(reference[chunk_id], rel=1e-9)
        )
    by_path = {paths[c]: c for c in pruned}
    assert pruned[by_path["alpha/dogs.md"]] > rare_only[by_path["alpha/dogs.md"]]
    assert pruned[by_path["alpha/birds.md"]] == pytest.approx(rare_only[by_path["alpha/birds.md"]], rel=1e-9)


def test_top_n_equals_the_exact_ranking_where_pruning_applies(corpus: Path, clean_db) -> None:
    with clean_db.connect() as conn:
        exact = bm25_ranked(conn, "cats eating fish", [], None, 1, common_share=1.0)
        pruned = bm25_ranked(conn, "cats eating fish", [], None, 1, common_share=0.6)
    assert pruned[0][0] == exact[0][0]


def test_rarer_term_and_shorter_chunk_rank_higher(clean_db, tmp_path: Path) -> None:
    filler = " ".join(f"word{i}" for i in range(60))
    write(tmp_path / "short.md", "# S\n\nZebra grazing.")
    write(tmp_path / "long.md", f"# L\n\nZebra grazing. {filler}")
    for i in range(5):
        write(tmp_path / f"common{i}.md", f"# C{i}\n\nGrazing animals {i}.")
    index_paths([tmp_path], "zoo", base=tmp_path)
    with clean_db.connect() as conn:
        ranked = bm25_ranked(conn, "zebra grazing", [], None, 10)
        ids = dict(
            conn.execute(
                sa.text("SELECT c.id, d.source_path FROM chunks c JOIN documents d ON d.id = c.document_id")
            ).all()
        )
    order = [ids[i] for i, _ in ranked]
    assert order[:2] == ["short.md", "long.md"]  # the rare term (zebra) first, the shorter of the two first
    assert len(order) == 7


def test_identifier_lexemes_are_scored(corpus: Path, clean_db) -> None:
    with clean_db.connect() as conn:
        ranked = bm25_ranked(conn, "what sets nest_depth", ["nest_depth"], None, 5)
        top = conn.execute(
            sa.text(
                "SELECT d.source_path FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = :i"
            ),
            {"i": ranked[0][0]},
        ).scalar_one()
    assert top == "alpha/birds.md"
