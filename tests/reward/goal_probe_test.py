"""`TestGoalProbe`: fixed labelled states for the test goals, the reward's F1 on them, and the
imagined set's precision and coverage, as the learner logs them per epoch."""

import numpy as np
import pytest

from imagine_tf.language import grammar
from imagine_tf.reward.goal_probe import TestGoalProbe, imagination_record


@pytest.fixture(scope="module")
def probe():
    return TestGoalProbe(num_objects=3, episodes_per_goal=2)


def test_the_probe_is_the_same_for_every_run_and_has_positives_for_most_test_goals(probe):
    from imagine_tf.playground import play

    again = TestGoalProbe(num_objects=3, episodes_per_goal=2)
    np.testing.assert_array_equal(probe.states, again.states)
    expert = play(list(probe.goals) * 2, policy="scripted", num_objects=3, seed=2020)
    np.testing.assert_array_equal(probe.states, expert.states[-1])  # `play`'s episodes
    assert probe.labels.shape == (2 * 64, 64)
    assert probe.labels.any(0).sum() >= 56  # the expert reaches almost every test goal


def test_the_oracle_scores_f1_one_and_a_constant_guess_scores_less(probe):
    always = np.ones_like(probe.labels)
    assert probe.f1(probe.goals, probe.labels) == pytest.approx(1.0)
    assert probe.f1(probe.goals, always) < 0.5
    assert probe.f1(["Go left", "Grasp red cat"], probe.labels) is None  # no test goal there
    one = [probe.goals[0]]  # a subset is scored on its own columns
    wrong = probe.labels.copy()
    wrong[:, 0] = ~wrong[:, 0]
    assert probe.f1(one, wrong) == 0.0 and probe.f1(probe.goals[1:], wrong) == pytest.approx(1.0)


def test_imagination_record_gives_precision_and_coverage():
    test = list(grammar.test_goals())
    record = imagination_record(test[:16] + ["Grow red door"], 200, 190)
    assert record["imagined_goals"] == 17 and record["imagined_test_goals"] == 16
    assert record["imagined_precision"] == pytest.approx(16 / 17)
    assert record["imagined_test_coverage"] == pytest.approx(16 / 64)
    assert record["imagined_known_goals"] == 10
    assert imagination_record([], 10, 10)["imagined_precision"] is None
