"""How much a sentence reads like text planted for the model rather than documentation: a
logistic regression over the embedding model's pooled token states (`features.py`), its
log-odds mixed with those of an n-gram model of the sentence's words (`ngrams.py`).

The patterns and families in `detector` / `cues` catch the shapes we have named; this
catches sentences that sit where the labelled injections sit, whatever their wording, and it
vouches for the similarity rule: a sentence near known injections is cut only when the
classifier gives it at least `gate`. The features come from the same model run that gives
`detector` its sentence vectors, so it costs one dot product per sentence (plus looking up
the sentence's n-grams in the vocabularies). The weights are trained by `docsassistant train-injection` (see
`training.py` and docs/injection.md) and shipped as JSON beside this file; the
threshold is the training run's choice, not a constant picked by hand.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from docsassistant.agent.injection.ngrams import TextModel, logits

WEIGHTS = Path(__file__).with_name("classifier.json")


class ClassifierWeights(BaseModel):
    """What a training run writes: the model, its threshold and what it was trained on."""

    coef: list[float]
    intercept: float
    threshold: float  # flags a sentence on its own
    gate: float  # the least a sentence the similarity rule flags must score
    embedder: str  # the embedder identity whose vectors it was trained on
    trained_on: dict[str, int]  # sentences per source, for the record
    leave_one_set_out: dict[str, dict[str, float]]  # per fixture set: precision/recall with and without
    grid: list[dict[str, float]] = []  # each (threshold, gate) tried: pooled left-out figures
    store_check: dict[str, int] = {}  # store sentences kept out of training, and those it flags alone
    # the calibration sets that chose threshold and gate, and every pair's counts on them
    calibration: dict[str, Any] = {}
    text: TextModel | None = None  # the n-gram model; without it the embedding model decides alone
    mix: float = 1.0  # the embedding model's share of the mixed log-odds (the n-grams get the rest)


@lru_cache(maxsize=1)
def load_weights(path: Path = WEIGHTS) -> ClassifierWeights | None:
    """The shipped weights, or None when there are none (the detector then runs without)."""
    if not path.is_file():
        return None
    return ClassifierWeights.model_validate(json.loads(path.read_text(encoding="utf-8")))


def probabilities(
    vectors: np.ndarray, weights: ClassifierWeights | None = None, texts: list[str] | None = None
) -> np.ndarray:
    """P(injection) for each sentence from its features (`features.pool`) and, when the
    weights carry an n-gram model, its text (zeros without weights)."""
    weights = weights or load_weights()
    if weights is None or len(vectors) == 0:
        return np.zeros(len(vectors), dtype=np.float32)
    embedding = vectors @ np.asarray(weights.coef, dtype=np.float32) + weights.intercept
    if weights.text is None:
        return mixed_probability(embedding, np.zeros_like(embedding), 1.0)
    if texts is None or len(texts) != len(vectors):
        raise ValueError("these weights read the sentences' text too: pass `texts`")
    return mixed_probability(embedding, logits(texts, weights.text), weights.mix)


def mixed_probability(embedding: np.ndarray, text: np.ndarray, mix: float) -> np.ndarray:
    """The logistic of the two models' log-odds, `mix` to 1 - `mix` (training scores its
    left-out fits with this too)."""
    mixed = mix * embedding + (1.0 - mix) * text
    return (1.0 / (1.0 + np.exp(-mixed))).astype(np.float32)
