"""Pure rules: citation styles normalised to `[n]` (and what is left alone), and the verdict
on an answer from its citations and claims (one case per verification flag)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.coverage import unchecked_sentences
from docsassistant.agent.checks.figures import stated_figures, unbacked_numbers
from docsassistant.agent.checks.verdict import judge
from docsassistant.agent.citations import check_citations
from docsassistant.agent.schemas import ClaimCheck


@pytest.mark.parametrize(
    ("answer", "cleaned", "used"),
    [
        ("Retries: three [1, 2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [1; 3].", "Retries: three [1][3].", [1, 3]),
        ("Retries: three [1][2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [1-3].", "Retries: three [1][2][3].", [1, 2, 3]),
        ("Retries: three [Document 2].", "Retries: three [2].", [2]),
        ("Retries: three [doc 1].", "Retries: three [1].", [1]),
        ("Retries: three [Source 1, 2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [^1].\n\n[^1]: retries.md", "Retries: three [1].", [1]),
        ("Retries: three 【1】.", "Retries: three [1].", [1]),
        ("Retries: three【2†retries.md】.", "Retries: three[2].", [2]),
        ("Retries happen three times (1).", "Retries happen three times [1].", [1]),
        ("Retries happen (1) and (2).", "Retries happen [1][2].", [1, 2]),
        ("Retries: three [Passage 2].", "Retries: three [2].", [2]),
        ("Retries: three [chunks 1, 3].", "Retries: three [1][3].", [1, 3]),
        ("Retries: three (Source 1).", "Retries: three [1].", [1]),
        ("Retries: three (documents 1 and 2).", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [1†L3-L9].", "Retries: three [1].", [1]),
        ("Retries: three<sup>2</sup>.", "Retries: three[2].", [2]),
        ("Retries: three [[1]].", "Retries: three [1].", [1]),
        ("Retries: three [#3].", "Retries: three [3].", [3]),
    ],
)
def test_citation_styles_become_markers(answer: str, cleaned: str, used: list[int]) -> None:
    assert check_citations(answer, 3)[:2] == (cleaned, used)


PATHS = ["core/retries.md", "core/timeouts.md", "ops/backup.md", "core/retries.md"]


@pytest.mark.parametrize(
    ("answer", "cleaned", "used"),
    [
        ("Three [core/retries.md].", "Three [1].", [1]),
        ("Three (CORE/Retries.md).", "Three [1].", [1]),
        ("Three [Source: backup.md].", "Three [3].", [3]),
        ("Three [`core/timeouts.md` § Timeouts].", "Three [2].", [2]),
        ("Three (core/timeouts.md, ops/backup.md).", "Three [2][3].", [2, 3]),
        # Left alone: a link, a path in prose, a path no evidence item has, a code block.
        ("See [core/retries.md](core/retries.md).", "See [core/retries.md](core/retries.md).", []),
        ("The file core/retries.md says so.", "The file core/retries.md says so.", []),
        ("Three [core/unknown.md].", "Three [core/unknown.md].", []),
        ("```\nx = [ops/backup.md]\n```", "```\nx = [ops/backup.md]\n```", []),
    ],
)
def test_citations_by_source_path_become_markers(answer: str, cleaned: str, used: list[int]) -> None:
    assert check_citations(answer, 4, PATHS)[:2] == (cleaned, used)


@pytest.mark.parametrize(
    "answer",
    [
        "Call f(1) to start.",  # a function call in prose
        "Steps: (1) install, (2) run the server.",  # an enumeration
        "Use `retry(3)` here.",  # inline code
        "```python\nitems = [1, 2]\nretry(1)\n```",  # a code block
        "A range like [1-30] is not a citation.",
        # A dot that starts a name is no full stop (blind QA round 19 r34: "the .lock file"
        # was shown as "the.lock file").
        "Don't delete the .lock file while a broker runs.",
        "Add .env and .venv to .gitignore, then commit.",
    ],
)
def test_numbers_in_prose_and_code_are_left_alone(answer: str) -> None:
    assert check_citations(answer, 3)[:2] == (answer, [])


def test_paren_numbers_are_not_citations_when_brackets_are_used() -> None:
    """One style per answer: with a real `[n]`, `(2)` stays prose."""
    cleaned, used, _ = check_citations("There are two modes (2). Retries: three [1].", 3)
    assert used == [1] and "modes (2)." in cleaned


def test_citation_to_no_source_is_removed() -> None:
    assert check_citations("Three [1][7].", 3) == ("Three [1].", [1], [7])


def _claim(supported: bool = True, sources: list[int] | None = None) -> ClaimCheck:
    return ClaimCheck(
        claim="It retries three times.", supported=supported, sources=[1] if sources is None else sources
    )


def _kinds(verdict) -> list[str]:
    return [k for k, _ in verdict.flags]


def test_grounded_needs_all_four_conditions() -> None:
    verdict = judge([1], [_claim()], [])
    assert verdict.status == "grounded" and _kinds(verdict) == ["grounded"]


def test_no_valid_citation_is_never_grounded() -> None:
    assert "grounded" not in _kinds(judge([], [_claim()], []))


def test_empty_verification_is_its_own_flag() -> None:
    verdict = judge([1], [], [])
    assert verdict.status == "empty" and _kinds(verdict) == ["verification_empty"]


def test_unreadable_verification_is_its_own_flag() -> None:
    verdict = judge([1], None, [])
    assert verdict.status == "unverified" and _kinds(verdict) == ["verification_unreadable"]


def test_unsupported_claim_is_flagged() -> None:
    verdict = judge([1], [_claim(), _claim(supported=False, sources=[])], [])
    assert verdict.status == "unsupported" and _kinds(verdict) == ["unsupported_claims"]


@pytest.mark.parametrize("sources", [[2], []])
def test_claim_resting_on_uncited_or_no_source_is_a_mismatch(sources: list[int]) -> None:
    verdict = judge([1], [_claim(sources=sources)], [])
    assert _kinds(verdict) == ["citation_mismatch"] and verdict.status == "unsupported"


@pytest.mark.parametrize("bare", ["No.", "Yes, it does.", "No, they aren't."])
def test_a_bare_yes_or_no_claim_needs_no_source_of_its_own(bare: str) -> None:
    """Blind QA round 17 (r06, r12 ...): a verifier lists the answer's opening "No." as a claim
    with no sources; the sentence after it, cited, carries it. Alone it checks nothing."""
    yes_no = ClaimCheck(claim=bare, supported=True, sources=[])
    assert _kinds(judge([1], [yes_no, _claim()], [])) == ["grounded"]
    assert _kinds(judge([1], [yes_no], [])) == ["verification_empty"]
    other = ClaimCheck(claim="No retries happen.", supported=True, sources=[])
    assert _kinds(judge([1], [other, _claim()], [])) == ["citation_mismatch"]


def test_a_sourceless_claim_takes_its_paragraphs_citations() -> None:
    """Blind QA round 17 (r13, r02): the verifier gives no source to a lead sentence whose
    paragraph cites [1] later, or to a sentence it cut at "i.e."; condition 6 already reads
    such a sentence as covered by the paragraph's citation."""
    answer = "A restart isn't needed. The token file is re-read on every reload [1].\n\nIt retries three times [2]."
    lead = ClaimCheck(claim="A restart isn't needed.", supported=True, sources=[])
    assert _kinds(judge([1, 2], [lead, _claim()], [], answer=answer)) == ["grounded"]
    # A claim no paragraph of the answer holds, or one in a paragraph citing nothing, still fails.
    invented = ClaimCheck(claim="Tokens never expire.", supported=True, sources=[])
    assert _kinds(judge([1, 2], [invented, _claim()], [], answer=answer)) == ["citation_mismatch"]
    bare = "A restart isn't needed.\n\nIt retries three times [1]."
    assert _kinds(judge([1], [lead, _claim()], [], answer=bare)) == ["citation_mismatch"]


