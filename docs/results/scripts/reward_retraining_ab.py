"""One reward retraining (patience 15) from a fresh MA reward model on a saved reward memory.

The record docs/results/reward_retraining_before_after.json ran it for seeds 0-2 in a worktree
of the code before the compiled reward-epoch (3089c97) and of the code after it, on the same
memory: the 600 final states of a default run's epoch 0 (82 goals), saved as mem.npz with the
memory's `state_dict()` plus `tokens` (the goals' token ids).

    python reward_retraining_ab.py SEED mem.npz
"""

import json
import sys

import numpy as np
import tensorflow as tf

from imagine_tf.reward.memory import RewardMemory
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.agent.config import TrainConfig

seed, path = int(sys.argv[1]), sys.argv[2]
builder = RunBuilder(TrainConfig(seed=seed))
tf.keras.utils.set_random_seed(seed)
learner = builder.make_reward_learner(builder.make_reward_network())
saved = np.load(path, allow_pickle=True)
goals = saved["positives"].shape[1]
try:  # before: the memory sampled the batches with its own seed
    memory = RewardMemory(50_000, saved["states"].shape[1], goals, seed=seed)
except TypeError:
    memory = RewardMemory(50_000, saved["states"].shape[1], goals)
memory.load_state_dict(
    {k: saved[k] for k in ("states", "positives", "negatives", "added_at", "counters")}
)
print(json.dumps({"seed": seed, **learner.update(memory, saved["tokens"], num_new=600)}))
