"""Tests of the fake Ollama server, through the real ``langchain_ollama.ChatOllama``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import ollama
import pydantic
import pytest
from fake_ollama import GREETING, NOT_FOUND, FakeOllama, ShapeFake, kind_of, text_tool_call
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_ollama import ChatOllama
from pydantic import BaseModel

MODEL = "llama3.1:8b"


@tool
def search_docs(query: str, component: str | None = None, k: int = 5) -> str:
    """Search the documentation."""
    return ""


@tool
def count_chunks(component: str | None = None) -> int:
    """Count indexed chunks, optionally for one component."""
    return 0


class Grade(BaseModel):
    relevant: list[int]
    sufficient: bool


class RelevantOnly(BaseModel):
    relevant: list[int]
    reason: str


class Rewrite(BaseModel):
    query: str


class Claim(BaseModel):
    claim: str
    supported: bool
    sources: list[int]
    note: str


class Verification(BaseModel):
    claims: list[Claim]


def _line(message: dict, done: bool = False) -> str:
    """One raw NDJSON chat line."""
    extra = {"done_reason": "stop", "prompt_eval_count": 1, "eval_count": 1} if done else {}
    return json.dumps(
        {"model": MODEL, "created_at": "2025-01-01T00:00:00Z", "message": message, "done": done, **extra}
    )


def _tool_call_line(arguments: object) -> list[str]:
    call = {"function": {"name": "search_docs", "arguments": arguments}}
    return [
        _line({"role": "assistant", "content": "", "tool_calls": [call]}),
        _line({"role": "assistant", "content": ""}, done=True),
    ]


def _docs_prompt(question: str, docs: list[str], nonce: str = "3f9a0c") -> str:
    """The contract's evidence block (numbered items, nonce delimiters), then the question."""
    items = "\n".join(f"[{i}] docs/f{i}.md § S{i}\n{text}" for i, text in enumerate(docs, start=1))
    return f"<<<EVIDENCE {nonce}>>>\n{items}\n<<<END EVIDENCE {nonce}>>>\n\n{question}"


def _legacy_docs_prompt(question: str, docs: list[str]) -> str:
    blocks = "\n".join(
        f'<document id="{i}" source="docs/f{i}.md" section="S{i}">{text}</document>'
        for i, text in enumerate(docs, start=1)
    )
    return f"<documents>\n{blocks}\n</documents>\n\n{question}"


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def det() -> Iterator[FakeOllama]:
    with FakeOllama(mode="deterministic") as server:
        yield server


def _llm(server: FakeOllama, **kwargs: object) -> ChatOllama:
    return ChatOllama(model=MODEL, base_url=server.url, **kwargs)


# -- scripted mode ---------------------------------------------------------------------


def test_scripted_text_invoke_reports_usage(fake: FakeOllama) -> None:
    fake.reply("Hello there, world.")
    prompt = "Say hello to the whole wide world please"
    message = _llm(fake).invoke(prompt)
    assert message.content == "Hello there, world."
    assert message.tool_calls == []
    assert message.usage_metadata["input_tokens"] == len(prompt) // 4
    assert message.usage_metadata["output_tokens"] > 0
    assert message.response_metadata["done_reason"] == "stop"
    assert fake.requests[0]["stream"] is True  # invoke streams too


def test_stream_yields_one_chunk_per_word(fake: FakeOllama) -> None:
    fake.reply("one two three four")
    chunks = list(_llm(fake).stream("count"))
    texts = [c.content for c in chunks if c.content]
    assert texts == ["one ", "two ", "three ", "four"]
    assert [c.usage_metadata is not None for c in chunks if c.content] == [False] * 4
    assert any(c.usage_metadata for c in chunks)  # the final done line carries usage


def test_stream_false_gets_one_object(fake: FakeOllama) -> None:
    fake.reply("plain", tool_calls=[{"name": "search_docs", "arguments": {"query": "x"}}])
    message = _llm(fake).invoke("q", stream=False)
    assert fake.requests[0]["stream"] is False
    assert message.content == "plain"
    assert message.tool_calls[0]["args"] == {"query": "x"}


