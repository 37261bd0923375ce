"""A saved run read back: its agent (`load_agent`) and its reward network
(`load_reward_network`, for export: `imagine-tf export reward`).

Two kinds of runs hold one:

* a **reward-model run** (`imagine-tf reward train | study`): ``best.weights.h5`` and
  ``network.json`` (the network's config; runs from before it existed are rebuilt with the
  default vocabulary, with or without the relational words, whichever the weights fit);
* an **ensemble** of reward-model runs (`imagine-tf reward study`,
  ``RewardStudyConfig.ensemble_size = K``): ``metrics.json`` lists its member runs, loaded into
  one `RewardEnsemble`;
* an **agent run** (`imagine-tf train`): ``config.json`` and ``checkpoint/tf``, from which only
  the co-learned reward network is read — from a consistent copy, as the run may be training
  (`snapshot_checkpoint`; `load_agent` reads the whole agent the same way).
"""

from __future__ import annotations

import os
import pathlib
import tempfile

import tensorflow as tf

import imagine_tf
from imagine_tf.language import grammar
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.ensemble_network import RewardEnsemble
from imagine_tf.reward.layout import BEST_WEIGHTS
from imagine_tf.reward.loading import built_network, ensemble_members, load_reward_run
from imagine_tf.reward.network import RewardNetwork
from imagine_tf.agent.builder import RunBuilder
from imagine_tf.runs.snapshot import snapshot_checkpoint
from imagine_tf.agent.config import TrainConfig
from imagine_tf.agent.learning import Learner
from imagine_tf.runs.checkpoint import LearnerCheckpoint
from imagine_tf.runs.layout import (
    CHECKPOINT_NAMES,
    CHECKPOINT_STATE,
    CHECKPOINT_TF_PREFIX,
    CONFIG_JSON,
    RunLayout,
)


def _from_agent_run(root: pathlib.Path) -> RewardNetwork:
    config = TrainConfig.from_json((root / CONFIG_JSON).read_text())
    model, vocabulary = config.reward_model, Vocabulary.default()
    network = built_network(
        {
            "architecture": model.architecture,
            "words": vocabulary.words[1:],
            "max_length": vocabulary.max_length,
            "num_objects": config.num_objects,
            "hidden_units": model.hidden_units,
            "normalize_goal": model.normalize_goal,
            "aggregation": model.aggregation,
            "pair_gate": model.pair_gate,
            "pair_relations": model.pair_relations,
        }
    )
    for name in CHECKPOINT_NAMES:
        if (root / name / CHECKPOINT_STATE).exists():
            status = tf.train.Checkpoint(reward_network=network).read(
                str(root / name / CHECKPOINT_TF_PREFIX)
            )
            status.expect_partial().assert_existing_objects_matched()
            return network
    raise FileNotFoundError(f"{root} has no checkpoint yet: train at least one epoch.")


def load_reward_network(
    root_dir: str | os.PathLike,
) -> tuple[RewardNetwork | RewardEnsemble, dict]:
    """(network, metadata) of a reward-model run, an ensemble of them or an agent run;
    FileNotFoundError if none."""
    root = pathlib.Path(root_dir)
    members = []
    if (root / BEST_WEIGHTS).exists():
        network, kind = load_reward_run(root), "reward_model_run"
    elif members := ensemble_members(root):
        network = RewardEnsemble([load_reward_network(member)[0] for member in members])
        kind = "reward_ensemble"
    elif (root / CONFIG_JSON).exists() and any((root / n).exists() for n in CHECKPOINT_NAMES):
        with tempfile.TemporaryDirectory(prefix="imagine-load-") as copy:  # it may be training
            network, kind = _from_agent_run(snapshot_checkpoint(root, copy)), "agent_run"
    else:
        raise FileNotFoundError(
            f"{root} holds no trained reward model: give a directory of `imagine-tf reward train` "
            "(best.weights.h5), an ensemble of `reward study` (RewardStudyConfig.ensemble_size, metrics.json "
            "with members) or a run of `imagine-tf train` (config.json + checkpoint/)."
        )
    metadata = {
        "source": {
            "run": str(root.resolve()),
            "kind": kind,
            **({"members": [str(m.resolve()) for m in members]} if members else {}),
        },
        "package": f"imagine_tf {imagine_tf.__version__}",
        "tensorflow": tf.__version__,
        "train_goals": grammar.train_goals(),
        "test_goals": grammar.test_goals(),
    }
    return network, metadata


def load_agent(root_dir: str | os.PathLike) -> Learner:
    """The restored `Learner` of an agent run (networks only, no replay), for evaluation and
    export; the run may be training meanwhile, and its checkpoint may be networks-only
    (`write_networks_checkpoint`: the repository's pretrained models). It is restored from a consistent copy of the
    last checkpoint (`snapshot_checkpoint`) in a scratch directory, removed once restored: the
    returned learner is not for training.

    Raises FileNotFoundError (no run, no checkpoint) or `SnapshotError`.
    """
    layout = RunLayout(root_dir)
    if not layout.config_json.exists():
        raise FileNotFoundError(
            f"{layout.root} is not an agent run (no config.json): train one with `imagine-tf train`."
        )
    config = TrainConfig.from_json(layout.config_json.read_text())
    learner = RunBuilder(config).make_learner()
    with tempfile.TemporaryDirectory(prefix="imagine-load-") as copy:
        snapshot_checkpoint(layout.root, copy)
        if not LearnerCheckpoint(learner, copy).restore_networks():
            raise FileNotFoundError(
                f"{layout.root} has no checkpoint yet: train at least one epoch."
            )
    return learner
