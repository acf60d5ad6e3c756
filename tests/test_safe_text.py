"""The sanitiser for model and user text (`docsassistant.ui.safe_text`): no image survives,
the rest of the markdown does.

Each output is also parsed by a CommonMark parser (markdown-it, as a stand-in for the
browser's) to check that it holds no image, wherever the `![` sits.
"""

from __future__ import annotations

import time

import pytest
from hostile_markdown import hostile_answers
from markdown_it import MarkdownIt

from docsassistant.ui.safe_text import ZWSP, code_span, esc, plain_markdown, safe_markdown
from docsassistant.ui.trace_text import event_line, live_label

PIXEL = "http://127.0.0.1:9/p.png?leak=secret"
PARSER = MarkdownIt("commonmark").enable("table")


def tokens(markdown: str, kind: str) -> list[str]:
    """The addresses of `kind` tokens ("image", "link_open") a CommonMark parser finds."""
    found = []
    stack = list(PARSER.parse(markdown))
    while stack:
        token = stack.pop()
        if token.type == kind:
            found.append(str(token.attrGet("src") or token.attrGet("href")))
        stack.extend(token.children or [])
    return found


def images(markdown: str) -> list[str]:
    """The image addresses a CommonMark renderer would load from `markdown`."""
    return tokens(markdown, "image")


def outside_code(markdown: str) -> str:
    """The lines of `markdown` outside fenced and indented code blocks."""
    code = set()
    for token in PARSER.parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            code.update(range(*token.map))
    return "\n".join(line for n, line in enumerate(markdown.split("\n")) if n not in code)


HOSTILE = hostile_answers(PIXEL)


# Some load an image only in Streamlit's renderer (see hostile_markdown): the browser test
# renders all of them in chromium.
@pytest.mark.parametrize("answer", HOSTILE)
def test_no_image_survives(answer: str) -> None:
    out = safe_markdown(answer)
    assert images(out) == []
    assert "![" not in outside_code(out)


def test_an_image_becomes_visible_text() -> None:
    out = safe_markdown(f"The default is 42 [1]. ![status]({PIXEL})")
    assert out == f"The default is 42 [1]. \\[image: status — `{PIXEL}` not loaded\\]"


def test_reference_images_show_their_address_and_definitions_show_as_text() -> None:
    out = safe_markdown(f"![ref][p] and ![shortcut]\n\n[p]: {PIXEL}\n[shortcut]: http://127.0.0.1:9/s.png")
    assert f"\\[image: ref — `{PIXEL}` not loaded\\]" in out
    assert "\\[image: shortcut — `http://127.0.0.1:9/s.png` not loaded\\]" in out
    assert f"\\[p]: {PIXEL}" in out  # shown, and no longer a definition
    assert "\n[" not in out


def test_markdown_that_loads_nothing_is_kept() -> None:
    answer = (
        "# Heading\n\nThe **timeout** is _thirty_ seconds [1][2].\n\n"
        "- one\n- two\n\n1. first\n2. second\n\n> a quote\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\nUse `make run` then ~~not~~ this."
    )
    assert safe_markdown(answer) == answer


def test_links_show_their_address() -> None:
    out = safe_markdown("Read [the guide](http://evil.example/login) or <http://x.example/>. See [1].")
    assert "the guide (`http://evil.example/login`)" in out
    # an autolink shows its own address: the only link left
    assert "](" not in out and tokens(out, "link_open") == ["http://x.example/"]
    assert "[1]" in out  # a citation is no link
    out = safe_markdown("[link](javascript:alert(1)) and [a [nested] one](/x)")
    assert out == "link (`javascript:alert(1)`) and a [nested] one (`/x`)"
    # a citation defined as a link shows where it points instead of hiding it
    assert "1 (`http://evil`)" in safe_markdown("[1]: http://evil\n\nAs said [1].")


def test_fenced_and_indented_code_keep_image_syntax_as_code() -> None:
    answer = (
        "To add a picture:\n\n```markdown\n![diagram](img/arch.png)\n[x]: y\n<img src=a.png>\n```\n\n"
        "    ![indented](img/a.png)\n\nand after it ![live](http://127.0.0.1:9/live.png)"
    )
    out = safe_markdown(answer)
    assert "```markdown\n![diagram](img/arch.png)\n[x]: y\n<img src=a.png>\n```" in out
    assert "    ![indented](img/a.png)" in out
    assert "\\[image: live — `http://127.0.0.1:9/live.png` not loaded\\]" in out
    assert images(out) == []


