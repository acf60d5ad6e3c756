"""A yes to "is that enough?" over a cited procedure whose other steps the answer leaves out.

"Is it enough to set worker.server_url and worker.token to connect a new worker?" answered
"Yes. Set `worker.server_url` and `worker.token` …, start the service … [1]", [1] being the
numbered steps of installing a worker, one of them "Copy the server's CA certificate … and
set `worker.ca_file`" (blind QA round 15 w35). Each sentence the answer writes is a step of
the page, so every check of support passes it; what is wrong is the yes, which the steps it
leaves out deny.

A question asking whether something suffices ("enough", "sufficient", "all I need", "just
by …", "only have to", "nothing else") answered yes, citing a numbered list of which the
answer restates some steps but not others, is flagged with the first step it leaves out. A
step is restated when the answer shares half of its content words. Pure
functions, no model call; measured by eval/skipped_step_checks.py.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.words import FILLER, stem, tokens
from docsassistant.agent.checks.yes_no import affirms

_SUFFICES = re.compile(
    r"\b(?:enough|sufficient|suffices?|all\s+(?:i|you|we)\s+(?:need|have)\s+to|(?:only|just)\s+"
    r"(?:need|have|by|with|require)|nothing\s+else|is\s+that\s+all|anything\s+else)\b",
    re.I,
)
STEP = re.compile(r"^[ \t]{0,3}\d{1,2}[.)][ \t]+(.+)$", re.M)
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
MIN_STEPS = 2  # a list of one item is no procedure


def _words(text: str) -> set[str]:
    """Content words, stemmed; a name (`worker.ca_file`, `quill-worker`) whole, as cutting it
    to six letters would make every `worker.*` setting one word."""
    words = tokens(_INLINE_CODE.sub(r"\1", text))
    return {w if re.search(r"[._/-]", w) else stem(w) for w in words if w not in FILLER and not w.isdigit()}


def restated(step: set[str], said: set[str]) -> bool:
    """The answer's words `said` restate half of a step's words `step`."""
    return bool(step) and len(step & said) * 2 >= len(step)


def skipped_steps(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """[a note] when `question` asks whether something suffices, `answer` says yes, and a
    numbered procedure in its cited sources has steps the answer restates and steps it
    leaves out (see the module's docstring); [] otherwise."""
    if not _SUFFICES.search(question) or not affirms(answer):
        return []
    said = _words(answer)
    for source in cited_sources:
        steps = STEP.findall(FENCED_CODE.sub(" ", str(source.get("content") or "")))
        if len(steps) < MIN_STEPS:
            continue
        kept = [restated(_words(step), said) for step in steps]
        if any(kept) and not all(kept):
            left = steps[kept.index(False)].strip()
            return [f'yes, though the cited steps also include "{left[:120]}"']
    return []
