"""Calling the model: count calls and prompt tokens, and turn failures into clear errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from pydantic import BaseModel, ValidationError

from docsassistant.agent.llm import ModelUnavailable


class ModelCallFailed(RuntimeError):
    """The model call failed in a way the turn cannot recover from."""


class MalformedReply(ModelCallFailed):
    """The model's reply could not be parsed (e.g. tool-call arguments that are a string)."""


def usage(message: BaseMessage | None) -> dict[str, int]:
    """One model call's accounting, merged into the state by its `operator.add` reducers."""
    meta = getattr(message, "usage_metadata", None) or {}
    return {"model_calls": 1, "prompt_tokens": int(meta.get("input_tokens", 0))}


@contextmanager
def _model_errors() -> Iterator[None]:
    try:
        yield
    except (httpx.ConnectError, ConnectionError) as exc:
        raise ModelUnavailable(
            "Lost the connection to Ollama during the turn. Check that `ollama serve` is running."
        ) from exc
    except httpx.TimeoutException as exc:
        raise ModelCallFailed("The model did not answer within the time budget.") from exc
    except (ValidationError, json.JSONDecodeError) as exc:
        # The ollama client validates each streamed line; malformed output lands here.
        raise MalformedReply(f"The model's reply was malformed: {str(exc).splitlines()[0]}") from exc
    except Exception as exc:
        if type(exc).__name__ == "ResponseError":  # the ollama client's HTTP error
            raise ModelCallFailed(f"Ollama returned an error: {exc}") from exc
        raise


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
    with _model_errors():
        return llm.invoke(messages)


def invoke_structured(
    llm: BaseChatModel, schema: type[BaseModel], messages: list[BaseMessage]
) -> tuple[BaseModel | None, AIMessage | None]:
    """Ask for JSON matching `schema`; returns (None, raw) when the reply does not parse."""
    runnable = _wrapper(
        llm,
        ("structured", schema),
        lambda: llm.with_structured_output(schema, method="json_schema", include_raw=True),
    )
    with _model_errors():
        out = runnable.invoke(messages)
    return out.get("parsed"), out.get("raw")
