"""The MCP tools (`search_docs`, `count_chunks`, `list_components`, `ask_docs`) and the
two transports. Every call is checked against the caller's key, logged, and fails with
its real error text (the SDK would otherwise say only "Error executing tool …")."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, ValidationError

from docsassistant.config import get_settings
from docsassistant.inputs import clean_query
from docsassistant.mcp.access import KeyVerifier, allowed_component, caller_of
from docsassistant.mcp.call_log import Caller, log_call
from docsassistant.readonly_sql import count_chunks as _count_chunks
from docsassistant.search import check_known_component
from docsassistant.search import list_components as _list_components
from docsassistant.search import search_docs as _search_docs
from docsassistant.warm_up import start_warm_up

INSTRUCTIONS = (
    "Search and question the team's indexed documentation. Each API key may read only "
    "some components: list_components shows which."
)
T = TypeVar("T")


class SearchHit(BaseModel):
    """One chunk found by search_docs (score: the fused dense + lexical score, higher is better;
    it ranks hits within one search, it is not a probability)."""

    chunk_id: int
    source_path: str
    title: str | None
    component: str
    section: str | None
    content: str
    score: float


class ChunkCount(BaseModel):
    component: str | None
    chunks: int
    documents: int


def _error_text(exc: Exception) -> str:
    """Our own errors carry a message written for the caller; others get their type too."""
    text = " ".join(str(exc).split())[:500]
    if isinstance(exc, ValueError | PermissionError):
        return text
    return f"{type(exc).__name__}: {text or 'no details'}"


def _call(ctx: Context, tool: str, arguments: dict[str, Any], body: Callable[[Caller], T]) -> T:
    """Run one tool call for its caller: time it, log it, turn a failure into its real text."""
    started = time.perf_counter()
    caller = Caller(name="unknown")
    result: Any = None
    error = None
    try:
        caller = caller_of(ctx)
        result = body(caller)
        return result
    except Exception as exc:
        error = _error_text(exc)
        raise ToolError(error) from exc
    finally:
        log_call(
            caller,
            tool,
            arguments,
            result_count=_result_count(result),
            error=error,
            duration_ms=(time.perf_counter() - started) * 1000,
        )


def _result_count(result: Any) -> int | None:
    """Hits or components listed, chunks counted, or citations of an answer."""
    if isinstance(result, list):
        return len(result)
    if isinstance(result, ChunkCount):
        return result.chunks
    if isinstance(result, dict):
        return len(result.get("citations") or [])
    return None


def search_docs(query: str, ctx: Context, component: str | None = None, k: int = 5) -> list[SearchHit]:
    """Search the indexed documentation; returns the best chunks, best first.

    `component` restricts the search to one documentation component (list_components
    shows the ones this key may read); without it, every component the key may read.
    """

    def body(caller: Caller) -> list[SearchHit]:
        hits = _search_docs(
            clean_query(query), allowed_component(caller, component), k, allowed_components=caller.components
        )
        return [SearchHit.model_validate(hit) for hit in hits]

    return _call(ctx, "search_docs", {"query": query, "component": component, "k": k}, body)


def count_chunks(ctx: Context, component: str | None = None) -> ChunkCount:
    """Count the indexed chunks and documents of one component, or of all this key may read."""

    def body(caller: Caller) -> ChunkCount:
        scope = allowed_component(caller, component)
        if scope:  # as search_docs does: a mistyped name is not "0 chunks"
            check_known_component(scope, caller.components, get_settings())
        counted = _count_chunks(scope, allowed_components=caller.components)
        return ChunkCount.model_validate(counted)

    return _call(ctx, "count_chunks", {"component": component}, body)


def list_components(ctx: Context) -> list[str]:
    """The documentation components this key may search, count and ask about."""

    def body(caller: Caller) -> list[str]:
        return [c for c in _list_components() if caller.components is None or c in caller.components]

    return _call(ctx, "list_components", {}, body)


def ask_docs(question: str, ctx: Context, component: str | None = None) -> dict[str, Any]:
    """Ask the documentation agent one question (a new conversation each call).

    Returns the turn record: `answer`, `citations` (the chunks it cites), `flags`
    (warnings such as unsupported claims), `status`, `stop_reason` and the trace.
    Needs Ollama running where the server runs.
    """
    from docsassistant.agent.runner import run_turn  # loads LangGraph/LangChain only when asked

    def body(caller: Caller) -> dict[str, Any]:
        allowed = allowed_component(caller, component)
        record = run_turn(question, None, allowed, allowed_components=caller.components)
        return record.to_json()

    return _call(ctx, "ask_docs", {"question": question, "component": component}, body)


class DocsServer(MCPServer):
    """The SDK's server, but a call it refuses before our tool runs (arguments of the wrong
    type, an unknown tool) is logged like any other, with an error in our own words: the
    SDK's text dumps pydantic internals and a URL, and left no row in the call log."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        started = time.perf_counter()
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                error = invalid_arguments(name, exc.__cause__)
            elif self._tool_manager.get_tool(name) is None:
                error = f"Unknown tool {name!r}. Tools: {', '.join(t.name for t in self._tool_manager.list_tools())}."
            else:
                raise  # our tools log their own calls (`_call`)
            log_call(
                _caller_or_unknown(context),
                name,
                arguments,
                result_count=None,
                error=error,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
            raise ToolError(error) from exc


def invalid_arguments(tool: str, exc: ValidationError) -> str:
    """`Invalid arguments for search_docs: `k`: Input should be a valid integer.` (no values:
    they are the caller's data)."""
    problems = "; ".join(
        f"`{'.'.join(str(part) for part in err['loc']) or 'arguments'}`: {err['msg']}" for err in exc.errors()
    )
    return f"Invalid arguments for {tool}: {problems}."


def _caller_or_unknown(context: Context | None) -> Caller:
    try:
        return caller_of(context) if context is not None else Caller(name="unknown")
    except Exception:
        return Caller(name="unknown")


def build_server(*, http_url: str | None = None, log_level: str = "INFO") -> MCPServer:
    """The server with its tools; with `http_url`, every request needs an API key."""
    auth = None
    verifier = None
    if http_url is not None:
        # We are our own authorization server: keys come from `docsassistant mcp keys add`.
        auth = AuthSettings(
            issuer_url=http_url, resource_server_url=f"{http_url}/mcp", validate_token_resource=False
        )
        verifier = KeyVerifier()
    server = DocsServer(
        "docsassistant", instructions=INSTRUCTIONS, token_verifier=verifier, auth=auth, log_level=log_level
    )
    for tool in (search_docs, count_chunks, list_components, ask_docs):
        server.tool()(tool)
    return server


# A process that exits while the warm-up is inside ONNX Runtime or spaCy is aborted by C++
# ("terminate called without an active exception"): a short session waits for it at exit.
WARM_UP_JOIN_S = 60.0


def serve_stdio() -> None:
    warm_up = start_warm_up()  # the first search_docs call would otherwise load the model and igraph
    try:
        # WARNING: the client shows our stderr as its log; the database's start-up lines are noise there.
        build_server(log_level="WARNING").run("stdio")
    finally:
        warm_up.join(WARM_UP_JOIN_S)


def serve_http(host: str = "127.0.0.1", port: int = 8765) -> None:
    warm_up = start_warm_up()
    url_host = f"[{host}]" if ":" in host else host
    try:
        build_server(http_url=f"http://{url_host}:{port}").run("streamable-http", host=host, port=port)
    finally:
        warm_up.join(WARM_UP_JOIN_S)
