"""Reward networks: shapes, parameter counts, config round trip, Deep Sets invariance."""

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.network import RewardNetwork

VOCABULARY = Vocabulary.default()
WORDS, LENGTH = VOCABULARY.words[1:], VOCABULARY.max_length
GOALS = tf.constant(["Grasp red cat", "Grow any plant", "Go left", "Grasp any blue thing"])


def make(architecture, num_objects=3, seed=0, **kwargs):
    tf.keras.utils.set_random_seed(seed)
    network = RewardNetwork(architecture, WORDS, LENGTH, num_objects, **kwargs)
    return network


def states(num_objects=3, batch=4, seed=0):
    rng = np.random.default_rng(seed)
    return tf.constant(rng.normal(size=(batch, 2 * (3 + 39 * num_objects))), tf.float32)


def count(weights):
    return sum(int(np.prod(w.shape)) for w in weights)


@pytest.mark.parametrize(
    "architecture, head, frozen",
    [("ma", 17_085, 353), ("fa", 48_441, 0), ("fc", 34_201, 0), ("ma_pairs", 32_763, 353)],
)
def test_shapes_and_parameter_counts(architecture, head, frozen):
    network = make(architecture)
    output = network({"state": states(), "goal": GOALS})
    assert output.shape == (4,) and output.dtype == tf.float32
    assert np.all((output.numpy() > 0) & (output.numpy() < 1))
    lstm = count(network.encoder.trainable_weights)
    assert lstm == 4 * (100 * (51 + 100) + 100) == 60_800
    assert count(network.trainable_weights) - lstm == head
    assert count(network.non_trainable_weights) == frozen


def test_string_goals_and_token_ids_give_the_same_output():
    network = make("ma")
    by_string = network({"state": states(), "goal": GOALS})
    tokens = VOCABULARY.encode([g.decode() for g in GOALS.numpy()])
    by_tokens = network({"state": states(), "goal": tf.constant(tokens)})
    np.testing.assert_allclose(by_string, by_tokens, atol=1e-6)


@pytest.mark.parametrize("architecture", ["ma", "fa", "fc", "ma_pairs"])
def test_get_config_round_trip(architecture):
    network = make(architecture)
    inputs = {"state": states(), "goal": GOALS}
    expected = network(inputs)
    clone = RewardNetwork.from_config(network.get_config())
    clone(inputs)
    clone.set_weights(network.get_weights())
    np.testing.assert_allclose(clone(inputs), expected, atol=1e-6)
    assert clone.get_config() == network.get_config()


def permute_objects(state, order, num_objects):
    """The same scenes with objects listed in another order (both halves of s)."""
    state = state.numpy()
    half = 3 + 39 * num_objects
    out = state.copy()
    for start in (0, half):
        objects = state[:, start + 3 : start + half].reshape(len(state), num_objects, 39)
        out[:, start + 3 : start + half] = objects[:, order].reshape(len(state), -1)
    return tf.constant(out)


@pytest.mark.parametrize("architecture", ["ma", "ma_pairs"])
@pytest.mark.parametrize("num_objects", [3, 4])
def test_permutation_invariance_over_objects(architecture, num_objects):
    network = make(architecture, num_objects)
    state = states(num_objects)
    expected = network({"state": state, "goal": GOALS})
    for order in ([2, 0, 1] + list(range(3, num_objects)), list(range(num_objects))[::-1]):
        permuted = network({"state": permute_objects(state, order, num_objects), "goal": GOALS})
        np.testing.assert_allclose(permuted, expected, atol=1e-6)


def test_flat_architectures_are_not_invariant():
    network = make("fa")
    state = states()
    moved = network({"state": permute_objects(state, [2, 0, 1], 3), "goal": GOALS})
    assert not np.allclose(moved, network({"state": state, "goal": GOALS}), atol=1e-4)


def test_ma_runs_for_other_numbers_of_objects():
    network = make("ma")
    network({"state": states(), "goal": GOALS})
    bigger = network.with_num_objects(5)
    state5 = states(5)
    assert bigger({"state": state5, "goal": GOALS}).shape == (4,)
    # The shared object module gives each object the same probability in both networks.
    state3 = tf.concat(
        [state5[:, : 3 + 39 * 3], state5[:, 198 : 198 + 3 + 39 * 3]], axis=1
    )  # the first 3 objects of the 5
    p3 = network.module_probabilities({"state": state3, "goal": GOALS})
    p5 = bigger.module_probabilities({"state": state5, "goal": GOALS})
    np.testing.assert_allclose(p5[:, :3], p3, atol=1e-6)
    with pytest.raises(ValueError, match="fixes"):
        make("fc").with_num_objects(5)


