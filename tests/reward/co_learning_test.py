"""CoLearnedReward: updates from partner-labelled final states; best weights kept; Adam persists."""

import tensorflow as tf

from imagine_tf.agent.goals import KnownGoals
from imagine_tf.language.social_partner import SocialPartner
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.playground import play
from imagine_tf.reward.co_learning import CoLearnedReward
from imagine_tf.reward.memory import RewardMemory
from imagine_tf.reward.config import RewardModelConfig


def test_updates_learn_from_the_partner_and_keep_the_best_weights():
    partner, vocabulary = SocialPartner(), Vocabulary.default()
    goals = KnownGoals(partner.goals)
    memory = RewardMemory(2000, 240, max_goals=len(partner.goals))
    targets = [
        "Grasp red cat",
        "Go left",
        "Go right",
        "Grasp any furniture",
        "Go top",
        "Grasp blue door",
    ]
    for seed in range(4):
        result = play(targets * 10, seed=seed, noise_std=0.5)
        descriptions = partner.describe_matrix(result.states[-1])
        goals.discover(descriptions)
        memory.add(result.states[-1], goals.achieved(descriptions))
    tf.keras.utils.set_random_seed(0)
    network = RewardNetwork("ma", vocabulary.words[1:], vocabulary.max_length)
    tokens = vocabulary.encode(goals.sentences)
    network({"state": memory.states[:1], "goal": tokens[:1]})
    learner = CoLearnedReward(
        network, RewardModelConfig(batches_per_epoch=60, max_epochs=6, patience=6)
    )
    held = memory.held_out_rows(num_new=60)
    labels = memory.positives[held, : len(goals)]
    before = learner.held_out_f1(memory.states[held], labels, tokens)
    report = learner.update(memory, tokens, num_new=60)
    assert report["epochs"] == 6 and report["held_out_states"] == 60
    after = learner.held_out_f1(memory.states[held], labels, tokens)
    assert after == report["held_out_f1"]  # the best weights are the ones kept
    ceiling = labels.any(axis=0).mean()  # goals absent from the held-out states count 0
    assert after > before + 0.1 and after <= ceiling
    steps = int(learner.optimizer.iterations.numpy())
    learner.update(memory, tokens, num_new=60)
    assert int(learner.optimizer.iterations.numpy()) == steps + 6 * 60  # one Adam state for the run
