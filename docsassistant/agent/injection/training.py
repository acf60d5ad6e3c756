"""Training the injection classifier: `docsassistant train-injection`.

Positives and look-alikes come from the labelled fixture sets in `tests/fixtures/`
(`injection_positive.txt` / `injection_benign.txt` and each `injection_<set>_*.txt` pair);
plain documentation comes from the prose sentences of the configured store. The classifier
learns from what the detector scores: a prose sentence, or the prose inside a line of code or
a table row (`judged_parts`). A fixture line is labelled, not each of its parts: a positive
line of one part is a positive; in a longer one only the part closest to the known injections
(highest margin) is, and its other parts are left out (they are often the genuine docs
sentence the payload follows).

Two models learn from the same sentences: a logistic regression over the embedding features
and one over the sentence's n-grams (`ngrams.py`); the classifier's score is the logistic of
their log-odds mixed `MIX` to 1 - `MIX`.

The threshold (a sentence flagged on the classifier's word alone) and the gate (the least a
sentence the similarity rule flags must score) are chosen by leaving one fixture set out at a
time: the classifier trained without that set scores it, and the pair with the best F1 over
every left-out line (the rules and the classifier together) wins, among the pairs that flag
at most one in 1,000 (on average over the left-out fits) of up to 7,000 of the store's
sentences kept out of training, outside fenced code (`store_sentences`): the *left-out choice*.
The final weights are then trained on everything; `calibration.py` then chooses the pair that
ships on labelled sets no fit saw (left-out fits overstate precision on new writers).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from docsassistant.agent.injection import detector, ngrams
from docsassistant.agent.injection.classifier import ClassifierWeights, mixed_probability
from docsassistant.agent.injection.embedded import embedded_prose, is_prose
from docsassistant.agent.injection.features import SENTENCE_BLOCK
from docsassistant.chunking import prose_outside_code

CORPUS_SENTENCES = 15_000  # documentation sentences sampled from the store (the rest check it)
CHECK_SENTENCES = 7_000  # of the rest, how many score each left-out fit (the store-rate limit)
CORPUS_WEIGHT = 2.0  # as much documentation flagged alone at 0.7 as at 0.8 with weight 1 (docs/injection.md)
C = 10.0  # inverse regularisation; 1 and 3 caught fewer left-out injections (docs/injection.md)
# In steps of 0.01: left-out F1 rises as the threshold falls (0.931 at 0.88, 0.953 at 0.70 over
# 108 sets), so the choice is the lowest threshold the store limit allows; the grid reaches 0.50
# since the sixteenth revision, when the limit first allowed 0.70 (docs/injection.md).
THRESHOLDS = tuple(round(0.50 + 0.01 * i, 2) for i in range(46))
GATES = (0.2, 0.3, 0.5)
MIX = 0.4  # the embedding model's share of the log-odds: best of 0.3-0.6 on grouped folds (docs/injection.md)
# The store limit: the share of check sentences (the store's prose outside fenced code) a
# left-out fit may flag on the classifier's word alone, on average. One in 1,000 since the
# sixteenth revision; it was one sentence per fit (1 in 4,992), which held the threshold at 0.88
# on short ordinary sentences while recall on new writers stayed under 0.90 (docs/injection.md).
MAX_STORE_RATE = 0.001
SEED = 7


@dataclass(frozen=True)
class LabelledSentence:
    group: str  # the fixture set
    line: int
    label: int  # of its line: 1 injection, 0 look-alike
    text: str
    before: str = ""  # the part of its line before it (as `detector.analyse` passes it)


def labelled_sets(folder: Path) -> dict[str, tuple[Path, Path]]:
    """Each `injection_<name>_positive.txt` / `_benign.txt` pair in `folder` (not its subfolders),
    by name."""
    pairs = {}
    for positive in sorted(folder.glob("injection_*_positive.txt")):
        name = positive.name.removeprefix("injection_").removesuffix("_positive.txt")
        pairs[name] = (positive, folder / f"injection_{name}_benign.txt")
    return pairs


def fixture_sentences(folder: Path) -> list[LabelledSentence]:
    """Every sentence of every labelled fixture set in `folder`."""
    pairs = {"base": (folder / "injection_positive.txt", folder / "injection_benign.txt")}
    pairs |= labelled_sets(folder)
    out: list[LabelledSentence] = []
    for group, (positive, benign) in pairs.items():
        lines = [(t, 1) for t in nonblank_lines(positive)] + [(t, 0) for t in nonblank_lines(benign)]
        for i, (text, label) in enumerate(lines):
            out += [
                LabelledSentence(group, i, label, text[a:b], text[:a]) for a, b in detector.sentences(text)
            ]
    return out


def store_sentences(
    texts: list[str], n: int = CORPUS_SENTENCES, seed: int = SEED
) -> tuple[list[str], list[str]]:
    """A sample of the prose sentences of `texts` (chunk contents), and the ones left out that
    stand outside fenced code (the check sentences of the store limit). Prose inside code is
    still sampled for training, but it does not set the limit: there it is mostly prompts that
    the docs quote (an f-string system prompt, a Java text block, a printed agent transcript),
    which the corpus scan lists as expected flags (docs/injection.md, fifteenth revision)."""
    prose = sorted({s for t in texts for s in detector._line_sentences(t) if is_prose(s)})
    chosen = set(random.Random(seed).sample(range(len(prose)), min(n, len(prose))))
    outside = {s for t in texts for s in detector._line_sentences(prose_outside_code(t))}
    rest = [s for i, s in enumerate(prose) if i not in chosen and s in outside]
    return [prose[i] for i in sorted(chosen)], rest


def page_sentences(folder: Path) -> list[str]:
    """The prose sentences of the Markdown pages in `folder` (the bundled docs), but
    injection.md, which quotes attacks on purpose."""
    pages = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md")) if p.name != "injection.md"]
    return sorted({s for t in pages for s in detector._line_sentences(t) if is_prose(s)})


def training_labels(items: list[LabelledSentence], margins: np.ndarray) -> np.ndarray:
    """1 / 0 per sentence, -1 for the sentences of a positive line that are left out. `items`
    may hold one entry per judged part (`judged_parts`); the line is what is labelled."""
    labels = np.array([s.label for s in items])
    lines: dict[tuple[str, int], list[int]] = {}
    for i, s in enumerate(items):
        lines.setdefault((s.group, s.line), []).append(i)
    for idx in lines.values():
        if labels[idx[0]] == 1 and len(idx) > 1:
            best = max(idx, key=lambda i: margins[i])
            labels[[i for i in idx if i != best]] = -1
    return labels


def judged_parts(items: list[LabelledSentence]) -> tuple[list[LabelledSentence], np.ndarray]:
    """What the classifier scores of each sentence, as `detector.sentence_evidence` does: a
    prose sentence itself, the prose inside a line of code or a table row (`embedded.py`), or
    nothing. Returns the parts (labelled as their sentence) and each part's sentence index."""
    parts: list[LabelledSentence] = []
    owners: list[int] = []
    for i, s in enumerate(items):
        for text in [s.text] if is_prose(s.text) else embedded_prose(s.text):
            parts.append(LabelledSentence(s.group, s.line, s.label, text))
            owners.append(i)
    return parts, np.array(owners, dtype=int)


