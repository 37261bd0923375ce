"""The authors' released IMAGINE agent (flowersteam/Imagine, ``pretrained_weights/``, MIT
licence: epoch 160 of a 167-epoch, 6-worker run with CGH) as this project's networks.

Their files: ``params.json`` (the run's settings and goal lists), ``policy_checkpoints/
policy_160.pkl`` (observation and goal normalizer statistics, identity here, and the actor's
state dict) and ``reward_checkpoints/reward_func_checkpoint_160`` (the reward model's state
dict: LSTM, gate, module, OR net). They hold **no critic**: the converted agent acts, is
evaluated and served; training it further would start a new critic.

Every tensor is mapped explicitly (`ACTOR_LAYERS`, `REWARD_LAYERS`). A torch ``Linear`` holds
W [out, in] and b; a Keras ``Dense`` kernel is Wᵀ. The torch LSTM's gates are (i, f, g, o), as
Keras' (i, f, c, o); its two biases are summed into Keras' one; its input columns are the
one-hot words of the authors' vocabulary (their training script's: the sorted words of their
train and test goals, 0 = padding), permuted into this project's word order (`lstm_weights`;
the two orders are the same). ``params.json``, written in January 2020, spells "cameleon" where
their code and these weights say "chameleon": read with that spelling, the five words sorted
between the two places ("carnivorous" … "chameleon") would each take a neighbour's column, and
the agent would fail every goal naming them. The OR net keeps its inputs in object order
(``aggregation = "or_unsorted"``), as theirs.
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np

from imagine_tf.pretrained.torch_pickle import load_legacy

PARAMS = "params.json"
POLICY = "policy_checkpoints/policy_160.pkl"
REWARD = "reward_checkpoints/reward_func_checkpoint_160"
EPOCH = 160
#: params.json's spelling -> their code's (and their weights' vocabulary)
PARAMS_SPELLINGS = {"cameleon": "chameleon"}

#: the authors' actor Linear layers -> (this project's actor layer, its path)
ACTOR_LAYERS = {
    "fc_cast.fc_layers.0": "trunk.attention.gate",
    "fc_actor.fc_layers.0": "trunk.layers_before_sum.0",
    "fc_actor.fc_layers.1": "trunk.layers_before_sum.1",
    "fc_pi.fc_layers.0": "trunk.after_sum",
    "fc_pi.fc_layers.1": "action_layer",
}
#: the authors' reward Linear layers -> this project's reward layers
REWARD_LAYERS = {
    "fc_cast.fc_layers.0": "attention.gate",
    "fc_reward.fc_layers.0": "hidden",
    "fc_reward.fc_layers.1": "readout",
}
OR_LAYERS = ("or_model.fc1", "or_model.fc2", "or_model.fc3")


class AuthorsFilesError(ValueError):
    """A directory that does not hold the authors' released files."""


def read_authors(directory: str | os.PathLike) -> dict:
    """{"params", "actor", "reward"}: the run's settings and the two state dicts (numpy)."""
    root = pathlib.Path(directory)
    missing = [name for name in (PARAMS, POLICY, REWARD) if not (root / name).exists()]
    if missing:
        raise AuthorsFilesError(
            f"{root} lacks {missing}: give the `pretrained_weights` directory of "
            "flowersteam/Imagine (git clone https://github.com/flowersteam/Imagine)."
        )
    policy = load_legacy(root / POLICY)
    statistics, actor = policy[:4], policy[4]
    identity = [np.zeros(240), np.ones(240), np.zeros(100), np.ones(100)]
    if not all(np.array_equal(s, i) for s, i in zip(statistics, identity)):
        raise AuthorsFilesError(f"{root / POLICY}: its normalizer is not the identity")
    return {
        "params": json.loads((root / PARAMS).read_text()),
        "actor": actor,
        "reward": load_legacy(root / REWARD),
    }


def authors_words(params: dict) -> list[str]:
    """The authors' vocabulary in id order (id = position + 1): the sorted words of their
    train and test goals, as their training script builds its one-hot encoder, spelled as
    their code spells them (`PARAMS_SPELLINGS`)."""
    goals = params["train_descriptions"] + params["test_descriptions"]
    words = {word for goal in goals for word in goal.lower().split(" ")}
    return sorted(PARAMS_SPELLINGS.get(word, word) for word in words)


def _resolve(network, path: str):
    layer = network
    for part in path.split("."):
        layer = layer[int(part)] if part.isdigit() else getattr(layer, part)
    return layer


