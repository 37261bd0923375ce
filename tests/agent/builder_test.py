"""`RunBuilder`: every DDPG and reward co-training knob of `TrainConfig` reaches what it builds."""

import gin
import pytest

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig, check_agent_bindings
from imagine_tf.reward.config import RewardModelConfig


pytestmark = pytest.mark.usefixtures("clear_gin")


def test_the_agent_and_the_reward_learner_take_every_knob():
    config = TrainConfig(
        architecture="fc",
        actor_learning_rate=2e-3,
        critic_learning_rate=3e-3,
        gamma=0.9,
        polyak=0.8,
        target_update_period=7,
        action_l2=0.5,
        noise_stddev=0.1,
        random_action_probability=0.2,
        clip_targets=False,
        hidden_units=16,
        reward_model=RewardModelConfig(
            batch_size=64,
            learning_rate=5e-4,
            positive_ratio=0.3,
            batches_per_epoch=3,
            max_epochs=4,
            patience=2,
            hidden_units=12,
            normalize_goal=True,
        ),
    )
    builder = RunBuilder(config)
    agent = builder.make_ddpg()
    assert agent.gamma == pytest.approx(0.9)
    assert agent.polyak == pytest.approx(0.8)
    assert agent.target_update_period == 7 and agent.action_l2 == 0.5
    assert agent.actor_optimizer.learning_rate == pytest.approx(2e-3)
    assert agent.critic_optimizer.learning_rate == pytest.approx(3e-3)
    assert agent.target_bounds is None  # clip_targets=False
    env = builder.make_env(2, seed=0)
    _, exploring, _ = builder.make_policies(agent.actor_network, env, seed=0)
    assert (exploring._noise_stddev, exploring._random_action_probability) == (0.1, 0.2)
    for network in (agent.actor_network, agent.critic_network):
        assert network.trunk.layers_before_sum[0].units == 16
    reward_network = builder.make_reward_network()
    assert (reward_network.hidden_units, reward_network.normalize_goal) == (12, True)
    learner = builder.make_reward_learner(reward_network)
    assert learner.config is config.reward_model
    assert float(learner.optimizer.learning_rate) == pytest.approx(5e-4)
    assert (learner.config.batch_size, learner.config.learning_rate) == (64, 5e-4)
    assert learner.config.positive_ratio == 0.3
    assert (learner.config.batches_per_epoch, learner.config.max_epochs) == (3, 4)
    assert learner.config.patience == 2


def test_the_defaults_clip_the_targets_as_the_reference():
    agent = RunBuilder(TrainConfig(architecture="fc", hidden_units=8)).make_ddpg()
    assert agent.target_bounds == pytest.approx((-50.0, 0.0))


def test_a_binding_the_agent_would_ignore_names_the_field_to_bind():
    import tf_agents.agents.ddpg.ddpg_agent  # noqa: F401 - registers DdpgAgent with gin

    check_agent_bindings()  # nothing bound
    gin.parse_config("DdpgAgent.gamma = 0.5")
    with pytest.raises(ValueError, match="DdpgAgent.gamma has no effect.*TrainConfig.gamma"):
        check_agent_bindings()
    gin.clear_config()
    gin.parse_config("DdpgAgent.target_update_tau = 0.1")
    with pytest.raises(ValueError, match="TrainConfig.polyak"):
        check_agent_bindings()