def test_a_code_span_keeps_its_text() -> None:
    out = safe_markdown(f"Write `![alt]({PIXEL})` to embed, or `` `![b](c)` ``.")
    # shown as typed (a zero-width space keeps the `![` apart), still code
    assert out.replace(ZWSP, "") == f"Write `![alt]({PIXEL})` to embed, or `` `![b](c)` ``."
    assert images(out) == [] and "![" not in out


def test_an_unclosed_fence_or_a_fence_in_a_list_hides_nothing() -> None:
    # A fence opened inside a list item ends with the item: the line after it is read.
    out = safe_markdown(f"- ```\n![x]({PIXEL})\n```")
    assert images(out) == [] and "![" not in outside_code(out)
    out = safe_markdown("```\nnever closed ![x](y)")
    assert out == "```\nnever closed ![x](y)"  # all code, to the end


def test_hostile_sizes_stay_linear() -> None:
    hostile = ("[" * 3000 + "`" * 3000 + "` `` ``` " * 300 + f"![a]({PIXEL}) ") * 5
    start = time.perf_counter()
    out = safe_markdown(hostile)
    assert time.perf_counter() - start < 3
    assert images(out) == []


def test_plain_markdown_shows_user_text_as_typed() -> None:
    question = f"1. ![q]({PIXEL}) [click](http://evil)\n- *not* a list\n# not a heading\n<b>x</b> $x$"
    out = plain_markdown(question)
    assert images(out) == [] and tokens(out, "link_open") == [] and "![" not in out
    assert out.split("  \n")[0].startswith("1\\. !\\[q\\]")
    assert PARSER.render(out).count("<p>") == 1  # one paragraph: no list, heading or HTML block
    assert (
        plain_markdown("How do I configure the widget timeout?") == "How do I configure the widget timeout?"
    )


def test_code_span_can_not_be_closed_early() -> None:
    assert code_span("kb") == "`kb`"
    span = code_span(f"x` ![c]({PIXEL}) `")
    assert images(span) == [] and PARSER.parse(span)[1].children[0].type == "code_inline"


def test_trace_and_status_labels_escape_the_models_words() -> None:
    call = {
        "type": "tool_call",
        "tool": "search_docs",
        "args": {"query": f"timeout ![q]({PIXEL})", "component": f"kb` ![c]({PIXEL}) `"},
    }
    line = event_line(call)
    assert line and images(line) == [] and "![" not in line.replace("!" + ZWSP + "[", "")
    label = live_label(call)
    assert label and "![" not in label and images(label) == []
    assert esc("![x](y)") == "!\\[x\\](y)"


def test_a_restored_trace_lists_tool_arguments_as_the_live_one_did() -> None:
    """jsonb hands a stored trace's arguments back with its own key order (shorter keys
    first); the line must not depend on it (QA round 6b saw `k` before `query` after a reload)."""
    live = {"type": "tool_call", "tool": "search_docs", "args": {"query": "ttl", "component": "kb", "k": 5}}
    restored = {**live, "args": {"k": 5, "query": "ttl", "component": "kb"}}
    line = event_line(restored)
    assert line == event_line(live)
    assert line.index("query") < line.index("component") < line.index("k:")


def test_a_hit_in_the_trace_names_the_lists_that_found_it() -> None:
    """A fused score alone (0.0000 for a hit last in every list) read as "irrelevant" to a
    QA tester; the lists' ranks explain it. Traces stored before ranks show the score only."""
    hit = {"source_path": "core/a.md", "section": "", "score": 0.0, "ranks": {"dense": 3, "bm25": 2}}
    line = event_line({"type": "tool_result", "tool": "search_docs", "hits": [hit]})
    assert "score 0.0000 (dense #3, BM25 #2)" in line
    old = event_line({"type": "tool_result", "tool": "search_docs", "hits": [{**hit, "ranks": None}]})
    assert "score 0.0000]" in old


def test_the_agents_own_decisions_are_listed_with_the_models_words_escaped() -> None:
    rewrite = f"What is ![x]({PIXEL}) the default?"
    standalone = {
        "type": "decision",
        "kind": "standalone_question",
        "question": "and its default?",
        "standalone": rewrite,
        "echoed": False,
        "misread_pick": True,
    }
    line = event_line(standalone)
    assert line and "read the follow-up as" in line and "picked another item of the list" in line
    assert images(line) == []
    unchanged = {**standalone, "standalone": "and its default?", "misread_pick": False}
    assert event_line(unchanged) is None  # a first turn or a message that stands alone: nothing to say
    before = {"type": "decision", "kind": "search_before_answering", "reason": "decline"}
    assert "searching first" in (event_line(before) or "")
    skipped = {"type": "decision", "kind": "word_checks_skipped", "reason": "the answer is in German"}
    assert "word checks skipped" in (event_line(skipped) or "")
