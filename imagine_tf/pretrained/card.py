"""The model card for people: ``models/README.md``, rendered from ``models/card.json`` only
(`imagine-tf pretrained readme` renders it again; a test checks that the two agree)."""

from __future__ import annotations

import collections

#: The card's figures, each measured on the shipped model and on every seed.
METRICS = ("train_success", "test_success", "train_goal_f1", "test_goal_f1")
#: The seeds' spread: METRICS (F1 over the seeds whose checkpoint the build measured) and the
#: test-goal F1 each run recorded; the build adds the test SR of each type (``type_1`` …).
SPREAD_METRICS = (*METRICS, "recorded_test_goal_f1")
LABELS = {
    "train_success": "train SR",
    "test_success": "test SR",
    "train_goal_f1": "reward F1, training goals",
    "test_goal_f1": "reward F1, test goals",
    "recorded_test_goal_f1": "reward F1, test goals, as the run recorded it",
    **{f"type_{kind}": f"test SR, type {kind}" for kind in "12345"},
}


def figure_text(value) -> str:
    """A figure with 3 decimals; "–" for None (not measured)."""
    return "–" if value is None else f"{value:.3f}"


def _usage(card: dict) -> list[str]:
    agent = card["agent"]["directory"]
    return [
        "## Use",
        "",
        "```bash",
        'imagine-tf play --goal "Grasp red cat" --policy pretrained --out episode.gif',
        "imagine-tf eval --pretrained [--repetitions 30]       # prints; writes nothing in models/",
        "imagine-tf serve --pretrained [--rest-port 8501]      # the reward model, on 127.0.0.1",
        "```",
        "",
        "```python",
        "from imagine_tf.pretrained.play import load_pretrained_agent, play_agent",
        "",
        "learner = load_pretrained_agent()            # imagine_tf.analysis.saved_run.load_agent of "
        f"models/{agent}",
        'result = play_agent(learner, ["Grasp red cat"], seed=0)',
        "```",
        "",
        "The tour notebook ([notebooks/tour.ipynb](../notebooks/tour.ipynb)) uses both models.",
        "",
    ]


def _files(card: dict) -> list[str]:
    sizes: dict = collections.Counter()
    for path, entry in card["files"].items():
        parts = path.split("/")
        sizes["/".join(parts[:2]) + "/" if len(parts) > 2 else path] += entry["bytes"]
    agent, reward = card["agent"], card["reward"]
    sizes = {f"{agent['directory']}/{path}": size for path, size in sizes.items()}
    lines = [
        "## Files",
        "",
        f"`{agent['directory']}/` is the agent run read at epoch {agent['epoch']}, with a "
        "networks-only checkpoint: the actor, the critic and the reward network (its OR "
        "network included), the known and imagined goals and the epoch records, without "
        "optimizer state, target networks, reward memory or replay (it cannot be trained "
        f"further). `{reward['directory']}/{reward['version']}/` is its reward model, exported "
        "as `imagine-tf export reward` exports one (it accepts N = 1 to "
        f"{reward['max_num_objects']} objects). The OR "
        "networks of other N are the package's "
        f"`{reward['or_weights']['directory']}/` (SHA-256 in card.json).",
        "",
        "| path | bytes |",
        "|---|---|",
        *(f"| `{path}` | {size:,} |" for path, size in sorted(sizes.items())),
        f"| all | {card['total_bytes']:,} |",
        "",
    ]
    return lines


def _making(card: dict) -> list[str]:
    source = card["source"]
    versions = sorted({v for vs in source["code_versions"].values() for v in vs})
    return [
        "## How they were made",
        "",
        f"Configuration `{source['configuration']}` of the experiment `{source['experiment']}` "
        f"(`configs/experiments/{source['experiment']}.gin`, report "
        f"`{source['experiment_record']}`), seed {source['seed']}: the seed was fixed before "
        "any result was seen, not picked for its results. The experiment "
        f"(`{source['experiment_command']}`) ran these commands (RUNS: its runs directory) with "
        f"the code of commit {', '.join(versions)}, as its report recorded them (the file "
        "names are that commit's):",
        "",
        "```bash",
        *source["commands"],
        "```",
        "",
        f"Then `{card['command']}` (code {card['code_version']}) copied the run's records and "
        "its networks, exported the reward model and measured everything below.",
        "",
    ]


