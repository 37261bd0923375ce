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
DESIGNS = ("forks", "shared_trunk", "independent")
CONFIGURATION_KEYS = frozenset(
    ("gin_files", "bindings", "args", "seeds", "runs_of", "num_epochs", "fork_from", "read_epochs")
)
RELATIONS = (">", ">=")  # as `statistics.RELATIONS` (no scipy import here)
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
        "seeds": S, "runs_of": "OTHER/LABEL", "num_epochs": E, "fork_from": "LABEL",
        "read_epochs": [E_1, ...]}};
        "args" are extra command-line arguments of the cell's training command (paths,
        threads); "seeds" (optional) runs this configuration with fewer seeds; "runs_of"
        (optional) makes its cells the runs of experiment OTHER's configuration LABEL (same
        seeds, in ``ROOT/../OTHER``): they train once and both experiments read them
        (`load_experiment` copies and checks the settings); "num_epochs" (optional, agent)
        trains this configuration's runs to E epochs instead of the experiment's; "fork_from"
        (optional, agent) starts each of its runs as a fork (`imagine-tf train --fork-from`)
        of configuration LABEL's run of the same seed once that one is finished: the arms of a
        paired design share their history up to LABEL's last epoch; "read_epochs" (optional,
        agent) also evaluates each run, with ``repetitions`` episodes per goal at its own N,
        when it has trained E_i epochs (earlier than its last, later than its fork's source):
        ``evaluations/epoch_EEEE.json``, read as a declared secondary epoch.
      seeds: how many seeds per configuration (0 .. seeds − 1).
      num_epochs: agent runs train this many epochs.
      repetitions: evaluation episodes per goal (agent; the paper's 30).
      eval_num_objects: agent runs are also evaluated at these N (the objects curve).
      metrics: {label: dotted path in a cell's results} (agent: its ``evaluations/
        epoch_EEEE.json``; reward: its ``metrics.json``), e.g. "test_success",
        "per_type.5", "summary.one_object.test.f1".
      comparisons: the report's family of claims, each (a, b[, metric[, relation[,
        margin[, refute_below]]]]): "a RELATION b" on ``metric`` (every metric if absent or
        None; at each N of ``eval_num_objects`` too), relation ">" (default) or ">=", margin
        the effect claimed for ">" (a − b > margin) or the tolerated loss for ">=" (default
        0), refute_below (">" only) the smallest effect of interest below which the claim is
        refuted (default: the margin). Each is tested (paired t or Welch), Holm-adjusted over
        the family and given a verdict on the family-adjusted interval (`statistics.verdict`).
      gate: (a, b, metric) of one declared claim, the positive control: unless it holds, the
        other claims' verdicts are "gate failed" (the study cannot detect an effect).
      design: "forks" (default): two configurations are paired when their cells fork from
        one run of the seed (`paired`: the same "fork_from", or one the other's source), and
        compared with paired tests; else, and always with "independent", Welch's test (runs
        that only share a seed number are independent samples); "shared_trunk": the claims'
        pairs are paired because their runs of one seed are one run up to where they part
        (the same seed and settings until then, as their records show), though not forked.
      curves: {label: key of a ``progress.jsonl`` record} (agent): the per-epoch curves the
        report aggregates and draws (the first two are dated against each other); default
        train and test SR.
      type_claims: configurations on which the report reads the seed paper's per-type
        claims (`secondary.SEED_PAPER_TYPE_CLAIMS`; needs metrics "type 1" … "type 5").
      figure: "curves" (the curves against episodes), "objects" (SR against N), "types" (per-type
        bars) or "bars" (one bar per metric and configuration).
      description: what the experiment tests, for the report.
      paper_values: the paper's figures for configurations of this grid, {label: {metric:
        [mean, std]}} (e.g. Table 1 for two_object's "single"): a row of the table, a marker
        on the bars, and Welch's test of the configuration against them.
      paper_seeds: the seeds behind ``paper_values``' mean ± std (the paper's 10).
      paper_source: where ``paper_values`` come from, for the report.
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
    gate: tuple = ()
    design: str = "forks"
    curves: dict = dataclasses.field(
        default_factory=lambda: {"train SR": "eval_train_success", "test SR": "eval_test_success"}
    )
    type_claims: tuple = ()
    figure: str = "bars"
    description: str = ""
    paper_values: dict = dataclasses.field(default_factory=dict)
    paper_seeds: int = 10
    paper_source: str = "the paper"

    def seeds_of(self, label: str) -> int:
        """The seeds of configuration ``label``: its own "seeds", at most `seeds`."""
        return min(self.configurations[label].get("seeds", self.seeds), self.seeds)

    @property
    def curve_keys(self) -> tuple[str, ...]:
        return tuple(self.curves.values())

    def num_epochs_of(self, label: str) -> int:
        """The epochs configuration ``label`` trains to: its own "num_epochs", or `num_epochs`."""
        return int(self.configurations[label].get("num_epochs", self.num_epochs))

    def read_epochs_of(self, label: str) -> tuple[int, ...]:
        """The earlier epochs at which configuration ``label``'s runs are also evaluated."""
        return tuple(sorted(self.configurations[label].get("read_epochs", ())))

    def fork_of(self, label: str) -> str | None:
        """The configuration whose runs configuration ``label`` forks from, or None."""
        return self.configurations[label].get("fork_from")

    def paired(self, a: str, b: str) -> bool:
        """Whether the cells of ``a`` and ``b`` with one seed are pairs (`design`): forks of one
        run (the same "fork_from"), or one a fork of the other; always with "shared_trunk",
        never with "independent"."""
        if self.design != "forks":
            return self.design == "shared_trunk"
        source_a, source_b = self.fork_of(a), self.fork_of(b)
        return (source_a is not None and source_a == source_b) or b == source_a or a == source_b

    def runs_of(self, label: str) -> tuple[str, str] | None:
        """(experiment, label) whose runs configuration ``label`` shares, or None."""
        shared = self.configurations[label].get("runs_of")
        return None if shared is None else tuple(shared.split("/"))

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"ExperimentSpec.kind must be one of {KINDS}, got {self.kind!r}.")
        if self.figure not in FIGURES:
            raise ValueError(
                f"ExperimentSpec.figure must be one of {FIGURES}, got {self.figure!r}."
            )
        if not self.configurations or self.seeds < 1 or not self.metrics:
            raise ValueError(
                f"Experiment {self.name!r} needs configurations, seeds >= 1 and metrics; got "
                f"{len(self.configurations)} configurations, {self.seeds} seeds, "
                f"{len(self.metrics)} metrics."
            )
        for label, configuration in self.configurations.items():
            self._check_configuration(label, configuration)
        for label, values in self.paper_values.items():
            if label not in self.configurations or not _paper_figures(values, self.metrics):
                raise ValueError(
                    f"ExperimentSpec.paper_values[{label!r}] of {self.name!r}: a configuration "
                    f"of {sorted(self.configurations)} mapped to {{metric: [mean, std]}} with "
                    f"metrics of {sorted(self.metrics)}; got {values!r}."
                )
        if self.design not in DESIGNS:
            raise ValueError(
                f"ExperimentSpec.design must be one of {DESIGNS}, got {self.design!r}."
            )
        self._check_claims()
        types = {f"type {t}" for t in range(1, 6)}
        if self.type_claims and (
            not set(self.type_claims) <= set(self.configurations) or not types <= set(self.metrics)
        ):
            raise ValueError(
                f"ExperimentSpec.type_claims of {self.name!r}: configurations of "
                f"{sorted(self.configurations)}, with metrics 'type 1' … 'type 5'; got "
                f"{self.type_claims!r} and metrics {sorted(self.metrics)}."
            )

    def _check_configuration(self, label: str, configuration: dict) -> None:
        """One configuration's label and keys are valid, and so is its fork."""
        unknown = set(configuration) - CONFIGURATION_KEYS
        seeds = configuration.get("seeds", 1)
        shared = configuration.get("runs_of")
        bad_share = shared is not None and (
            not isinstance(shared, str) or len(shared.split("/")) != 2
        )
        bad_seeds = not isinstance(seeds, int) or seeds < 1
        if unknown or bad_share or bad_seeds or "/" in label or not label:
            raise ValueError(
                f"Configuration {label!r} of {self.name!r}: a label without '/' and the keys "
                "gin_files, bindings, args, seeds (an int >= 1), runs_of "
                "('EXPERIMENT/LABEL'), num_epochs (an int >= 1), fork_from (a label), "
                "read_epochs (ints); "
                f"got {configuration}."
            )
        self._check_fork(label, configuration)

    def _check_claims(self) -> None:
        """The declared comparisons name known configurations and metrics; the gate is one."""
        for comparison in self.comparisons:
            if not _valid_claim(comparison, self.configurations, self.metrics):
                raise ValueError(
                    f"Comparison {comparison!r} of {self.name!r}: (a, b[, metric[, relation[, "
                    f"margin[, refute_below]]]]) with a, b of {sorted(self.configurations)}, "
                    f"metric of {sorted(self.metrics)} or None, relation of {RELATIONS}, "
                    "margin >= 0, refute_below >= margin (for '>' only)."
                )
        claimed = [(c.a, c.b, c.metric) for c in self.claims()]
        if self.gate and tuple(self.gate) not in claimed:
            raise ValueError(
                f"ExperimentSpec.gate of {self.name!r} must be the (a, b, metric) of a declared "
                f"comparison, one of {claimed}; got {self.gate!r}."
            )

    def is_gate(self, claim: "Claim", metric: str) -> bool:
        """Whether ``claim`` on ``metric`` is the declared positive control (`gate`)."""
        return tuple(self.gate) == (claim.a, claim.b, metric)

    def claims(self) -> list[Claim]:
        """The declared comparisons with their defaults filled in."""
        return [Claim(*comparison) for comparison in self.comparisons]

    def _check_fork(self, label: str, configuration: dict) -> None:
        """A configuration's own epochs and fork source are consistent (agent grids only)."""
        epochs, source = configuration.get("num_epochs"), configuration.get("fork_from")
        problems = []
        if epochs is not None and (not isinstance(epochs, int) or epochs < 1):
            problems.append(f"num_epochs must be an int >= 1, got {epochs!r}")
        if (epochs is not None or source is not None) and self.kind != "agent":
            problems.append(f"num_epochs and fork_from need kind 'agent', not {self.kind!r}")
        problems += self._read_epoch_problems(label, configuration)
        if source is not None:
            other = self.configurations.get(source)
            if other is None or source == label:
                problems.append(f"fork_from names no other configuration: {source!r}")
            elif other.get("fork_from") is not None:
                problems.append(f"{source!r} is itself a fork; fork from its source")
            elif self.num_epochs_of(source) >= self.num_epochs_of(label):
                problems.append(
                    f"it trains to epoch {self.num_epochs_of(label)}, but {source!r} already "
                    f"reaches epoch {self.num_epochs_of(source)}"
                )
            elif self.seeds_of(label) > self.seeds_of(source):
                problems.append(f"{source!r} has fewer seeds")
            if "runs_of" in configuration:
                problems.append("a fork cannot share another experiment's runs (runs_of)")
        if problems:
            raise ValueError(f"Configuration {label!r} of {self.name!r}: " + "; ".join(problems))

    def _read_epoch_problems(self, label: str, configuration: dict) -> list[str]:
        """What is wrong with a configuration's "read_epochs" (nothing: [])."""
        read = configuration.get("read_epochs", ())
        if not read:
            return []
        if self.kind != "agent":
            return [f"read_epochs need kind 'agent', not {self.kind!r}"]
        source = configuration.get("fork_from")
        first = self.num_epochs_of(source) if source in self.configurations else 0
        last = self.num_epochs_of(label)
        if not isinstance(read, (list, tuple)) or not all(
            isinstance(epoch, int) and first < epoch < last for epoch in read
        ):
            return [f"read_epochs must be ints E with {first} < E < {last}, got {read!r}"]
        return []


