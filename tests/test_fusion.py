"""Fusion of named ranked lists, and small-to-big widening (pure functions)."""

from __future__ import annotations

import pytest

from docsassistant.fusion import diversify, fuse, ranks
from docsassistant.passages import join_overlapping, widen


def test_weighted_rrf_sums_weight_over_k_plus_rank() -> None:
    fused = dict(fuse({"a": [(1, 9.0), (2, 8.0)], "b": [(2, 0.5)]}, {"a": 1.0, "b": 2.0}, k=10, method="rrf"))
    assert fused[1] == pytest.approx(1 / 11)
    assert fused[2] == pytest.approx(1 / 12 + 2 / 11)


def test_any_number_of_lists_and_a_zero_weight_leaves_a_list_out() -> None:
    lists = {"dense": [(1, 0.9)], "bm25": [(2, 7.0)], "ident": [(3, 1.0)], "graph": [(4, 1.0), (1, 0.5)]}
    fused = fuse(lists, {"dense": 1, "bm25": 1, "ident": 0, "graph": 1})
    assert [chunk_id for chunk_id, _ in fused] == [1, 2, 4]  # 3 only came from the weight-0 list


def test_a_heavier_list_wins_a_conflict() -> None:
    lists = {"dense": [(1, 0.9), (2, 0.8)], "bm25": [(2, 5.0), (1, 4.0)]}
    assert fuse(lists, {"dense": 1.0, "bm25": 0.5}, method="rrf")[0][0] == 1
    assert fuse(lists, {"dense": 0.5, "bm25": 1.0}, method="rrf")[0][0] == 2


def test_ties_break_by_lower_id_and_a_list_without_weight_is_left_out() -> None:
    assert [c for c, _ in fuse({"x": [(5, 1.0)], "y": [(3, 1.0)]}, {"x": 1, "y": 1})] == [3, 5]
    assert [c for c, _ in fuse({"x": [(5, 1.0)], "y": [(3, 1.0)]}, {"x": 1})] == [5]


def test_minmax_combination_normalises_each_list() -> None:
    lists = {"dense": [(1, 0.9), (2, 0.5)], "bm25": [(2, 30.0), (3, 10.0)]}
    fused = dict(fuse(lists, {"dense": 1.0, "bm25": 1.0}, method="minmax"))
    assert fused == {1: pytest.approx(1.0), 2: pytest.approx(1.0), 3: pytest.approx(0.0)}


def test_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="rrf"):
        fuse({}, {}, method="borda")  # type: ignore[arg-type]


def test_diversify_decays_a_documents_later_chunks() -> None:
    fused = [(1, 1.0), (2, 0.9), (3, 0.8), (4, 0.7)]
    documents = {1: "a", 2: "a", 3: "a", 4: "b"}
    out = diversify(fused, documents, decay=0.7)
    # a's second chunk keeps 0.9 * 0.7 = 0.63, its third 0.8 * 0.49 = 0.392: b's only chunk passes both
    assert [c for c, _ in out] == [1, 4, 2, 3]
    assert dict(out) == {
        1: pytest.approx(1.0),
        4: pytest.approx(0.7),
        2: pytest.approx(0.63),
        3: pytest.approx(0.392),
    }
    assert diversify(fused, documents, decay=1.0) == fused
    # a chunk with no known document stands alone, so it is never decayed
    assert [c for c, _ in diversify([(1, 1.0), (9, 0.95)], {1: "a"}, decay=0.1)] == [1, 9]


def test_ranks_are_one_based() -> None:
    assert ranks([(7, 0.5), (3, 0.2)]) == {7: (1, 0.5), 3: (2, 0.2)}


def test_join_overlapping_removes_the_repeated_seam() -> None:
    assert join_overlapping("one two three four", "three four five") == "one two three four five"
    assert join_overlapping("abc", "xyz") == "abc\nxyz"


def test_widen_adds_contiguous_neighbours_within_budget() -> None:
    neighbours = [(3, "C-text"), (5, "E-text"), (6, "F-text"), (8, "H-text")]
    assert widen(4, "D-text", neighbours, budget=12) == "C-text\nD-text\nE-text"
    # 6 follows 5; 8 is not contiguous with 6 (7 missing), so it is never joined
    assert widen(4, "D-text", neighbours, budget=100) == "C-text\nD-text\nE-text\nF-text"
    assert widen(4, "D-text", neighbours, budget=0) == "D-text"
