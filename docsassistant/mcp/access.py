"""Who is calling and what they may read: resolved per call, checked before any query runs.

Over HTTP the SDK's bearer middleware has already checked the key (on every request, so
a revoked key stops at once); the tool reads the key's record from the request. Over
stdio the caller is whoever started the process, with every component, unless
DOCSASSISTANT_MCP_KEY names a key to limit it (checked on every call as well).
"""

from __future__ import annotations

import asyncio
import hashlib
import os

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context

from docsassistant.inputs import MAX_COMPONENT_CHARS, clean_text
from docsassistant.mcp.call_log import Caller, log_call
from docsassistant.mcp.keys import ApiKey, find_key, revoked_key

KEY_ENV = "DOCSASSISTANT_MCP_KEY"
LOCAL_CALLER = "local (stdio)"
REFUSED_CALLER = "refused key"
AUTHENTICATION = "(authentication)"


class AccessDenied(PermissionError):
    """The caller's key does not allow this; the message says what it does allow."""


class KeyVerifier:
    """The SDK's `TokenVerifier`: a bearer token is one of our API keys, or nothing."""

    async def verify_token(self, token: str) -> AccessToken | None:
        key = find_key(token)
        if key is None:  # the request gets a 401; the attempt is logged, the secret is not
            await asyncio.to_thread(log_refused_key, token)
            return None
        return access_token(token, key)


def log_refused_key(token: str) -> None:
    """A call-log row for a presented key that is unknown or revoked: a 12-hex-digit
    fingerprint of what was sent (to tell repeated attempts apart), never the key itself;
    a revoked key is named ("NAME (revoked)"). A request with no key at all is refused
    before any key is read, and not logged."""
    fingerprint = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:12]
    revoked = revoked_key(token)
    caller = (
        Caller(name=REFUSED_CALLER)
        if revoked is None
        else Caller(name=f"{revoked.name} (revoked)", key_id=revoked.id)
    )
    log_call(
        caller,
        AUTHENTICATION,
        {"key_sha256_prefix": fingerprint},
        result_count=None,
        error="Unknown or revoked API key: refused with HTTP 401.",
        duration_ms=0.0,
    )


def access_token(token: str, key: ApiKey) -> AccessToken:
    return AccessToken(
        token=token,
        client_id=key.name,
        subject=str(key.id),
        scopes=[],
        claims={"components": key.components},
    )


def caller_of(ctx: Context) -> Caller:
    """The caller of the current tool call (HTTP key, stdio key, or the local operator)."""
    request = ctx.request_context.request
    if request is not None:
        user = request.scope.get("user")
        if not isinstance(user, AuthenticatedUser):  # the route requires a key: not reached
            raise AccessDenied("Present an API key: `Authorization: Bearer <key>`.")
        token = user.access_token
        claims = token.claims or {}
        return Caller(
            name=token.client_id, key_id=int(token.subject or 0), components=claims.get("components")
        )
    secret = os.environ.get(KEY_ENV, "").strip()
    if not secret:
        return Caller(name=LOCAL_CALLER)
    key = find_key(secret)
    if key is None:
        raise AccessDenied(
            f"The key in {KEY_ENV} is unknown or revoked: create one with `docsassistant mcp keys add`."
        )
    return Caller(name=key.name, key_id=key.id, components=key.components)


def allowed_component(caller: Caller, component: str | None) -> str | None:
    """The component asked for, normalised as search compares it, if the caller may read it.

    The queries enforce the caller's components again; this check only gives a clear
    answer instead of an empty one."""
    name = clean_text(component, what="component name", max_chars=MAX_COMPONENT_CHARS, required=False).lower()
    if name and caller.components is not None and name not in caller.components:
        allowed = ", ".join(caller.components) or "none"
        raise AccessDenied(
            f"The key {caller.name!r} may not read component {name!r}. It may read: {allowed}."
        )
    return name or None