def test_scripted_tool_call_is_parsed(fake: FakeOllama) -> None:
    fake.reply(tool_calls=[{"name": "search_docs", "arguments": {"query": "auth", "k": 3}}])
    message = _llm(fake).bind_tools([search_docs, count_chunks]).invoke("how does auth work")
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("search_docs", {"query": "auth", "k": 3})
    ]
    tools = fake.requests[0]["tools"]
    assert [t["type"] for t in tools] == ["function", "function"]
    assert [t["function"]["name"] for t in tools] == ["search_docs", "count_chunks"]
    assert "query" in tools[0]["function"]["parameters"]["properties"]


def test_structured_output_sends_schema_and_parses(fake: FakeOllama) -> None:
    fake.reply_json({"relevant": [1, 3], "sufficient": True})
    grade = _llm(fake).with_structured_output(Grade).invoke("grade these")
    assert grade == Grade(relevant=[1, 3], sufficient=True)
    assert fake.requests[0]["format"] == Grade.model_json_schema()


def test_queue_exhaustion_is_a_clear_500(fake: FakeOllama) -> None:
    with pytest.raises(ollama.ResponseError) as info:
        _llm(fake).invoke("nothing queued")
    assert info.value.status_code == 500
    assert "no scripted reply queued" in info.value.error
    assert len(fake.requests) == 1  # still recorded


def test_reply_error_status_and_message(fake: FakeOllama) -> None:
    fake.reply_error(503, "server overloaded")
    with pytest.raises(ollama.ResponseError) as info:
        list(_llm(fake).stream("q"))
    assert (info.value.status_code, info.value.error) == (503, "server overloaded")


def test_requests_are_recorded_in_order(fake: FakeOllama) -> None:
    fake.reply("a")
    fake.reply("b")
    llm = _llm(fake, temperature=0.1, num_ctx=4096)
    assert llm.invoke([SystemMessage("be brief"), HumanMessage("first")]).content == "a"
    assert llm.invoke("second").content == "b"
    first, second = fake.requests
    assert first["model"] == MODEL
    assert first["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first"},
    ]
    assert first["options"] == {"temperature": 0.1, "num_ctx": 4096}
    assert first["tools"] == []  # ChatOllama always sends a (possibly empty) tools list
    assert second["messages"][-1]["content"] == "second"


def test_async_client_works(fake: FakeOllama) -> None:
    fake.reply("async hello")
    fake.reply("streamed reply")

    async def run() -> tuple[str, list[str]]:
        llm = _llm(fake)
        message = await llm.ainvoke("hi")
        return message.content, [c.content async for c in llm.astream("hi") if c.content]

    content, pieces = asyncio.run(run())
    assert content == "async hello"
    assert pieces == ["streamed ", "reply"]


def test_delay_slows_streaming(fake: FakeOllama) -> None:
    fake.delay_s = 0.02
    fake.reply("a b c")
    started = time.monotonic()
    assert _llm(fake).invoke("q").content == "a b c"
    assert time.monotonic() - started >= 0.08  # 3 word lines + the done line


# -- models and the other endpoints -----------------------------------------------------


def test_model_validation_on_init(fake: FakeOllama) -> None:
    _llm(fake, validate_model_on_init=True)  # known: no error
    # ChatOllama's own check accepts a bare name when a tagged one exists...
    ChatOllama(model="llama3.1", base_url=fake.url, validate_model_on_init=True)
    # ...and raises pydantic.ValidationError (a ValueError) for unknown ones.
    with pytest.raises(ValueError, match="Model `mistral` not found in Ollama"):
        ChatOllama(model="mistral", base_url=fake.url, validate_model_on_init=True)


def test_unknown_model_chat_is_404_like_ollama(fake: FakeOllama) -> None:
    fake.reply("never sent")
    with pytest.raises(ollama.ResponseError) as info:
        ChatOllama(model="mistral", base_url=fake.url).invoke("q")
    assert info.value.status_code == 404
    assert info.value.error == 'model "mistral" not found, try pulling it first'
    assert _llm(fake).invoke("q").content == "never sent"  # queue not consumed


