"""The injection classifier's second reader: a logistic regression over the words, word
pairs and character n-grams of a sentence (TF-IDF, as scikit-learn computes it).

The embedding features (`features.py`) place a sentence by its meaning and form; they blur
the few words that give a planted order away ("you", "respond", "previous", "ignore",
"assistant"), and a paraphrase by an unseen writer lands between the labelled ones. A
sparse model keeps those words apart. The two logits are mixed in `classifier.py`: over
the fixture sets, each scored by models trained without it, the mix caught 3,077 of 3,475
injections against 2,779 for the embedding model with the rules, with fewer misfires (107
against 116) and the same documentation rate (docs/injection.md, "Thirteenth revision").

The shipped model is plain data (vocabularies, IDF, weights) in `classifier.json`; at run
time the counts come from scikit-learn's `CountVectorizer` over that fixed vocabulary, so
no fitted object is unpickled.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, PrivateAttr
from scipy import sparse

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
    _readers: list | None = PrivateAttr(default=None)  # built once: a vocabulary dict is 80,000 entries

    def readers(self) -> list:
        """The word and character counters over the fixed vocabularies, with their IDF."""
        if self._readers is None:
            self._readers = [
                _counter(self.words, self.word_idf, WORDS),
                _counter(self.chars, self.char_idf, CHARS),
            ]
        return self._readers


def fit(texts: list[str], labels: np.ndarray, weight: np.ndarray | None = None) -> TextModel:
    """TF-IDF vocabularies and a logistic regression fitted on `texts` (labels 0/1)."""
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
    """The model's log-odds that each text is an injection."""
    if not texts:
        return np.zeros(0, dtype=np.float32)
    x = sparse.hstack([_tfidf(texts, *reader) for reader in model.readers()]).tocsr()
    return (x @ np.asarray(model.coef, dtype=np.float64) + model.intercept).astype(np.float32)


def _counter(vocabulary: list[str], idf: list[float], options: dict):
    """A `CountVectorizer` over a fixed vocabulary (None when it is empty) and the IDF diagonal."""
    from sklearn.feature_extraction.text import CountVectorizer

    settings = {k: v for k, v in options.items() if k != "max_features"}
    counts = (
        CountVectorizer(**settings, vocabulary={t: i for i, t in enumerate(vocabulary)})
        if vocabulary
        else None
    )
    return counts, sparse.diags(np.asarray(idf, dtype=np.float64))


def _tfidf(texts: list[str], counts, idf: sparse.dia_matrix) -> sparse.csr_matrix:
    """What a fitted `TfidfVectorizer(sublinear_tf=True)` gives: (1 + log tf) * idf, rows L2-normalised."""
    from sklearn.preprocessing import normalize

    if counts is None:
        return sparse.csr_matrix((len(texts), 0))
    x = counts.transform(texts).astype(np.float64).tocsr()
    x.data = 1.0 + np.log(x.data)
    return normalize(x @ idf)


def _vocabulary(vectorizer) -> tuple[list[str], list[float]]:
    terms = vectorizer.get_feature_names_out().tolist()
    return terms, [round(float(v), 4) for v in vectorizer.idf_]  # 4 places: the file stays under 2 MB
