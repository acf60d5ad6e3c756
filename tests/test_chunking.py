"""Chunking: section labels, size limits, overlap, code fences and ordinals."""

from __future__ import annotations

import itertools
import re

import pytest

from docsassistant.chunking import ChunkDraft, chunk_document, prose_outside_code, section_label, split_text
from docsassistant.loaders import LoadedDocument, Section


def doc_of(*sections: Section) -> LoadedDocument:
    return LoadedDocument(title="Doc", media_type="text/markdown", sections=list(sections))


def sentences(n: int, prefix: str = "Sentence") -> str:
    return " ".join(f"{prefix} number {i} says something useful about vectors." for i in range(n))


def test_short_sections_are_one_chunk_each_with_labels() -> None:
    chunks = chunk_document(
        doc_of(
            Section([], "Intro."),
            Section(["HNSW"], "About HNSW."),
            Section(["HNSW", "Query Options"], "Set ef_search."),
        )
    )
    assert chunks == [
        ChunkDraft(0, "", "Intro."),
        ChunkDraft(1, "HNSW", "About HNSW."),
        ChunkDraft(2, "HNSW › Query Options", "Set ef_search."),
    ]


def test_pdf_page_labels() -> None:
    assert section_label(Section([], "x", page=3)) == "p. 3"
    assert section_label(Section(["Results"], "x", page=3)) == "Results › p. 3"
    chunks = chunk_document(doc_of(Section([], "Page one.", page=1), Section([], "Page two.", page=2)))
    assert [c.section for c in chunks] == ["p. 1", "p. 2"]


def test_empty_sections_produce_no_chunks() -> None:
    chunks = chunk_document(doc_of(Section(["A"], "  \n\n "), Section(["B"], "Body."), Section(["C"], "")))
    assert [(c.ordinal, c.section) for c in chunks] == [(0, "B")]


def test_chunks_never_cross_sections_and_ordinals_are_consecutive() -> None:
    doc = doc_of(
        Section(["A"], sentences(40, "Alpha")),
        Section(["B"], "Short."),
        Section(["C"], sentences(40, "Gamma")),
    )
    chunks = chunk_document(doc, chunk_size=500, overlap=80)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        if chunk.section == "A":
            assert "Gamma" not in chunk.content and "Short." not in chunk.content
        if chunk.section == "C":
            assert "Alpha" not in chunk.content
    assert [c.section for c in chunks].count("B") == 1
    labels = [c.section for c in chunks]
    assert labels == sorted(labels)  # A..., B, C... in document order


@pytest.mark.parametrize(("size", "overlap"), [(1000, 150), (300, 50), (120, 0), (60, 20)])
def test_every_chunk_fits_the_size_limit(size: int, overlap: int) -> None:
    text = "\n\n".join(
        [
            sentences(30),
            "x" * 2500,  # one enormous "word": only hard cuts can split it
            "\n".join(f"line {i}: " + "word " * 12 for i in range(40)),
            "```python\n" + "\n".join(f"value_{i} = compute({i})" for i in range(80)) + "\n```",
        ]
    )
    chunks = chunk_document(doc_of(Section(["Big"], text)), chunk_size=size, overlap=overlap)
    assert len(chunks) > 1
    assert all(0 < len(c.content) <= size for c in chunks)
    # Nothing is lost: every sentence and code line appears in some chunk.
    joined = "\n".join(c.content for c in chunks)
    for i in range(30):
        assert f"Sentence number {i} says" in joined
    if size >= 300:
        for i in range(80):
            assert f"value_{i} = compute({i})" in joined


def test_paragraph_boundaries_are_preferred() -> None:
    paragraphs = [sentences(3, f"P{i}") for i in range(6)]  # ~170 chars each
    chunks = split_text("\n\n".join(paragraphs), chunk_size=400, overlap=0)
    assert len(chunks) > 1
    for chunk in chunks:
        # Each chunk is made of whole paragraphs.
        assert all(p in paragraphs for p in chunk.split("\n\n"))


def test_consecutive_pieces_overlap_by_about_the_overlap() -> None:
    text = sentences(60)  # one long paragraph of ~3000 chars
    chunks = split_text(text, chunk_size=500, overlap=150)
    assert len(chunks) >= 6
    for previous, current in itertools.pairwise(chunks):
        shared = _longest_suffix_prefix(previous, current)
        assert 40 <= shared <= 150, (shared, previous[-160:], current[:160])
        assert current[0].isupper()  # starts at a sentence boundary, not mid-word


def test_zero_overlap_means_no_repetition() -> None:
    text = sentences(60)
    chunks = split_text(text, chunk_size=500, overlap=0)
    assert " ".join(chunks) == text


def test_code_block_that_fits_is_never_split() -> None:
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(40)) + "\n```"  # ~300 chars
    text = sentences(5) + "\n\n" + code + "\n\n" + sentences(5)
    chunks = split_text(text, chunk_size=400, overlap=60)
    assert sum(code in c for c in chunks) == 1
    assert all(c.count("```") % 2 == 0 for c in chunks)


def test_code_block_headings_and_blank_lines_stay_inside_the_block() -> None:
    code = "```bash\n# comment\n\n# another\necho hi\n```"
    chunks = split_text("Intro paragraph.\n\n" + code, chunk_size=50, overlap=10)
    assert code in chunks


def test_oversize_code_block_is_split_into_fenced_pieces() -> None:
    code = "```java\n" + "\n".join(f"int v{i} = {i}; // explain {i}" for i in range(100)) + "\n```"
    chunks = split_text(code, chunk_size=400, overlap=60)
    assert len(chunks) > 3
    for chunk in chunks:
        assert len(chunk) <= 400
        assert chunk.startswith("```java\n") and chunk.endswith("\n```")
    # Consecutive code pieces repeat a line or two so no statement loses its neighbour.
    assert chunks[1].split("\n")[1] in chunks[0]


def test_overlap_never_starts_inside_a_code_fence() -> None:
    text = (
        sentences(4) + "\n\n```sh\nrun --all\n```\n\n" + "Tail words after the code. " + sentences(8, "More")
    )
    chunks = split_text(text, chunk_size=420, overlap=150)
    assert all(c.count("```") % 2 == 0 for c in chunks)
    assert all(not re.match(r"\s*(run --all|```\n)", c) for c in chunks)


def test_invalid_parameters() -> None:
    with pytest.raises(ValueError):
        chunk_document(doc_of(Section([], "x")), chunk_size=0)
    with pytest.raises(ValueError):
        chunk_document(doc_of(Section([], "x")), chunk_size=100, overlap=100)


def _longest_suffix_prefix(a: str, b: str) -> int:
    for n in range(min(len(a), len(b)), 0, -1):
        if a.endswith(b[:n]):
            return n
    return 0


def test_prose_outside_code_drops_fenced_blocks() -> None:
    text = "Intro line.\n\n```python\nprint('hi')  # Say hi.\n```\n\nOutro line."
    assert prose_outside_code(text) == "Intro line.\nOutro line."
