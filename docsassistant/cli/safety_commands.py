"""`docsassistant scan-injection`: the chunks of a store the injection detector flags."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from docsassistant.cli.errors import friendly_errors

if TYPE_CHECKING:
    from docsassistant.agent.injection.classifier import ClassifierWeights

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


def train_injection(
    out: Annotated[
        Path,
        typer.Option(
            help="Where to write the weights (required, so a run never replaces the shipped "
            "classifier by accident; docsassistant/agent/injection/classifier.json to retrain it)."
        ),
    ],
    fixtures: Annotated[Path, typer.Option(help="Folder of the labelled injection fixture sets.")] = Path(
        "tests/fixtures"
    ),
    component: Annotated[
        list[str] | None, typer.Option("--component", "-c", help="Documentation from these components only.")
    ] = None,
    docs: Annotated[
        Path,
        typer.Option(
            help="The bundled docs: their sentences join the documentation (injection.md left out)."
        ),
    ] = Path("docs"),
    jobs: Annotated[
        int, typer.Option(help="Left-out fits run at once (processes); -1 for one per CPU.")
    ] = -1,
    calibration: Annotated[
        Path, typer.Option(help="Labelled sets never trained on that choose threshold and gate.")
    ] = Path("tests/fixtures/calibration"),
) -> None:
    """Train the injection classifier on the fixture sets and the store's documentation sentences."""
    import sqlalchemy as sa

    from docsassistant.agent.injection.calibration import calibrate
    from docsassistant.agent.injection.training import page_sentences, store_sentences, train
    from docsassistant.config import get_settings
    from docsassistant.embeddings import get_embedder
    from docsassistant.store import open_store

    start = time.perf_counter()
    with friendly_errors():
        settings = get_settings()
        with open_store(settings).connect() as conn:
            query = (
                "SELECT content FROM chunks"
                + (" WHERE component = ANY(:c)" if component else "")
                + " ORDER BY id"
            )
            texts = [row.content for row in conn.execute(sa.text(query), {"c": component or []})]
        embedder = get_embedder(settings)
        sample, rest = store_sentences(texts)
        own = page_sentences(docs)
        console.print(
            f"{len(sample):,} documentation sentences sampled ({len(rest):,} left for checking), "
            f"{len(own):,} of the bundled docs."
        )
        weights = train(
            fixtures, sample + own, embedder.detector_features, embedder.identity, check_texts=rest, jobs=jobs
        )
        console.print(
            f"Left-out choice: threshold {weights.threshold}, gate {weights.gate} "
            "(best left-out F1 within the store-rate limit)."
        )
        if calibration.is_dir():
            weights = calibrate(weights, calibration)
            _print_calibration(weights)
    for name, row in weights.leave_one_set_out.items():
        console.print(
            f"  {name:10} rules alone P {row['precision']:.3f} R {row['recall']:.3f}   "
            f"with the classifier P {row['precision_with']:.3f} R {row['recall_with']:.3f}",
            highlight=False,
        )
    check = weights.store_check
    console.print(
        f"Documentation sentences left out of training that it flags alone: {check['flagged_alone']} of "
        f"{check['sentences']:,} at the left-out choice (the same sentences held it to the store-rate limit)."
    )
    out.write_text(weights.model_dump_json() + "\n", encoding="utf-8")  # compact: 80,000 n-grams
    console.print(f"Wrote {out} ({time.perf_counter() - start:.0f} s).", highlight=False)


def calibrate_injection(
    weights: Annotated[Path, typer.Option(help="The trained weights to calibrate.")],
    out: Annotated[Path, typer.Option(help="Where to write the calibrated weights.")],
    sets: Annotated[
        Path, typer.Option(help="Labelled sets never trained on that choose threshold and gate.")
    ] = Path("tests/fixtures/calibration"),
) -> None:
    """Choose the classifier's threshold and gate on calibration sets, without retraining."""
    from docsassistant.agent.injection.calibration import calibrate
    from docsassistant.agent.injection.classifier import ClassifierWeights

    if not sets.is_dir():
        raise typer.BadParameter(f"{sets} is not a folder of labelled sets", param_hint="--sets")
    start = time.perf_counter()
    with friendly_errors():
        calibrated = calibrate(
            ClassifierWeights.model_validate_json(weights.read_text(encoding="utf-8")), sets
        )
    _print_calibration(calibrated)
    out.write_text(calibrated.model_dump_json() + "\n", encoding="utf-8")
    console.print(f"Wrote {out} ({time.perf_counter() - start:.0f} s).", highlight=False)


def _print_calibration(weights: ClassifierWeights) -> None:
    record = weights.calibration
    row = next(
        (r for r in record["rows"] if (r["threshold"], r["gate"]) == (weights.threshold, weights.gate)), None
    )
    sets = len(record["sets"])
    if row is None:
        console.print(f"No pair reaches precision {record['min_precision']} on {sets} calibration sets.")
        return
    caught, misfires = row["caught"], row["misfires"]
    console.print(
        f"Calibrated on {sets} sets: threshold {weights.threshold}, gate {weights.gate}; caught "
        f"{caught} of {row['injections']} (R {caught / row['injections']:.3f}), misfires {misfires} of "
        f"{row['lookalikes']} (P {caught / max(caught + misfires, 1):.3f}).",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    app.command("scan-injection")(scan_injection)
    app.command("train-injection")(train_injection)
    app.command("calibrate-injection")(calibrate_injection)
