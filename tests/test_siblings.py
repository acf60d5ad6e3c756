"""Condition 9: the answer speaks of the term asked about, not its sibling (pure function)."""

from __future__ import annotations

from docsassistant.agent.checks.sibling_terms import sibling_terms, terms

TIMEOUTS = {"n": 1, "content": "The connect timeout is 5 seconds. The request timeout is 30 seconds."}
ASKED = "What is the connect timeout?"


def test_terms_are_adjacent_content_words_within_a_clause() -> None:
    assert terms("What is the connect timeout?") == {("connec", "timeou")}
    assert terms("each metric, per tenant") == set()  # words of quantity or place modify nothing


def test_the_sibling_of_the_asked_term_is_found() -> None:
    assert sibling_terms("The request timeout is 30 seconds [1].", ASKED, [TIMEOUTS]) == [
        "asked about connect timeout, answered about request timeout"
    ]
    assert sibling_terms("Request timeout: 30 seconds [1].", ASKED, [TIMEOUTS])
    assert sibling_terms("The request timeout is thirty seconds [1].", ASKED, [TIMEOUTS])  # a number word


def test_an_answer_naming_the_asked_term_or_no_figure_is_not_flagged() -> None:
    for answer in (
        "The connect timeout is 5 seconds [1].",
        "The connect timeout is 5 seconds; the request timeout is 30 seconds [1].",
        "Connecting times out after 5 seconds; the request timeout is 30 seconds [1].",  # same modifier
        "Only the request timeout is documented [1].",  # no figure given for the sibling
    ):
        assert sibling_terms(answer, ASKED, [TIMEOUTS]) == [], answer
    # A sibling only another page names is another subject, not a sibling of this one.
    other = [
        {"n": 1, "content": "The connect timeout is 5 seconds."},
        {"n": 2, "content": "The request timeout is 30 s."},
    ]
    assert sibling_terms("The request timeout is 30 seconds [2].", ASKED, other) == []


def test_a_sibling_name_answered_is_found() -> None:
    from docsassistant.agent.checks.sibling_names import sibling_names

    follow_up = "And its idle timeout? (follow-up to: How many connections does Acme Gateway accept?)"
    assert sibling_names("Acme Proxy closes idle connections after 15 seconds [1].", follow_up) == [
        "asked about Acme Gateway, answered about Acme Proxy"
    ]
    both = "Acme Gateway closes idle connections after 60 seconds; Acme Proxy after 15 [1]."
    assert sibling_names(both, "What is the idle timeout of Acme Gateway?") == []
    assert (
        sibling_names("In Milvus 2.4 the limit is 32 [1].", "In Spring what is the limit?") == []
    )  # "In …" names nothing


def test_a_follow_up_naming_its_own_subject_is_asked_about_that_one() -> None:
    from docsassistant.agent.checks.sibling_names import sibling_names

    question = "What about Acme Proxy? (follow-up to: How many connections does Acme Gateway accept?)"
    assert sibling_names("Acme Proxy accepts 4,000 connections per node [1].", question) == []


def test_a_follow_up_asking_for_the_sibling_is_not_flagged() -> None:
    question = "And the request timeout? (follow-up to: What is the connect timeout?)"
    assert sibling_terms("The request timeout is 30 seconds [1].", question, [TIMEOUTS]) == []


def test_a_term_given_its_siblings_figure_is_found() -> None:
    """QA round 11 (s60, s61): "Is the connect timeout 30 s?" answered yes, 30 s being the
    request timeout of the same page."""
    from docsassistant.agent.checks.sibling_figures import sibling_figures

    page = {"n": 1, "content": "The connect timeout is 10 seconds. The request timeout is 30 seconds."}
    found = ["the source gives connect timeout 10; 30 is its request timeout"]
    assert sibling_figures("Yes [1].\n\nIs the connect timeout 30 s?", [page]) == found
    assert sibling_figures("The connect timeout is thirty seconds [1].", [page]) == found
    table = {"n": 1, "content": "| `connect_timeout` | 10 s |\n| `request_timeout` | 30 s |"}
    assert sibling_figures("`connect_timeout` is 30 s [1].", [table]) == found


def test_a_terms_own_figure_or_a_figure_no_sibling_holds_is_not_flagged() -> None:
    from docsassistant.agent.checks.sibling_figures import sibling_figures

    page = {
        "n": 1,
        "content": "The connect timeout is 10 seconds; it may be raised to 60 seconds. "
        "The request timeout is 30 seconds. Psycopg 3 is supported.",
    }
    for text in (
        "The connect timeout is 10 seconds [1].",
        "The connect timeout can be raised to 60 seconds [1].",  # its own second figure
        "The connect timeout is 10 seconds and the request timeout 30 seconds [1].",
        "The retry timeout is 30 seconds [1].",  # the page gives the retry timeout no figure
    ):
        assert sibling_figures(text, [page]) == [], text
    other_page = [page, {"n": 2, "content": "A connect timeout of 30 seconds suits slow links."}]
    assert sibling_figures("The connect timeout is 30 seconds [1][2].", other_page) == []