def fit(vectors: np.ndarray, labels: np.ndarray, corpus: np.ndarray):
    """Logistic regression on fixture sentences (labels ≥ 0) plus documentation as negatives."""
    from sklearn.linear_model import LogisticRegression

    keep = labels >= 0
    x = np.vstack([vectors[keep], corpus])
    y = np.concatenate([labels[keep], np.zeros(len(corpus))])
    weight = np.concatenate([np.ones(int(keep.sum())), np.full(len(corpus), CORPUS_WEIGHT)])
    return LogisticRegression(C=C, max_iter=5000).fit(x, y, sample_weight=weight)


@dataclass
class Mixed:
    """The two fitted models (`fit`, `ngrams.fit`) and their mixed probability."""

    embedding: object  # a fitted LogisticRegression
    text: ngrams.TextModel

    def probabilities(self, vectors: np.ndarray, texts: list[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros(0)
        embedding = self.embedding.decision_function(vectors)
        return mixed_probability(embedding, ngrams.logits(texts, self.text), MIX)


def fit_mixed(
    vectors: np.ndarray, texts: list[str], labels: np.ndarray, corpus: np.ndarray, corpus_texts: list[str]
) -> Mixed:
    """Both models on the same sentences: fixture parts with labels ≥ 0, documentation as negatives."""
    keep = labels >= 0
    train_texts = [t for t, k in zip(texts, keep, strict=True) if k] + list(corpus_texts)
    y = np.concatenate([labels[keep], np.zeros(len(corpus_texts))])
    weight = np.concatenate([np.ones(int(keep.sum())), np.full(len(corpus_texts), CORPUS_WEIGHT)])
    return Mixed(fit(vectors, labels, corpus), ngrams.fit(train_texts, y, weight))


class _Lines:
    """Each fixture set's sentences grouped by their line, to count flagged lines quickly (the
    threshold grid counts every set's lines some 80 times)."""

    def __init__(self, items: list[LabelledSentence]) -> None:
        members: dict[str, list[int]] = {}
        for i, s in enumerate(items):
            members.setdefault(s.group, []).append(i)
        self.sets: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for group, idx in members.items():
            _, line_of = np.unique([items[i].line for i in idx], return_inverse=True)
            positive = np.zeros(line_of.max() + 1, dtype=bool)
            positive[line_of] = [items[i].label == 1 for i in idx]
            self.sets[group] = (np.asarray(idx), line_of, positive)

    def counts(self, flags: np.ndarray, group: str) -> tuple[int, int, int]:
        """True positives, false positives and positives among `group`'s lines (a line is
        flagged when any of its sentences is)."""
        idx, line_of, positive = self.sets[group]
        flagged = np.zeros(len(positive), dtype=bool)
        np.logical_or.at(flagged, line_of, flags[idx])
        return int((flagged & positive).sum()), int((flagged & ~positive).sum()), int(positive.sum())


def _precision_recall(tp: int, fp: int, positives: int) -> dict[str, float]:
    return {"precision": round(tp / max(1, tp + fp), 3), "recall": round(tp / max(1, positives), 3)}


def _f1(tp: int, fp: int, positives: int) -> float:
    return 2 * tp / max(1, 2 * tp + fp + (positives - tp))


def _score_left_out(
    group: str,
    part_groups: np.ndarray,
    vectors: np.ndarray,
    texts: list[str],
    labels: np.ndarray,
    corpus: np.ndarray,
    corpus_texts: list[str],
    check: np.ndarray,
    checked: list[str],
) -> tuple[np.ndarray, np.ndarray]:
    """Fit both models without `group`'s sentences; score every part and the check sentences."""
    held = part_groups == group
    kept = [t for t, h in zip(texts, held, strict=True) if not h]
    model = fit_mixed(vectors[~held], kept, np.where(held, -1, labels)[~held], corpus, corpus_texts)
    return model.probabilities(vectors, texts), model.probabilities(check, checked)


def train(
    folder: Path,
    corpus_texts: list[str],
    features,
    embedder: str,
    check_texts: list[str] | None = None,
    jobs: int = 1,
) -> ClassifierWeights:
    """Leave-one-set-out choice of threshold and gate, then the final fit on every set (see the
    module docstring). `features`: texts -> `features.pool` rows; `check_texts`: documentation
    sentences kept out of training, for the store-rate limit; `jobs`: left-out fits run at once
    (joblib processes; each holds a copy of the training sentences' text)."""
    items = fixture_sentences(folder)
    evidence = detector.sentence_evidence([s.text for s in items], [s.before for s in items])
    parts, owners = judged_parts(items)
    vectors = features([s.text for s in parts])
    labels = training_labels(parts, detector.similarity_margin(vectors[:, SENTENCE_BLOCK]))
    corpus = features(corpus_texts)
    check = features(check_texts[:CHECK_SENTENCES]) if check_texts else np.zeros((0, vectors.shape[1]))

    def by_sentence(part_scores: np.ndarray) -> np.ndarray:
        out = np.zeros(len(items))
        np.maximum.at(out, owners, part_scores)  # a sentence takes its strongest part
        return out

    hard = np.array([bool(e.patterns) for e in evidence])
    similar = np.array(
        ["similar-to-known-injection" in detector.decide(e, classifier=2.0, gate=0.0) for e in evidence]
    )
    groups = sorted({s.group for s in items})
    lines = _Lines(items)
    scores: dict[str, np.ndarray] = {}
    check_scores: dict[str, np.ndarray] = {}
    texts = [s.text for s in parts]
    checked = list(check_texts[:CHECK_SENTENCES]) if check_texts else []
    part_groups = np.array([s.group for s in parts])
    left_out = Parallel(n_jobs=jobs)(
        delayed(_score_left_out)(
            group, part_groups, vectors, texts, labels, corpus, corpus_texts, check, checked
        )
        for group in groups
    )
    for group, (part_scores, check_scores[group]) in zip(groups, left_out, strict=True):
        scores[group] = by_sentence(part_scores)

    def flags(group: str, threshold: float, gate: float) -> np.ndarray:
        p = scores[group]
        return hard | (p >= threshold) | (similar & (p >= gate))

    best: tuple[float, float, float] | None = None
    grid: list[dict[str, float]] = []
    for threshold in THRESHOLDS:
        rate = float(np.mean([(check_scores[g] >= threshold).mean() if len(check) else 0.0 for g in groups]))
        flagged_alone = float(np.mean([(check_scores[g] >= threshold).sum() for g in groups]))
        for gate in GATES:
            tp, fp, positives = np.sum([lines.counts(flags(g, threshold, gate), g) for g in groups], axis=0)
            f1 = _f1(tp, fp, positives)
            grid.append(
                {"threshold": threshold, "gate": gate, "store_rate": round(rate, 6), "f1": round(f1, 4)}
                | {"store_flagged": round(flagged_alone, 2)}
                | {"caught": int(tp), "misfires": int(fp), "injections": int(positives)}
            )
            if rate <= MAX_STORE_RATE and (best is None or f1 > best[0]):
                best = (f1, threshold, gate)
    _, threshold, gate = best or (0.0, THRESHOLDS[-1], GATES[-1])
    per_set: dict[str, dict[str, float]] = {}
    for group in groups:
        per_set[group] = _precision_recall(*lines.counts(hard | similar, group))
        with_clf = _precision_recall(*lines.counts(flags(group, threshold, gate), group))
        per_set[group] |= {"precision_with": with_clf["precision"], "recall_with": with_clf["recall"]}
    final = fit_mixed(vectors, texts, labels, corpus, corpus_texts)
    flagged = int((final.probabilities(check, checked) >= threshold).sum())
    return ClassifierWeights(
        coef=[round(float(c), 6) for c in final.embedding.coef_[0]],
        intercept=round(float(final.embedding.intercept_[0]), 6),
        text=final.text,
        mix=MIX,
        threshold=threshold,
        gate=gate,
        embedder=embedder,
        trained_on={"fixture_sentences": int((labels >= 0).sum()), "store_sentences": len(corpus_texts)},
        # the check sentences also chose the threshold (the store-rate limit): not independent
        store_check={"sentences": len(check), "flagged_alone": flagged},
        leave_one_set_out=per_set,
        grid=grid,
    )


def nonblank_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
