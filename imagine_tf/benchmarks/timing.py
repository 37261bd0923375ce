"""What the benchmarks share: timing a call, a process's resident memory."""

from __future__ import annotations

import pathlib
import time

import numpy as np


def timed(call, count: int, warm_up: int = 0) -> np.ndarray:
    """Seconds of ``count`` calls, after ``warm_up`` untimed ones."""
    for _ in range(warm_up):
        call()
    times = np.empty(count)
    for i in range(count):
        start = time.perf_counter()
        call()
        times[i] = time.perf_counter() - start
    return times


def resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (Linux /proc)."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_together(loops) -> float:
    """Starts one thread per callable of ``loops``, waits for all; the seconds it took."""
    import threading

    threads = [threading.Thread(target=loop) for loop in loops]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start
