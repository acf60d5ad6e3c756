"""A fake Ollama HTTP server for tests.

It speaks enough of the Ollama REST API (``/api/chat``, ``/api/tags``, ``/api/show``,
``/api/version``) for the real ``langchain_ollama.ChatOllama`` client to be exercised
over real HTTP, without Ollama. Two modes:

* ``"scripted"``: a FIFO queue of replies set up by the test (``reply``, ``reply_json``,
  ``reply_raw``, ``reply_error``); each ``/api/chat`` request pops one.
* ``"deterministic"``: a cooperative model for end-to-end tests. It routes by the request's
  shape only: tools offered (decide: call a tool or answer), a ``format`` schema (answer the
  schema by its property names), or neither (answer from the evidence). It reads the
  generic evidence shape (numbered ``[n] source`` items inside a delimited evidence block,
  or ``<document id=...>`` blocks), the last user message minus that evidence, and tool
  messages; never the project's instruction sentences.

``ShapeFake`` combines the two: one scripted queue per kind of request (``kind_of``: the
request's shape, as the cooperative model tells it apart), the cooperative reply when that
queue is empty.

``text_tool_call`` writes a tool call as text the way real local models do (for scripted
replies that reproduce ollama #6127, #13519, #11185).

Standalone: ``python tests/fake_ollama.py --port 0 --mode deterministic`` prints its URL
on the first line of stdout and serves until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import socket
import threading
import time
from collections import deque
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

MODES = ("scripted", "deterministic")
GREETING = "Hello! Ask me anything about the documentation."
NOT_FOUND = "I could not find this in the documentation."
_STOPWORD_TEXT = """
about above after again also been before being between both does doing down during each from further
have having here into more most much once only other over same should some such than that their them
then there these they this those through under until very what when where which while whom will with
would your yours
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_DOC_RE = re.compile(r"<document\s+([^>]*)>(.*?)</document>", re.DOTALL)
# The contract's evidence block: <<<EVIDENCE nonce>>> … <<<END EVIDENCE nonce>>> with items
# starting "[n] source_path" (optionally " § section") on their own line.
_EVIDENCE_RE = re.compile(r"<<<EVIDENCE ([^>\s]+)>>>(.*?)<<<END EVIDENCE \1>>>", re.DOTALL)
_ITEM_RE = re.compile(r"^\[(\d+)\][ \t]+(.+?)$(.*?)(?=^\[\d+\][ \t]|\Z)", re.DOTALL | re.MULTILINE)
_DOCUMENTS_BLOCK_RE = re.compile(r"<documents>.*?</documents>", re.DOTALL)
_REFERS_RE = re.compile(r"\b(it|its|it's|this|that|these|those|they|them|their|there|the same)\b", re.I)
_ATTR_RE = re.compile(r'(\w+)="([^"]*)"')
_ARITH_RE = re.compile(r"(-?\d+(?:\.\d+)?)\s*([-+*/x×])\s*(-?\d+(?:\.\d+)?)")
_GREETING_RE = re.compile(r"^\W*(hi|hello|hey|thanks|thank you)\b\W*(there)?\W*$", re.IGNORECASE)
_COMPONENT_RE = re.compile(r"\bthe\s+([\w.-]+)\s+component\b", re.IGNORECASE)
_MARKER_RE = re.compile(r"\[(\d+)\]")
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?!\[\d+\])|(?<=\])\s+(?=[A-Z])")


def _normalize(model: str) -> str:
    """Return the model name with an explicit tag, as Ollama resolves it (``x`` -> ``x:latest``)."""
    return model if ":" in model else f"{model}:latest"


def _words(text: str) -> list[str]:
    """Split content into word-sized pieces (whitespace kept) so ``"".join`` restores it."""
    return re.findall(r"\s*\S+\s*", text) or [text]


