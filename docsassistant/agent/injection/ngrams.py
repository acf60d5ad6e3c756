"""The injection classifier's second reader: a logistic regression over the words, word
pairs and character n-grams of a sentence (TF-IDF, as scikit-learn computes it).

The embedding features (`features.py`) place a sentence by its meaning and form; they blur
the few words that give a planted order away ("you", "respond", "previous", "ignore",
"assistant"), and a paraphrase by an unseen writer lands between the labelled ones. A
sparse model keeps those words apart. The two logits are mixed in `classifier.py`: over
the fixture sets, each scored by models trained without it, the mix caught 3,077 of 3,475
injections against 2,779 for the embedding model with the rules, with fewer misfires (107
against 116) and the same documentation rate (docs/injection.md, "Thirteenth revision").

The shipped model is plain data (vocabularies, IDF, weights) in `classifier.json`. Training
fits scikit-learn's `TfidfVectorizer`; at run time the same n-grams are counted here, by the
rules that vectorizer applies (a test checks the two agree), because importing scikit-learn
and SciPy in the app cost 130 MB of resident memory for one dot product per sentence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from itertools import pairwise

import numpy as np
from pydantic import BaseModel, PrivateAttr

WORDS = {"ngram_range": (1, 2), "max_features": 30_000}
CHARS = {"analyzer": "char_wb", "ngram_range": (2, 5), "max_features": 50_000}
MIN_DF = 3  # an n-gram seen in fewer training sentences is noise (and bloats the file)
C = 10.0  # 30 and 100 caught no more left-out injections in the mix (docs/injection.md)


class TextModel(BaseModel):
    """A fitted n-gram model: each vocabulary in column order with its IDF, then the weights
    over the word columns followed by the character columns."""

    words: list[str]
    word_idf: list[float]
    chars: list[str]
    char_idf: list[float]
    coef: list[float]
    intercept: float
    _index: tuple | None = PrivateAttr(default=None)  # built once: 80,000 vocabulary entries

    def index(self) -> tuple[dict[str, int], dict[str, int], np.ndarray, np.ndarray]:
        """Each vocabulary as a term -> column dict, then the IDF and the weight per column."""
        if self._index is None:
            columns = len(self.words)
            self._index = (
                {term: i for i, term in enumerate(self.words)},
                {term: columns + i for i, term in enumerate(self.chars)},
                np.asarray(self.word_idf + self.char_idf, dtype=np.float64),
                np.asarray(self.coef, dtype=np.float64),
            )
        return self._index


def fit(texts: list[str], labels: np.ndarray, weight: np.ndarray | None = None) -> TextModel:
    """TF-IDF vocabularies and a logistic regression fitted on `texts` (labels 0/1)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    min_df = MIN_DF if len(texts) >= 100 else 1  # a handful of test sentences share few n-grams
    vectorizers = [
        TfidfVectorizer(**WORDS, min_df=min_df, sublinear_tf=True),
        TfidfVectorizer(**CHARS, min_df=min_df, sublinear_tf=True),
    ]
    x = sparse.hstack([v.fit_transform(texts) for v in vectorizers]).tocsr()
    model = LogisticRegression(C=C, max_iter=5000).fit(x, labels, sample_weight=weight)
    (words, word_idf), (chars, char_idf) = (_vocabulary(v) for v in vectorizers)
    return TextModel(
        words=words,
        word_idf=word_idf,
        chars=chars,
        char_idf=char_idf,
        coef=[round(float(c), 4) for c in model.coef_[0]],
        intercept=round(float(model.intercept_[0]), 5),
    )


def logits(texts: list[str], model: TextModel) -> np.ndarray:
    """The model's log-odds that each text is an injection: its word and character TF-IDF
    rows (each L2-normalised, as `TfidfVectorizer` gives them) dotted with the weights."""
    words, chars, idf, coef = model.index()
    out = np.full(len(texts), model.intercept, dtype=np.float64)
    for row, text in enumerate(texts):
        lowered = text.lower()
        for grams, vocabulary in ((_word_grams(lowered), words), (_char_grams(lowered), chars)):
            counts = Counter(vocabulary[g] for g in grams if g in vocabulary)
            if not counts:
                continue
            columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
            tf = np.fromiter(
                (1.0 + math.log(c) for c in counts.values()), dtype=np.float64, count=len(counts)
            )
            values = tf * idf[columns]
            out[row] += float(values @ coef[columns]) / float(np.sqrt(values @ values))
    return out.astype(np.float32)


_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token pattern


def _word_grams(lowered: str) -> list[str]:
    """Words of two or more characters and each pair of neighbours (ngram_range (1, 2))."""
    tokens = _TOKEN.findall(lowered)
    return tokens + [f"{a} {b}" for a, b in pairwise(tokens)]


def _char_grams(lowered: str) -> list[str]:
    """Character 2- to 5-grams inside each space-padded word (analyzer "char_wb"); a word
    no longer than n counts once, whole, and ends its n-grams."""
    low, high = CHARS["ngram_range"]
    grams: list[str] = []
    for token in lowered.split():
        word = f" {token} "
        for n in range(low, high + 1):
            if len(word) <= n:
                grams.append(word)
                break
            grams.extend(word[i : i + n] for i in range(len(word) - n + 1))
    return grams


def _vocabulary(vectorizer) -> tuple[list[str], list[float]]:
    terms = vectorizer.get_feature_names_out().tolist()
    return terms, [round(float(v), 4) for v in vectorizer.idf_]  # 4 places: the file stays under 2 MB
