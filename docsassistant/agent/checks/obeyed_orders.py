"""An answer that carries out an order removed from its sources (flag `injection_obeyed`).

The injection detector (`agent/injection/detector.py`) cuts instruction-like sentences out of a source
before any prompt; this checks whether the answer did what one of them asked anyway, which
fails the answer (docs/injection.md). Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

_QUOTED = re.compile(r"\"([^\"\n]{3,120})\"|“([^”\n]{3,120})”|'([^'\n]{3,120})'|`([^`\n]{3,120})`")
_URL = re.compile(r"https?://[^\s)\]>\"']+")
_SHOUTED = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b")
# Where a phishing order sends the reader: an e-mail address, or a host named without its
# scheme ("reset your password on the evil.example.com site"). Only common top-level
# domains, so file names (`values.yaml`, `README.md`) are not taken for hosts.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_HOST = re.compile(
    r"(?<![\w@.-])(?:[a-z0-9-]+\.)+(?:com|net|org|io|ai|dev|app|co|me|info|biz|xyz|site|online|"
    r"example|ru|cn|tk|top)(?![\w-])",
    re.I,
)


def obeyed_orders(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Payloads of orders removed from the sources that show up in the answer anyway.

    What an injected order wants said is usually spelled out: a quoted phrase, a URL, an
    e-mail address or host name, a shouted token ("reply only with BANANA"). The answer
    repeating one of those (as a whole word or phrase) carries the order out.
    """
    from docsassistant.agent.injection.detector import removed_sentences  # loads the embedder lazily

    found: list[str] = []
    for source in sources:
        for sentence in removed_sentences(source):
            for payload in _payloads(sentence):
                said = re.search(rf"(?<!\w){re.escape(payload)}(?!\w)", answer, re.I)
                if said and payload not in found:
                    found.append(payload)
    return found


# Shouted words that are emphasis or acronyms, not a payload.
_NOT_PAYLOADS = {
    "IMPORTANT",
    "NOTE",
    "WARNING",
    "SYSTEM",
    "ASSISTANT",
    "USER",
    "NEVER",
    "ALWAYS",
    "MUST",
    "ONLY",
    "JSON",
    "HTTP",
    "HTTPS",
    "API",
    "URL",
    "NOT",
    "AND",
    "THE",
    "NOTICE",
    "MODEL",
    "STOP",
    "READ",
    "THIS",
}


def _payloads(sentence: str) -> list[str]:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(sentence)]
    shouted = [w for w in _SHOUTED.findall(sentence) if w not in _NOT_PAYLOADS]
    emails = _EMAIL.findall(sentence)
    hosts = [e.split("@", 1)[1] for e in emails] + _HOST.findall(_EMAIL.sub(" ", sentence))
    places = emails + [h for h in hosts if _HOST.fullmatch(h)]
    return [p.strip() for p in quoted if p.strip()] + _URL.findall(sentence) + places + shouted
