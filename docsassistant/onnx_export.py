"""Build the ONNX model of a local sentence-transformers folder, once, into the data folder.

Nothing is downloaded: the installed weights are exported with `torch.onnx.export` (and,
for the int8 recipe, quantised with ONNX Runtime) in a child process
(`python -m docsassistant.onnx_export`), so the app never imports torch (~5 s, ~600 MB) just to embed. The file is written under a
temporary name and renamed into place, and builds are serialised by a file lock, so a
killed build leaves no half file and two processes never build at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

# Setting value -> recipe. The recipe is part of the cached file's name and of the store's
# embedder identity: change it whenever the export or the quantisation changes the vectors,
# so old stores ask for `reindex`.
RECIPES: dict[str, str] = {
    "onnx": "fp32-v1",  # float32 graph: torch's vectors (cosine >= 0.9999998), ~2x its speed
    "onnx-int8": "int8-v1",  # 1.15-1.2x faster again, mean cosine 0.995 (docs/performance.md)
}
OPSET = 17


def model_fingerprint(model_dir: Path) -> str:
    """Short hash of the model's config and weights: another model never reuses a cached file."""
    digest = hashlib.sha256()
    for name in ("config.json", "model.safetensors", "pytorch_model.bin"):
        path = model_dir / name
        if path.is_file():
            digest.update(name.encode())
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:12]


def cached_model_path(model_dir: Path, cache_dir: Path, recipe: str) -> Path:
    return cache_dir / f"{model_dir.name}-{model_fingerprint(model_dir)}-{recipe}.onnx"


def ensure_model(
    model_dir: Path, cache_dir: Path, recipe: str, build: Callable[[Path, Path], None] | None = None
) -> Path:
    """The cached model of `recipe` for `model_dir`, built first if missing (about 10 s).

    `build(model_dir, target)` writes the model to `target` (default: a child process).
    """
    if recipe not in RECIPES.values():
        raise ValueError(f"Unknown ONNX recipe {recipe!r}; known: {', '.join(RECIPES.values())}.")
    target = cached_model_path(model_dir, cache_dir, recipe)
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive(target.with_suffix(".lock")):
        if target.is_file():  # another process built it while we waited
            return target
        for stale in cache_dir.glob(".build-*"):  # left by a killed build (we hold the lock)
            shutil.rmtree(stale, ignore_errors=True)
        with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".build-") as work:
            built = Path(work) / f"model-{recipe}.onnx"
            (build or functools.partial(build_in_child, recipe=recipe))(model_dir, built)
            os.replace(built, target)  # atomic on one file system
    return target


def with_layer_output(model_file: Path, layer: int) -> Path:
    """The cached model with the hidden state after `layer` (1-based) as a second output (the
    injection check's features), written once beside it under its lock, atomically."""
    target = model_file.with_name(f"{model_file.stem}-layer{layer}.onnx")
    if target.is_file():
        return target
    with _exclusive(model_file.with_suffix(".lock")):
        if target.is_file():
            return target
        import onnx

        model = onnx.load(str(model_file))
        marker = f"layer.{layer - 1}/output/LayerNorm"
        # The layer norm itself, not the int8 recipe's quantize nodes named after its output.
        names = [
            n.output[0] for n in model.graph.node if marker in n.name and n.op_type == "LayerNormalization"
        ]
        if not names:
            raise RuntimeError(f"{model_file} has no output of transformer layer {layer}")
        model.graph.output.append(onnx.helper.make_tensor_value_info(names[-1], onnx.TensorProto.FLOAT, None))
        partial = target.with_name(f".{target.name}.part")
        onnx.save(model, str(partial))
        os.replace(partial, target)
    return target


def build_in_child(model_dir: Path, target: Path, recipe: str) -> None:
    child = subprocess.run(
        [sys.executable, "-m", "docsassistant.onnx_export", str(model_dir), str(target), recipe],
        capture_output=True,
        text=True,
    )
    if child.returncode != 0 or not target.is_file():
        raise RuntimeError(
            f"Building the ONNX embedder from {model_dir} failed (exit {child.returncode}). "
            f"Set DOCSASSISTANT_EMBEDDER=torch to run without it.\n{child.stderr[-2000:]}"
        )


def build(model_dir: Path, target: Path, recipe: str) -> None:
    """Export to float32 ONNX beside `target`, then quantise it or move it into `target`.

    The float32 graph is left as exported: ONNX Runtime fuses it when the session loads
    (LayerNorm, GELU, attention); fusing it offline with onnxruntime.transformers'
    optimizer measured no faster (14.34 vs 14.30 texts per CPU-second)."""
    fp32 = target.with_name("model-fp32-export.onnx")
    export_fp32(model_dir, fp32)
    if recipe.startswith("int8-"):
        quantize_int8(fp32, target)
        fp32.unlink()
    else:
        os.replace(fp32, target)


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def export_fp32(model_dir: Path, target: Path) -> None:
    """Export the transformer (without pooling) to ONNX with dynamic batch and length."""
    import torch
    import transformers
    from transformers import AutoModel

    transformers.logging.disable_progress_bar()
    model = AutoModel.from_pretrained(str(model_dir)).eval()

    class _Wrapper(torch.nn.Module):
        """Keyword arguments: positional ones clash with transformers 5's forward signature."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            out = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    sample = torch.ones((2, 8), dtype=torch.int64)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    with torch.inference_mode():
        torch.onnx.export(
            _Wrapper(),
            (sample, sample, torch.zeros_like(sample)),
            str(target),
            dynamo=False,
            opset_version=OPSET,
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={**axes, "last_hidden_state": {0: "batch", 1: "sequence"}},
        )


def quantize_int8(source: Path, target: Path) -> None:
    """Dynamic int8, per output channel, on the weight MatMuls except each layer's
    feed-forward output projection.

    Per-tensor scales lose too much (mean cosine to torch ~0.93). Only MatMuls with a
    constant weight are quantised (ONNX Runtime's MatMulConstBOnly default), so the
    attention products and the embedding lookups stay float32. The feed-forward output
    projections read the GELU activations, whose outliers a per-run uint8 scale handles
    worst: keeping them float32 raised the mean cosine to torch on 256 corpus chunks from
    0.9920 to 0.9952 (min 0.9788 → 0.9881) for ~20 % more CPU (docs/performance.md).
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(source), load_external_data=False).graph
    keep_float = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and "/output/dense/" in node.name and "/attention/" not in node.name
    ]
    quantize_dynamic(
        source,
        target,
        per_channel=True,
        op_types_to_quantize=["MatMul"],
        weight_type=QuantType.QInt8,
        nodes_to_exclude=keep_float,
    )


if __name__ == "__main__":
    import logging

    logging.disable(logging.WARNING)  # quantize_dynamic's pre-processing advice, on every build
    build(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3])