def _imagined(data: dict) -> str:
    if data["imagination"] == "none" or data["imagined_goals"] is None:
        return "it imagined none"
    return (
        f"imagination ({data['imagination']}) from epoch {data['imagination_start']} invented "
        f"{data['imagined_goals']}, {data['imagined_test_goals']} of them test goals"
    )


def _data(card: dict) -> list[str]:
    data = card["data"]
    fork = (
        f" The first {data['forked_at_epoch']} epochs ({data['episodes_before_fork']:,} "
        "episodes) were a run without imagination, which this one was forked from."
        if data["forked_at_epoch"]
        else ""
    )
    return [
        "## Data",
        "",
        f"No dataset: the agent learned from its own {data['episodes']:,} episodes in scenes of "
        f"{data['num_objects']} objects ({data['epochs']} epochs, {data['updates']:,} updates "
        f"of {data['batch_size']} transitions) and from the social partner's descriptions of "
        "their final states, which name training goals only (predicates "
        f"{', '.join(data['partner_predicates'])}); the reward model learned from those "
        f"descriptions alone. It discovered {data['discovered_goals']} goals; "
        f"{_imagined(data)}.{fork}",
        "",
    ]


def _band(s: dict) -> str:
    return (
        "– (one seed)"
        if s["band"] is None
        else f"{figure_text(s['band'][0])} – {figure_text(s['band'][1])}"
    )


def shipped_figure(shipped: dict, metric: str):
    """The shipped model's value of a spread metric (None if the build has none)."""
    if metric.startswith("type_"):
        return (shipped.get("per_type") or {}).get(metric[len("type_") :])
    if metric == "recorded_test_goal_f1":
        return shipped["recorded"]["test_goal_f1"]
    return shipped.get(metric)


def _seed_row(r: dict) -> str:
    types = r.get("per_type") or {}
    cells = [r["train_success"], r["test_success"], *(types.get(k) for k in "12345")]
    cells += [r["train_goal_f1"], r["test_goal_f1"], r.get("recorded_test_goal_f1")]
    return f"| {r['seed']} | " + " | ".join(figure_text(v) for v in cells) + " |"


def _figures(card: dict) -> list[str]:
    shipped, spread = card["shipped"], card["seeds"]["spread"]
    source, measures = card["source"], card["measures"]
    n = spread[METRICS[0]]["n"]
    lines = [
        "## Figures",
        "",
        f"The shipped model (seed {source['seed']}) and the {n} seeds of its configuration "
        "(mean ± std with ddof 1, over the seeds that have the figure: n):",
        "",
        "| figure | shipped | n | seeds | min – max | band (mean ± 3 std) |",
        "|---|---|---|---|---|---|",
    ]
    for metric in [m for m in LABELS if m in spread]:
        s = spread[metric]
        lines.append(
            f"| {LABELS[metric]} | {figure_text(shipped_figure(shipped, metric))} | {s['n']} | "
            f"{figure_text(s['mean'])} ± {figure_text(s['std'])} | "
            f"{figure_text(s['min'])} – {figure_text(s['max'])} | {_band(s)} |"
        )
    sr, f1 = measures["success_rate"], measures["reward_f1"]
    predicates = ", ".join(
        f"{k} {figure_text(v)}" for k, v in shipped["train_per_predicate"].items()
    )
    lines += [
        "",
        f"SR: the noise-free policy, {sr['episodes_per_goal']} episodes per goal (seed "
        f"{sr['seed']}), the oracle judging the final state; train SR per predicate: "
        f"{predicates}. Reward F1: the reward model (probability > {f1['threshold']}) against "
        f"the oracle on the final states of {f1['probe_episodes_per_goal']} scripted-expert "
        f"episodes per goal (seed {f1['probe_seed']}), F1 per goal averaged over the goals. The "
        "seeds' SR is their evaluation (the experiment's reading); their F1 was measured by the "
        "build where their checkpoint was given (– where only their records were), beside the "
        "test-goal F1 each run recorded (its own probe, `reward_test_goal_f1`).",
        "",
        "| seed | train SR | test SR | type 1 | type 2 | type 3 | type 4 | type 5 | reward F1, "
        "training goals | reward F1, test goals | recorded F1, test goals |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *(_seed_row(r) for r in sorted(card["seeds"]["runs"].values(), key=lambda r: r["seed"])),
        "",
    ]
    return lines


def _prediction_width(n: int) -> float:
    """The half-width, in stds of n values, of the 95 % t prediction interval of one more."""
    from scipy import stats

    return float(stats.t.ppf(0.975, n - 1) * (1 + 1 / n) ** 0.5)


