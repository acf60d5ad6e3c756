"""`docsassistant ask`: one turn of the agent in the terminal, with its live trace."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console

from docsassistant.agent.llm import ModelUnavailable
from docsassistant.agent.records import TurnRecord
from docsassistant.cli.errors import err_console, friendly_errors

console = Console(stderr=True)  # the trace goes to stderr, so stdout stays clean for --json


def describe(evt: dict[str, Any]) -> str | None:
    """One trace line for a trace event (None: not worth a line)."""
    kind = evt["type"]
    if kind == "tool_call":
        args = ", ".join(f"{k}={v!r}" for k, v in evt["args"].items() if v not in (None, ""))
        return f"[cyan]→ {evt['tool']}[/]({args})"
    if kind == "tool_result" and "hits" in evt:
        hits = "; ".join(f"{h['source_path']} ({h['score']:.3f})" for h in evt["hits"][:5])
        return f"  {len(evt['hits'])} hits: {hits or 'none'}"
    if kind == "tool_result":
        return f"  result: {evt.get('result')}"
    if kind == "grade":
        return f"  graded: {evt['relevant']} relevant of {evt['total']}"
    if kind == "rewrite":
        verdict = "" if evt.get("accepted") else f" [yellow](rejected: {evt.get('reason')})[/]"
        return f"[magenta]↻ rewrite[/] {evt['old']!r} → {evt['new']!r}{verdict}"
    if kind == "node_end":
        return f"[dim]  {evt['node']} {evt['ms']:.0f} ms[/]"
    if kind in ("flag", "budget_stop", "error"):
        return f"[yellow]! {evt.get('message') or evt.get('reason')}[/]"
    return None


def ask(
    question: str,
    thread: Annotated[str | None, typer.Option("--thread", help="Continue this conversation.")] = None,
    component: Annotated[str | None, typer.Option("--component", "-c")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Ask the agent a question about the indexed documentation."""
    from docsassistant.agent.runner import stream_turn
    from docsassistant.agent.turn_lock import ThreadBusy
    from docsassistant.search import SearchError

    record: TurnRecord | None = None
    try:
        with friendly_errors(ThreadBusy, SearchError):
            for evt in stream_turn(question, thread, component):
                if evt["type"] == "turn_complete":
                    record = evt["record"]
                elif not as_json and (line := describe(evt)):
                    console.print(line, highlight=False)
    except ModelUnavailable as exc:
        search_only(question, component, str(exc), as_json)
        raise typer.Exit(1) from None
    assert record is not None  # stream_turn always ends with the turn's record
    if as_json:
        print(record.model_dump_json())
    else:
        print_record(record)
    if record.status == "failed":
        raise typer.Exit(1)  # recorded, but scripts must see that it failed


def search_only(question: str, component: str | None, message: str, as_json: bool) -> None:
    """Ollama is unavailable: say what to start, then show what a search finds (as the chat
    page does), so the question still gets the passages that may answer it."""
    from docsassistant.search import search_without_model

    err_console.print(f"[bold red]Error:[/] {message}", highlight=False)
    hits, note = search_without_model(question, component)
    if as_json:
        print(json.dumps({"error": message, "search_note": note or None, "hits": hits}, default=str))
        return
    if note:
        err_console.print(note, highlight=False)
        return
    out = Console()
    out.print("\nNo answer without the model. The passages a search finds for the question:", highlight=False)
    for i, hit in enumerate(hits, 1):
        section = f" › {hit['section']}" if hit.get("section") else ""
        text = " ".join(str(hit["content"]).split())
        out.print(f"  {i}. {hit['source_path']}{section}\n     {text[:200]}", highlight=False, markup=False)
    if not hits:
        out.print("  (nothing found)", highlight=False)


def print_record(record: TurnRecord) -> None:
    out = Console()
    out.print()
    out.print(record.answer, highlight=False)
    if record.citations:
        out.print("\n[bold]Sources[/]")
        for c in record.citations:
            section = f" › {c.section}" if c.section else ""
            out.print(f"  [{c.n}] {c.source_path}{section}", highlight=False)
    kinds = sorted({f.kind for f in record.flags})
    out.print(
        f"\n[dim]flags: {', '.join(kinds) or 'none'} · model calls: {record.model_calls} · thread: {record.thread_id}[/]"
    )


def register(app: typer.Typer) -> None:
    app.command()(ask)