def _assign_linear(layer, state: dict, name: str) -> None:
    weight, bias = state[f"{name}.weight"], state[f"{name}.bias"]
    if tuple(layer.kernel.shape) != weight.T.shape:
        raise AuthorsFilesError(
            f"{name}: the authors' weight is {weight.shape}, this project's layer {layer.name} "
            f"has a kernel of {tuple(layer.kernel.shape)} (expected the transpose)"
        )
    layer.kernel.assign(weight.T)
    layer.bias.assign(bias)


def assign_actor(actor, state: dict) -> None:
    """The authors' actor state dict into an MA `ActorNetwork` of N = 3 (its layers built)."""
    for name, path in ACTOR_LAYERS.items():
        _assign_linear(_resolve(actor, path), state, name)


def lstm_weights(state: dict, theirs: list[str], ours: list[str]) -> list[np.ndarray]:
    """[kernel [V + 1, 4H], recurrent kernel [H, 4H], bias [4H]] of a Keras LSTM over this
    project's one-hot words ``ours`` from the authors' torch LSTM over ``theirs``."""
    if sorted(theirs) != sorted(ours):
        raise AuthorsFilesError(
            f"the authors' vocabulary and this project's differ: {sorted(set(theirs) ^ set(ours))}"
        )
    columns = [0] + [1 + theirs.index(word) for word in ours]
    kernel = state["lstm.weight_ih_l0"].T[columns]  # [V + 1, 4H], rows in our word order
    recurrent = state["lstm.weight_hh_l0"].T
    bias = state["lstm.bias_ih_l0"] + state["lstm.bias_hh_l0"]
    return [kernel, recurrent, bias]


def assign_reward(network, state: dict, theirs: list[str]) -> None:
    """The authors' reward state dict into an MA `RewardNetwork` built with
    ``aggregation="or_unsorted"`` (its layers built)."""
    if network.architecture != "ma" or network.aggregation != "or_unsorted":
        raise ValueError("the authors' reward model is MA with the OR net in object order")
    ours = list(network.encoder.words)
    cell = network.encoder.lstm.cell
    for variable, value in zip(
        (cell.kernel, cell.recurrent_kernel, cell.bias), lstm_weights(state, theirs, ours)
    ):
        variable.assign(value)
    for name, path in REWARD_LAYERS.items():
        _assign_linear(_resolve(network, path), state, name)
    net = {}
    for index, name in enumerate(OR_LAYERS):
        net[f"kernel_{index}"], net[f"bias_{index}"] = (
            state[f"{name}.weight"].T,
            state[f"{name}.bias"],
        )
    network.or_network.assign_net(net)


def authors_config(params: dict):
    """The `TrainConfig` of the authors' run as far as this project's runs take it: MA policy
    and MA learned reward (OR in object order), their widths, CGH, final layers He-uniform."""
    from imagine_tf.agent.config import TrainConfig
    from imagine_tf.reward.config import RewardModelConfig

    learning, reward = params["learning_params"], params["reward_function"]
    return TrainConfig(
        architecture="ma",
        reward="learned",
        reward_model=RewardModelConfig(
            architecture="ma", hidden_units=int(reward["ff_size"]), aggregation="or_unsorted"
        ),
        hidden_units=int(learning["hidden"]),
        batch_size=int(learning["batch_size"]),
        polyak=float(learning["polyak"]),
        action_l2=float(learning["action_l2"]),
        gamma=float(learning["gamma"]),
        final_layer_init="he_uniform",
        imagination="cgh",
    )


def convert_authors(source: str | os.PathLike, out: str | os.PathLike):
    """The authors' agent as the shipped directory ``out`` (`authors_model`: a networks-only
    run directory that `load_agent`, `imagine-tf eval` and `play` read, its reward model as a
    SavedModel, their licence and a card): returns (learner, card)."""
    from imagine_tf.agent.builder import RunBuilder
    from imagine_tf.pretrained.authors_model import write_authors_model
    from imagine_tf.pretrained.location import REPOSITORY

    authors = read_authors(source)
    config = authors_config(authors["params"])
    learner = RunBuilder(config).make_learner()
    words = authors_words(authors["params"])
    assign_reward(learner.reward_network, authors["reward"], words)
    ddpg = learner.ddpg
    assign_actor(ddpg.actor_network, authors["actor"])
    assign_actor(ddpg.target_actor_network, authors["actor"])
    ddpg.set_goal_encoder(learner.reward_network.encoder)
    learner.embed_goals()
    card = write_authors_model(
        learner, source, out, [PARAMS, POLICY, REWARD], words, authors["params"], REPOSITORY
    )
    return learner, card
