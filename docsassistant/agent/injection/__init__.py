"""Prompt injection in retrieved text: detect the sentences that address the model, and cut them.

`detector` judges each sentence (patterns, the grammar of `cues` and `hijacks`, the similarity
margin to `phrasings`, the `classifier`) and redacts the flagged ones; `training` fits the
classifier (`docsassistant train-injection`). docs/injection.md describes the whole defence and
its measured quality.
"""
