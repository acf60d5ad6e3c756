"""The chat model (Ollama) and the checks that name what to run when it is missing."""

from __future__ import annotations

import threading

import httpx
from langchain_ollama import ChatOllama

from docsassistant.config import Settings


class ModelUnavailable(RuntimeError):
    """Ollama cannot answer; the message says exactly what to run."""


_lock = threading.Lock()
_models: dict[tuple[object, ...], ChatOllama] = {}
_http: httpx.Client | None = None


def make_chat_model(settings: Settings, timeout_s: float | None = None) -> ChatOllama:
    """ChatOllama with a low temperature and an explicit context window.

    `num_ctx` is always sent: Ollama otherwise truncates long prompts silently. One
    instance per configuration and process: building one creates two HTTP clients,
    whose TLS set-up alone costs ~35 ms (it was paid on every turn).
    """
    timeout = timeout_s or settings.turn_timeout_s
    key = (settings.chat_model, settings.ollama_host, settings.temperature, settings.num_ctx, timeout)
    with _lock:
        if key not in _models:
            if len(_models) >= 8:  # settings changed many times (tests): don't hoard clients
                _models.clear()
            _models[key] = ChatOllama(
                model=settings.chat_model,
                base_url=settings.ollama_host,
                temperature=settings.temperature,
                num_ctx=settings.num_ctx,
                num_predict=1024,
                client_kwargs={"timeout": timeout},
            )
        return _models[key]


def _http_client() -> httpx.Client:
    """A shared client for health checks (a new one per check costs ~17 ms of TLS set-up)."""
    global _http
    with _lock:
        if _http is None:
            _http = httpx.Client()
        return _http


def check_ollama(settings: Settings, timeout_s: float = 3.0) -> None:
    """Raise ModelUnavailable unless Ollama answers and has the chat model pulled."""
    host = settings.ollama_host.rstrip("/")
    model = settings.chat_model
    try:
        response = _http_client().get(f"{host}/api/tags", timeout=timeout_s)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise ModelUnavailable(
            f"Ollama is not reachable at {host} ({type(exc).__name__}). "
            f"Start it with `ollama serve` (and `ollama pull {model}` once), "
            "or set OLLAMA_HOST to where it runs."
        ) from exc
    names = {m.get("name") for m in response.json().get("models", [])} | {
        m.get("model") for m in response.json().get("models", [])
    }
    wanted = {model, f"{model}:latest"} if ":" not in model else {model}
    if not names & wanted:
        raise ModelUnavailable(
            f"Ollama at {host} does not have the model {model!r}. Run `ollama pull {model}` "
            "(or set DOCSASSISTANT_CHAT_MODEL to a model you have)."
        )
