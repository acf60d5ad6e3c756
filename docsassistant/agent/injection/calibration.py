"""Choosing the classifier's threshold on writers it never saw: `docsassistant calibrate-injection`.

Leaving one fixture set out (`training.py`) overstates precision on text by new writers: at
threshold 0.65 the left-out fits misfired on 402 of 42,944 look-alikes (P 0.971), while two
unread batches by new writers took 226 misfires of 10,800 (P 0.939; docs/injection.md,
sixteenth revision). So the threshold and gate are chosen on *calibration sets*: labelled like
the fixture sets (`injection_<name>_positive.txt` / `_benign.txt`), never trained on, kept in
their own folder (`tests/fixtures/calibration/`, which training does not read). The trained
weights score them; among the grid's pairs that the store limit allows, the pair with the
highest recall at precision >= `MIN_PRECISION` wins (ties: fewer misfires, then the higher threshold).
"""

from __future__ import annotations

from pathlib import Path

from docsassistant.agent.injection import detector
from docsassistant.agent.injection.classifier import ClassifierWeights
from docsassistant.agent.injection.training import MAX_STORE_RATE, labelled_sets, nonblank_lines

# The 0.95 target plus a margin: the two batches that chose the shipped pair differed by 0.016
# in precision at one setting (0.973 and 0.957 at 0.88 / 0.2).
MIN_PRECISION = 0.96


def labelled_lines(folder: Path) -> list[tuple[str, bool]]:
    """Every line of every labelled set in `folder` (True: an injection)."""
    return [
        (text, label)
        for positive, benign in labelled_sets(folder).values()
        for path, label in ((positive, True), (benign, False))
        for text in nonblank_lines(path)
    ]


def pair_counts(weights: ClassifierWeights, items: list[tuple[str, bool]]) -> list[dict[str, float]]:
    """For each (threshold, gate) of the weights' grid: lines caught and misfired (each line is
    flagged when any of its sentences is, as a chunk is judged)."""
    evidence = detector.line_evidence([text for text, _ in items], weights)
    positives = sum(label for _, label in items)
    rows = []
    for row in weights.grid:
        threshold, gate = row["threshold"], row["gate"]
        flagged = [
            any(
                detector.decide(e, detector.MARGIN_ALONE, detector.MARGIN_WITH_CUE, threshold, gate)
                for e in ev
            )
            for ev in evidence
        ]
        caught = sum(f and label for f, (_, label) in zip(flagged, items, strict=True))
        misfires = sum(f and not label for f, (_, label) in zip(flagged, items, strict=True))
        rows.append(
            {"threshold": threshold, "gate": gate, "store_rate": row["store_rate"]}
            | {"caught": caught, "misfires": misfires, "injections": positives}
            | {"lookalikes": len(items) - positives}
        )
    return rows


def choose(rows: list[dict[str, float]]) -> dict[str, float] | None:
    """The allowed pair with the highest recall at precision >= MIN_PRECISION (None: none)."""
    allowed = [
        r
        for r in rows
        if r["store_rate"] <= MAX_STORE_RATE and r["caught"] >= MIN_PRECISION * (r["caught"] + r["misfires"])
    ]
    return max(allowed, key=lambda r: (r["caught"], -r["misfires"], r["threshold"]), default=None)


def calibrate(weights: ClassifierWeights, folder: Path) -> ClassifierWeights:
    """`weights` with the threshold and gate the calibration sets in `folder` choose, and every
    pair's counts kept in `calibration` (unchanged pair when no pair reaches MIN_PRECISION)."""
    rows = pair_counts(weights, labelled_lines(folder))
    best = choose(rows)
    sets = sorted(labelled_sets(folder))
    record = {"sets": sets, "min_precision": MIN_PRECISION, "rows": rows}
    if best is None:
        return weights.model_copy(update={"calibration": record})
    return weights.model_copy(
        update={"threshold": best["threshold"], "gate": best["gate"], "calibration": record}
    )
