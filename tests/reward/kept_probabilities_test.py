import numpy as np

from imagine_tf.reward.kept_probabilities import (
    TEST_PROBABILITIES,
    keep_test_probabilities,
    kept_test_probabilities,
    states_fingerprint,
)


def test_kept_probabilities_come_back_only_for_the_same_states_and_goals(tmp_path):
    states = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    probabilities = np.random.default_rng(1).random((6, 3)).astype(np.float32)
    metrics = {"test_probabilities": keep_test_probabilities(tmp_path, probabilities, states)}
    fingerprint = states_fingerprint(states)

    np.testing.assert_array_equal(
        kept_test_probabilities(tmp_path, metrics, fingerprint, (6, 3)), probabilities
    )
    assert kept_test_probabilities(tmp_path, metrics, fingerprint, (6, 4)) is None  # goals
    other_states = states_fingerprint(states[::-1].copy())
    assert kept_test_probabilities(tmp_path, metrics, other_states, (6, 3)) is None
    assert kept_test_probabilities(tmp_path, {}, fingerprint, (6, 3)) is None  # kept none
    (tmp_path / TEST_PROBABILITIES).unlink()
    assert kept_test_probabilities(tmp_path, metrics, fingerprint, (6, 3)) is None
    assert not list(tmp_path.glob("tmp.*"))  # written whole, no temporary left