def test_show_tags_and_version(fake: FakeOllama) -> None:
    client = ollama.Client(host=fake.url)
    assert [m.model for m in client.list().models] == [MODEL]
    shown = client.show(MODEL)
    assert "tools" in shown.capabilities
    assert shown.details.family == "llama"
    with pytest.raises(ollama.ResponseError) as info:
        client.show("mistral")
    assert (info.value.status_code, info.value.error) == (404, "model 'mistral' not found")
    with urllib.request.urlopen(f"{fake.url}/api/version", timeout=5) as response:
        assert "version" in json.load(response)


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        FakeOllama(mode="chaotic")


# -- malformed output: what ChatOllama does with it ----------------------------------------


def test_tool_call_arguments_as_string_fail_in_ollama_client(fake: FakeOllama) -> None:
    """Even valid JSON in a string is rejected: ollama's ChatResponse model wants a dict.

    langchain_ollama's string-arguments fallback is never reached with this client.
    """
    fake.reply_raw(_tool_call_line('{"query": "auth"}'))
    fake.reply_raw(_tool_call_line("{not json"))
    llm = _llm(fake).bind_tools([search_docs])
    for _ in range(2):
        with pytest.raises(pydantic.ValidationError, match="Input should be a valid dictionary"):
            llm.invoke("q")


def test_string_encoded_nested_argument_values_are_decoded(fake: FakeOllama) -> None:
    fake.reply_raw(_tool_call_line({"query": '{"a": 1}', "k": "5"}))
    message = _llm(fake).bind_tools([search_docs]).invoke("q")
    assert message.tool_calls[0]["args"] == {"query": {"a": 1}, "k": "5"}


def test_non_json_line_raises_json_decode_error(fake: FakeOllama) -> None:
    fake.reply_raw(["this is not json"])
    with pytest.raises(json.JSONDecodeError):
        _llm(fake).invoke("q")


def test_error_line_mid_stream_raises_response_error(fake: FakeOllama) -> None:
    fake.reply_raw([_line({"role": "assistant", "content": "partial "}), '{"error": "boom"}'])
    with pytest.raises(ollama.ResponseError) as info:
        _llm(fake).invoke("q")
    assert (info.value.error, info.value.status_code) == ("boom", -1)


def test_empty_stream_raises_value_error(fake: FakeOllama) -> None:
    fake.reply_raw([])
    with pytest.raises(ValueError, match="No data received from Ollama stream"):
        _llm(fake).invoke("q")


def test_invalid_json_content_in_structured_output(fake: FakeOllama) -> None:
    fake.reply("this is not json")
    fake.reply_json({"relevant": "x"})
    fake.reply("still not json")
    llm = _llm(fake)
    with pytest.raises(OutputParserException, match="Invalid json output"):
        llm.with_structured_output(Grade).invoke("q")
    with pytest.raises(OutputParserException, match="Failed to parse Grade"):
        llm.with_structured_output(Grade).invoke("q")
    result = llm.with_structured_output(Grade, include_raw=True).invoke("q")
    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], OutputParserException)
    assert result["raw"].content == "still not json"


# -- deterministic mode ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected_call"),
    [
        (
            "How do I configure the login flow?",
            ("search_docs", {"query": "How do I configure the login flow?"}),
        ),
        ("How many chunks does the Auth component have?", ("count_chunks", {"component": "auth"})),
        ("how many chunks are indexed?", ("count_chunks", {"component": None})),
    ],
)
def test_deterministic_tool_routing(det: FakeOllama, question: str, expected_call: tuple) -> None:
    message = _llm(det).bind_tools([search_docs, count_chunks]).invoke(question)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [expected_call]
    assert message.content == ""


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("hello", GREETING),
        ("Thanks!", GREETING),
        ("what's 2 + 2", "2 + 2 = 4."),
        ("What is 6 * 7?", "6 * 7 = 42."),
    ],
)
def test_deterministic_answers_without_tools(det: FakeOllama, question: str, answer: str) -> None:
    message = _llm(det).bind_tools([search_docs, count_chunks]).invoke(question)
    assert message.tool_calls == []
    assert message.content == answer