def test_max_aggregation_is_the_max_of_modules():
    network = make("ma", aggregation="max")
    inputs = {"state": states(), "goal": GOALS}
    np.testing.assert_allclose(
        network(inputs), tf.reduce_max(network.module_probabilities(inputs), axis=1), atol=1e-7
    )


def test_state_of_the_wrong_size_is_a_clear_error():
    with pytest.raises(ValueError, match="objects has"):
        make("ma")({"state": states(4), "goal": GOALS})


@pytest.mark.parametrize("architecture", ["ma", "fa", "fc", "ma_pairs"])
def test_training_logits_match_the_output(architecture):
    network = make(architecture)
    inputs = {"state": states(), "goal": GOALS}
    probability, logits = network(inputs).numpy(), network.logits(inputs).numpy()
    sigmoid = 1 / (1 + np.exp(-logits))
    if architecture in ("ma", "ma_pairs"):
        sigmoid = 0.98 * sigmoid + 0.01  # the OR's rescaled output
    np.testing.assert_allclose(probability, sigmoid, atol=1e-5)


def test_max_aggregation_logits_are_the_logit_of_the_max():
    network = make("ma", aggregation="max")
    inputs = {"state": states(), "goal": GOALS}
    p = np.clip(network(inputs).numpy(), 1e-7, 1 - 1e-7)
    np.testing.assert_allclose(network.logits(inputs), np.log(p / (1 - p)), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("normalize_goal", [False, True])
@pytest.mark.parametrize("architecture", ["ma", "fa", "fc", "ma_pairs"])
def test_scan_equals_head_on_every_pair(architecture, normalize_goal):
    network = make(architecture, seed=3, normalize_goal=normalize_goal)
    scene_states = states(batch=5, seed=7)
    network({"state": states(), "goal": GOALS})  # builds the layers
    embeddings = network.encoder(GOALS)  # [4, E]
    scanned = network.scan(scene_states, embeddings).numpy()  # [5, 4]
    assert scanned.shape == (5, 4)
    tiled = network.head(tf.repeat(scene_states, 4, axis=0), tf.tile(embeddings, [5, 1]))
    np.testing.assert_allclose(scanned, tiled.numpy().reshape(5, 4), rtol=1e-4, atol=1e-5)


def test_pair_modules_by_parts_equal_the_162_value_pair_inputs():
    from imagine_tf.networks.deep_sets import pair_inputs

    network = make("ma_pairs", num_objects=4, seed=5)
    scene_states = states(num_objects=4)
    network({"state": scene_states, "goal": GOALS})
    embedding = network.encoder(GOALS)
    direct = [
        network._module(pair_inputs(scene_states, 4, swap=swap), embedding).numpy()
        for swap in (False, True)
    ]
    by_parts = network.module_probabilities({"state": scene_states, "goal": GOALS})
    assert by_parts.shape == (4, 6)
    np.testing.assert_allclose(by_parts, np.maximum(*direct), atol=1e-5)


def test_playground_scan_equals_the_general_scan_on_environment_states():
    from imagine_tf.playground import play

    goals = ["Grasp red cat", "Grow any plant", "Go left", "Grasp any furniture"] * 3
    episode = play(goals, policy="scripted", seed=5)  # grasps and growth happen
    scene_states = tf.constant(episode.states[::7].reshape(-1, episode.states.shape[-1]))
    network = make("ma", seed=4)
    network({"state": scene_states[:1], "goal": GOALS[:1]})
    embeddings = network.encoder(tf.constant(grammar_goals()))
    general = network.scan(scene_states, embeddings).numpy()
    structured = network.scan(scene_states, embeddings, playground_states=True).numpy()
    assert general.shape == structured.shape == (len(scene_states), 40)
    np.testing.assert_allclose(structured, general, atol=1e-5)
    assert np.ptp(general) > 0.1  # the probabilities vary across states and goals


@pytest.mark.parametrize("architecture", ["ma", "fc"])
def test_the_training_logits_equal_the_head_logits_on_environment_states(architecture):
    from imagine_tf.playground import play

    episode = play(["Grasp red cat", "Grow any plant", "Go left"] * 2, policy="scripted", seed=2)
    scene_states = tf.constant(episode.states[::9].reshape(-1, episode.states.shape[-1]))
    network = make(architecture, seed=1)
    network({"state": scene_states[:1], "goal": GOALS[:1]})
    embeddings = network.encoder(tf.constant(grammar_goals()[:7]))
    rows = tf.constant(np.arange(len(scene_states)) % 7)
    with tf.GradientTape(persistent=True) as tape:
        fast = network.training_logits(network.training_inputs(scene_states), embeddings, rows)
        plain = network.head_logits(scene_states, tf.gather(embeddings, rows))
        fast_sum, plain_sum = tf.reduce_sum(fast), tf.reduce_sum(plain)
    np.testing.assert_allclose(fast, plain, atol=1e-5)
    for a, b in zip(
        tape.gradient(plain_sum, network.trainable_variables),
        tape.gradient(fast_sum, network.trainable_variables),
    ):
        if a is not None:
            np.testing.assert_allclose(tf.convert_to_tensor(b), tf.convert_to_tensor(a), atol=1e-4)


def test_the_bfloat16_scan_agrees_with_float32_and_is_refused_where_it_does_not_exist():
    from imagine_tf.playground import play

    episode = play(["Grasp red cat", "Grow any plant", "Go left"] * 4, policy="scripted", seed=5)
    scene_states = tf.constant(episode.states[::5].reshape(-1, episode.states.shape[-1]))
    network = make("ma", seed=4)
    network({"state": scene_states[:1], "goal": GOALS[:1]})
    embeddings = network.encoder(tf.constant(grammar_goals()))
    exact = network.scan(scene_states, embeddings, playground_states=True).numpy()
    mixed = network.scan(
        scene_states, embeddings, playground_states=True, compute_dtype="bfloat16"
    ).numpy()
    assert mixed.dtype == np.float32 and mixed.shape == exact.shape
    assert 0 < np.abs(mixed - exact).max() < 2e-2
    with pytest.raises(ValueError, match="A bfloat16 scan exists for MA and FA, not 'ma_pairs'"):
        make("ma_pairs").scan(scene_states, embeddings, compute_dtype="bfloat16")
    with pytest.raises(ValueError, match=r"compute_dtype must be one of \('float32', 'bfloat16'\)"):
        network.scan(scene_states, embeddings, compute_dtype="half")


def grammar_goals():
    from imagine_tf.language import grammar

    return grammar.train_goals()[::4][:40]


@pytest.mark.parametrize("architecture", ["ma", "fa", "ma_pairs"])
def test_the_normalised_goal_gate_keeps_the_parameters_and_the_invariances(architecture):
    plain, normalised = make(architecture), make(architecture, normalize_goal=True)
    inputs = {"state": states(), "goal": GOALS}
    plain(inputs)
    normalised(inputs)
    assert count(normalised.trainable_weights) == count(plain.trainable_weights)
    clone = RewardNetwork.from_config(normalised.get_config())
    clone(inputs)
    clone.set_weights(normalised.get_weights())
    np.testing.assert_allclose(clone(inputs), normalised(inputs), atol=1e-6)
    # The gate sees only the embedding's direction: scaling it changes nothing.
    embeddings = normalised.encoder(GOALS)
    np.testing.assert_allclose(
        normalised.head(inputs["state"], 7.0 * embeddings),
        normalised.head(inputs["state"], embeddings),
        atol=1e-6,
    )
    if architecture != "fa":  # still a Deep Set over objects
        permuted = permute_objects(inputs["state"], [2, 0, 1], 3)
        np.testing.assert_allclose(
            normalised({"state": permuted, "goal": GOALS}), normalised(inputs), atol=1e-6
        )


def test_the_shared_pair_gate_uses_one_object_gate_for_both_slots():
    network = make("ma_pairs", num_objects=4, seed=6, pair_gate="shared")
    network({"state": states(num_objects=4), "goal": GOALS})
    assert network.attention.gate.kernel.shape == (100, 84)  # MA's gate: 100·84 + 84 fewer
    per_slot = make("ma_pairs", num_objects=4)
    per_slot({"state": states(num_objects=4), "goal": GOALS})
    assert count(per_slot.trainable_weights) - count(network.trainable_weights) == 7_878
    alpha = network._pair_attention(network.encoder(GOALS)).numpy()  # [4, 162]
    np.testing.assert_array_equal(alpha[:, 6:84], alpha[:, 84:])


def test_the_residual_pair_gate_starts_shared_and_has_the_per_slot_size():
    network = make("ma_pairs", seed=6, pair_gate="residual")
    network({"state": states(), "goal": GOALS})
    head = count(network.trainable_weights) - count(network.encoder.trainable_weights)
    assert head == 32_763  # the per-slot count: 84 + 78 gate outputs instead of 162
    embedding = network.encoder(GOALS)
    alpha = network._pair_attention(embedding).numpy()
    np.testing.assert_array_equal(alpha[:, 6:84], alpha[:, 84:])  # W_r = 0, b_r = 0 at the start
    rng = np.random.default_rng(1)
    network.second_slot_gate.set_weights([rng.normal(size=(100, 78)), rng.normal(size=78)])
    alpha = network._pair_attention(embedding).numpy()
    logits = network.attention.gate(embedding).numpy()[:, 6:] + network.second_slot_gate(embedding)
    np.testing.assert_allclose(alpha[:, 84:], tf.sigmoid(logits), atol=1e-6)
    np.testing.assert_array_equal(
        alpha[:, 6:84], tf.sigmoid(network.attention.gate(embedding))[:, 6:]
    )
    assert np.abs(alpha[:, 84:] - alpha[:, 6:84]).max() > 0.1


@pytest.mark.parametrize(
    "pair_gate, relations",
    [("shared", False), ("residual", False), ("per_slot", True), ("residual", True)],
)
def test_pair_variants_keep_the_pair_module_scan_and_invariance(pair_gate, relations):
    from imagine_tf.networks.deep_sets import pair_inputs

    network = make("ma_pairs", num_objects=4, seed=6, pair_gate=pair_gate, pair_relations=relations)
    scene_states = states(num_objects=4)
    inputs = {"state": scene_states, "goal": GOALS}
    network(inputs)
    if pair_gate == "residual":  # a second-slot term that is not zero
        rng = np.random.default_rng(2)
        network.second_slot_gate.set_weights([rng.normal(size=(100, 78)), rng.normal(size=78)])
    embedding = network.encoder(GOALS)
    alpha = network._pair_attention(embedding).numpy()  # [4, 162]
    direct = [
        tf.sigmoid(
            network.readout(
                network.hidden(
                    pair_inputs(scene_states, 4, swap=s, relations=relations) * alpha[:, None, :]
                )
            )[..., 0]
        ).numpy()
        for s in (False, True)
    ]
    by_parts = network.module_probabilities(inputs)
    np.testing.assert_allclose(by_parts, np.maximum(*direct), atol=1e-5)
    scanned = network.scan(scene_states, embedding).numpy()
    np.testing.assert_allclose(np.diagonal(scanned), network(inputs), rtol=1e-4, atol=1e-5)
    permuted = permute_objects(scene_states, [3, 1, 0, 2], 4)
    np.testing.assert_allclose(
        network({"state": permuted, "goal": GOALS}), network(inputs), atol=1e-6
    )
    clone = RewardNetwork.from_config(network.get_config())
    clone(inputs)
    clone.set_weights(network.get_weights())
    np.testing.assert_allclose(clone(inputs), network(inputs), atol=1e-6)
    assert clone.get_config()["pair_gate"] == pair_gate
    assert clone.get_config()["pair_relations"] == relations
    three = network.with_num_objects(3)  # the modules' weights, the second-slot term included
    three_states = tf.concat([scene_states[:, :120], scene_states[:, 159:279]], axis=-1)
    np.testing.assert_allclose(
        three.module_probabilities({"state": three_states, "goal": GOALS}),
        tf.gather(by_parts, [0, 1, 3], axis=-1),
        atol=1e-6,
    )


def test_the_relation_features_add_four_gated_inputs():
    network = make("ma_pairs", pair_relations=True)
    network({"state": states(), "goal": GOALS})
    head = count(network.trainable_weights) - count(network.encoder.trainable_weights)
    assert head == 32_763 + 4 * 101 + 4 * 100  # 4 more gate outputs and 4 more hidden inputs
    with pytest.raises(ValueError, match="pair_relations is an input of MA-pairs"):
        make("ma", pair_relations=True)


@pytest.mark.parametrize("architecture, pair_gate", [("ma", "shared"), ("ma_pairs", "both")])
def test_a_pair_gate_other_than_per_slot_needs_ma_pairs(architecture, pair_gate):
    with pytest.raises(ValueError, match="pair_gate must be one of"):
        make(architecture, pair_gate=pair_gate)
