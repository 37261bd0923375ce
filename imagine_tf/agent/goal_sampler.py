"""The earlier name of `imagine_tf.agent.goals` (`KnownGoals`, the registry of the goals an
agent knows), kept for one release: import from `imagine_tf.agent.goals`."""

from imagine_tf.agent.goals import KnownGoals  # noqa: F401
