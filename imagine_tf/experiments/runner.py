"""Runs an experiment's unfinished cells, P at a time, each command a subprocess.

Every command of a cell resumes what an earlier attempt left (the runs are resumable), so
running the grid again after an interruption only finishes what is missing. A cell that forks
from another (`Cell.source`) waits until that one is finished; cells are taken in grid order
among those ready. A failing command stops its cell and the cells that fork from it (the others
go on); its log (``ROOT/CELL.log``) has the error. Ctrl-C or SIGTERM stops the children and
returns.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from typing import Callable, Sequence

from imagine_tf.experiments.cells import Cell
from imagine_tf.provenance import code_version


class GridRunner:
    """Runs cells' commands with at most ``parallel`` cells at once.

    Args:
      cells: the grid's cells (finished ones are skipped).
      parallel: P, cells at once (each command uses one TensorFlow thread for training).
      report: called with a line of progress.
    """

    def __init__(
        self, cells: Sequence[Cell], parallel: int = 1, report: Callable[[str], None] = print
    ):
        if parallel < 1:
            raise ValueError(f"parallel must be >= 1, got {parallel}.")
        self.cells, self.parallel, self.report = list(cells), parallel, report
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._children: set[subprocess.Popen] = set()
        self.failed: list[str] = []

    def run(self) -> list[str]:
        """Runs until every cell is finished, failed or stopped; the failed cells' names."""
        pending = [cell for cell in self.cells if cell.commands()]
        self.report(
            f"{len(self.cells) - len(pending)} of {len(self.cells)} cells finished; "
            f"running {len(pending)}, {self.parallel} at a time"
        )
        workers = [
            threading.Thread(target=self._work, args=(pending,), daemon=True)
            for _ in range(min(self.parallel, len(pending)))
        ]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                while worker.is_alive():
                    worker.join(timeout=0.5)
        except KeyboardInterrupt:
            self.stop()
            for worker in workers:
                worker.join()
        return self.failed

    def stop(self) -> None:
        """Stops the running commands (SIGTERM: the runs checkpoint what they finished)."""
        self._stopping.set()
        with self._lock:
            for child in self._children:
                if child.poll() is None:
                    os.killpg(child.pid, signal.SIGTERM)

    def _work(self, pending: list[Cell]) -> None:
        while not self._stopping.is_set():
            with self._lock:
                if not pending:
                    return
                cell = self._next_ready(pending)
            if cell is None:  # every pending cell waits for a running one
                time.sleep(1.0)
                continue
            self._run_cell(cell)

    def _next_ready(self, pending: list[Cell]) -> Cell | None:
        """Pops the first pending cell that can start; drops (as failed) the cells whose
        source failed. Called with the lock held."""
        for cell in list(pending):
            source = cell.source
            if source is not None and source.name in self.failed:
                pending.remove(cell)
                self.failed.append(cell.name)
                self.report(f"{cell.name}: not started, its source {source.name} failed")
            elif cell.ready():
                pending.remove(cell)
                return cell
        return None

    def _run_cell(self, cell: Cell) -> None:
        cell.directory.parent.mkdir(parents=True, exist_ok=True)
        with open(cell.code_versions_file, "a") as versions:
            versions.write(code_version(cell.repository) + "\n")
        started = set()
        while True:  # the commands again after each one: training decides which N are other N
            remaining = [c for c in cell.commands() if tuple(c) not in started]
            if not remaining or self._stopping.is_set():
                break
            command = remaining[0]
            started.add(tuple(command))
            self.report(f"{cell.name}: {' '.join(command[3:5])}")
            with open(cell.log, "a") as log:
                environment = dict(os.environ, PYTHONUNBUFFERED="1")
                child = subprocess.Popen(
                    command,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=cell.repository,
                    env=environment,
                    start_new_session=True,
                )
                with self._lock:
                    self._children.add(child)
                code = child.wait()
                with self._lock:
                    self._children.discard(child)
            if code != 0:
                if not self._stopping.is_set():
                    with self._lock:
                        self.failed.append(cell.name)
                    self.report(f"{cell.name}: failed (exit {code}), see {cell.log}")
                return
        if self._stopping.is_set():
            return
        if cell.finished():
            self.report(f"{cell.name}: finished")
        else:
            with self._lock:
                self.failed.append(cell.name)
            self.report(
                f"{cell.name}: its commands ran but its results are missing, see {cell.log}"
            )
