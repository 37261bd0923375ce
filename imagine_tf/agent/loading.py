"""The earlier name of `imagine_tf.analysis.saved_run` (a saved run's agent and reward
network), kept for one release: import from `imagine_tf.analysis.saved_run`."""

from imagine_tf.analysis.saved_run import load_agent, load_reward_network  # noqa: F401
