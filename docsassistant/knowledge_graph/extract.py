"""The default entity extractor: no language model, a few milliseconds per chunk.

Entities of a chunk are its code identifiers (`docsassistant.terms`), the headings of
its section, its document's title, names (runs of capitalised words: "Spring AI",
"American Institute of Physics") and multi-word terms (runs of two or three content
words: "similarity search", "index build time"). Names and terms come from spaCy's
rule-based English tokenizer and its stop-word and word-shape attributes. spaCy's
statistical pipelines (taggers, parsers, NER) are not on PyPI and would need a
download at run time, so none is used: `spacy.blank("en")` is all of spaCy we load.
Relations are the structural ones the text states for sure: a heading contains its
sub-heading.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from functools import lru_cache
from itertools import pairwise
from types import ModuleType

from docsassistant.chunking import SECTION_SEPARATOR
from docsassistant.foreground import FOREGROUND
from docsassistant.knowledge_graph.records import ChunkGraph, EntityMention, Relation, normalise_phrase
from docsassistant.terms import code_terms

MAX_NAME_WORDS = 5
MAX_TERM_WORDS = 3
MAX_CHARS = 4000  # of a chunk's text read for names and terms
MAX_ENTITIES = 40  # per chunk: bounds the graph's fan-out from one passage
# Joiners allowed inside a name ("Institute of Physics", "Lord of the Rings").
_NAME_JOINERS = frozenset({"of", "the", "de", "von", "van", "and", "for", "la", "du", "del"})


_import_lock = threading.Lock()


def import_spacy() -> ModuleType:
    """spaCy, imported without torch. spaCy imports thinc, which imports torch when it can
    (1.2-1.3 s of spaCy's 1.9-2.0 s import here) for models we never load: `spacy.blank`
    and the stop words need none of it. So when torch is not imported yet, it is hidden
    for the duration of this import only (thinc then records "no torch"), and importable
    again right after. Every caller that could import torch in this process (the embedder,
    the ONNX export) has already run before ingestion or retrieval reach spaCy."""
    with _import_lock:
        if "spacy" in sys.modules or "torch" in sys.modules:
            import spacy

            return spacy
        sys.modules["torch"] = None  # type: ignore[assignment]  # makes `import torch` fail
        try:
            import spacy
        finally:
            if sys.modules.get("torch", 0) is None:
                del sys.modules["torch"]
        return spacy


_nlp_lock = threading.Lock()


@lru_cache(maxsize=1)
def _blank():
    return import_spacy().blank("en")


def _nlp():
    with _nlp_lock:  # one tokenizer, even when `load_tokenizer`'s thread is still building it
        return _blank()


def load_tokenizer() -> None:
    """Load spaCy and the tokenizer now (`knowledge_graph.prepare_graph`); an error is left
    for the extraction that needs the tokenizer to raise."""
    with contextlib.suppress(Exception):
        _nlp()


# The token attributes the scans read, one row per token from a single `Doc.to_array`
# call: building spaCy's Token objects one by one was a third of the extractor's time.
_IDX, _LENGTH, _ALPHA, _LOWER, _STOP, _SPACE, _TITLE, _UPPER = range(8)


def _token_rows(doc, text: str) -> tuple[list[str], list[list[int]]]:
    """Each token's text (sliced from `text`, the string `doc` was made from) and attributes."""
    from spacy.attrs import IDX, IS_ALPHA, IS_LOWER, IS_SPACE, IS_STOP, IS_TITLE, IS_UPPER, LENGTH

    rows = doc.to_array([IDX, LENGTH, IS_ALPHA, IS_LOWER, IS_STOP, IS_SPACE, IS_TITLE, IS_UPPER]).tolist()
    return [text[row[_IDX] : row[_IDX] + row[_LENGTH]] for row in rows], rows


def _is_name_word(row: list[int]) -> bool:
    """Capitalised (`Spring`) or all capitals (`AI`); not a stop word (`The`, `It`) and not
    camelCase, which is code (`PgVectorStore` is an identifier already)."""
    return bool(row[_ALPHA] and (row[_TITLE] or row[_UPPER]) and not (row[_STOP] and row[_LENGTH] < 5))


def _names(words: list[str], rows: list[list[int]]) -> list[str]:
    """Maximal runs of capitalised words, allowing lower-case joiners inside."""
    found: list[str] = []
    run: list[int] = []  # token positions

    def close() -> None:
        while run and words[run[-1]].lower() in _NAME_JOINERS:
            run.pop()
        # A single capitalised word at a sentence start is usually not a name.
        if run and len(run) <= MAX_NAME_WORDS:
            first = run[0]
            starts = first == 0 or rows[first - 1][_SPACE] or words[first - 1] in ".!?:"
            if len(run) > 1 or not starts:
                found.append(" ".join(words[i] for i in run))
        run.clear()

    for i, row in enumerate(rows):
        if _is_name_word(row) or (run and row[_LOWER] and words[i] in _NAME_JOINERS):
            run.append(i)
        elif run:
            close()
    close()
    return found


def _terms(words: list[str], rows: list[list[int]]) -> list[str]:
    """Runs of 2-3 lower-case content words (no stop word, no punctuation, no number)."""
    found: list[str] = []
    run: list[str] = []
    for word, row in zip([*words, ""], [*rows, None], strict=True):
        if row is not None and row[_ALPHA] and row[_LOWER] and not row[_STOP] and row[_LENGTH] > 2:
            run.append(word)
            continue
        if 2 <= len(run) <= MAX_TERM_WORDS:
            found.append(" ".join(run))
        elif len(run) > MAX_TERM_WORDS:
            found += [" ".join(run[i : i + 2]) for i in range(len(run) - 1)]
        run = []
    return found


def extract_chunks(title: str, chunks: list[tuple[str, str]]) -> list[ChunkGraph]:
    """`extract_chunk` for many (section, content) pairs, tokenised in one spaCy pipe."""
    docs = _nlp().pipe(_after_searches(content[:MAX_CHARS] for _, content in chunks))
    return [
        extract_chunk(title, section, content, doc)
        for (section, content), doc in zip(chunks, docs, strict=True)
    ]


def _after_searches(texts: Iterator[str]) -> Iterator[str]:
    """Each text once no search runs (foreground): tokenising and extracting hold the GIL.
    A blank pipeline tokenises lazily, so the wait comes between two chunks."""
    for text in texts:
        FOREGROUND.wait_turn()
        yield text


def extract_chunk(title: str, section: str, content: str, tokens=None) -> ChunkGraph:  # tokens: a spaCy Doc
    """Entities and structural relations of one chunk (see the module docstring)."""
    entities: dict[str, EntityMention] = {}

    def add(raw: str, kind: str) -> None:
        phrase = normalise_phrase(raw)
        if len(phrase) >= 2 and phrase not in entities and len(entities) < MAX_ENTITIES:
            entities[phrase] = EntityMention(phrase=phrase, kind=kind)

    relations: list[Relation] = []
    add(title, "title")
    headings = [h for h in section.split(SECTION_SEPARATOR) if h.strip()] if section else []
    for heading in headings:
        add(heading, "heading")
    for parent, child in pairwise(headings):
        relations.append(
            Relation(
                subject=normalise_phrase(parent), predicate="has section", object=normalise_phrase(child)
            )
        )
    for term in code_terms(f"{section}\n{content}"):
        add(term, "identifier")
    text = content[:MAX_CHARS]
    words, rows = _token_rows(tokens if tokens is not None else _nlp()(text), text)
    for name in _names(words, rows):
        add(name, "name")
    for term in _terms(words, rows):
        add(term, "phrase")
    return ChunkGraph(entities=list(entities.values()), relations=relations)
