"""Calling the model: count calls and prompt tokens, turn failures into clear errors,
give each call the turn's remaining time, and notice prompts Ollama cut."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables.config import ensure_config, merge_configs
from pydantic import BaseModel, ValidationError

from docsassistant.agent.budget import message_tokens
from docsassistant.agent.events import event, flag
from docsassistant.agent.llm import ModelUnavailable, call_timeout

# Set by the node wrapper (nodes/common.py `traced`) for the node's run: the turn's
# deadline (time.monotonic) and a list collecting flags about this node's model calls.
turn_deadline: ContextVar[float | None] = ContextVar("turn_deadline", default=None)
call_flags: ContextVar[list[dict[str, Any]] | None] = ContextVar("call_flags", default=None)
# A prompt that fills this share of num_ctx was probably cut by Ollama.
WINDOW_FILLED = 0.97
# A reasoning model's thinking, left in `content` (qwen3 on Ollama: yigit353/langchain-qwq#21,
# langchain#33998), sometimes without its opening tag (hiyouga/LlamaFactory#8219), or cut
# off before it closed: a leading `<think>…</think>`, text up to a `</think>` on a line of its
# own (never one quoted in the answer's prose or code), or an unclosed leading `<think>…`.
_THINKING = re.compile(
    r"^\s*<think>.*?</think>\s*|^[^`]*?(?:^|\n)[ \t]*</think>[ \t]*(?:\n|$)\s*|^\s*<think>(?!.*</think>).*",
    re.S,
)


class ModelCallFailed(RuntimeError):
    """The model call failed in a way the turn cannot recover from."""


class MalformedReply(ModelCallFailed):
    """The model's reply could not be parsed (e.g. tool-call arguments that are a string)."""


class TurnTimeUp(ModelCallFailed):
    """The turn's time budget ran out during a model call."""


# Said after a time-up: what usually causes it, and the setting that sets the budget.
TIME_UP_HINT = "Ollama may be slow or busy: ask again, or raise DOCSASSISTANT_TURN_TIMEOUT (seconds)"


class _Deadline(BaseCallbackHandler):
    """Stops a streaming reply that runs past the turn's deadline (by raising: LangChain
    re-raises a `raise_error` handler's exception, after logging it; see _QuietDeadline)."""

    raise_error = True

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        if time.monotonic() > self.deadline:
            raise TurnTimeUp(f"the model did not finish within the turn's time budget. {TIME_UP_HINT}")


