"""`docsassistant scan-injection`: the chunks of a store the injection detector flags."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from docsassistant.cli.errors import friendly_errors

console = Console()


def scan_injection(
    component: Annotated[str | None, typer.Option("--component", "-c", help="Only this component.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json-out", help="Also write the list as JSON.")] = None,
) -> None:
    """List every stored chunk with a sentence the agent would keep out of its prompts."""
    from docsassistant.injection_scan import scan_store

    start = time.perf_counter()
    with friendly_errors():
        scanned, flagged = scan_store(component)
    for chunk in flagged:
        where = f"{chunk.component}/{chunk.source_path}" + (f" § {chunk.section}" if chunk.section else "")
        console.print(
            f"[bold]#{chunk.chunk_id}[/] {where}  ({', '.join(chunk.reasons)}; margin {chunk.margin:+.3f})",
            highlight=False,
        )
        for sentence in chunk.sentences:
            console.print(f"    {' '.join(sentence.split())[:200]}", highlight=False, markup=False)
    seconds = time.perf_counter() - start
    console.print(f"{len(flagged)} of {scanned} chunks flagged ({seconds:.1f} s).", highlight=False)
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        data = {"scanned": scanned, "flagged": [c.model_dump() for c in flagged]}
        json_out.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        console.print(f"Wrote {json_out}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("scan-injection")(scan_injection)