GATEWAY = {"title": "Acme Gateway", "content": "Acme Gateway accepts at most 10,000 connections per node."}
PROXY = {"title": "Acme Proxy", "content": "Acme Proxy accepts at most 4,000 connections per node."}


def test_an_answer_naming_nothing_from_a_siblings_page_is_off_question() -> None:
    """QA round 11 s20/s45: "It accepts 4,000 …" about the gateway, its only source the proxy page."""
    from docsassistant.agent.checks.sibling_names import sibling_sources

    asked = "How many connections does Acme Gateway accept?"
    assert sibling_sources("It accepts at most 4,000 connections [1].", asked, [PROXY]) == [
        "asked about Acme Gateway, answered from a source about Acme Proxy"
    ]
    # A follow-up's own name comes first; the asked product's page among the sources clears it.
    follow_up = "And the proxy? (follow-up to: How many connections does Acme Gateway accept?)"
    assert sibling_sources("It accepts 4,000 [1].", "What about Acme Proxy?", [PROXY]) == []
    assert sibling_sources("It accepts 4,000 [1].", follow_up, [PROXY]) == []
    assert sibling_sources("It accepts 4,000 [1].", "And its limit? (follow-up to: " + asked + ")", [PROXY])
    assert sibling_sources("It accepts 10,000 [1][2].", asked, [GATEWAY, PROXY]) == []
    assert sibling_sources("The gateway accepts 4,000 [1].", asked, [PROXY]) == []  # says which: other checks
    assert sibling_sources("It accepts 4,000 [1].", asked, [{"content": "Accepts 4,000 connections."}]) == []
    # One name in the plural is no sibling: "Intel Mac" asked, "Intel Macs" on the page.
    builds = {"content": "Building on Intel Macs is not supported yet."}
    assert sibling_sources("No, it is not supported [1].", "Can I build on an Intel Mac?", [builds]) == []


def test_a_clause_about_one_product_cited_to_its_siblings_page_is_found() -> None:
    """QA round 12 m36: "The default cache size of Acme Gateway is 512 MB [proxy page]"."""
    from docsassistant.agent.checks.sibling_names import sibling_citations

    proxy = {**PROXY, "n": 1, "content": PROXY["content"] + " The default cache size is 512 MB."}
    gateway = {**GATEWAY, "n": 2}
    assert sibling_citations("The default cache size of Acme Gateway is 512 MB [1].", [proxy, gateway]) == [
        "The default cache size of Acme Gateway is 512 MB."
    ]
    assert sibling_citations("Acme Proxy has a default cache size of 512 MB [1].", [proxy, gateway]) == []
    assert sibling_citations("Acme Gateways accept 10,000 connections [2].", [proxy, gateway]) == []  # plural


def test_a_figure_given_the_wrong_name_is_found() -> None:
    """QA round 12 m47 and m12: "TLS 1.1" where the page's 1.1 is HTTP/1.1's; "8.0" for the
    first of "PostgreSQL 14 or later, MySQL 8.0 or later"."""
    from docsassistant.agent.checks.figure_labels import figure_of_another_name, relabelled_figures

    protocols = [{"content": "Acme Gateway supports HTTP/1.1 and HTTP/2. TLS 1.2 and TLS 1.3 are supported."}]
    assert relabelled_figures("It supports TLS 1.1, TLS 1.2 and TLS 1.3 [1].", protocols) == ["TLS 1.1"]
    assert relabelled_figures("It supports TLS 1.2 and TLS 1.3 [1].", protocols) == []
    assert relabelled_figures("Step 3 sets TLS 1.2 [1].", protocols) == []  # "Step" names nothing
    databases = [{"content": "Acme Server supports PostgreSQL 14 or later, MySQL 8.0 or later."}]
    first = "What is the minimum version of the first one? (PostgreSQL)"
    assert figure_of_another_name("The minimum version is 8.0 [1].", first, databases) == [
        "asked about postgresql, answered with 8, which the sources give mysql"
    ]
    assert figure_of_another_name("The minimum version is 14 [1].", first, databases) == []
    assert figure_of_another_name("MySQL needs 8.0 [1].", first, databases) == []  # says whose


def test_a_word_the_tokenizer_splits_gives_one_term_whatever_the_hash_seed() -> None:
    """ "beträgt" is two tokens ("betr", "gt"); picking one from a set made the terms, and so
    the off-question flag, vary from run to run (PYTHONHASHSEED 1 gave "gt", 2 "betr")."""
    import subprocess
    import sys

    code = "from docsassistant.agent.checks.sibling_terms import terms; print(sorted(terms('Zeit beträgt')))"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert seen == {"[('zeit', 'betr')]\n"}
