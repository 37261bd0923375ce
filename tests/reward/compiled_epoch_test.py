"""CompiledRewardEpoch: the reference's balanced batches drawn in the graph, the held-out F1."""

import numpy as np
import tensorflow as tf

from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.networks.adam import Adam
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.reward.compiled_epoch import CompiledRewardEpoch
from imagine_tf.reward.memory import RewardMemory
from imagine_tf.reward.f1 import f1_per_goal
from imagine_tf.reward.supervised_training import score_matrix


def _memory(rng):
    memory = RewardMemory(1000, 2, max_goals=3)
    states = rng.normal(size=(1000, 2)).astype(np.float32)
    achieved = np.zeros((1000, 3), bool)
    achieved[:100, 0] = True  # goal 0: 100 positives
    achieved[:, 1] = True  # goal 1: no negative -> weight 0
    achieved[500:520, 2] = True  # goal 2: 20 positives
    memory.add(states, achieved)
    return memory, states, achieved


def test_batches_are_balanced_per_goal_and_weigh_out_goals_without_both_classes():
    memory, states, achieved = _memory(np.random.default_rng(1))
    held = memory.held_out_rows(num_new=50)
    tables = memory.sampling_tables(exclude_rows=held)
    sampler = CompiledRewardEpoch(network=None, optimizer=None, batch_size=512, seed=3)
    positives = (tables.positive_rows, tables.positive_start, tables.positive_count)
    negatives = (tables.negative_rows, tables.negative_start, tables.negative_count)
    shares = []
    for _ in range(20):
        goals, rows, labels, weights = (
            x.numpy()
            for x in sampler._sample(
                tf.constant(tables.present), tf.constant(tables.both), positives, negatives
            )
        )
        assert len(goals) == 512 and set(goals) == {0, 1, 2}  # all 3 goals, plus extras
        kept = weights == 1
        assert set(goals[kept]) == {0, 2} and not (goals[~kept] != 1).any()
        assert not set(rows[kept]) & set(held)
        np.testing.assert_array_equal(labels[kept] == 1, achieved[rows[kept], goals[kept]])
        shares.append(labels[kept].mean())
    assert 0.15 < np.mean(shares) < 0.25


def test_goals_are_drawn_without_replacement_when_there_are_enough():
    memory = RewardMemory(100, 1, max_goals=40)
    achieved = np.zeros((100, 40), bool)
    achieved[np.arange(100), np.arange(100) % 40] = True
    memory.add(np.zeros((100, 1)), achieved)
    tables = memory.sampling_tables()
    sampler = CompiledRewardEpoch(network=None, optimizer=None, batch_size=16, seed=0)
    grouped = [
        (tables.positive_rows, tables.positive_start, tables.positive_count),
        (tables.negative_rows, tables.negative_start, tables.negative_count),
    ]
    goals = sampler._sample(tf.constant(tables.present), tf.constant(tables.both), *grouped)[0]
    assert len(set(goals.numpy())) == 16


def test_the_held_out_f1_is_the_mean_over_goals_with_a_positive_state():
    vocabulary = Vocabulary.default()
    tf.keras.utils.set_random_seed(0)
    network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length)
    tokens = vocabulary.encode(["Go left", "Grasp red cat", "Grow any plant", "Go top"])
    states = np.random.default_rng(0).normal(size=(30, 240)).astype(np.float32)
    network({"state": states[:1], "goal": tokens[:1]})
    labels = score_matrix(network, states, tokens) > 0.5
    labels[:10] = ~labels[:10]  # some errors
    labels[:, 3] = False  # a goal never achieved: not in the mean
    adam = Adam()
    adam.build(network.trainable_variables)
    epoch = CompiledRewardEpoch(network, adam)
    expected = np.nanmean(f1_per_goal(score_matrix(network, states, tokens) > 0.5, labels).numpy())
    np.testing.assert_allclose(epoch.held_out_f1(tokens, states, labels), expected, rtol=1e-6)
    assert epoch.held_out_f1(tokens, states[:0], labels[:0]) == 0.0


class _WholeBatchEpoch(CompiledRewardEpoch):
    """The step as the reference writes it: every present goal encoded from its ids, the
    whole batch's mean weighted cross-entropy, one gradient."""

    def _step(self, inputs, rows, goal_parts, goal_rows, labels, weights):
        network = self.network
        tokens = tf.concat([tf.gather(self.tokens, tf.range(s, e)) for s, e, _ in goal_parts], 0)
        with tf.GradientTape() as tape:
            logits = network.training_logits(
                tf.gather(inputs, rows), network.encoder(tokens), goal_rows
            )
            losses = tf.nn.sigmoid_cross_entropy_with_logits(labels, logits)
            loss = tf.reduce_sum(weights * losses) / tf.reduce_sum(weights)
        variables = network.trainable_variables
        self.optimizer.apply(tape.gradient(loss, variables), variables)
        return loss


def test_steps_over_goal_ranges_and_prefix_trees_equal_whole_batch_steps():
    from imagine_tf.language import grammar

    vocabulary, rng = Vocabulary.default(), np.random.default_rng(0)
    goals = list(grammar.one_object_goals())[:60]
    tokens = vocabulary.encode(goals)
    memory = RewardMemory(400, 240, max_goals=len(goals))
    states = rng.uniform(-1, 1, size=(400, 240)).astype(np.float32)
    memory.add(states, rng.uniform(size=(400, len(goals))) < 0.2)
    held = memory.held_out_rows(num_new=50)
    tables = memory.sampling_tables(exclude_rows=held)
    weights = {}
    for name, parts in (("whole", 1), ("one", 1), ("two", 2), ("three", 3)):
        tf.keras.utils.set_random_seed(0)
        network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length)
        network({"state": states[:1], "goal": tokens[:1]})
        initial = network.get_weights()
        adam = Adam()
        adam.build(network.trainable_variables)
        kind = _WholeBatchEpoch if name == "whole" else CompiledRewardEpoch
        epoch = kind(network, adam, batch_size=128, seed=5, parts=parts)
        epoch.tokens = tf.constant(tokens[tables.present])
        epoch.bind(tables, tokens, memory.states[held], memory.positives[held])(5)
        weights[name] = network.get_weights()
    for name in ("one", "two", "three"):  # the same batches and steps, up to float rounding
        for got, expected in zip(weights[name], weights["whole"]):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    moved = [np.abs(a - b).max() for a, b in zip(weights["whole"], initial)]
    assert min(moved[:3]) > 1e-3  # the steps trained the encoder (kernel, recurrent, bias)
