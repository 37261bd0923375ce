"""The learning-curve PNG: a third panel for the Grow outcomes when the logs have them."""

from PIL import Image

from imagine_tf.env.grow_outcomes import GROW_LOG_KEYS
from imagine_tf.analysis.figures import plot_learning_curve, plot_runs


def records(epochs, with_grow_outcomes):
    logs = []
    for epoch in epochs:
        record = {
            "episodes": 600 * epoch,
            "eval_train_success": 0.1 * epoch,
            "eval_test_success": 0.05 * epoch,
            "discovered_goals": 10 * epoch,
            "reward_held_out_f1": 0.9,
        }
        if with_grow_outcomes:
            record.update({key: 0.2 for key in GROW_LOG_KEYS.values()})
        logs.append(record)
    return logs


def test_the_grow_panel_is_drawn_only_from_records_that_have_the_outcomes(tmp_path):
    plot_learning_curve(records([1, 2, 3], False), tmp_path / "old.png")
    # A fork of an older run: the outcomes start at the fork.
    plot_learning_curve(records([1, 2], False) + records([3, 4], True), tmp_path / "fork.png")
    old, fork = (Image.open(tmp_path / name).size for name in ("old.png", "fork.png"))
    assert old[1] == fork[1] and fork[0] > 1.4 * old[0]  # three panels against two


def test_runs_are_drawn_side_by_side_even_without_the_grow_key(tmp_path):
    new = [{**r, "eval_train_success_grow": 0.3} for r in records([1, 2, 3], False)]
    plot_runs({"old": records([1, 2], False), "new": new}, tmp_path / "runs.png")
    width, height = Image.open(tmp_path / "runs.png").size
    assert width > 3 * height  # three panels in a row


def test_runs_with_the_same_directory_name_get_labels_that_tell_them_apart():
    from imagine_tf.analysis.figures import run_labels

    roots = ["runs/ma_s0", "runs/budget10/fa_s0", "runs/budget15/fa_s0", "copies/e24/ma_s1"]
    assert run_labels(roots) == ["ma_s0", "budget10/fa_s0", "budget15/fa_s0", "ma_s1"]