def test_deterministic_answers_from_tool_results(det: FakeOllama) -> None:
    llm = _llm(det).bind_tools([search_docs, count_chunks])
    question = "How many chunks does the auth component have?"
    count_call = {"name": "count_chunks", "args": {"component": "auth"}, "id": "c1"}
    message = llm.invoke(
        [HumanMessage(question), AIMessage("", tool_calls=[count_call]), ToolMessage("42", tool_call_id="c1")]
    )
    assert (message.content, message.tool_calls) == ("The auth component has 42 chunks.", [])

    search_call = {"name": "search_docs", "args": {"query": "tokens"}, "id": "s1"}
    found = '<document id="1" source="a.md" section="A">Tokens expire after one hour. More.</document>'
    message = llm.invoke(
        [
            HumanMessage("When do tokens expire?"),
            AIMessage("", tool_calls=[search_call]),
            ToolMessage(found, tool_call_id="s1"),
        ]
    )
    assert (message.content, message.tool_calls) == ("Tokens expire after one hour. [1]", [])


def test_deterministic_grading(det: FakeOllama) -> None:
    docs = [
        "Authentication tokens expire after one hour.",
        "The installer needs Python 3.11.",
        "Refresh tokens let clients renew authentication silently.",
    ]
    prompt = _docs_prompt("When do authentication tokens expire?", docs)
    grade = _llm(det).with_structured_output(Grade).invoke(prompt)
    assert grade == Grade(relevant=[1, 3], sufficient=True)

    prompt = _docs_prompt("How do I install the plugin?", docs[:1])
    grade = _llm(det).with_structured_output(Grade).invoke(prompt)
    assert grade == Grade(relevant=[], sufficient=False)

    # A short question needs one shared word; unknown required keys get defaults.
    prompt = _docs_prompt("installer requirements?", docs)
    graded = _llm(det).with_structured_output(RelevantOnly).invoke(prompt)
    assert graded == RelevantOnly(relevant=[2], reason="")


def test_deterministic_rewrite(det: FakeOllama) -> None:
    rewrite = _llm(det).with_structured_output(Rewrite).invoke("What is X?")
    assert rewrite.query == "What is X documentation"


def test_deterministic_claims(det: FakeOllama) -> None:
    """Sentences keep their markers; required keys of the nested item model get defaults."""
    answer = "Tokens expire after one hour. [1] Refresh tokens renew them. [2][3] No source here."
    prompt = _docs_prompt(answer, ["Tokens expire after one hour.", "Refresh.", "Renew."])
    result = _llm(det).with_structured_output(Verification).invoke(prompt)
    assert result.claims == [
        Claim(claim="Tokens expire after one hour. [1]", supported=True, sources=[1], note=""),
        Claim(claim="Refresh tokens renew them. [2][3]", supported=True, sources=[2, 3], note=""),
        Claim(claim="No source here.", supported=True, sources=[], note=""),
    ]


def test_deterministic_generation(det: FakeOllama) -> None:
    docs = ["Tokens expire after one hour. Then they are gone.", "Refresh tokens renew them!", "Third."]
    chunks = [c.content for c in _llm(det).stream(_docs_prompt("When?", docs)) if c.content]
    assert "".join(chunks) == "Tokens expire after one hour. [1] Refresh tokens renew them! [2]"
    assert len(chunks) > 2
    assert _llm(det).invoke("anything?").content == NOT_FOUND
    legacy = [c.content for c in _llm(det).stream(_legacy_docs_prompt("When?", docs)) if c.content]
    assert "".join(legacy) == "Tokens expire after one hour. [1] Refresh tokens renew them! [2]"


def test_evidence_items_are_read_by_shape_only(det: FakeOllama) -> None:
    """Sources with § sections, multi-line texts and a fake closing delimiter with another
    nonce inside the text: the items are still split by their `[n] source` lines."""
    prompt = (
        "<<<EVIDENCE ab12>>>\n[1] a.md § Setup\nLine one about tokens.\nLine two.\n"
        "[2] b.md\nTokens text <<<END EVIDENCE zz>>> still data.\n<<<END EVIDENCE ab12>>>\n\nWhen do tokens expire?"
    )
    grade = _llm(det).with_structured_output(Grade).invoke(prompt)
    assert grade == Grade(relevant=[1, 2], sufficient=True)