def test_obeyed_injection_fails_even_a_supported_answer() -> None:
    verdict = judge([1], [_claim()], ["BANANA"])
    assert verdict.status == "failed" and _kinds(verdict) == ["injection_obeyed"]


def test_a_sibling_term_answered_is_its_own_flag() -> None:
    swapped = ["asked about connect timeout, answered about request timeout"]
    verdict = judge([1], [_claim()], [], off_question=swapped)
    assert verdict.status == "unsupported" and _kinds(verdict) == ["off_question"]
    assert "request timeout" in verdict.flags[0][1]


def test_a_number_no_cited_source_holds_is_not_grounded() -> None:
    """The verifier agreeing is not enough for a figure found nowhere in the cited sources
    (an independent QA pass: "5 GB [1]" citing a page about connection limits was grounded)."""
    verdict = judge([1], [_claim()], [], ["5"])
    assert verdict.status == "unsupported" and _kinds(verdict) == ["unsupported_claims"]
    assert "5" in verdict.flags[0][1]


RETRIES = {
    "title": "Retries",
    "section": "",
    "content": "The client retries three times, backing off 200 ms; TLS 1.0 is refused. Up to 10,000 rows.",
}


@pytest.mark.parametrize(
    ("answer", "unbacked"),
    [
        ("It retries 3 times [1].", []),  # the source's number word backs the digit
        ("Backoff starts at 200 ms and TLS 1.0 is refused [1].", []),
        ("Up to 10000 rows [1].", []),  # thousands separators do not matter
        ("The limit is 5 GB [1].", ["5"]),
        ("It retries 3 times, at most 7 per minute [1].", ["7"]),
        ("1. Install it.\n2. Run it 3 times [1].", []),  # list numbering is not a figure
        ("Set `max_retries=9` [1].", []),  # code is not checked
        ("It uses SHA256 and v2 [1].", []),  # parts of identifiers are not figures
        ("About error 404 [1].", []),  # the question says 404
        ("It retries in seven steps [1].", ["7"]),  # a number word before a counted thing (QA 10, s33)
        ("It has three checks [1].", []),
    ],
)
def test_numbers_are_checked_against_the_cited_sources(answer: str, unbacked: list[str]) -> None:
    assert unbacked_numbers(answer, [RETRIES], "What does error 404 mean?") == unbacked


