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

import sys
import threading
from functools import lru_cache
from itertools import pairwise
from types import ModuleType

from docsassistant.chunking import SECTION_SEPARATOR
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


@lru_cache(maxsize=1)
def _nlp():
    return import_spacy().blank("en")


def _is_name_word(token) -> bool:
    """Capitalised (`Spring`) or all capitals (`AI`); not a stop word (`The`, `It`) and not
    camelCase, which is code (`PgVectorStore` is an identifier already)."""
    text = token.text
    if not token.is_alpha or not text[0].isupper() or (token.is_stop and len(text) < 5):
        return False
    return len(text) == 1 or text[1:].islower() or text.isupper()


def _names(tokens) -> list[str]:
    """Maximal runs of capitalised words, allowing lower-case joiners inside."""
    found: list[str] = []
    run: list = []

    def close() -> None:
        while run and run[-1].lower_ in _NAME_JOINERS:
            run.pop()
        # A single capitalised word at a sentence start is usually not a name.
        first = run[0] if run else None
        starts = first is not None and (
            first.i == 0 or first.nbor(-1).is_space or first.nbor(-1).text in ".!?:"
        )
        if run and len(run) <= MAX_NAME_WORDS and not (len(run) == 1 and starts):
            found.append(" ".join(t.text for t in run))
        run.clear()

    for token in tokens:
        if _is_name_word(token) or (run and token.lower_ in _NAME_JOINERS and token.is_lower):
            run.append(token)
        else:
            close()
    close()
    return found


def _terms(tokens) -> list[str]:
    """Runs of 2-3 lower-case content words (no stop word, no punctuation, no number)."""
    found: list[str] = []
    run: list[str] = []
    for token in [*tokens, None]:
        if token is not None and token.is_alpha and token.is_lower and not token.is_stop and len(token) > 2:
            run.append(token.text)
            continue
        if 2 <= len(run) <= MAX_TERM_WORDS:
            found.append(" ".join(run))
        elif len(run) > MAX_TERM_WORDS:
            found += [" ".join(run[i : i + 2]) for i in range(len(run) - 1)]
        run = []
    return found


def extract_chunks(title: str, chunks: list[tuple[str, str]]) -> list[ChunkGraph]:
    """`extract_chunk` for many (section, content) pairs, tokenised in one spaCy pipe."""
    docs = _nlp().pipe(content[:MAX_CHARS] for _, content in chunks)
    return [
        extract_chunk(title, section, content, doc)
        for (section, content), doc in zip(chunks, docs, strict=True)
    ]


def extract_chunk(title: str, section: str, content: str, tokens=None) -> ChunkGraph:
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
    # One pass of Token objects for both scans: spaCy builds a new one per access.
    tokens = list(tokens if tokens is not None else _nlp()(content[:MAX_CHARS]))
    for name in _names(tokens):
        add(name, "name")
    for term in _terms(tokens):
        add(term, "phrase")
    return ChunkGraph(entities=list(entities.values()), relations=relations)
