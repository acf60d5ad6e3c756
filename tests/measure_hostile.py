"""Print what each hostile file of issue 7 costs to index: seconds and peak RSS.

    DOCSASSISTANT_DATA_DIR=/tmp/hostile-store .venv/bin/python tests/measure_hostile.py [folder]

Each file is indexed by `index_paths` in its own fresh process (so peak RSS is that
file's alone; wall and CPU seconds are timed after the store is opened and the embedding
model loaded, as in the running app; "by file" is how far the file raised the peak), into component `hostile-measure` of the configured store; the files are
generated into `folder` (default: a temporary folder). Target (issue 7): every file
refused or indexed within 10 s and 1 GB.

A second table loads and chunks (no embedding) variants just under the caps, to show the
loaders stay linear where nothing refuses them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from hostile_files import issue_batch, nested_divs, one_line, repeated_heading

CHILD = """
import json, resource, sys, time
from pathlib import Path
from docsassistant.ingest import index_paths
from docsassistant.config import get_settings
from docsassistant.embeddings import get_embedder
from docsassistant.store import open_store
open_store()  # connecting, checking the schema and loading the model (as the app does
get_embedder(get_settings()).embed_query("warm up")  # once per process) are not the file's cost
base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
path = Path(sys.argv[1])
start, cpu = time.perf_counter(), time.process_time()
result = index_paths([path], "hostile-measure", base=path.parent, force=True).results[0]
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"status": result.status, "seconds": seconds, "cpu": cpu, "peak_mb": peak_mb,
                  "added_mb": peak_mb - base_mb, "reason": result.reason}))
"""

LOAD_ONLY = """
import json, resource, sys, time
from pathlib import Path
from docsassistant.chunking import chunk_document
from docsassistant.loaders import load_document
start, cpu = time.perf_counter(), time.process_time()
chunks = len(chunk_document(load_document(Path(sys.argv[1]))))
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"status": f"{chunks} chunks", "seconds": seconds, "cpu": cpu, "peak_mb": peak_mb,
                  "added_mb": None, "reason": None}))
"""


def run(code: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def show(name: str, path: Path, r: dict) -> None:
    size = f"{path.stat().st_size / 1e6:.2f} MB"
    print(
        f"{name:<24}{size:>9}  {r['status']:<12}{r['seconds']:>8.2f}{r['cpu']:>8.2f}{r['peak_mb']:>8.0f} MB"
        f"{'' if r['added_mb'] is None else format(r['added_mb'], '>8.0f') + ' MB':>11}  "
        f"{(r['reason'] or '')[:90]}"
    )


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="hostile-"))
    files = issue_batch(folder)
    header = f"{'file':<24}{'size':>9}  {'status':<12}{'wall s':>8}{'CPU s':>8}{'peak RSS':>11}{'by file':>11}  reason"
    print("Indexed with index_paths, one process per file:\n" + header)
    for name, path in files.items():
        show(name, path, run(CHILD, path))
    under = {
        "divs-190.html": nested_divs(folder / "divs-190.html", 190),
        "repeated-heading-1.9.md": repeated_heading(folder / "repeated-heading-1.9.md", 1.9),
        "one-line-1.9.md": one_line(folder / "one-line-1.9.md", 1.9),
    }
    print("\nJust under the caps, loaded and chunked only (no embedding):\n" + header)
    for name, path in under.items():
        show(name, path, run(LOAD_ONLY, path))


if __name__ == "__main__":
    main()