@dataclasses.dataclass(frozen=True)
class Claim:
    """ "a RELATION b on metric" (every metric when None), see `ExperimentSpec.comparisons`."""

    a: str
    b: str
    metric: str | None = None
    relation: str = ">"
    margin: float = 0.0
    refute_below: float | None = None

    def text(self, metric: str) -> str:
        if self.relation == ">=":
            margin = f" − {self.margin:g}" if self.margin else ""
            return f"{self.a} ≥ {self.b}{margin} on {metric}"
        margin = f" + {self.margin:g}" if self.margin else ""
        refuted = "" if self.refute_below is None else f" (refuted below +{self.refute_below:g})"
        return f"{self.a} > {self.b}{margin} on {metric}{refuted}"


def _valid_claim(comparison, configurations: dict, metrics: dict) -> bool:
    if not isinstance(comparison, (tuple, list)) or not 2 <= len(comparison) <= 6:
        return False
    defaults = (None, None, None, ">", 0.0, None)  # by position: metric, relation, margin, …
    a, b, metric, relation, margin, refute_below = (*comparison, *defaults[len(comparison) :])
    refutation_ok = refute_below is None or (
        relation == ">"
        and isinstance(margin, (int, float))
        and isinstance(refute_below, (int, float))
        and refute_below >= margin
    )
    return refutation_ok and (
        a in configurations
        and b in configurations
        and a != b
        and (metric is None or metric in metrics)
        and relation in RELATIONS
        and isinstance(margin, (int, float))
        and margin >= 0
    )


