"""What the injection classifier reads of a sentence: the embedding model's token states,
pooled two ways at two depths.

The sentence vector alone (the mean of the last layer) did not separate planted orders from
documentation about models and prompts (docs/injection.md, "Blind holdout 10"). The state
after the third of MiniLM's six layers still carries the sentence's form (who it addresses,
its mood), and the max over tokens keeps a single telling word that a mean dilutes; with
the four blocks, leave-one-set-out recall of the classifier rose from 0.45 to 0.70 on four
sets the rules were never fitted to (docs/injection.md, "Tenth revision").
"""

from __future__ import annotations

import numpy as np

LAYERS = (3, 6)  # hidden-state indices (0 is the embeddings): after layer 3 and the last
WIDTH = 384 * 2 * len(LAYERS)
SENTENCE_BLOCK = slice(768, 1152)  # the last layer's normalised mean: the embedder's sentence vector


def pool(states: list[np.ndarray], mask: np.ndarray) -> np.ndarray:
    """[mean, max] over real tokens of each (batch, tokens, 384) array in `states`, each
    L2-normalised, side by side: (batch, 384 * 2 * len(states))."""
    weights = mask[:, :, None].astype(np.float32)
    blocks = []
    for hidden in states:
        mean = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        top = np.where(weights > 0, hidden, -np.inf).max(axis=1)
        blocks += [_unit(mean), _unit(top)]
    return np.concatenate(blocks, axis=1).astype(np.float32)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)