class _QuietDeadline(logging.Filter):
    """LangChain logs "Error in _Deadline.on_llm_new_token callback: TurnTimeUp(…)" before
    re-raising it: a warning on stderr for a stop the turn reports itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.args and isinstance(record.args, tuple) and record.args[0] == "_Deadline")


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietDeadline())


@contextmanager
def _time_limit() -> Iterator[dict[str, Any]]:
    """Run config for one call: the remaining time as its timeout, a deadline callback."""
    deadline = turn_deadline.get()
    if deadline is None:
        yield {}
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise TurnTimeUp(f"the turn's time budget ran out before the model call. {TIME_UP_HINT}")
    token = call_timeout.set(left)
    try:
        # Merged with the graph's own config: replacing its callbacks would silence the
        # token stream the UI reads.
        yield merge_configs(ensure_config(), {"callbacks": [_Deadline(deadline)]})
    finally:
        call_timeout.reset(token)


def _num_ctx(llm: Any) -> int | None:
    for candidate in (llm, getattr(llm, "bound", None)):
        if isinstance(getattr(candidate, "num_ctx", None), int):
            return candidate.num_ctx
    return None


def check_prompt_read(messages: list[BaseMessage], reply: BaseMessage | None, num_ctx: int | None) -> None:
    """Flag `prompt_truncated` when Ollama's prompt_eval_count shows it did not read the
    whole prompt: the window was filled, or far fewer tokens were read than were sent to a
    window the prompt could not fit (ollama #6176: oldest messages dropped silently).
    A prompt that fits is never flagged: Ollama also reports fewer tokens when it reuses
    its cache."""
    meta = getattr(reply, "usage_metadata", None) or {}
    read = int(meta.get("input_tokens") or 0)
    sink = call_flags.get()
    if not read or not num_ctx or sink is None:
        return
    estimate = message_tokens(messages)
    if read >= WINDOW_FILLED * num_ctx or (estimate > num_ctx and read < 0.9 * estimate):
        detail = (
            f"Ollama read {read} prompt tokens of about {estimate} sent (num_ctx {num_ctx}); "
            "part of the prompt was probably cut."
        )
        sink.append(flag("prompt_truncated", detail, read=read, estimate=estimate, num_ctx=num_ctx))


def usage(message: BaseMessage | None) -> dict[str, int]:
    """One model call's accounting, merged into the state by its `operator.add` reducers."""
    meta = getattr(message, "usage_metadata", None) or {}
    return {"model_calls": 1, "prompt_tokens": int(meta.get("input_tokens", 0))}


def _model_name(llm: Any) -> str:
    """The Ollama model a (possibly tool-bound) chat model calls; the configured one if unknown."""
    for candidate in (llm, getattr(llm, "bound", None)):
        if isinstance(getattr(candidate, "model", None), str):
            return candidate.model
    from docsassistant.config import get_settings

    return get_settings().chat_model


def ollama_error_message(exc: Any, model: str) -> str:
    """What to do about an HTTP error status from Ollama (the ollama client's `ResponseError`).
    It answered, so it is running: "start `ollama serve`" would mislead."""
    status = getattr(exc, "status_code", -1)
    said = " ".join(str(getattr(exc, "error", exc)).split())[:300]
    if status == 404:  # /api/chat's "model … not found, try pulling it first"
        return (
            f"Ollama does not have the model {model!r} (HTTP 404: {said}). Run `ollama pull {model}` "
            "(or set DOCSASSISTANT_CHAT_MODEL to a model you have), then ask again: your question is kept"
        )
    # -1: an error line inside a streamed reply, which has no status of its own.
    answered = f"answered HTTP {status}" if status > 0 else "reported an error during the reply"
    return (
        f"Ollama {answered} ({said}). Check its log (a crashed model runner, not enough memory) "
        "and restart `ollama serve` if it keeps failing, then ask again: your question is kept"
    )


@contextmanager
def _model_errors(model: str) -> Iterator[None]:
    try:
        yield
    except (httpx.ConnectError, ConnectionError) as exc:
        raise ModelUnavailable(
            "Lost the connection to Ollama during the turn. Check that `ollama serve` is running, "
            "then ask again: your question is kept"
        ) from exc
    except httpx.TimeoutException as exc:
        raise TurnTimeUp(f"the model did not answer within the turn's time budget. {TIME_UP_HINT}") from exc
    except httpx.TransportError as exc:  # e.g. the stream broke off: RemoteProtocolError
        # A model failure like any other: a draft answer already written is kept, flagged
        # not_verified, instead of the whole turn failing in the runner.
        raise ModelUnavailable(
            f"The connection to Ollama broke off during the model's reply ({type(exc).__name__}: {exc}). "
            "Check that `ollama serve` is running, then ask again: your question is kept"
        ) from exc
    except (ValidationError, json.JSONDecodeError) as exc:
        # The ollama client validates each streamed line; malformed output lands here.
        raise MalformedReply(
            f"The model's reply was malformed ({str(exc).splitlines()[0]}). Ask again: your question is "
            "kept; if it keeps happening, check Ollama's log or try another model"
        ) from exc
    except Exception as exc:
        if type(exc).__name__ == "ResponseError":  # the ollama client's HTTP error
            raise ModelCallFailed(ollama_error_message(exc, model)) from exc
        raise


# Statuses of a model runner that crashed or is reloading (Ollama's "llama runner process
# has terminated" is a 500; a proxy in front of it answers 502-504): the next request
# usually succeeds, as Ollama starts a new runner for it. A 4xx will not change.
RETRIED_STATUSES = frozenset({500, 502, 503, 504})
RETRY_PAUSE_S = 0.5


def _with_one_retry(llm: Any, call: Callable[[dict[str, Any]], Any]) -> Any:
    """`call(config)` under the turn's time limit, once more after a transient HTTP error
    when time is left. Only an error status is retried: it arrives before any token, so
    nothing was streamed to the reader twice; a reply that broke off mid-stream is not."""
    model = _model_name(llm)
    try:
        with _model_errors(model), _time_limit() as config:
            return call(config)
    except ModelCallFailed as exc:
        status = getattr(exc.__cause__, "status_code", None)
        deadline = turn_deadline.get()
        if status not in RETRIED_STATUSES or (
            deadline is not None and deadline - time.monotonic() < 4 * RETRY_PAUSE_S
        ):
            raise
        if (sink := call_flags.get()) is not None:
            sink.append(event("decision", kind="model_call_retried", status=status, reason=str(exc)))
        time.sleep(RETRY_PAUSE_S)
    with _model_errors(model), _time_limit() as config:
        return call(config)


# Tool-bound and structured-output wrappers, built once per model (rebuilding them
# converts the tools / schema to JSON on every call).
_wrappers: dict[tuple[int, object], tuple[Any, Any]] = {}
_wrappers_lock = threading.Lock()


def _wrapper(llm: Any, key: object, build: Callable[[], Any]) -> Any:
    with _wrappers_lock:
        hit = _wrappers.get((id(llm), key))
        if hit is None or hit[0] is not llm:
            if len(_wrappers) >= 64:
                _wrappers.clear()
            hit = (llm, build())
            _wrappers[(id(llm), key)] = hit
        return hit[1]


def with_tools(llm: BaseChatModel, tools: list[Any]) -> Any:
    """`llm.bind_tools(tools)`, cached per model and tool list."""
    return _wrapper(llm, ("tools", *(t.name for t in tools)), lambda: llm.bind_tools(tools))


def invoke(llm: BaseChatModel | Any, messages: list[BaseMessage]) -> AIMessage:
    """Invoke a chat model (or a tool-bound one); streaming callbacks still fire."""
    reply = _with_one_retry(llm, lambda config: llm.invoke(messages, config=config))
    check_prompt_read(messages, reply, _num_ctx(llm))
    if isinstance(reply.content, str) and "think>" in reply.content:
        reply = reply.model_copy(update={"content": without_thinking(reply.content)})
    return reply


def without_thinking(content: str) -> str:
    """`content` without the reasoning a thinking model wrote before its reply."""
    return _THINKING.sub("", content, count=1)


def invoke_structured(
    llm: BaseChatModel, schema: type[BaseModel], messages: list[BaseMessage]
) -> tuple[BaseModel | None, AIMessage | None]:
    """Ask for JSON matching `schema`; returns (None, raw) when the reply does not parse."""
    runnable = _wrapper(
        llm,
        ("structured", schema),
        lambda: llm.with_structured_output(schema, method="json_schema", include_raw=True),
    )
    out = _with_one_retry(llm, lambda config: runnable.invoke(messages, config=config))
    check_prompt_read(messages, out.get("raw"), _num_ctx(llm))
    return out.get("parsed"), out.get("raw")
