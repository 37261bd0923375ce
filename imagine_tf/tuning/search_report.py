"""The report of a search: its trials ranked by the objective, the default configuration's
rank and the best trial's margin over it.

Trials that did not complete (failed, or still running when the search stopped) follow the
ranked ones without a rank. Ties share a rank. A metric ``<objective>_seed_std`` of a trial
(several seeds per trial) is the spread to compare a margin with.
"""

from __future__ import annotations

import json

import keras_tuner


COMPLETED = "COMPLETED"


def search_report(
    oracle: keras_tuner.Oracle, objective: str, defaults: dict, context: dict
) -> dict:
    """The ranking of ``oracle``'s trials by ``objective`` (maximised).

    Args:
      oracle: the search's oracle (its trials).
      objective: the name of the metric maximised.
      defaults: the hyperparameter values of the default configuration.
      context: what the search was (command, budget, space, ...), copied into the report.
    """
    trials = sorted(oracle.trials.values(), key=lambda t: t.trial_id)
    done = [t for t in trials if str(t.status) == COMPLETED and t.score is not None]
    ranked = sorted(done, key=lambda t: -t.score)
    rows = [_row(t, _rank(t, done), objective, defaults) for t in ranked]
    rows += [_row(t, None, objective, defaults) for t in trials if t not in done]
    default = next((r for r in rows if r["default"] and r["rank"] is not None), None)
    best = rows[0] if ranked else None
    summary = {
        "trials": len(trials),
        "trials_completed": len(done),
        "default": None if default is None else _brief(default, objective),
        "best": (
            None
            if best is None
            else {
                **_brief(best, objective),
                "values": best["values"],
                "margin_over_default": (
                    None if default is None else best[objective] - default[objective]
                ),
                "is_default": best["default"],
            }
        ),
    }
    report = {**context, "objective": objective, **summary, "ranking": rows}
    return json.loads(json.dumps(report))  # as written: tuples as lists


def _rank(trial, done: list) -> int:
    """1 + the number of trials with a better score (ties share a rank)."""
    return 1 + sum(int(other.score > trial.score) for other in done)


def _row(trial, rank: int | None, objective: str, defaults: dict) -> dict:
    metrics = {
        name: trial.metrics.get_last_value(name)
        for name in sorted(trial.metrics.metrics)
        if name != objective
    }
    row = {
        "rank": rank,
        "trial": trial.trial_id,
        objective: trial.score,
        "default": trial.hyperparameters.values == defaults,
        "status": str(trial.status),
        "values": dict(trial.hyperparameters.values),
        "metrics": metrics,
    }
    if trial.message and str(trial.status) != COMPLETED:
        row["error"] = trial.message.strip().splitlines()[-1]
    return row


def _brief(row: dict, objective: str) -> dict:
    brief = {"trial": row["trial"], "rank": row["rank"], objective: row[objective]}
    spread = row["metrics"].get(f"{objective}_seed_std")
    return {**brief, f"{objective}_seed_std": spread} if spread is not None else brief


def format_report(report: dict) -> str:
    """The ranking as a table, then a line on the default and the best trial."""
    objective = report["objective"]
    names = sorted({name for row in report["ranking"] for name in row["values"]})
    header = ["rank", "trial", objective, "default", *names]
    lines = ["  ".join(f"{h:>14}" for h in header)]
    for row in report["ranking"]:
        cells = [
            row["rank"] or "-",
            row["trial"],
            row[objective],
            "*" if row["default"] else "",
            *(row["values"].get(n) for n in names),
        ]
        lines.append("  ".join(_cell(c) for c in cells))
    lines.append(summary_line(report))
    return "\n".join(lines)


def summary_line(report: dict) -> str:
    """One sentence: the default's rank and score, the best trial and its margin."""
    objective, default, best = report["objective"], report["default"], report["best"]
    if best is None:
        return "No trial has completed yet."
    completed = report["trials_completed"]
    if default is None:
        return (
            f"Best: trial {best['trial']}, {objective} {best[objective]:.4f}; the default "
            "configuration has not completed, so there is no margin."
        )
    text = (
        f"Default configuration (trial {default['trial']}): rank {default['rank']} of "
        f"{completed}, {objective} {default[objective]:.4f}. "
    )
    if best["is_default"]:
        text += "No trial beats it."
    else:
        text += (
            f"Best: trial {best['trial']}, {objective} {best[objective]:.4f} "
            f"({best['margin_over_default']:+.4f} over the default)."
        )
    spread = default.get(f"{objective}_seed_std")
    if spread is not None:
        text += f" The default's spread over seeds: {spread:.4f} (std)."
    return text


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:>14.4g}"
    return f"{str(value):>14}"
