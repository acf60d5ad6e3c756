"""Print what each hostile file of issue 7 costs to index: seconds and peak RSS.

    DOCSASSISTANT_DATA_DIR=/tmp/hostile-store .venv/bin/python tests/measure_hostile.py [folder]

Each file is indexed by `index_paths` in its own fresh process (so peak RSS is that
file's alone), into component `hostile-measure` of the configured store; the files are
generated into `folder` (default: a temporary folder). Target (issue 7): every file
refused or indexed within 10 s and 1 GB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from hostile_files import issue_batch

CHILD = """
import json, resource, sys, time
from pathlib import Path
from docsassistant.ingest import index_paths
path = Path(sys.argv[1])
start = time.perf_counter()
result = index_paths([path], "hostile-measure", base=path.parent, force=True).results[0]
seconds = time.perf_counter() - start
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"status": result.status, "seconds": seconds, "peak_mb": peak_mb, "reason": result.reason}))
"""


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="hostile-"))
    files = issue_batch(folder)
    print(f"{'file':<22}{'size':>10}  {'status':<8}{'seconds':>9}{'peak RSS':>11}  reason")
    for name, path in files.items():
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        size = f"{path.stat().st_size / 1e6:.2f} MB"
        print(
            f"{name:<22}{size:>10}  {r['status']:<8}{r['seconds']:>9.2f}{r['peak_mb']:>8.0f} MB  "
            f"{(r['reason'] or '')[:90]}"
        )


if __name__ == "__main__":
    main()
