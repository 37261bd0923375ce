"""Saves a default run's reward memory after epoch 0 (600 final states, seed 0) for
`reward_retraining_ab.py`: the memory's `state_dict()` plus `tokens` (the goals' token ids).

    python docs/results/scripts/save_reward_memory.py mem.npz
"""

import sys

import numpy as np

from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig
from imagine_tf.training.train_eval import in_process_actor

learner = RunBuilder(TrainConfig(seed=0)).make_learner()
next_batch = in_process_actor(learner)
for _ in range(learner.config.cycles_per_epoch):
    learner.observe(next_batch()[0])
tokens = learner.builder.goal_tokens(learner.goals.sentences)
np.savez(sys.argv[1], tokens=tokens, **learner.memory.state_dict())
print(f"{sys.argv[1]}: {learner.memory.size} final states, {len(tokens)} goals")
