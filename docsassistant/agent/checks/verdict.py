"""The verdict on an answer: which flags it earns from its citations and verification.

Pure functions (no model call), so every row of the flag table is tested directly.
`grounded` is the only good verdict and needs all nine conditions of docs/flags.md: at
least one valid citation, at least one verified claim, every claim supported, every claim's
sources among the answer's citations, and (checked in code, not by the verifier) every
number the answer states found in a source it cites (`figures.unbacked_numbers`), every
sentence covered by a citation or a claim (`coverage.unchecked_sentences`), no statement the
opposite of its source (`reversals.reversed_statements`, in other words
`negated_verbs.denied_verbs_asserted`), every cited sentence sharing
words with what it cites (`word_support.weakly_supported`) and no term of the question
swapped for its sibling (`sibling_terms.sibling_terms`). `findings.code_findings` runs
those checks; `judge` reads what they found beside the verifier's claims.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from docsassistant.agent.citations import MARKER
from docsassistant.agent.schemas import ClaimCheck

# "No." or "Yes, it does." alone: the answer to a yes/no question, which the sentences after
# it carry with their citations. A verifier listing it as a claim of its own, with no source
# (blind QA round 17: six right answers flagged `citation_mismatch`), has checked nothing;
# what the yes or no states is checked in code (`reversals`, `figures` read the question).
_BARE_YES_NO = re.compile(
    r"^\W*(?:yes|no)\b(?:,?\s*(?:it|they|you|this|that|there)\s+"
    r"(?:does|do|is|are|can|will|must|should|has|have|was)(?:\s*not|n't)?)?\W*$",
    re.IGNORECASE,
)


def _bare_yes_no(claim: ClaimCheck) -> bool:
    """A supported claim that is only a sourceless "Yes." or "No." (see `_BARE_YES_NO`)."""
    return claim.supported and not claim.sources and bool(_BARE_YES_NO.match(claim.claim))


def _paragraph_sources(claims: list[ClaimCheck], answer: str) -> list[ClaimCheck]:
    """Sourceless supported claims given the citations of the answer paragraph they come from.

    Verifiers leave a sentence's sources empty when its marker is elsewhere in the paragraph
    ("A restart isn't needed. The token file is re-read on every reload [1]."), or when they
    cut a sentence at "i.e." (blind QA round 17 r13, r02: two right answers flagged
    `citation_mismatch`). Condition 6 already takes such a sentence as covered by the
    paragraph's citation; condition 4 now reads its claim the same way."""
    paragraphs = [
        (" ".join(MARKER.sub(" ", p).split()), MARKER.findall(p)) for p in re.split(r"\n\s*\n", answer)
    ]
    out = []
    for claim in claims:
        said = " ".join(MARKER.sub(" ", claim.claim).split()).rstrip(" .")
        if claim.supported and not claim.sources and len(said) > 3:
            cited = next((markers for text, markers in paragraphs if said in text and markers), [])
            if cited:
                claim = claim.model_copy(update={"sources": sorted({int(n) for n in cited})})
        out.append(claim)
    return out


class Verdict(BaseModel):
    """A verification status and the flags that explain it, as `(kind, message)` pairs."""

    status: str  # grounded | unsupported | failed | empty | unverified | not_applicable
    flags: list[tuple[str, str]]


def judge(
    cited: list[int],
    claims: list[ClaimCheck] | None,
    obeyed: list[str],
    unbacked: list[str] | None = None,
    unchecked: list[str] | None = None,
    reversals: list[str] | None = None,
    weak: list[str] | None = None,
    off_question: list[str] | None = None,
    truncated: bool = False,
    answer: str = "",
) -> Verdict:
    """Flags for an answer citing `cited` whose verifier returned `claims`.

    `claims` is None when the verifier's reply could not be read; `obeyed` lists orders
    from sources that the answer carried out (see `obeyed_orders.py`); `unbacked`, numbers the
    answer states that no cited source holds (see `figures.unbacked_numbers`); `unchecked`, the
    answer's sentences that no citation and no claim covers (see `coverage.py`);
    `reversals`, its statements that a cited source says the opposite of (`reversals.py`);
    `weak`, its cited sentences that share too few words with what they cite
    (`word_support.py`); `off_question`, terms of the question the answer swapped for a
    sibling term of the same page (`sibling_terms.py`); `truncated`, the answer's end is missing
    (flagged `answer_truncated` by generate): what is left may say the opposite of the whole;
    `answer`, the answer's text, gives a sourceless claim its paragraph's citations."""
    flags: list[tuple[str, str]] = []
    if obeyed:
        flags.append(("injection_obeyed", f"The answer carries out text from a source: {obeyed[0]!r}."))
    if claims is None:
        flags.append(
            ("verification_unreadable", "The verifier's reply could not be read; the answer is unchecked.")
        )
        return Verdict(status="failed" if obeyed else "unverified", flags=flags)
    claims = _paragraph_sources([c for c in claims if not _bare_yes_no(c)], answer)
    if not claims:
        flags.append(("verification_empty", "The verifier found no claims to check."))
        return Verdict(status="failed" if obeyed else "empty", flags=flags)
    unsupported = [c.claim for c in claims if not c.supported]
    if unsupported:
        flags.append(("unsupported_claims", f"{len(unsupported)} claim(s) not supported by the sources."))
    elif unbacked:
        # The verifier is the same kind of model that wrote the answer: a figure it let
        # through that no cited source contains is not taken on its word.
        shown = ", ".join(unbacked[:3])
        flags.append(
            ("unsupported_claims", f"The answer states {shown}, which none of its cited sources contains.")
        )
        unsupported = list(unbacked)
    if reversals and not unsupported:
        # A flipped word ("enabled" for "disabled") keeps a sentence looking like its
        # source, and a verifier of the writer's kind passes it.
        flags.append(
            (
                "unsupported_claims",
                f"The answer says the opposite of a source: {reversals[0]!r}.",
            )
        )
        unsupported = list(reversals)
    if weak and not unsupported:
        # A real citation on a sentence its source does not contain passes a verifier that
        # agrees with everything.
        flags.append(("unsupported_claims", f"A sentence is not backed by the source it cites: {weak[0]!r}."))
        unsupported = list(weak)
    if off_question and not unsupported:
        # "The request timeout is 30 seconds [1]" is true of its page, and no answer to
        # "What is the connect timeout?": every support check passes it.
        flags.append(("off_question", f"The answer may not be about what was asked: {off_question[0]}."))
        unsupported = list(off_question)
    if unchecked and not unsupported:
        # A verifier that lists only the cited claim leaves the rest of the answer unchecked.
        flags.append(
            (
                "unchecked_sentences",
                f"{len(unchecked)} sentence(s) cite no source and were not verified"
                + (f", the first: {unchecked[0]!r}." if len(unchecked) > 1 else f": {unchecked[0]!r}."),
            )
        )
        unsupported = list(unchecked)
    off_citation = [
        c.claim for c in claims if c.supported and not (c.sources and set(c.sources) <= set(cited))
    ]
    if off_citation:
        flags.append(
            ("citation_mismatch", f"{len(off_citation)} claim(s) rest on sources the answer does not cite.")
        )
    if obeyed:
        return Verdict(status="failed", flags=flags)
    if unsupported:
        return Verdict(status="unsupported", flags=flags)
    if truncated:
        return Verdict(status="unverified", flags=flags)
    if cited and not off_citation:
        flags.append(("grounded", f"All {len(claims)} claim(s) are supported by the cited sources."))
        return Verdict(status="grounded", flags=flags)
    return Verdict(status="unsupported", flags=flags)