def _paper_figures(values, metrics: dict) -> bool:
    """Whether ``values`` is {metric of ``metrics``: [mean, std >= 0]}."""
    return isinstance(values, dict) and all(
        metric in metrics
        and isinstance(figure, (list, tuple))
        and len(figure) == 2
        and all(isinstance(x, (int, float)) for x in figure)
        and figure[1] >= 0
        for metric, figure in values.items()
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
    """Parses an experiment file (only `ExperimentSpec` bindings) into its spec; a
    configuration with "runs_of" takes the gin files, bindings and args of the configuration it
    names (an experiment file beside ``path``).

    Raises ValueError when the file's name and ``ExperimentSpec.name`` differ, or when a
    "runs_of" configuration names no configuration, sets other gin files, bindings or args,
    more seeds, or its experiment another kind or number of epochs.
    """
    spec = _parse(path)
    configurations = dict(spec.configurations)
    for label in spec.configurations:
        if spec.runs_of(label):
            configurations[label] = _shared(spec, label, path.parent)
    return dataclasses.replace(spec, configurations=configurations)


def _parse(path: pathlib.Path) -> ExperimentSpec:
    with gin.unlock_config():
        gin.clear_config()
        gin.parse_config_file(str(path))
        spec = ExperimentSpec()
        gin.clear_config()
    if spec.name != path.stem:
        raise ValueError(f"{path} binds ExperimentSpec.name = {spec.name!r}: use {path.stem!r}.")
    return spec


def _shared(spec: ExperimentSpec, label: str, directory: pathlib.Path) -> dict:
    """Configuration ``label`` with the settings of the runs it shares, checked."""
    configuration = spec.configurations[label]
    other_name, other_label = spec.runs_of(label)
    other_path = directory / f"{other_name}.gin"
    other = _parse(other_path) if other_path.is_file() else None
    source = (other.configurations.get(other_label) if other else None) or {}
    problems = [] if source else [f"{other_path} has no configuration {other_label!r}"]
    if source.get("runs_of"):
        problems.append(f"{other_name}/{other_label} itself shares runs")
    for key in ("gin_files", "bindings", "args"):
        if key in configuration and list(configuration[key]) != list(source.get(key, [])):
            problems.append(f"its {key} differ from {other_name}/{other_label}'s")
    run_settings = ("kind", "num_epochs", "repetitions")  # what makes and evaluates the runs
    if other:
        there, here = (tuple(getattr(e, k) for k in run_settings) for e in (other, spec))
        if there != here:
            problems.append(f"{', '.join(run_settings)} {there} there against {here} here")
    if other and source and spec.seeds_of(label) > other.seeds_of(other_label):
        problems.append(f"{spec.seeds_of(label)} seeds here, {other.seeds_of(other_label)} there")
    if problems:
        raise ValueError(
            f"Configuration {label!r} of {spec.name!r} has runs_of = "
            f"{configuration['runs_of']!r}, but " + "; ".join(problems) + ". The runs must be "
            "the same: leave out gin_files, bindings and args (they are copied) or copy them."
        )
    shared = {k: source[k] for k in ("gin_files", "bindings", "args") if k in source}
    return {**shared, **configuration}


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