STEPS = {
    "title": "Loading",
    "section": "",
    "content": "The second step loads 2k rows per batch, up to 1.5 million rows; 10,000 at most per file.",
}


@pytest.mark.parametrize(
    ("answer", "unbacked"),
    [
        ("The 2nd step loads the rows [1].", []),  # "second" backs "2nd"
        ("It loads 2,000 rows per batch [1].", []),  # "2k" backs 2,000
        ("At most 10k rows per file [1].", []),  # "10,000" backs "10k"
        ("Up to 1,500,000 rows [1].", []),  # "1.5 million"
        ("The 3rd step loads 20k rows [1].", ["3", "20000"]),
        ("At most 10 000 rows per file [1].", []),  # SI thousands (QA round 5)
        ("At most 10\u202f000 rows per file [1].", []),  # with a narrow no-break space
        ("At most twenty thousand rows per file [1].", ["20000"]),  # a wrong figure in words
        ("At most ten thousand rows per file [1].", []),
    ],
)
def test_a_figure_written_another_way_is_still_backed(answer: str, unbacked: list[str]) -> None:
    """Correct answers restate figures: an ordinal word as "2nd", "2k" as 2,000. Flagging
    those as unsupported would teach readers to ignore the flag."""
    assert unbacked_numbers(answer, [STEPS]) == unbacked


SESSION = {
    "title": "Consumers",
    "section": "",
    "content": "session_timeout went from 10 s to 45 s in 4.2; max_poll_interval accepts 1 s to 24 h.",
}


@pytest.mark.parametrize(
    ("answer", "unbacked"),
    [
        # Blind QA round 19 r09, r36: read as 5 and 4, which no source held.
        ("It went from ten seconds to forty-five seconds [1].", []),
        ("It can be set up to twenty-four hours [1].", []),
        ("It can be set up to twenty four hours [1].", []),
        ("It went to forty-six seconds [1].", ["46"]),  # a wrong compound is still caught
        ("It can be set up to thirty-four hours [1].", ["34"]),
    ],
)
def test_a_compound_number_word_is_one_figure(answer: str, unbacked: list[str]) -> None:
    assert unbacked_numbers(answer, [SESSION]) == unbacked


@pytest.mark.parametrize(
    ("answer", "figures"),
    [
        # Blind QA round 19 r17: the row "10 s – 1 h" restated in words.
        ("It accepts values from ten seconds to one hour [1].", ["10", "1"]),
        ("Each chunk holds one MiB [1].", ["1"]),
        ("Only one file is read [1].", []),  # "one" before a counted thing stays a word
    ],
)
def test_one_before_a_time_or_size_is_a_figure(answer: str, figures: list[str]) -> None:
    assert stated_figures(answer) == figures


RETRY_CLAIM = ClaimCheck(claim="The default retry count is 3.", supported=True, sources=[1])


@pytest.mark.parametrize(
    ("answer", "unchecked"),
    [
        # QA round 8a W1: the verifier listed only the cited claim.
        (
            "The default retry count is 3 [1]. Retries are disabled for POST requests in the admin console.",
            ["Retries are disabled for POST requests in the admin console."],
        ),
        ("Retries are disabled for POST requests by default.\n\nThe default retry count is 3 [1].",
         ["Retries are disabled for POST requests by default."]),
        # One citation at the end of a paragraph covers the sentences before it.
        ("The client retries failed requests. The default retry count is 3 [1].", []),
        # A sentence a claim covers, sign-offs, short sentences, headings and code are not judged.
        ("The default retry count is 3 [1]. The default retry count is three.", []),
        ("The default retry count is 3 [1].\n\nLet me know if you need anything else about retries.", []),
        ("Yes, it does [1]. It depends.", []),
        ("## Retries explained in detail here\n\nThe default retry count is 3 [1].", []),
        ("The default retry count is 3 [1].\n\n```\nclient.retries = 3  # set the retry count here\n```", []),
        # Each list item is its own paragraph.
        ("- The default retry count is 3 [1].\n- Every retry waits twice as long as the previous one.",
         ["- Every retry waits twice as long as the previous one."]),
    ],
)  # fmt: skip
def test_sentences_no_citation_or_claim_covers(answer: str, unchecked: list[str]) -> None:
    assert unchecked_sentences(answer, [RETRY_CLAIM]) == unchecked