def _agrees(pairs: list[tuple]) -> str:
    """Whether the figures measured again are those recorded (pairs without a record skipped)."""
    same = all(abs(a - b) < 1e-9 for a, b in pairs if a is not None and b is not None)
    return "the same as" if same else "not the same as"


def _checks(card: dict) -> list[str]:
    shipped, check = card["shipped"], card["measures"]["check"]
    recorded, served = shipped["recorded"], shipped["served"]
    spread = card["seeds"]["spread"]
    band, n = spread["train_success"]["band"], spread["train_success"]["n"]
    wide = [
        LABELS[m]
        for m in METRICS
        if spread[m]["band"] is not None and (spread[m]["band"][0] < 0 or spread[m]["band"][1] > 1)
    ]
    alone = [LABELS[m] for m in METRICS if spread[m]["band"] is None]
    again = [(shipped[k], recorded[k]) for k in ("train_success", "test_success")]
    again.append((shipped["test_goal_f1"], recorded["test_goal_f1"]))
    lines = [
        "## Checks",
        "",
        f"* Measured again by the build, the shipped copy gives {_agrees(again)} what the run "
        f"recorded: train / test SR {figure_text(shipped['train_success'])} / "
        f"{figure_text(shipped['test_success'])} (its eval.json: "
        f"{figure_text(recorded['train_success'])} / "
        f"{figure_text(recorded['test_success'])}), reward F1 on the test goals "
        f"{figure_text(shipped['test_goal_f1'])} (its last epoch's record: "
        f"{figure_text(recorded['test_goal_f1'])}).",
        f"* The served SavedModel scores "
        f"{_agrees([(served[k], shipped[k]) for k in ('train_goal_f1', 'test_goal_f1')])} the "
        f"checkpoint's network: reward F1 {figure_text(served['train_goal_f1'])} / "
        f"{figure_text(served['test_goal_f1'])} on the training / test goals.",
        "* `tests/pretrained/pretrained_test.py` loads the shipped models and measures again "
        f"the check (train SR over {check['episodes_per_goal']} episodes per goal, seed "
        f"{check['seed']}: {figure_text(shipped['check_train_success'])} at the build) and both "
        "reward "
        "F1s through the SavedModel. Each must lie in its band, the seeds' mean ± 3 std "
        f"(train SR: {figure_text(band[0])} – {figure_text(band[1])}), and within "
        f"{check['tolerance']} of the "
        "card's figure (rounding on another CPU may flip an episode or a borderline "
        f"probability). The min – max of {n} seeds would hold a further seed of the "
        f"configuration with probability (n − 1) / (n + 1) = {(n - 1) / (n + 1):.2f} only, too "
        "narrow for a test that a faithful model must pass; the 95 % prediction interval of "
        f"Student's t for one more seed is mean ± {_prediction_width(n):.2f} std, close to the "
        "band.",
    ]
    if alone:
        lines.append(
            f"* {', '.join(alone)}: measured on one seed only (the others' checkpoints were not "
            "given), so there is no band; the test checks the card's tolerance alone."
        )
    if wide:
        lines.append(
            f"* The band of {', '.join(wide)} goes beyond [0, 1]: the seeds disagree too much "
            "for it to check anything, and the test's agreement with the card is what counts."
        )
    return lines + [""]


def render_readme(card: dict) -> str:
    """``models/README.md`` from the card."""
    source = card["source"]
    shipped = card["shipped"]
    lines = [
        "# Pretrained models",
        "",
        "<!-- Written by `imagine-tf pretrained build` (or `pretrained readme`) from card.json; "
        "do not edit. -->",
        "",
        f"An IMAGINE agent: an MA (modular-attention Deep Sets) policy and the MA reward model "
        f"it learned with, configuration `{source['configuration']}` of the `{source['experiment']}` "
        f"experiment, seed {source['seed']}, read at its last epoch ({card['agent']['epoch']}). "
        f"Its budget: {card['data']['episodes']:,} episodes and {card['data']['updates']:,} "
        f"updates of {card['data']['batch_size']} transitions (the authors' released agent: "
        "100,200 episodes, 417,500 updates of 6 × 256); its train / test success rate is "
        f"{figure_text(shipped['train_success'])} / {figure_text(shipped['test_success'])}.",
        "",
    ]
    for part in (_usage, _files, _making, _data, _figures, _checks):
        lines += part(card)
    return "\n".join(lines).rstrip() + "\n"