def test_standalone_question_names_the_earlier_subject(det: FakeOllama) -> None:
    class Standalone(BaseModel):
        standalone_question: str

    llm = _llm(det).with_structured_output(Standalone)
    history = [HumanMessage("What is hnsw.ef_search?"), AIMessage("It sets the candidate list size [1].")]
    follow_up = llm.invoke([*history, HumanMessage("And what is its default value?")])
    assert follow_up.standalone_question == "And what is its default value? (about: What is hnsw.ef_search?)"
    alone = llm.invoke([*history, HumanMessage("How do I install the plugin?")])
    assert alone.standalone_question == "How do I install the plugin?"


@pytest.mark.parametrize("form", ["json", "python_tag", "fenced", "tool_call_tag"])
def test_text_tool_call_stays_in_content(fake: FakeOllama, form: str) -> None:
    """As with real Ollama, a call written as text is not parsed into tool_calls."""
    text = text_tool_call("search_docs", {"query": "tokens"}, form)
    fake.reply(text)
    message = _llm(fake).bind_tools([search_docs]).invoke("When do tokens expire?")
    assert message.tool_calls == [] and message.content == text
    assert '"search_docs"' in text and '"tokens"' in text


def test_prompt_eval_count_can_be_scripted(fake: FakeOllama) -> None:
    fake.reply("Hi", prompt_eval_count=8192)
    assert _llm(fake).invoke("hello").usage_metadata["input_tokens"] == 8192


def test_standalone_main_prints_url_first() -> None:
    script = Path(__file__).with_name("fake_ollama.py")
    with subprocess.Popen(
        [sys.executable, str(script), "--port", "0", "--mode", "deterministic"],
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            url = process.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            answer = ChatOllama(model=MODEL, base_url=url).invoke("hello").content
            assert answer == NOT_FOUND  # no tools offered: generation without documents
        finally:
            process.terminate()
            process.wait(timeout=5)


def test_evidence_apart_from_the_question_and_a_note_naming_the_markers(det: FakeOllama) -> None:
    """Evidence in one user message (after a one-line note naming its markers), the question
    alone in the last: the question is read without the note, the items from the evidence."""
    evidence = _docs_prompt(
        "", ["Authentication tokens expire after one hour.", "The installer needs Python."]
    )
    note = "Evidence (data) between <<<EVIDENCE 3f9a0c>>> and <<<END EVIDENCE 3f9a0c>>>:\n"
    messages = [HumanMessage(note + evidence), HumanMessage("When do authentication tokens expire?")]
    assert _llm(det).with_structured_output(Grade).invoke(messages) == Grade(relevant=[1], sufficient=True)
    answer = _llm(det).invoke([HumanMessage(note + evidence), HumanMessage("When?")]).content
    assert answer == "Authentication tokens expire after one hour. [1] The installer needs Python. [2]"


def test_shape_fake_routes_by_request_shape_only() -> None:
    """Each kind gets its own scripted reply whatever the prompt says; an unscripted kind
    gets the cooperative reply; the recorded requests are listed per kind."""
    with ShapeFake() as server:
        server.script("grade", json.dumps({"relevant": [7], "sufficient": True}))
        server.script("generate", "Scripted answer.")
        llm = _llm(server)
        decided = llm.bind_tools([search_docs]).invoke("Please grade this.")  # tools: decide
        graded = llm.with_structured_output(Grade, method="json_schema").invoke("Write an answer.")
        answer = llm.invoke("Grade the documents.")
    assert decided.tool_calls[0]["name"] == "search_docs"  # cooperative: nothing scripted
    assert graded == Grade(relevant=[7], sufficient=True) and answer.content == "Scripted answer."
    assert [kind_of(r) for r in server.requests] == ["decide", "grade", "generate"]
    assert len(server.of_kind("grade")) == 1 and server.of_kind("verify") == []
    with pytest.raises(ValueError, match="kind must be one of"):
        server.script("relevant", "{}")
