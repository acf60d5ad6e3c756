"""The chat model (Ollama) and the checks that name what to run when it is missing."""

from __future__ import annotations

from contextvars import ContextVar
from functools import lru_cache

import httpx
from langchain_ollama import ChatOllama

from docsassistant.config import Settings

# Most tokens one reply may have: a longer one stops mid-sentence (Ollama's done_reason
# "length"), and an answer cut so is flagged `answer_truncated`.
NUM_PREDICT = 1024
# The current model call's timeout: the turn's remaining time (set by calls.py).
call_timeout: ContextVar[float | None] = ContextVar("call_timeout", default=None)


class ModelUnavailable(RuntimeError):
    """Ollama cannot answer; the message says exactly what to run."""


def apply_call_timeout(request: httpx.Request) -> None:
    """httpx request hook: a model call may wait at most the turn's remaining time for
    data (`calls.py` also stops a stream that runs past the deadline)."""
    left = call_timeout.get()
    if left is not None:
        request.extensions["timeout"] = httpx.Timeout(left).as_dict()


def make_chat_model(settings: Settings, timeout_s: float | None = None) -> ChatOllama:
    """ChatOllama with a low temperature and an explicit context window.

    `num_ctx` is always sent: Ollama otherwise truncates long prompts silently. The
    timeout is the turn's; each call gets the turn's remaining time (`apply_call_timeout`). One
    instance per configuration and process: building one creates two HTTP clients,
    whose TLS set-up alone costs ~35 ms (it was paid on every turn).
    """
    timeout = timeout_s or settings.turn_timeout_s
    return _chat_model(
        settings.chat_model, settings.ollama_host, settings.temperature, settings.num_ctx, timeout
    )


@lru_cache(maxsize=8)
def _chat_model(model: str, host: str, temperature: float, num_ctx: int, timeout: float) -> ChatOllama:
    return ChatOllama(
        model=model,
        base_url=host,
        temperature=temperature,
        num_ctx=num_ctx,
        num_predict=NUM_PREDICT,
        client_kwargs={"timeout": timeout},
        # The sync client only: httpx's async client needs async hooks.
        sync_client_kwargs={"event_hooks": {"request": [apply_call_timeout]}},
    )


@lru_cache(maxsize=1)
def _http_client() -> httpx.Client:
    """A shared client for health checks (a new one per check costs ~17 ms of TLS set-up)."""
    return httpx.Client()


def model_may_think(settings: Settings, timeout_s: float = 2.0) -> bool:
    """Whether Ollama lists `thinking` among the chat model's capabilities (`/api/show`).
    Such a model may stream its reasoning before the answer, sometimes without the opening
    `<think>`; the chat page then draws a streamed draft as a draft. False when unknown."""
    host = settings.ollama_host.rstrip("/")
    try:
        response = _http_client().post(
            f"{host}/api/show", json={"model": settings.chat_model}, timeout=timeout_s
        )
        response.raise_for_status()
        return "thinking" in (response.json().get("capabilities") or [])
    except (httpx.HTTPError, ValueError):
        return False


def check_ollama(settings: Settings, timeout_s: float = 3.0) -> None:
    """Raise ModelUnavailable unless Ollama answers and has the chat model pulled."""
    host = settings.ollama_host.rstrip("/")
    model = settings.chat_model
    try:
        response = _http_client().get(f"{host}/api/tags", timeout=timeout_s)
        response.raise_for_status()
    except (httpx.ReadTimeout, httpx.HTTPStatusError) as exc:
        # It is running (it took the connection) but hung or failing: "start it" would mislead.
        if isinstance(exc, httpx.HTTPStatusError):
            said = f"answered HTTP {exc.response.status_code}"
        else:
            said = f"did not answer within {timeout_s:g} s"
        raise ModelUnavailable(
            f"Ollama at {host} is running but {said}. It may be busy loading a "
            "model or stuck: wait a moment and ask again, or check its log and restart `ollama serve`."
        ) from exc
    except httpx.HTTPError as exc:
        raise ModelUnavailable(
            f"Ollama is not reachable at {host} ({type(exc).__name__}). "
            f"Start it with `ollama serve` (and `ollama pull {model}` once), "
            "or set OLLAMA_HOST to where it runs."
        ) from exc
    models = response.json().get("models", [])
    names = {m.get("name") for m in models} | {m.get("model") for m in models}
    wanted = {model, f"{model}:latest"} if ":" not in model else {model}
    if not names & wanted:
        raise ModelUnavailable(
            f"Ollama at {host} does not have the model {model!r}. Run `ollama pull {model}` "
            "(or set DOCSASSISTANT_CHAT_MODEL to a model you have)."
        )
