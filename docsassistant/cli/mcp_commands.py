"""`docsassistant mcp [--http --port N]` serves the MCP tools; `mcp keys add|list|revoke`
manages the API keys HTTP callers present; `mcp calls` shows the call log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from docsassistant.cli.errors import friendly_errors

mcp_app = typer.Typer(help="The MCP server for other agents, its API keys and its call log.")
keys_app = typer.Typer(
    help="API keys for MCP callers (each limited to some components).", no_args_is_help=True
)
mcp_app.add_typer(keys_app, name="keys")
out = Console()
err = Console(stderr=True)


@mcp_app.callback(invoke_without_command=True)
def serve(
    ctx: typer.Context,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP (API key required) instead of stdio.")
    ] = False,
    host: Annotated[str, typer.Option(help="Address to bind with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port for --http.")] = 8765,
) -> None:
    """Serve search_docs, count_chunks, list_components and ask_docs over MCP."""
    if ctx.invoked_subcommand is not None:
        return
    from docsassistant.mcp.server import serve_http, serve_stdio

    if not http:
        serve_stdio()
        return
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"Warning: serving on {host} without TLS; keys cross the network in clear text.")
    err.print(f"MCP over HTTP at http://{host}:{port}/mcp (Authorization: Bearer <key>).")
    serve_http(host, port)


@keys_app.command("add")
def add_command(
    name: Annotated[str, typer.Argument(help="Who the key is for (shown in the call log).")],
    components: Annotated[
        str | None, typer.Option(help="Comma-separated components the key may read.")
    ] = None,
    all_components: Annotated[
        bool, typer.Option("--all-components", help="Let the key read every component.")
    ] = False,
) -> None:
    """Create a key; its secret is printed once and only its hash is stored."""
    from docsassistant.mcp.keys import add_key
    from docsassistant.search import list_components

    if (components is None) == (not all_components):
        raise typer.BadParameter("Give either --components a,b or --all-components.")
    names = None if all_components else [c for c in (components or "").split(",") if c.strip()]
    with friendly_errors():
        created = add_key(name, names)
        unknown = sorted(set(created.key.components or []) - set(list_components()))
    scope = ", ".join(created.key.components) if created.key.components else "all components"
    out.print(f"Key {created.key.name!r} ({scope}). Secret (shown only now):", highlight=False)
    print(created.secret)
    if unknown:
        err.print(f"Note: no documents yet in {', '.join(unknown)}; the key reads them once ingested.")


@keys_app.command("list")
def list_command(
    revoked: Annotated[bool, typer.Option("--revoked", help="Include revoked keys.")] = False,
) -> None:
    """Keys with their components (never their secrets)."""
    from docsassistant.mcp.keys import list_keys

    with friendly_errors():
        keys = list_keys(include_revoked=revoked)
    for key in keys:
        scope = ", ".join(key.components) if key.components is not None else "all components"
        state = f"  revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else ""
        out.print(f"{key.name}  {scope}  created {key.created_at:%Y-%m-%d %H:%M}{state}", highlight=False)
    if not keys:
        out.print("No keys: `docsassistant mcp keys add NAME --components a,b` creates one.")


@keys_app.command("revoke")
def revoke_command(name: Annotated[str, typer.Argument(help="The key's name.")]) -> None:
    """Revoke a key: its next request is refused."""
    from docsassistant.mcp.keys import revoke_key

    with friendly_errors():
        key = revoke_key(name)
    out.print(f"Revoked {key.name!r}.", highlight=False)


@mcp_app.command("calls")
def calls_command(limit: Annotated[int, typer.Option(help="Show at most this many.")] = 20) -> None:
    """The latest MCP calls: time, caller, tool, arguments, results, duration, error."""
    from docsassistant.mcp.call_log import recent_calls

    with friendly_errors():
        rows = recent_calls(limit)
    for r in rows:
        outcome = f"error: {r['error']}" if r["error"] else f"{r['result_count']} results"
        out.print(
            f"{r['called_at']:%Y-%m-%d %H:%M:%S}  {r['caller']}  {r['tool']}  {r['arguments']}  "
            f"{outcome}  {r['duration_ms']:.1f} ms",
            highlight=False,
        )


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp")


@mcp_app.command("bench")
def bench_command(
    qa: Annotated[Path, typer.Option(help="A docs QA file (JSON lines); its questions are the queries.")],
    rounds: Annotated[int, typer.Option(help="Passes over the questions.")] = 5,
    k: Annotated[int, typer.Option(help="Hits per search.")] = 5,
) -> None:
    """search_docs p50/p95 over MCP HTTP (child server, temporary key) vs the in-process call."""
    from docsassistant.mcp.latency import bench_http_search

    with friendly_errors(OSError, RuntimeError):
        figures = bench_http_search(qa, rounds, k)
    for side in ("in_process", "http"):
        f = figures[side]
        out.print(
            f"{side:>10}: n={f['n']} p50 {f['p50_ms']:.2f} ms  p95 {f['p95_ms']:.2f} ms  "
            f"mean {f['mean_ms']:.2f} ms  max {f['max_ms']:.2f} ms",
            highlight=False,
        )
    out.print(
        f"HTTP / in-process: p95 x{figures['p95_ratio']:.3f}, p50 x{figures['p50_ratio']:.3f} "
        f"(target p95 <= 2x); load average {figures['load_average']}",
        highlight=False,
    )