def _content_words(text: str) -> set[str]:
    """Lower-cased words of at least 4 letters, minus stopwords."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) >= 4 and w not in STOPWORDS}


def _parse_documents(text: str) -> list[dict[str, Any]]:
    """Evidence items: ``[n] source`` items of evidence blocks, else ``<document id="N" ...>``
    blocks (``id``, ``source``, optional ``section``, ``text``)."""
    docs: list[dict[str, Any]] = []
    for _nonce, block in _EVIDENCE_RE.findall(text):
        for number, head, body in _ITEM_RE.findall(block.strip("\n")):
            source, _, section = head.partition(" § ")
            docs.append(
                {"id": number, "source": source.strip(), "section": section.strip(), "text": body.strip()}
            )
    if docs:
        return docs
    for attrs, body in _DOC_RE.findall(text):
        doc: dict[str, Any] = dict(_ATTR_RE.findall(attrs))
        doc["text"] = body.strip()
        docs.append(doc)
    return docs


# An evidence block with the whole lines it starts and ends on (a one-line note naming the
# markers before the block is part of it).
_EVIDENCE_LINES_RE = re.compile(
    r"^[^\n]*<<<EVIDENCE ([^>\s]+)>>>.*?<<<END EVIDENCE \1>>>[^\n]*$", re.DOTALL | re.M
)


def _without_evidence(text: str) -> str:
    """The text with evidence blocks (either shape) removed."""
    return _DOCUMENTS_BLOCK_RE.sub("", _EVIDENCE_LINES_RE.sub("", text)).strip()


def text_tool_call(name: str, arguments: dict[str, Any], form: str = "json") -> str:
    """A tool call written as text, as models do when Ollama does not parse it:
    ``json`` (llama3.1), ``python_tag`` (llama3.1's ``<|python_tag|>`` prefix), ``fenced``
    (a ```json block after a sentence), ``tool_call_tag`` (qwen2.5's ``<tool_call>``),
    ``function_tag`` (llama3.1's custom-tool ``<function=name>{…}</function>``),
    ``parameter_tags`` (qwen3-coder's ``<function=name><parameter=k>v</parameter>``),
    ``pythonic`` (llama3.2's ``[name(k="v")]``, after a sentence)."""
    body = json.dumps({"name": name, "parameters": arguments})
    if form == "function_tag":
        return f"<function={name}>{json.dumps(arguments)}</function>"
    if form == "parameter_tags":
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in arguments.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    if form == "pythonic":
        call = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
        return f"Let me check the documentation.\n[{name}({call})]"
    if form == "json":
        return body
    if form == "python_tag":
        return "<|python_tag|>" + body
    if form == "fenced":
        return f"I will search the documentation.\n```json\n{body}\n```"
    if form == "tool_call_tag":
        return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"
    raise ValueError(f"unknown form {form!r}")


def _first_sentence(text: str, limit: int = 200) -> str:
    """The first sentence of ``text`` (whitespace collapsed), at most ``limit`` characters."""
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", flat)
    return (match.group(1) if match else flat)[:limit].strip()


def _default_for(schema: dict[str, Any]) -> Any:
    """A sensible default value for a JSON-schema property."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return _default_for(option)
    kind = schema.get("type", "object")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    return {"string": "", "integer": 0, "number": 0.0, "boolean": False, "array": [], "null": None}.get(
        kind, {}
    )


class _Conversation:
    """Read-only helpers over one ``/api/chat`` request body."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.messages: list[dict[str, Any]] = body.get("messages") or []
        users = [i for i, m in enumerate(self.messages) if m.get("role") == "user"]
        self.last_user = users[-1] if users else -1
        self.user_text: str = (self.messages[self.last_user].get("content") or "") if users else ""

    @property
    def question(self) -> str:
        """The last user message without its evidence block: the question (or, in a
        structured check of an answer, the text under check)."""
        return _without_evidence(self.user_text)

    def earlier_user_messages(self) -> list[str]:
        """User messages before the last one (the conversation so far)."""
        return [
            m.get("content") or "" for m in self.messages[: max(self.last_user, 0)] if m.get("role") == "user"
        ]

    def documents(self) -> list[dict[str, Any]]:
        """Documents in the last user message or later messages, else in the latest user
        message holding any (evidence sent apart from the question), else in system messages."""
        for message in self.messages[max(self.last_user, 0) :]:
            if docs := _parse_documents(message.get("content") or ""):
                return docs
        for message in reversed(self.messages[: max(self.last_user, 0)]):
            if message.get("role") == "user" and (docs := _parse_documents(message.get("content") or "")):
                return docs
        system = [m for m in self.messages if m.get("role") == "system"]
        return _parse_documents("\n".join(m.get("content") or "" for m in system))

    def tool_results(self) -> list[tuple[str, str]]:
        """``(tool name, content)`` for each tool message after the last user message."""
        results: list[tuple[str, str]] = []
        pending: deque[str] = deque()
        for message in self.messages[self.last_user + 1 :]:
            for call in message.get("tool_calls") or []:
                pending.append(call.get("function", {}).get("name", ""))
            if message.get("role") == "tool":
                name = message.get("tool_name") or (pending.popleft() if pending else "")
                results.append((name, message.get("content") or ""))
        return results

    def prompt_tokens(self) -> int:
        """A plausible prompt token estimate: total message text length // 4."""
        return max(1, sum(len(m.get("content") or "") for m in self.messages) // 4)


def _relevant_ids(question: str, docs: list[dict[str, Any]]) -> list[Any]:
    """Ids of documents sharing enough content words with the question."""
    words = _content_words(question)
    need = 1 if len(words) <= 2 else 2
    ids = []
    for doc in docs:
        if words and len(words & _content_words(doc["text"])) >= need:
            ident = doc.get("id", "")
            ids.append(int(ident) if ident.isdigit() else ident)
    return ids


def _cited_answer(docs: list[dict[str, Any]]) -> str:
    """First sentence of each of the first two documents, each followed by `` [N]``."""
    parts = [f"{_first_sentence(d['text'])} [{d.get('id', i + 1)}]" for i, d in enumerate(docs[:2])]
    return " ".join(parts) if parts else NOT_FOUND


def _arithmetic(question: str) -> str | None:
    """Answer ``what's 2 + 2``-style questions, or None."""
    match = _ARITH_RE.search(question)
    if not match or len(_content_words(question) - {"what", "whats"}) > 1:
        return None
    a, op, b = float(match.group(1)), match.group(2), float(match.group(3))
    if op == "/" and b == 0:
        return "Division by zero is undefined."
    value = {"+": a + b, "-": a - b, "/": a / b if b else 0.0}.get(op, a * b)
    shown = int(value) if value == int(value) else round(value, 6)
    return f"{match.group(1)} {op} {match.group(3)} = {shown}."


def deterministic_reply(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """What the cooperative model answers to a request: ``(content, tool calls)``."""
    conv = _Conversation(body)
    fmt = body.get("format")
    if body.get("tools"):
        results = conv.tool_results()
        if results:
            name, content = results[-1]
            guessed_count = not name and not _parse_documents(content) and re.search(r"\d", content)
            if name == "count_chunks" or guessed_count:
                count = re.search(r"\d+", content)
                n = count.group(0) if count else "0"
                component = _COMPONENT_RE.search(conv.question)
                subject = f"The {component.group(1)} component" if component else "The documentation"
                return f"{subject} has {n} chunks.", []
            docs = _parse_documents(content)
            return (_cited_answer(docs) if docs else (content.strip()[:400] or NOT_FOUND)), []
        question = conv.question
        if _GREETING_RE.match(question):
            return GREETING, []
        if (answer := _arithmetic(question)) is not None:
            return answer, []
        if re.search(r"how many chunks", question, re.IGNORECASE):
            component = _COMPONENT_RE.search(question)
            args = {"component": component.group(1).lower() if component else None}
            return "", [{"name": "count_chunks", "arguments": args}]
        return "", [{"name": "search_docs", "arguments": {"query": question}}]
    if isinstance(fmt, dict):
        return json.dumps(_structured(conv, fmt)), []
    if fmt == "json":  # JSON mode without a schema
        return "{}", []
    return _cited_answer(conv.documents()), []


def _structured(conv: _Conversation, schema: dict[str, Any]) -> dict[str, Any]:
    """A structured-output reply chosen by the schema's property names."""
    props: dict[str, Any] = schema.get("properties") or {}
    out: dict[str, Any] = {}
    if "relevant" in props:
        out["relevant"] = _relevant_ids(conv.question, conv.documents())
        if "sufficient" in props:
            out["sufficient"] = bool(out["relevant"])
    elif "query" in props:
        out["query"] = f"{conv.question.rstrip('?!. ')} documentation"
    elif "standalone_question" in props:
        out["standalone_question"] = _standalone(conv)
    elif "claims" in props:
        items = props["claims"].get("items") or {}
        if ref := items.get("$ref"):  # a nested model: "#/$defs/Claim"
            items = (schema.get("$defs") or {}).get(ref.rsplit("/", 1)[-1], {})
        sentences = [s.strip() for s in _SENTENCE_SPLIT_RE.split(conv.question)]
        claims = [
            {"claim": s, "supported": True, "sources": [int(n) for n in _MARKER_RE.findall(s)]}
            for s in sentences
            if s
        ]
        out["claims"] = [_with_defaults(claim, items) for claim in claims]
    return _with_defaults(out, schema)


def _standalone(conv: _Conversation) -> str:
    """A follow-up that refers back ("its", "that") gets the previous user message appended."""
    earlier = [_without_evidence(m) for m in conv.earlier_user_messages()]
    if earlier and _REFERS_RE.search(conv.question):
        return f"{conv.question} (about: {earlier[-1]})"
    return conv.question


def _with_defaults(obj: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``obj`` plus a default for each required property of ``schema`` that it lacks."""
    props: dict[str, Any] = schema.get("properties") or {}
    missing = [key for key in schema.get("required") or [] if key not in obj]
    return {**obj, **{key: _default_for(props.get(key, {})) for key in missing}}


class FakeOllama:
    """A fake Ollama server on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        mode: str = "scripted",
        models: tuple[str, ...] = ("llama3.1:8b",),
        delay_s: float = 0.0,
        port: int = 0,
        capabilities: tuple[str, ...] = ("completion", "tools"),
    ) -> None:
        """Configure the fake; ``delay_s`` is slept before each streamed line; port 0 = free;
        ``capabilities`` is what ``/api/show`` reports (a reasoning model adds "thinking")."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
        self.mode, self.models, self.delay_s, self.port = mode, tuple(models), delay_s, port
        self.capabilities = list(capabilities)
        self.url = ""
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[tuple[str, Any]] = deque()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------
    def reply(
        self,
        content: str = "",
        tool_calls: list[dict[str, Any]] | None = None,
        prompt_eval_count: int | None = None,
        done_reason: str | None = "stop",
    ) -> None:
        """Queue a reply; ``tool_calls`` items are ``{"name": ..., "arguments": {...}}``.
        ``prompt_eval_count`` overrides the reported prompt tokens (e.g. a cut prompt);
        ``done_reason`` ``"length"`` is Ollama's word for a reply cut at ``num_predict``;
        None sends no final ``done`` line, as a stream closed early by a proxy."""
        self._queue.append(("reply", (content, list(tool_calls or []), prompt_eval_count, done_reason)))

    def reply_json(self, obj: dict[str, Any]) -> None:
        """Queue a structured-output reply (content is ``json.dumps(obj)``)."""
        self.reply(json.dumps(obj))

    def reply_raw(self, lines: list[str]) -> None:
        """Queue raw NDJSON lines, sent verbatim (each followed by a newline)."""
        self._queue.append(("raw", list(lines)))

    def reply_error(self, status: int, message: str) -> None:
        """Queue an HTTP error reply with body ``{"error": message}``."""
        self._queue.append(("error", (status, message)))

    def reply_drop(self, lines: list[str] | None = None) -> None:
        """Queue a reply that breaks off, as when Ollama is killed mid-request: the
        headers promise a longer body, ``lines`` are sent, then the connection closes."""
        self._queue.append(("drop", list(lines or [])))

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> Self:
        """Bind and serve in a daemon thread; sets ``url``."""
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True, name="fake-ollama"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling helpers --------------------------------------------------------
    def knows(self, model: str) -> bool:
        """Whether ``model`` is one of the served models (``x`` means ``x:latest``)."""
        return _normalize(model) in {_normalize(m) for m in self.models}

    def _record(self, body: dict[str, Any]) -> int:
        with self._lock:
            self.requests.append(body)
            return len(self.requests)

    def _next(self, body: dict[str, Any], number: int) -> tuple[str, Any]:
        """The next action for a chat request: from the queue or the deterministic model."""
        if self.mode == "deterministic":
            return ("reply", deterministic_reply(body))
        try:
            return self._queue.popleft()
        except IndexError:
            message = (
                f"FakeOllama: no scripted reply queued for /api/chat request #{number}; "
                "call reply()/reply_json()/reply_raw()/reply_error() before invoking the model"
            )
            return ("error", (500, message))


# The kinds of /api/chat request, told apart by shape only: tools offered ("decide"), a
# `format` schema (by its properties, in the order the cooperative model reads them), neither.
_SCHEMA_KINDS = (
    ("relevant", "grade"),
    ("query", "rewrite"),
    ("standalone_question", "standalone"),
    ("claims", "verify"),
)
KINDS = ("decide", "grade", "rewrite", "standalone", "verify", "generate")


def kind_of(body: dict[str, Any]) -> str:
    """The kind of an ``/api/chat`` request body, by its shape: ``decide`` (tools offered),
    ``generate`` (no ``format`` schema), else by the schema's properties (``grade``,
    ``rewrite``, ``standalone``, ``verify``; another schema is named by its first property)."""
    if body.get("tools"):
        return "decide"
    fmt = body.get("format")
    if not isinstance(fmt, dict):
        return "generate"
    props = fmt.get("properties") or {}
    return next((kind for prop, kind in _SCHEMA_KINDS if prop in props), next(iter(props), "json"))


class ShapeFake(FakeOllama):
    """Scripted replies per kind of request (``kind_of``); a request whose queue is empty
    gets the cooperative reply (``deterministic_reply``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(mode="scripted", **kwargs)
        self.queues: dict[str, deque[tuple[str, Any]]] = {kind: deque() for kind in KINDS}

    def script(
        self,
        kind: str,
        content: str = "",
        tool_calls: list[dict[str, Any]] | None = None,
        prompt_eval_count: int | None = None,
        done_reason: str | None = "stop",
    ) -> None:
        """Queue the next reply to a request of ``kind`` (one of ``KINDS``); arguments as ``reply``."""
        if kind not in self.queues:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.queues[kind].append(("reply", (content, list(tool_calls or []), prompt_eval_count, done_reason)))

    def search(self, query: str, **args: Any) -> None:
        """Queue the next decide reply as one ``search_docs`` call."""
        self.script("decide", tool_calls=[{"name": "search_docs", "arguments": {"query": query, **args}}])

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """The recorded requests of ``kind``, in order."""
        with self._lock:
            return [r for r in self.requests if kind_of(r) == kind]

    def _next(self, body: dict[str, Any], number: int) -> tuple[str, Any]:
        queue = self.queues.get(kind_of(body))
        return queue.popleft() if queue else ("reply", deterministic_reply(body))


class _Handler(BaseHTTPRequestHandler):
    """HTTP handler; ``fake`` is set on a per-server subclass."""

    fake: FakeOllama
    server_version = "FakeOllama/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode(errors="replace")}
        return body if isinstance(body, dict) else {"_unparsed": body}

    def do_GET(self) -> None:
        """``/api/tags``, ``/api/version``, ``/`` (like Ollama: "Ollama is running")."""
        if self.path == "/api/tags":
            self._send(200, {"models": [_model_entry(m) for m in self.fake.models]})
        elif self.path == "/api/version":
            self._send(200, {"version": "0.12.0"})
        elif self.path == "/":
            self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
        else:
            self._send(404, b"404 page not found", "text/plain")

    def do_POST(self) -> None:
        """``/api/chat`` and ``/api/show``."""
        body = self._body()
        if self.path == "/api/show":
            name = str(body.get("model") or body.get("name") or "")
            if self.fake.knows(name):
                self._send(200, {**_show_entry(name), "capabilities": self.fake.capabilities})
            else:
                self._send(404, {"error": f"model '{name}' not found"})
        elif self.path == "/api/chat":
            self._chat(body)
        else:
            self._send(404, b"404 page not found", "text/plain")

    def _chat(self, body: dict[str, Any]) -> None:
        number = self.fake._record(body)
        model = str(body.get("model") or "")
        if not self.fake.knows(model):
            self._send(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        kind, data = self.fake._next(body, number)
        if kind == "error":
            self._send(data[0], {"error": data[1]})
            return
        if kind == "drop":
            self._drop(data)
            return
        stream = body.get("stream", True) is not False
        if kind == "raw":
            lines = data
        else:
            content, calls, *override = data  # subclasses may queue (content, calls) pairs
            read = override[0] if override else None
            tokens = read if read is not None else _Conversation(body).prompt_tokens()
            lines = _reply_lines(model, content, calls, tokens, stream, *override[1:2])
        try:
            if not stream:
                self._send(200, "\n".join(lines).encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for line in lines:
                if self.fake.delay_s:
                    time.sleep(self.fake.delay_s)
                self.wfile.write(line.encode() + b"\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client went away mid-stream

    def _drop(self, lines: list[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", "1000000")  # never sent: the client sees a cut body
        self.end_headers()
        for line in lines:
            self.wfile.write(line.encode() + b"\n")
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _reply_lines(
    model: str,
    content: str,
    tool_calls: list[dict[str, Any]],
    prompt_tokens: int,
    stream: bool,
    done_reason: str | None = "stop",
) -> list[str]:
    """Serialize a reply as Ollama NDJSON lines (or one object when not streaming);
    ``done_reason`` None leaves out the final ``done`` line (a stream closed early)."""
    calls = [{"function": {"name": c["name"], "arguments": c.get("arguments", {})}} for c in tool_calls]
    final: dict[str, Any] = {"model": model, "created_at": _now(), "done": True, "done_reason": done_reason,
        "total_duration": 120_000_000, "load_duration": 10_000_000,
        "prompt_eval_count": prompt_tokens, "prompt_eval_duration": 30_000_000,
        "eval_count": max(1, len(content) // 4 + 10 * len(calls)), "eval_duration": 80_000_000,
    }  # fmt: skip
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        return [json.dumps({**final, "message": message})]
    chunks = [{"role": "assistant", "content": piece} for piece in (_words(content) if content else [])]
    if calls:
        chunks.append({"role": "assistant", "content": "", "tool_calls": calls})
    lines = [json.dumps({"model": model, "created_at": _now(), "message": m, "done": False}) for m in chunks]
    if done_reason is not None:
        lines.append(json.dumps({**final, "message": {"role": "assistant", "content": ""}}))
    return lines


_DETAILS = {"format": "gguf", "family": "llama", "parameter_size": "8.0B", "quantization_level": "Q4_K_M"}
_MODIFIED = "2025-01-01T00:00:00Z"


def _model_entry(name: str) -> dict[str, Any]:
    """One ``/api/tags`` entry."""
    size, digest = 4_920_753_328, "0" * 64
    return dict(name=name, model=name, modified_at=_MODIFIED, size=size, digest=digest, details=_DETAILS)


def _show_entry(name: str) -> dict[str, Any]:
    """An ``/api/show`` reply."""
    info = {"general.architecture": "llama", "llama.context_length": 131072}
    return {"modelfile": f"FROM {name}\n", "parameters": "num_ctx 8192", "template": "{{ .Prompt }}",
            "details": _DETAILS, "model_info": info, "capabilities": ["completion", "tools"],
            "modified_at": _MODIFIED}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    """Run the fake standalone; prints the URL first, then serves until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", choices=MODES, default="deterministic")
    parser.add_argument(
        "--model", action="append", dest="models", help="served model name (repeatable; default llama3.1:8b)"
    )
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each line")
    args = parser.parse_args(argv)
    fake = FakeOllama(args.mode, tuple(args.models or ("llama3.1:8b",)), args.delay, args.port)
    fake.start()
    print(fake.url, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()
    fake.stop()


if __name__ == "__main__":
    main()