def test_an_unchecked_sentence_keeps_an_answer_from_grounded() -> None:
    verdict = judge([1], [RETRY_CLAIM], [], [], ["Retries are disabled for POST requests."])
    assert _kinds(verdict) == ["unchecked_sentences"] and verdict.status == "unsupported"


def test_identifiers_of_a_confirmed_question_must_be_in_a_cited_source() -> None:
    from docsassistant.agent.checks.identifiers import unbacked_identifiers

    page = [{"title": "Timeouts", "content": "Set `CLIENT_TIMEOUT` to change the hnsw.ef_search bound."}]
    assert unbacked_identifiers("Does `FOO_TIMEOUT` set it? And HNSW.EF_SEARCH?", page) == ["FOO_TIMEOUT"]
    assert unbacked_identifiers("Does client_timeout set it?", page) == []
    # Capitalised and CamelCase names are not identifiers here (pages rename products).
    assert unbacked_identifiers("Is PostgreSQL or Redis used?", page) == []


def test_unchecked_sentences_message_says_which_one_it_quotes() -> None:
    """QA round 9 (s05): "2 sentence(s) … : 'first'" read as if the quote were both."""
    claims = [ClaimCheck(claim="Retries happen three times.", supported=True, sources=[1])]
    verdict = judge([1], claims, [], [], ["Logs rotate every day at noon.", "Tokens expire after a week."])
    assert ("unchecked_sentences", "2 sentence(s) cite no source and were not verified, the first: "
            "'Logs rotate every day at noon.'.") in verdict.flags  # fmt: skip


def test_an_option_no_source_gives_is_found_in_code_and_in_prose() -> None:
    """QA round 10 (s17): code is exempt from the name check, so `--skip-verify` passed."""
    from docsassistant.agent.checks.identifiers import unbacked_options

    source = {"content": "Restore with `backupctl restore --snapshot ID`; add --dry-run to preview."}
    answer = "Restore it [1]:\n\n```sh\nbackupctl restore --snapshot ID --skip-verify --help\n```"
    assert unbacked_options(answer, [source]) == ["--skip-verify"]
    assert unbacked_options("```sh\nbackupctl restore --snapshot ID --dry-run\n```", [source]) == []
    # Inside an inline command too, which the name check reads as one term (blind QA round 17 w27).
    assert unbacked_options("Run `backupctl restore --snapshot ID --skip-verify` [1].", [source]) == [
        "--skip-verify"
    ]
    assert unbacked_options("Run `backupctl restore --snapshot ID --dry-run` [1].", [source]) == []
    # And in prose, which the name check never reads (blind QA round 19 w27, w28).
    assert unbacked_options("Run backupctl restore ID --skip-verify [1].", [source]) == ["--skip-verify"]
    assert unbacked_options("Add --dry-run to preview it [1].", [source]) == []
    # An option the user asked about is theirs to name.
    asked = "Is there a --skip-verify flag?"
    assert unbacked_options("No, there is no --skip-verify; use --dry-run [1].", [source], asked) == []


def test_a_subcommand_no_source_runs_its_program_with_is_found() -> None:
    """Blind QA round 20 w39: "run `vk-relay promote`", the page's command being `vkvault
    promote`, with `vk-relay pair …` beside it."""
    from docsassistant.agent.checks.identifiers import unbacked_commands

    page = {"content": "Run `vkvault promote` on the target. Pair it with `vk-relay pair URL --token T`."}
    assert unbacked_commands("Run `vk-relay promote` on the target [1].", [page]) == ["vk-relay promote"]
    assert unbacked_commands("Run `vkvault promote` on the target [1].", [page]) == []
    assert unbacked_commands("```sh\nvk-relay pair URL --token T\n```", [page]) == []
    # A program no source runs (the shell's), and a subcommand the user named, are left alone.
    assert unbacked_commands("Then run `systemctl restart vk-relay` [1].", [page]) == []
    asked = "Is there a `vk-relay status` command?"
    assert unbacked_commands("No, `vk-relay status` does not exist [1].", [page], asked) == []


def test_a_release_number_backs_its_short_form() -> None:
    """ "removed in 3.0" citing the release notes' "3.0.0" section (QA round 15 r17)."""
    from docsassistant.agent.checks.figures import unbacked_numbers

    notes = [{"n": 1, "section": "3.0.0 (2024-05-20)", "content": "- Removed the `--force` option."}]
    assert unbacked_numbers("The option was removed in 3.0 [1].", notes) == []
    assert unbacked_numbers("The option was removed in 3.1 [1].", notes) == ["3.1"]
