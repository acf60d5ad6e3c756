"""Cheap health checks for the UI: can we reach the database and the chat model?"""

from __future__ import annotations

from typing import Any

from docsassistant.config import Settings, get_settings


def check_database(settings: Settings) -> dict[str, Any]:
    import sqlalchemy as sa

    from docsassistant.db import DatabaseUnavailable, get_engine

    where = "DATABASE_URL" if settings.database_url else "embedded PostgreSQL"
    try:
        # get_engine probes the server only once per process; the health line asks every time.
        with get_engine(settings).connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except DatabaseUnavailable as exc:
        return {"ok": False, "detail": str(exc), "where": where}
    except Exception as exc:  # a health line must never crash the page
        from docsassistant.agent.faults import is_database_fault

        if is_database_fault(exc):  # stopped after this process first reached it (QA round 8b)
            start = "check that server and the URL" if settings.database_url else "run `docsassistant db up`"
            detail = (
                f"Cannot reach the {where} ({type(exc).__name__}): {start}; the page reconnects by itself."
            )
            return {"ok": False, "detail": detail, "where": where}
        return {"ok": False, "detail": f"{type(exc).__name__}: {exc}", "where": where}
    return {"ok": True, "detail": f"connected ({where})", "where": where}


def check_model(settings: Settings, timeout_s: float = 2.0) -> dict[str, Any]:
    from docsassistant.agent.llm import ModelUnavailable, check_ollama

    info = {"host": settings.ollama_host, "model": settings.chat_model}
    try:
        check_ollama(settings, timeout_s=timeout_s)
    except ModelUnavailable as exc:
        return {"ok": False, "detail": str(exc), **info}
    except Exception as exc:
        return {"ok": False, "detail": f"Ollama check failed: {type(exc).__name__}: {exc}", **info}
    return {"ok": True, "detail": f"{settings.chat_model} at {settings.ollama_host}", **info}


def health(settings: Settings | None = None, *, timeout_s: float = 2.0) -> dict[str, Any]:
    """`{"ok", "database": {ok, detail, where}, "ollama": {ok, detail, host, model}}`.

    A failed check's `detail` says what to run (the ModelUnavailable or
    DatabaseUnavailable message).
    """
    settings = settings or get_settings()
    database = check_database(settings)
    ollama = check_model(settings, timeout_s=timeout_s)
    return {"ok": database["ok"] and ollama["ok"], "database": database, "ollama": ollama}
