"""The visible labels of the chat page: flags (label, badge colour, icon) and node status lines.

They are stable on purpose: the browser tests and readers look for them.
"""

from __future__ import annotations

# kind -> (label, badge color, material icon)
FLAG_STYLE: dict[str, tuple[str, str, str]] = {
    "grounded": ("Grounded", "green", ":material/check:"),
    "injection_obeyed": ("Obeyed injected text", "red", ":material/dangerous:"),
    "unsupported_claims": ("Unsupported claims", "red", ":material/error:"),
    "citation_mismatch": ("Claims rest on uncited sources", "red", ":material/error:"),
    "unchecked_sentences": ("Unchecked sentences", "red", ":material/error:"),
    "off_question": ("Answers a neighbouring term", "red", ":material/alt_route:"),
    "uncited": ("Uncited", "red", ":material/link_off:"),
    "empty_answer": ("Empty answer", "red", ":material/block:"),
    "not_from_documentation": ("Not from the documentation", "orange", ":material/help:"),
    "injection_suspected": ("Suspected injection", "orange", ":material/gpp_maybe:"),
    "budget_reached": ("Budget reached", "orange", ":material/timer_off:"),
    "prompt_truncated": ("Prompt truncated", "orange", ":material/content_cut:"),
    "answer_truncated": ("Answer cut off", "orange", ":material/content_cut:"),
    "search_failed": ("Documentation not searched", "orange", ":material/search_off:"),
    "no_relevant_docs": ("No relevant documentation", "gray", ":material/search_off:"),
    "bogus_citation": ("Bogus citation removed", "yellow", ":material/link_off:"),
    "verification_empty": ("Nothing verified", "gray", ":material/help:"),
    "verification_unreadable": ("Verification unreadable", "gray", ":material/help:"),
    "not_verified": ("Not verified", "gray", ":material/help:"),
    "partial_evidence": ("Partial evidence", "yellow", ":material/contrast:"),
}
FLAG_ORDER = list(FLAG_STYLE)

NODE_LABELS = {
    "decide": "Deciding what to look up…",
    "retrieve": "Searching the documentation…",
    "grade": "Grading the results…",
    "rewrite": "Rewriting the query…",
    "generate": "Writing the answer…",
    "verify": "Checking the answer against the sources…",
    "run_sql": "Counting chunks…",
    "no_answer": "Nothing relevant found…",
    "finalize": "Finishing…",
}
