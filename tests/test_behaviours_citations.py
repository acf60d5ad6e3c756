"""Answer behaviours of real local models: citation styles, reasoning left in the reply,
streaming, cut-off answers and tool calls written into the answer.

How the model is faked, and the shared corpus: answer_fixtures.py.
Upstream reports: Open WebUI #11592, #12655, #10979 and RAGFlow #8594, #12005 (wrong or
missing citations).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from answer_fixtures import (
    ASK,
    retries_turn,
)
from conftest import flags
from fake_ollama import ShapeFake

from docsassistant.agent.runner import run_turn

# -- citations --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "style",
    [
        *("[1, 2]", "[1][2]", "[1-2]", "[Document 1]", "[doc 1]", "(1)", "[^1]", "【1】"),
        *("[Passage 1]", "(Source 1)", "[1†source]", "<sup>1</sup>", "[[1]]"),
    ],
)
def test_citation_styles_of_local_models_are_recognised(
    answer_docs: Path, model: ShapeFake, style: str
) -> None:
    """Models cite as `[1, 2]`, `[Document 1]`, `【1】`… (Open WebUI #11592, RAGFlow #8594):
    each style is normalised to `[n]`, so the answer keeps its sources and can be grounded."""
    record = retries_turn(model, f"The client retries failed requests three times {style}.")
    assert re.search(r"three times \[1\]", record["answer"])
    assert record["citations"] and record["citations"][0]["n"] == 1
    assert "uncited" not in flags(record)
    assert "grounded" in flags(record)


@pytest.mark.parametrize(
    "style",
    ["[core/retries.md]", "(core/retries.md)", "[Source: retries.md]", "[`core/retries.md` § Retries]"],
)
def test_citation_by_source_path_is_recognised(answer_docs: Path, model: ShapeFake, style: str) -> None:
    """Small models cite the label an evidence item carries instead of its number: the
    `source_id` / `source_url` they were shown (mamei16/LLM_Web_search_OWUI#3), here the
    `source_path`. A bracket naming a path of the evidence becomes that item's `[n]`."""
    record = retries_turn(model, f"The client retries failed requests three times {style}.")
    assert [c["source_path"] for c in record["citations"]] == ["core/retries.md"]
    assert re.search(r"three times \[\d\]\.$", record["answer"])
    assert "uncited" not in flags(record) and "grounded" in flags(record)
    assert len(model.of_kind("generate")) == 1  # no regeneration asked for


@pytest.mark.parametrize(
    "thinking",
    [
        "<think>\nThe user asks about retries. Maybe five times?\n</think>\n\n",
        "Maybe five times?\n</think>\n\n",
    ],
)
def test_reasoning_left_in_the_reply_is_not_the_answer(
    answer_docs: Path, model: ShapeFake, thinking: str
) -> None:
    """qwen3 on Ollama can leave its thinking in `content` (yigit353/langchain-qwq#21,
    langchain#33998), sometimes with only the closing tag (hiyouga/LlamaFactory#8219): the
    user would read the reasoning as the answer, and its "five" would be checked as a claim."""
    record = retries_turn(model, f"{thinking}The client retries failed requests three times [1].")
    assert record["answer"] == "The client retries failed requests three times [1]."
    assert "grounded" in flags(record)
    unfinished = retries_turn(model, "<think>\nThe user asks about retries, so", "<think>\nStill")
    assert "empty_answer" in flags(unfinished) and "think" not in unfinished["answer"]


def _drawn(question: str, **kwargs: Any) -> list[str]:
    """What the chat page draws in the answer area after each streamed token of a turn."""
    from docsassistant.agent.runner import stream_turn
    from docsassistant.ui.live import StreamedDraft

    draft, drawn = StreamedDraft(), []
    for evt in stream_turn(question, **kwargs):
        shown = draft.add(evt)
        if evt["type"] == "token":
            drawn.append(shown)
    return drawn


def test_reasoning_is_not_shown_while_the_answer_streams(answer_docs: Path, model: ShapeFake) -> None:
    """The same qwen3 reasoning in `content` (yigit353/langchain-qwq#21) reaches the page
    token by token before the finished reply replaces it: the chat page drew each token as
    it came, so the user read "Maybe five times?" live."""
    model.search("HTTP client retries")
    model.script("generate", "<think>\nThe user asks about retries. Maybe five times?\n</think>\n\n"
                 "The client retries failed requests three times [1].")  # fmt: skip
    drawn = _drawn(ASK, component="core")
    assert len(drawn) > 10, "the draft was not streamed token by token"
    assert not [s for s in drawn if "five" in s or "think" in s]
    assert drawn[-1] == "The client retries failed requests three times [1]."


def _live_page(events: list, may_think: bool = True) -> None:
    """The chat page's answer area after these events of a running turn (an AppTest script:
    it runs on its own, so its annotations name builtins only)."""
    from docsassistant.ui.live import LiveTurn

    live = LiveTurn(may_think=may_think)
    for evt in events:
        live.on_event(evt)


def _answer_area(events: list[dict[str, Any]], may_think: bool = True) -> tuple[str, str]:
    """(markdown, captions) the live view draws after `events` (the trace box's markdown
    lists tool calls and hits, never the answer's words)."""
    from streamlit.testing.v1 import AppTest

    kwargs = {"events": events, "may_think": may_think}
    at = AppTest.from_function(_live_page, kwargs=kwargs, default_timeout=30).run()
    assert not at.exception, at.exception
    return "\n".join(m.value for m in at.markdown), "\n".join(c.value for c in at.caption)


UNOPENED_REASONING = "The user asks about retries. Maybe five times?\n</think>\n\n"


def test_reasoning_without_its_opening_tag_is_not_drawn_as_the_answer(
    answer_docs: Path, model: ShapeFake
) -> None:
    """deepseek-r1 distills and qwen3 behind a template that already opened `<think>` stream
    their reasoning with only the closing tag (open-webui/open-webui#9808 "Deepseek-R1
    ChatTemplate Missing <think> Tag in Response", https://github.com/open-webui/open-webui/issues/9808;
    deepseek-ai/DeepSeek-R1#352; xorbitsai/inference#2805, also seen with Ollama). The chat
    page drew that reasoning as the answer until `</think>` arrived (QA): until then a draft
    is drawn only as a draft, marked as possibly reasoning; after it, only what follows."""
    from docsassistant.agent.runner import stream_turn

    model.search("HTTP client retries")
    model.script("generate", UNOPENED_REASONING + "The client retries failed requests three times [1].")
    events = list(stream_turn(ASK, component="core"))
    tokens = [i for i, e in enumerate(events) if e["type"] == "token"]
    closing = next(i for i in tokens if "</think>" in events[i]["text"])
    assert tokens.index(closing) > 5, "the reasoning was not streamed token by token"

    answer, captions = _answer_area(events[:closing])  # the reasoning streamed, its `</think>` not yet
    assert "five" not in answer, "reasoning drawn as the answer"
    assert "five" in captions and "Draft" in captions  # shown, but as a draft that may be reasoning

    generate_end = next(
        i for i, e in enumerate(events) if e["type"] == "node_end" and e.get("node") == "generate"
    )
    answer, captions = _answer_area(events[:generate_end])  # the whole reply, not yet checked
    assert "three times" in answer and "five" not in answer + captions

    # No `</think>` by the end of the reply: all of it is the answer.
    model.search("HTTP client retries")
    model.script("generate", "The client retries failed requests three times [1].")
    events = list(stream_turn(ASK, component="core"))
    generate_end = next(
        i for i, e in enumerate(events) if e["type"] == "node_end" and e.get("node") == "generate"
    )
    answer, captions = _answer_area(events[: generate_end + 1])
    assert "three times" in answer and "Draft" not in captions


def test_a_model_that_cannot_think_streams_its_answer_as_the_answer(
    answer_docs: Path, model: ShapeFake
) -> None:
    """The draft treatment above is for reasoning models only: Ollama lists `thinking` in
    a model's `/api/show` capabilities (llama3.1:8b has none), so the default model's
    answer is drawn as the answer while it streams, not as a grey draft."""
    from docsassistant.agent.llm import model_may_think
    from docsassistant.agent.runner import stream_turn
    from docsassistant.config import get_settings

    assert model_may_think(get_settings()) is False  # the fake reports completion, tools
    model.capabilities.append("thinking")
    assert model_may_think(get_settings()) is True
    model.search("HTTP client retries")
    model.script("generate", "The client retries failed requests three times [1].")
    events = list(stream_turn(ASK, component="core"))
    last_token = max(i for i, e in enumerate(events) if e["type"] == "token")
    answer, captions = _answer_area(events[:last_token], may_think=False)  # still streaming
    assert "retries failed" in answer and "Draft" not in captions


def test_only_the_answer_is_drawn_while_it_streams(answer_docs: Path, model: ShapeFake) -> None:
    """What else streamed into the answer area (QA round 8a): llama3.1 writes its tool call
    as text in `content` (ollama#13519, #11185), a follow-up's standalone rewrite streamed
    to the user as if it were the answer (langchain#7136, #12823), and an uncited first
    draft and its cited regeneration were drawn glued together ("…from memory.The client
    retries … [1]"). Only answer text of one draft at a time is drawn now."""
    call = '<|python_tag|>{"name": "search_docs", "parameters": {"query": "HTTP client retries"}}'
    model.script("decide", call)
    model.script("generate", '{"name": "search_docs", "parameters": {"query": "retries"}}')
    model.script("generate", "The client retries failed requests three times [1].")
    drawn = _drawn(ASK, component="core")
    assert drawn and not [s for s in drawn if "{" in s or "python_tag" in s]
    assert drawn[-1] == "The client retries failed requests three times [1]."

    model.search("HTTP client retries")
    model.script("generate", "The client retries three times, from memory.")
    model.script("generate", "The client retries failed requests three times [1].")
    drawn = _drawn(ASK, component="core")
    assert not [s for s in drawn if "memory" in s and "[1]" in s], "two drafts drawn as one"
    assert drawn[-1] == "The client retries failed requests three times [1]."


def test_answer_cut_at_the_output_limit_is_flagged(answer_docs: Path, model: ShapeFake) -> None:
    """Ollama stops a reply at `num_predict` mid-sentence and says so only through
    `done_reason: "length"` (ollama#4230, #3839); a pipeline that reads it as a clean stop
    saves the cut answer as complete (huggingface/chat-ui#2383)."""
    model.search("HTTP client retries")
    model.script(
        "generate", "The client retries failed requests three times [1], and then it", done_reason="length"
    )
    record = run_turn(ASK, component="core")
    assert "answer_truncated" in flags(record) and "grounded" not in flags(record)
    assert record["answer"].endswith("and then it")
    whole = retries_turn(model, "The client retries failed requests three times [1].")
    assert "answer_truncated" not in flags(whole) and "grounded" in flags(whole)


def test_answer_whose_stream_ends_without_its_done_line_is_flagged(
    answer_docs: Path, model: ShapeFake
) -> None:
    """QA round 12 m29: the stream closed cleanly without Ollama's final `done` line (a
    proxy between, or a runner that crashed; ollama#10015, ollama#17118), and the cut
    answer, its last clause turned around by the cut, was shown grounded."""
    model.search("HTTP client retries")
    model.script(
        "generate", "The client retries failed requests three times [1]. It never retries", done_reason=None
    )
    record = run_turn(ASK, component="core")
    assert "answer_truncated" in flags(record) and "grounded" not in flags(record), flags(record)


def test_uncited_answer_gets_one_regeneration_then_the_uncited_flag(
    answer_docs: Path, model: ShapeFake
) -> None:
    """An answer with no citation at all (Open WebUI #12655, RAGFlow #12005) is asked for
    once more with citations; still none: flagged `uncited`, never grounded."""
    record = retries_turn(model, "It retries three times.", "It retries three times, as documented.")
    assert flags(record).count("uncited") == 1 and "grounded" not in flags(record)
    generations = model.of_kind("generate")
    assert len(generations) == 2
    systems = [g["messages"][0]["content"] for g in generations]
    assert len(systems[1]) > len(systems[0])  # the retry carries one more instruction: cite
    assert record["model_calls"] == 5  # decide, grade, generate ×2, verify


def test_answer_cited_on_the_retry_is_grounded(answer_docs: Path, model: ShapeFake) -> None:
    """The one regeneration is enough when the model then cites."""
    record = retries_turn(model, "It retries three times.", "It retries failed requests three times [1].")
    assert "uncited" not in flags(record) and "grounded" in flags(record)
    assert record["citations"][0]["n"] == 1


def test_single_hop_answer_cited_properly_costs_four_model_calls(answer_docs: Path, model: ShapeFake) -> None:
    """Decide, grade, generate, verify: the citation retry costs nothing when not needed."""
    record = run_turn(ASK, component="core")
    assert record["model_calls"] == 4, [e for e in record["trace"] if e["type"] == "node_start"]
    assert "grounded" in flags(record)


def test_citation_to_no_source_is_removed_and_flagged(answer_docs: Path, model: ShapeFake) -> None:
    """A marker beyond the numbered sources (Open WebUI #10979) is dropped, never shown."""
    record = retries_turn(model, "It retries three times [1][9].")
    assert "[9]" not in record["answer"] and "bogus_citation" in flags(record)


@pytest.mark.parametrize(
    "call",
    [
        '{"name": "search_docs", "parameters": {"query": "HTTP client retries [1]"}}',
        '<|python_tag|>{"name": "search_docs", "parameters": {"query": "retry count"}}',
        '<tool_call>\n{"name": "search_docs", "arguments": {"query": "retry count"}}\n</tool_call>',
        '<function=search_docs>{"query": "retry count"}</function>',
        '[search_docs(query="retry count")]',
    ],
)
def test_tool_call_text_while_answering_is_never_the_answer(
    answer_docs: Path, model: ShapeFake, call: str
) -> None:
    """Generation offers no tools, yet llama3.1 / qwen2.5 may still reply with a call written as
    text (ollama #6127, #13519, #11185; the `<function=…>` and Python forms: mudler/LocalAI#3010,
    ollama #7824). It is not shown, and its `[1]` does not count as a
    citation: the one regeneration asks for an answer; a second call-shaped reply leaves
    the turn with no answer (`empty_answer`), never `grounded`."""
    record = retries_turn(model, call, "It retries failed requests three times [1].")
    assert record["answer"] == "It retries failed requests three times [1]."
    assert "grounded" in flags(record) and len(model.of_kind("generate")) == 2
    again = retries_turn(model, call, call)
    assert "search_docs" not in again["answer"] and "grounded" not in flags(again)
    assert "empty_answer" in flags(again) and not again["citations"]


@pytest.mark.parametrize(
    "call",
    [
        '{"name": "search_docs", "parameters": {"query": "retry count"}}',
        '<|python_tag|>{"name": "search_docs", "parameters": {"query": "retry count"}}',
        '<tool_call>{"name": "search_docs", "arguments": {"query": "retry count"}}</tool_call>',
    ],
)
def test_a_tool_call_written_into_the_answer_is_removed(
    answer_docs: Path, model: ShapeFake, call: str
) -> None:
    """The same call-as-text, followed by the real answer in one reply (ollama #13519, the
    model narrating "Let me check: {…}" before it answers; QA round 8a scenario 60): the raw
    JSON was shown inside a grounded answer. The call is removed; the answer stays."""
    record = retries_turn(model, f"Let me check: {call}\nIt retries failed requests three times [1].")
    assert "search_docs" not in record["answer"] and "{" not in record["answer"]
    assert record["answer"].endswith("It retries failed requests three times [1].")
    assert "grounded" in flags(record) and len(model.of_kind("generate")) == 1
