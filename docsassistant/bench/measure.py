"""How the benchmarks measure (CPU, RSS, latency percentiles, the machine) and the targets they report against."""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from docsassistant.config import Settings
from docsassistant.evaluation import percentile

# Targets from the performance brief (docs/performance.md).
TARGET_EMBED_RATIO = 1.15
TARGET_REINGEST_SHARE = 0.05
TARGET_PEAK_RSS_MB = 1536
TARGET_P50_MS = 10.0  # search_docs on the 6.4k-chunk store (issue 8)
TARGET_P95_MS = 25.0
TARGET_P95_MS_AT_SCALE = 50.0  # at 100k chunks (`bench inflate 100000`)
SCALE_CHUNKS = 50_000  # from this store size on, the at-scale target applies
TARGET_ANN_P95_MS = 50.0
TARGET_ANN_RECALL = 0.95
BENCH_TABLE = "bench_chunks"


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process so far (all its threads, torch's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _proc_cpu_s(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU seconds of a process from /proc; (0, 0) if unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def server_cpu_seconds(settings: Settings) -> float | None:
    """CPU seconds used so far by the embedded PostgreSQL (postmaster, its live and reaped
    children); None with DATABASE_URL or off Linux."""
    pid_file = settings.pg_dir / "postmaster.pid"
    if settings.database_url or not pid_file.is_file() or not Path("/proc").is_dir():
        return None
    try:
        postmaster = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    own, reaped = _proc_cpu_s(postmaster)
    total = own + reaped
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == postmaster:
            total += _proc_cpu_s(int(stat.parent.name))[0]
    return total


def machine_busy_seconds() -> float | None:
    """CPU seconds all processes on the machine have been busy (from /proc/stat), summed over CPUs."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """Wall time, this process's CPU, the embedded server's CPU and the whole machine's busy
    CPU over a block: whatever remains of the machine's busy time was other work."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.figures: dict[str, float | None] = {}

    def __enter__(self) -> CpuMeter:
        self._start = (
            time.perf_counter(),
            cpu_seconds(),
            server_cpu_seconds(self.settings),
            machine_busy_seconds(),
        )
        return self

    def __exit__(self, *exc: object) -> None:
        wall, own, server, busy = self._start
        end_server, end_busy = server_cpu_seconds(self.settings), machine_busy_seconds()
        self.figures = {
            "wall_s": time.perf_counter() - wall,
            "process_cpu_s": cpu_seconds() - own,
            "server_cpu_s": None if server is None or end_server is None else end_server - server,
            "machine_busy_cpu_s": None if busy is None or end_busy is None else end_busy - busy,
        }
        known = [self.figures["process_cpu_s"], self.figures["server_cpu_s"]]
        if self.figures["machine_busy_cpu_s"] is not None and None not in known:
            self.figures["other_cpu_s"] = self.figures["machine_busy_cpu_s"] - sum(known)


def load_average() -> list[float]:
    """1/5/15-minute load averages: other work on the machine skews wall times."""
    return [round(x, 2) for x in os.getloadavg()]


def set_torch_threads(threads: int | None) -> int | None:
    """Optionally change torch's intra-op thread count (a benchmark knob); return the count in
    use, or None when torch is not loaded (the ONNX embedder does not need it)."""
    if not threads and "torch" not in sys.modules:
        return None
    import torch

    if threads:
        torch.set_num_threads(threads)
    return int(torch.get_num_threads())


def peak_rss_mb() -> float:
    """This process's peak resident set size (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latency_summary(samples_ms: list[float]) -> dict:
    return {
        "n": len(samples_ms),
        "p50_ms": percentile(samples_ms, 50),
        "p95_ms": percentile(samples_ms, 95),
        "p99_ms": percentile(samples_ms, 99),
        "mean_ms": float(np.mean(samples_ms)) if samples_ms else None,
        "max_ms": max(samples_ms) if samples_ms else None,
    }
