"""The cells of an experiment's grid: one run directory per (configuration, seed).

A cell is an ordinary run made by the ordinary commands, so it resumes like any run:

* agent: `imagine-tf train` to ``num_epochs`` (one thread), then `imagine-tf eval` with
  ``repetitions`` episodes per goal, at the run's N and at each of ``eval_num_objects``; a
  configuration with "fork_from" starts as `imagine-tf train --fork-from` the source
  configuration's cell of the same seed, once that cell is finished (`Cell.source`);
* reward: `imagine-tf reward train` (supervised, on the TFDS dataset);
* reward_study: `imagine-tf reward study --seeds S` with the configuration's gin files and
  bindings (e.g. ``RewardStudyConfig.ensemble_size = 3``: one ensemble per seed).

A cell is finished when every result the experiment reads exists: the evaluation of its last
epoch at the run's N and at each of ``eval_num_objects`` (agent), or its ``metrics.json``
(reward).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import pathlib
import sys

from imagine_tf.experiments.spec import ExperimentSpec
from imagine_tf.reward.layout import METRICS_JSON
from imagine_tf.runs import layout as run_layout
from imagine_tf.reward.config import read_reward_configs

CLI = [sys.executable, "-m", "imagine_tf.cli.main"]


@dataclasses.dataclass(frozen=True)
class Cell:
    """One run of the grid."""

    spec: ExperimentSpec
    label: str
    seed: int
    root: pathlib.Path  # the experiment's directory
    repository: pathlib.Path  # where the configurations' paths start

    @property
    def name(self) -> str:
        return f"{self.label}_s{self.seed}"

    @property
    def num_epochs(self) -> int:
        """The epoch this cell trains to and is evaluated at."""
        return self.spec.num_epochs_of(self.label)

    @property
    def source(self) -> "Cell | None":
        """The cell this one forks from (same seed), or None."""
        label = self.spec.fork_of(self.label)
        return None if label is None else dataclasses.replace(self, label=label)

    def ready(self) -> bool:
        """Whether the cell can start: it forks from nothing, or from a finished cell."""
        return self.source is None or self.source.finished()

    @property
    def home(self) -> tuple[pathlib.Path, str]:
        """(experiment directory, run name) of the run directory: this experiment's, or, for
        a configuration with "runs_of": "OTHER/LABEL", OTHER's run of LABEL and this seed in
        the sibling directory ``ROOT/../OTHER`` (the same runs, trained once)."""
        shared = self.spec.runs_of(self.label)
        if shared is None:
            return self.root, self.name
        other, label = shared
        return self.root.parent / other, f"{label}_s{self.seed}"

    @property
    def directory(self) -> pathlib.Path:
        root, name = self.home
        return root / name

    @property
    def log(self) -> pathlib.Path:
        root, name = self.home
        return root / f"{name}.log"

    @property
    def code_versions_file(self) -> pathlib.Path:
        """One line per start of the cell: the code version it ran (`report.code_version`)."""
        root, name = self.home
        return root / f"{name}.code_versions"

    def code_versions(self) -> list[str]:
        """The distinct code versions the cell ran, in order; [] if none was recorded."""
        if not self.code_versions_file.exists():
            return []
        lines = self.code_versions_file.read_text().split()
        return list(dict.fromkeys(lines))

    def _gin_flags(self) -> list[str]:
        configuration = self.spec.configurations[self.label]
        flags = []
        for gin_file in configuration.get("gin_files", []):
            flags += ["--gin-file", gin_file]  # relative to the repository: the commands' cwd
        for binding in configuration.get("bindings", []):
            flags += ["--gin-binding", binding]
        return flags

    def commands(self) -> list[list[str]]:
        """The commands still to run, in order (none when finished)."""
        extra = list(self.spec.configurations[self.label].get("args", []))
        if self.spec.kind in ("reward", "reward_study"):
            return self._reward_commands(extra)
        trained = self._epochs_trained()
        for epoch in self.spec.read_epochs_of(self.label):  # declared earlier reads first
            if trained < epoch:
                return self._train_commands(extra, epoch)
            if trained == epoch and not self.read_epoch_file(epoch).exists():
                return [self._eval_command(None)]
        if trained < self.num_epochs:
            return self._train_commands(extra, self.num_epochs)
        return [
            self._eval_command(num_objects)
            for num_objects, path in self._result_files()
            if not path.exists()
        ]

    def read_epoch_file(self, epoch: int) -> pathlib.Path:
        """The run's evaluation at a declared earlier epoch (`ExperimentSpec.read_epochs_of`)."""
        return run_layout.evaluation_file(self.directory, epoch)

    def _eval_command(self, num_objects: int | None) -> list[str]:
        """`imagine-tf eval` of the run's last checkpoint at N = ``num_objects`` (None: its own)."""
        return CLI + [
            "eval",
            "--root-dir",
            str(self.directory),
            "--repetitions",
            str(self.spec.repetitions),
            *([] if num_objects is None else ["--num-objects", str(num_objects)]),
        ]

    def _reward_commands(self, extra: list[str]) -> list[list[str]]:
        """A reward or reward_study cell's command still to run (none when finished)."""
        if self.results_file().exists():
            return []
        if self.spec.kind == "reward_study":
            return [
                CLI
                + [
                    "reward",
                    "study",
                    "--root-dir",
                    str(self.directory),
                    "--seeds",
                    str(self.seed),
                    *self._gin_flags(),
                    *extra,
                ]
            ]
        return [
            CLI
            + [
                "reward",
                "train",
                "--root-dir",
                str(self.directory),
                *self._gin_flags(),
                "--gin-binding",
                f"RewardTrainConfig.seed = {self.seed}",
                *extra,
            ]
        ]

    def _train_commands(self, extra: list[str], num_epochs: int) -> list[list[str]]:
        """The agent cell's `imagine-tf train` command to ``num_epochs`` (a fork's from its
        source cell), with the evaluation of that epoch."""
        # The training and its evaluation at the run's own N: which N are other than the
        # run's own is known once it wrote its config.json (the runner asks again after
        # each command).
        fork = [] if self.source is None else ["--fork-from", str(self.source.directory)]
        return [
            CLI
            + [
                "train",
                "--threads",
                "1",
                *fork,
                "--root-dir",
                str(self.directory),
                *self._gin_flags(),
                "--gin-binding",
                f"TrainConfig.seed = {self.seed}",
                "--num-epochs",
                str(num_epochs),
                "--eval-repetitions",  # the own-N evaluation without a process of its own
                str(self.spec.repetitions),
                *extra,
            ]
        ]

    @functools.cached_property
    def _study_run(self) -> str:
        """The study's directory of this seed: ``ARCH_sS`` or, for an ensemble, ``ARCH_xK_sS``
        (the first architecture the configuration's gin files and bindings study; parsed once
        per cell)."""
        from imagine_tf.reward.ensemble import ensemble_directory

        configuration = self.spec.configurations[self.label]
        gin_files = [self.repository / f for f in configuration.get("gin_files", [])]
        config, study = read_reward_configs(gin_files, configuration.get("bindings", []))
        architecture, size = study.architectures_of(config)[0], study.ensemble_size
        if size > 1:
            return ensemble_directory(architecture, self.seed, size)
        return f"{architecture}_s{self.seed}"

    def _trained_num_objects(self) -> int | None:
        """The run's N (its config.json), None before it has one."""
        config = self.directory / run_layout.CONFIG_JSON
        return json.loads(config.read_text()).get("num_objects") if config.exists() else None

    def _epochs_trained(self) -> int:
        progress = self.directory / run_layout.PROGRESS
        if not progress.exists():
            return 0
        lines = progress.read_text().splitlines()
        return json.loads(lines[-1])["epoch"] if lines else 0

    def results_file(self, num_objects: int | None = None) -> pathlib.Path:
        """Where the cell's results are (at another N: its evaluation at that N)."""
        if self.spec.kind == "reward":
            return self.directory / METRICS_JSON
        if self.spec.kind == "reward_study":
            return self.directory / self._study_run / METRICS_JSON
        return self._evaluation_file(num_objects, self._trained_num_objects())

    def _evaluation_file(self, num_objects: int | None, trained: int | None) -> pathlib.Path:
        """An agent run's evaluation of its last epoch at N = ``num_objects`` (None, or the
        run's N ``trained``: the unsuffixed file)."""
        suffix = "" if num_objects in (None, trained) else f"_n{num_objects}"
        return run_layout.evaluation_file(self.directory, self.num_epochs, suffix)

    def result_files(self) -> dict[int | None, pathlib.Path]:
        """{N: file} of every result the experiment reads: None for the run's own N, then each
        of ``eval_num_objects`` (agent; the run's N maps to the same file as None)."""
        if self.spec.kind != "agent":
            return {None: self.results_file()}
        trained = self._trained_num_objects()  # read once
        numbers = (None, *self.spec.eval_num_objects)
        return {n: self._evaluation_file(n, trained) for n in numbers}

    def _result_files(self) -> list[tuple[int | None, pathlib.Path]]:
        """(N, file) of each distinct result file, the first N that names it."""
        files = {}
        for num_objects, path in self.result_files().items():
            files.setdefault(path, num_objects)
        return [(num_objects, path) for path, num_objects in files.items()]

    def finished(self) -> bool:
        """Whether every result the experiment reads exists (the module docstring)."""
        return all(path.exists() for _, path in self._result_files())

    def state(self) -> str:
        """Where the cell stands, for ``--list``: "finished", "to run", or an unfinished agent
        run's progress ("epoch 8 of 16", "evaluated at 2 of 8 N")."""
        files = self._result_files()
        done = sum(path.exists() for _, path in files)
        if done == len(files):
            return "finished"
        epochs = self._epochs_trained() if self.spec.kind == "agent" else 0
        if epochs == 0:
            return "to run"
        if epochs < self.num_epochs:
            return f"epoch {epochs} of {self.num_epochs}"
        return f"evaluated at {done} of {len(files)} N"

    def curves(self) -> list[dict]:
        """The in-training records (agent): progress.jsonl, up to the cell's epochs (a fork's
        include its source's, up to the fork)."""
        progress = self.directory / run_layout.PROGRESS
        if self.spec.kind != "agent" or not progress.exists():
            return []
        records = [json.loads(line) for line in progress.read_text().splitlines()]
        return [r for r in records if r["epoch"] <= self.num_epochs]


def grid(spec: ExperimentSpec, root: pathlib.Path, repository: pathlib.Path) -> list[Cell]:
    """Every cell, seed-major (all configurations of seed 0 first: a partial grid is balanced)."""
    return [
        Cell(spec, label, seed, root, repository)
        for seed in range(spec.seeds)
        for label in spec.configurations
        if seed < spec.seeds_of(label)
    ]
