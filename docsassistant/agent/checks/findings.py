"""Every code check of an answer, in the order verify runs them: what the verifier, a model
of the writer's kind, may have let through. Each list of findings keeps its checks' order
and holds an item once; `verdict.judge` reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from docsassistant.agent.checks.absence import denied_coverage
from docsassistant.agent.checks.asked_figures import figure_not_given
from docsassistant.agent.checks.asked_identifiers import other_identifier
from docsassistant.agent.checks.cited_clauses import quoted_sentence
from docsassistant.agent.checks.code_values import own_names, unbacked_code_values
from docsassistant.agent.checks.column_figures import figures_of_other_columns
from docsassistant.agent.checks.comparisons import comparisons
from docsassistant.agent.checks.conditions import dropped_conditions
from docsassistant.agent.checks.counts import miscounted
from docsassistant.agent.checks.coverage import unchecked_sentences
from docsassistant.agent.checks.default_values import other_default_values
from docsassistant.agent.checks.figure_binding import borrowed_subjects, misbound_figures, misplaced_figures
from docsassistant.agent.checks.figure_labels import figure_of_another_name, relabelled_figures
from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures, unbacked_numbers
from docsassistant.agent.checks.identifiers import unbacked_commands, unbacked_identifiers, unbacked_options
from docsassistant.agent.checks.list_items import invented_list_items
from docsassistant.agent.checks.negated_verbs import denied_verbs_asserted
from docsassistant.agent.checks.only_terms import narrowed_lists, widened_restrictions
from docsassistant.agent.checks.paired_names import mispaired_names
from docsassistant.agent.checks.peer_figures import peer_figures
from docsassistant.agent.checks.removed_options import removed_options
from docsassistant.agent.checks.reversals import contradicted_by_evidence, reversed_statements
from docsassistant.agent.checks.rival_statements import rival_statements
from docsassistant.agent.checks.same_page import other_chunks, unbacked_on_the_page
from docsassistant.agent.checks.setting_figures import figures_of_other_settings
from docsassistant.agent.checks.setting_pages import settings_of_another_page
from docsassistant.agent.checks.sibling_figures import sibling_figures
from docsassistant.agent.checks.sibling_names import sibling_citations, sibling_names, sibling_sources
from docsassistant.agent.checks.sibling_terms import sibling_terms
from docsassistant.agent.checks.skipped_steps import skipped_steps
from docsassistant.agent.checks.stale_defaults import stale_defaults
from docsassistant.agent.checks.step_order import reordered_steps
from docsassistant.agent.checks.support_matrix import matrix_denials
from docsassistant.agent.checks.table_roles import (
    defaults_of_other_rows,
    figures_of_other_rows,
    swapped_table_roles,
)
from docsassistant.agent.checks.units import (
    converted_figures,
    mismatched_units,
    reversed_bounds,
    swapped_defaults,
)
from docsassistant.agent.checks.word_support import weakly_supported
from docsassistant.agent.checks.wrapped_lines import unwrapped_sources
from docsassistant.agent.checks.yes_no import affirms, is_yes_no, unconfirmed_names, unconfirmed_words
from docsassistant.agent.injection.detector import redact_injection
from docsassistant.agent.language import looks_english, looks_foreign
from docsassistant.agent.schemas import ClaimCheck


@dataclass(frozen=True)
class CodeFindings:
    """What the code checks found, one list per argument of `verdict.judge`."""

    unbacked: list[str]  # figures, names and options the cited sources do not back
    reversals: list[str]  # statements a source says the opposite of
    weak: list[str]  # cited sentences that what they cite does not back
    off_question: list[str]  # the question's term or name swapped for a sibling's
    unchecked: list[str]  # sentences no citation and no claim covers
    same_language: bool  # False: the word checks were skipped (an answer in another language)


def code_findings(
    answer: str,
    sources: list[dict[str, Any]],
    question: str,
    *,
    seen: list[dict[str, Any]],
    cited: list[int],
    claims: list[ClaimCheck] | None,
    user_messages: list[str],
    standalone_question: str | None,
    sufficient: bool,
    chunks: list[dict[str, Any]],
) -> CodeFindings:
    """The findings of every code check of `answer` against the turn's evidence `sources`.

    `seen`: the sources as the generator saw them (`prompt_text` where one was redacted);
    `cited`: the source numbers the answer cites; `claims`: the verifier's, None when its
    reply could not be read; `user_messages`: the user's messages of the conversation;
    `sufficient`: the grader found the evidence complete; `chunks`: all the turn retrieved,
    the ones the grader set aside too."""
    # Every check splits sources at line ends too: a sentence hard-wrapped over two lines
    # would be read as two fragments (blind QA round 16 w18).
    sources, seen, chunks = unwrapped_sources(sources), unwrapped_sources(seen), unwrapped_sources(chunks)
    cited_sources = [s for s in sources if s.get("n") in cited]
    # The user's own words back a figure, never the model's rewrite of them: a rewrite that
    # invents "60 seconds" would otherwise vouch for an answer repeating it (QA round 8a W4).
    users_words = list(user_messages)
    checked = answer
    confirmed = affirms(answer) and is_yes_no(question)
    if confirmed:
        # "Is the timeout 5 seconds?" answered "Yes, it is 5 seconds" (or just "Yes"): the
        # answer states the question's figure, which therefore cannot back itself (QA 8a, 56).
        checked = f"{answer}\n\n{question}"
        users_words = [text for text in users_words if text.strip() != question.strip()]
    else:
        users_words.append(question)
    unbacked = unbacked_numbers(checked, cited_sources, " ".join(users_words))
    # "5 minutes" for the page's "300 s", "8 GiB" after the sentence's "8192 MiB": the same
    # quantity, unless the figure is also stated bare elsewhere (blind QA round 17).
    if converted := converted_figures(checked, cited_sources):
        elsewhere = set(stated_figures(re.sub("|".join(map(re.escape, converted)), " ", checked)))
        unbacked = [figure for figure in unbacked if figure in elsewhere]
    # "deprecated in 2.9.0 and removed in 3.0.0 [release notes § 3.0.0]", the § 2.9.0 chunk
    # retrieved too: the cited page gives it (QA 14 r26), unless for something else (13 w33).
    same_page = other_chunks(cited_sources, sources)
    unbacked = unbacked_on_the_page(checked, unbacked, same_page)
    # "500 seconds" for the page's 500 ms: the figure is there, its unit is not (QA 10, s01).
    unbacked += [figure for figure in mismatched_units(checked, cited_sources) if figure not in unbacked]
    # "at least 64 GB" for the page's "up to 64 GB": the figure is there, its bound is not (s65).
    unbacked += [figure for figure in reversed_bounds(checked, cited_sources) if figure not in unbacked]
    # "defaults to 12 hours" where 12 hours is the page's ceiling, 30 s its default (QA 13 w10).
    unbacked += [figure for figure in swapped_defaults(checked, cited_sources) if figure not in unbacked]
    # "By default … 32 (`backup.parallel_uploads`)", 32 being its table row's maximum (QA 14 w04).
    # Held to the cited page's other retrieved chunks too, since those may back the figure:
    # "Out of the box … 400 days", the settings table's maximum (QA round 15 w06).
    unbacked += [
        figure for figure in swapped_table_roles(checked, cited_sources + same_page) if figure not in unbacked
    ]
    # "ten seconds … set by request_timeout", its row 30 s, 10 s another row's (blind QA 19 w33).
    unbacked += [
        figure
        for figure in figures_of_other_rows(answer, cited_sources + same_page)
        if figure not in unbacked
    ]
    # "On Pro, max_message_bytes can go up to 8 MiB", 8 MiB being Community's cell (19 w21).
    unbacked += [f for f in figures_of_other_columns(answer, cited_sources + same_page) if f not in unbacked]
    # "By default … seven weekly snapshots (`keep_weekly`)", 7 being keep_daily's default (20 w30).
    unbacked += [f for f in defaults_of_other_rows(answer, cited_sources + same_page) if f not in unbacked]
    # "`VK-4291` (QUOTA_EXCEEDED)", the error table pairing QUOTA_EXCEEDED with VK-4290 (20 w38).
    unbacked += [p for p in mispaired_names(answer, cited_sources + same_page) if p not in unbacked]
    # "TLS 1.1" where the page gives TLS only 1.2 and 1.3, its 1.1 being HTTP/1.1's (m47).
    unbacked += [figure for figure in relabelled_figures(checked, cited_sources) if figure not in unbacked]
    # "a single failed check" for the page's "three failed health checks in a row" (s55).
    unbacked += [figure for figure in miscounted(checked, cited_sources) if figure not in unbacked]
    # `listen_port: 5762` in a YAML block for the page's `listen_port: 5672` (QA round 13 w01).
    # Held to every source the writer saw: the block often cites the page's introduction, and
    # the chunk that sets the key is beside it.
    unbacked += [v for v in unbacked_code_values(answer, seen, " ".join(users_words)) if v not in unbacked]
    if confirmed:  # and its identifiers: "Yes [1]." to "Does `FOO_TIMEOUT` set it?" (QA 8a, 56b)
        unbacked += unbacked_identifiers(question, cited_sources)
        # and its names: "Yes, Acme Proxy supports WebSockets [1]", [1] never naming them (m60)
        unbacked += [n for n in unconfirmed_names(question, cited_sources) if n not in unbacked]
        if not sufficient:  # and, on evidence found incomplete, its words (m44)
            missing = unconfirmed_words(question, cited_sources)
            unbacked += [f"yes to {', '.join(missing)}"] if missing else []
    # A setting name no source gives (`retry.max_retries` for `retry.max_attempts`) is
    # invented: checked against every source, cited or not; code blocks left out (QA 9, s32).
    named = unbacked_identifiers(FENCED_CODE.sub(" ", answer), sources)
    named += unbacked_options(answer, sources, " ".join(users_words))
    # "run `vk-relay promote`", the sources running `vkvault promote` and `vk-relay pair` (20 w39).
    named += unbacked_commands(answer, sources, " ".join(users_words))
    # ... but the example's own name is the answer's: "apply `sync-orders.yaml`" (QA 15 r06).
    own = own_names(answer)
    named = [n for n in named if not any(n.lower().rsplit(".", 1)[0] in o for o in own)]
    unbacked += [name for name in named if name not in unbacked]
    contents = [s.get("content") or "" for s in cited_sources]
    # The standalone form, so "And is it on by default?" is compared as the full question.
    working = standalone_question or question
    reversals = reversed_statements(answer, contents, working)
    # "can be modified later" for "cannot be changed": the opposite in other words (s02).
    reversals += [s for s in denied_verbs_asserted(answer, contents, working) if s not in reversals]
    # A yes citing a page about something else, while the page about the asked thing is
    # retrieved and says no (s48): every source counts here, not only the cited ones.
    evidence = [s.get("content") or "" for s in sources]
    reversals += [q for q in contradicted_by_evidence(answer, working, evidence) if q not in reversals]
    # "The documentation does not say how long backups are kept" beside a source saying it:
    # in the evidence (s37), or in a page the grader set aside (s10). Either way it is false.
    retrieved = [
        {"content": redact_injection(c["content"]) if c.get("suspicious") else c.get("content") or ""}
        for c in chunks
    ]
    reversals += [q for q in denied_coverage(answer, seen + retrieved) if q not in reversals]
    # "Set `broker.legacy_port` …" as if current, a source saying it was removed (QA 13 w27):
    # against every source the writer saw, the removal often being another chunk's.
    reversals += [q for q in removed_options(answer, seen) if q not in reversals]
    # "`upload_streams` defaults to 2", the release notes saying "now defaults to 4 (was 2)" (20 w28).
    reversals += [q for q in stale_defaults(answer, seen) if q not in reversals]
    # "producer.idempotent defaults to false", its table row's default being `true` (19 w31).
    reversals += [q for q in other_default_values(answer, cited_sources + same_page) if q not in reversals]
    # "Keelback Vault runs on … macOS", the cited support table's Vault column saying no (w07).
    reversals += [q for q in matrix_denials(answer, cited_sources) if q not in reversals]
    # "supported on both x86_64 and arm64" for a row saying "x86_64 only" (blind QA 17 w24).
    reversals += [q for q in widened_restrictions(answer, cited_sources) if q not in reversals]
    # "available only in the Enterprise edition" for the page's "in the Pro and Enterprise" (19 w20).
    reversals += [q for q in narrowed_lists(answer, cited_sources) if q not in reversals]
    # "Run `keel prune` first, then `keel forget`", every source ordering them the other way (w33).
    reversals += [q for q in reordered_steps(answer, seen) if q not in reversals]
    # "Is it enough to set the URL and the token?" answered yes, the steps citing a CA too (15 w35).
    reversals += [q for q in skipped_steps(answer, working, cited_sources) if q not in reversals]
    heard = " ".join(users_words)  # what may back a figure (not a question answered yes)
    asked = " ".join([*users_words, question])  # what the answer may say back unbacked
    weak = misplaced_figures(answer, seen, heard)  # figures are checked in any language
    off_question: list[str] = []
    # The word checks compare the answer's words with the sources': an answer in the user's
    # language over English pages shares none of them (QA round 10 s19, a German answer).
    same_language = not looks_foreign(answer) or not any(looks_english(s.get("content") or "") for s in seen)
    if same_language:
        weak = weakly_supported(answer, seen, asked) + weak
        weak += [s for s in borrowed_subjects(answer, seen, heard) if s not in weak]
        # Against every retrieved source: the page of the subject asked about may be uncited (s06).
        weak += [s for s in rival_statements(answer, seen) if s not in weak]
        # "removed in version 2.4 [1]", [1] saying 2.4 introduced something else (m24).
        weak += [s for s in misbound_figures(answer, seen) if s not in weak]
        # "And its maximum?" answered with another setting's maximum (w27): names from every source.
        weak += [
            s for s in figures_of_other_settings(answer, seen, seen + retrieved, working) if s not in weak
        ]
        # "… tiered storage, LDAP authentication and geo-replication [1]", [1] listing two (w05).
        weak += [s for s in invented_list_items(answer, seen) if s not in weak]
        # "… can be lost if the broker crashes [1]", [1] opening "With `never`, …" (w08).
        weak += [s for s in dropped_conditions(answer, seen, asked) if s not in weak]
        # "Nimbus Stream uses a higher replication factor than Nimbus Queue", no figure (13 w13).
        weak += [s for s in comparisons(answer, seen) if s not in weak]
        # "The default cache size of Acme Gateway is 512 MB [proxy page]" (m36).
        weak += [s for s in sibling_citations(answer, seen) if s not in weak]
        # The connect timeout asked, the request timeout of the same page answered (s08).
        off_question = sibling_terms(answer, working, seen)
        # "Yes" to "Is the connect timeout 30 s?", 30 s being the page's request timeout (s60).
        off_question += [s for s in sibling_figures(checked, cited_sources) if s not in off_question]
        # "How long are snapshots locked?" answered with what they need, no figure (14 w25).
        off_question += figure_not_given(answer, working)
        # The worker's port asked, the server's 7401 answered from "The server exposes …" (15 w09).
        off_question += [s for s in peer_figures(answer, working, cited_sources) if s not in off_question]
    # Acme Gateway asked (or followed up with "its"), Acme Proxy answered (s20).
    off_question += [s for s in sibling_names(answer, working) if s not in off_question]
    # "What does /readyz check?" answered with what `GET /healthz` does (15 w25).
    off_question += [s for s in other_identifier(answer, working) if s not in off_question]
    # PostgreSQL asked ("the first one"), MySQL's 8.0 of the same list answered (m12).
    off_question += [
        s for s in figure_of_another_name(answer, working, cited_sources) if s not in off_question
    ]
    # ... or "It accepts 4,000 connections [1]", [1] being the proxy's page (s20, s45).
    off_question += [s for s in sibling_sources(answer, working, cited_sources) if s not in off_question]
    # The Vault's `retention.keep_weekly` asked, the agent's page's row for it answered (14 w28).
    off_question += [
        s for s in settings_of_another_page(answer, cited_sources, sources, working) if s not in off_question
    ]
    unchecked = unchecked_sentences(answer, claims or [])
    # A trailing sentence no claim covers is word-checked against the citation before it;
    # the reader is better told it was never checked at all.
    never_checked = {quoted_sentence(s) for s in unchecked}
    weak = [w for w in weak if w not in never_checked]
    return CodeFindings(
        unbacked=unbacked,
        reversals=reversals,
        weak=weak,
        off_question=off_question,
        unchecked=unchecked,
        same_language=same_language,
    )
