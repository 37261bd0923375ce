"""`GridRunner` asks a cell for its commands again after each one (training decides which N
are other N than the run's own), and fails a cell whose commands ran without its results."""

import dataclasses
import pathlib
import sys

from imagine_tf.experiments.cells import Cell
from imagine_tf.experiments.runner import GridRunner
from imagine_tf.experiments.spec import load_experiment

ROOT = pathlib.Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class TwoStepCell(Cell):
    """Its second command is known only once the first has run (like an evaluation at N = 3
    of a run that turns out to train at N = 10); ``skip_second`` makes the second write
    nothing."""

    skip_second: bool = False

    def _touch(self, name: str) -> list[str]:
        path = "" if name == "second" and self.skip_second else str(self.directory / name)
        return [sys.executable, "-c", f"p = {path!r}; p and open(p, 'w')", name]

    def commands(self) -> list[list[str]]:
        self.directory.mkdir(parents=True, exist_ok=True)
        if not (self.directory / "first").exists():
            return [self._touch("first")]
        if not (self.directory / "second").exists():
            return [self._touch("second")]
        return []

    def finished(self) -> bool:
        return not self.commands()


def test_a_cell_runs_the_commands_its_first_command_reveals(tmp_path):
    spec = load_experiment(ROOT / "configs" / "experiments" / "objects.gin")
    done = TwoStepCell(spec, "ma_n3_10", 0, tmp_path, ROOT)
    stuck = TwoStepCell(spec, "ma_n3_10", 1, tmp_path, ROOT, skip_second=True)
    messages = []
    runner = GridRunner([done, stuck], 1)
    runner.report = messages.append
    assert runner.run() == ["ma_n3_10_s1"]
    assert (done.directory / "second").exists() and done.finished()
    assert "ma_n3_10_s0: finished" in messages
    assert any(m.startswith("ma_n3_10_s1: its commands ran but its results") for m in messages)
