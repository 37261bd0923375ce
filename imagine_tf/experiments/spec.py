"""An experiment: a grid of configurations × seeds, declared in a gin file.

``configs/experiments/NAME.gin`` binds `ExperimentSpec`: which runs make the grid (each
configuration is gin files and bindings, each cell one ordinary, resumable run directory), how
they are evaluated, which metrics are compared, by which pairs, and which figure draws them.
Paths in a configuration are relative to the repository root (the directory that holds
``configs/``).
"""

from __future__ import annotations

import dataclasses
import pathlib

import gin

KINDS = ("agent", "reward", "reward_study")
FIGURES = ("curves", "objects", "types", "bars")
EXPERIMENTS_DIR = pathlib.Path("configs") / "experiments"


@gin.configurable
@dataclasses.dataclass(frozen=True)
class ExperimentSpec:
    """A grid of runs and how to compare them.

    Attributes:
      name: the experiment's name (its file's stem).
      kind: "agent" (`imagine-tf train` + `imagine-tf eval`), "reward" (`imagine-tf reward
        train`, supervised) or "reward_study" (`imagine-tf reward study` for one seed: its gin
        files and bindings choose the study, e.g. ``RewardStudyConfig.ensemble_size``).
      configurations: {label: {"gin_files": [...], "bindings": [...], "args": [...],
        "seeds": S}}; "args" are extra command-line arguments of the cell's training command
        (paths, threads); "seeds" (optional) runs this configuration with fewer seeds.
      seeds: how many seeds per configuration (0 .. seeds − 1).
      num_epochs: agent runs train this many epochs.
      repetitions: evaluation episodes per goal (agent; the paper's 30).
      eval_num_objects: agent runs are also evaluated at these N (the objects curve).
      metrics: {label: dotted path in a cell's results} (agent: its ``evaluations/
        epoch_EEEE.json``; reward: its ``metrics.json``), e.g. "test_success",
        "per_type.5", "summary.one_object.test.f1".
      comparisons: pairs (a, b) of configurations: Welch's t-test of a against b, per metric.
      figure: "curves" (SR against episodes), "objects" (SR against N), "types" (per-type
        bars) or "bars" (one bar per metric and configuration).
      description: what the experiment tests, for the report.
    """

    name: str = "experiment"
    kind: str = "agent"
    configurations: dict = dataclasses.field(default_factory=dict)
    seeds: int = 10
    num_epochs: int = 15
    repetitions: int = 30
    eval_num_objects: tuple = ()
    metrics: dict = dataclasses.field(default_factory=dict)
    comparisons: tuple = ()
    figure: str = "bars"
    description: str = ""

    def seeds_of(self, label: str) -> int:
        """The seeds of configuration ``label``: its own "seeds", at most `seeds`."""
        return min(self.configurations[label].get("seeds", self.seeds), self.seeds)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"ExperimentSpec.kind must be one of {KINDS}, got {self.kind!r}.")
        if self.figure not in FIGURES:
            raise ValueError(f"ExperimentSpec.figure must be one of {FIGURES}, got {self.figure!r}.")
        if not self.configurations or self.seeds < 1 or not self.metrics:
            raise ValueError(
                f"Experiment {self.name!r} needs configurations, seeds >= 1 and metrics; got "
                f"{len(self.configurations)} configurations, {self.seeds} seeds, "
                f"{len(self.metrics)} metrics."
            )
        for label, configuration in self.configurations.items():
            unknown = set(configuration) - {"gin_files", "bindings", "args", "seeds"}
            seeds = configuration.get("seeds", 1)
            if unknown or "/" in label or not label or not isinstance(seeds, int) or seeds < 1:
                raise ValueError(
                    f"Configuration {label!r} of {self.name!r}: a label without '/' and the keys "
                    f"gin_files, bindings, args, seeds (an int >= 1); got {configuration}."
                )
        for pair in self.comparisons:
            missing = [c for c in pair if c not in self.configurations]
            if len(pair) != 2 or missing:
                raise ValueError(
                    f"Comparison {pair!r} of {self.name!r}: two of the configurations "
                    f"{sorted(self.configurations)}."
                )


def experiment_path(name_or_path: str, repository: pathlib.Path) -> pathlib.Path:
    """The experiment file of a name ("architectures") or a path."""
    candidate = pathlib.Path(name_or_path)
    if candidate.suffix == ".gin" and candidate.is_file():
        return candidate
    named = repository / EXPERIMENTS_DIR / f"{name_or_path}.gin"
    if named.is_file():
        return named
    known = sorted(p.stem for p in (repository / EXPERIMENTS_DIR).glob("*.gin"))
    raise FileNotFoundError(
        f"No experiment {name_or_path!r}: the experiments are {known} "
        f"({repository / EXPERIMENTS_DIR}), or give a .gin file."
    )


def load_experiment(path: pathlib.Path) -> ExperimentSpec:
    """Parses an experiment file (only `ExperimentSpec` bindings) into its spec."""
    with gin.unlock_config():
        gin.clear_config()
        gin.parse_config_file(str(path))
        spec = ExperimentSpec()
        gin.clear_config()
    if spec.name != path.stem:
        raise ValueError(f"{path} binds ExperimentSpec.name = {spec.name!r}: use {path.stem!r}.")
    return spec


def repository_root(start: pathlib.Path | None = None) -> pathlib.Path:
    """The directory holding ``configs/experiments`` (the current one, or an ancestor)."""
    start = (start or pathlib.Path.cwd()).resolve()
    for directory in (start, *start.parents):
        if (directory / EXPERIMENTS_DIR).is_dir():
            return directory
    raise FileNotFoundError(
        f"No {EXPERIMENTS_DIR} in {start} or above: run `imagine-tf experiment` from the "
        "imagine-tf repository (or one of its sub-directories)."
    )
