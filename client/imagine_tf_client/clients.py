"""Clients of the exported reward model and policy, over REST or gRPC (no TensorFlow).

    reward = RewardClient("http://127.0.0.1:8501")           # or GrpcRewardClient("127.0.0.1:8500")
    reward.score(states, ["Grasp red cat", "Go left"])       # float32 [B]: R(s, g)
    reward.scan(states, goals)                               # float32 [B, K]
    policy = PolicyClient("http://127.0.0.1:8501", model="policy")
    policy.act({"state": states, "goal": ["Grasp red cat", "Go left"]})   # float32 [B, 3]

The signatures, input keys and dtypes are the serving README's contract: ``score``
(``goals`` string [B], ``states`` float32 [B, D]), ``scan`` (``states`` [B, D], ``goals``
[K]) and ``metadata`` for the reward model; ``act`` (``goals``, ``states``) and PolicySaver's
``action`` (``0/observation/goal`` int32 token ids [B, L], ...) for the policy. D = 2 (3 + 39 N)
for N objects (240 for N = 3).
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence

import numpy as np

from imagine_tf_client.errors import InvalidInput, ServerError
from imagine_tf_client.inputs import goal_array, states_array, token_array
from imagine_tf_client.rest_transport import RestTransport


class ModelClient:
    """The calls every served model has, over a transport (`RestTransport`, `GrpcTransport`)."""

    def __init__(self, transport):
        self.transport = transport

    def predict(self, signature: str, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Any signature: input name -> array; output name -> array (over REST, a signature
        with one output answers ``{"": array}``)."""
        return self.transport.predict(signature, dict(inputs))

    def status(self) -> dict[int, str]:
        """Version -> state ("AVAILABLE" once served; "LOADING", "END", ...)."""
        return self.transport.status()

    def signature_defs(self) -> dict:
        """Signature -> {"inputs": {key: {"dtype": "DT_FLOAT", "shape": (-1, 240)}}, "outputs":
        {...}, "method_name": ...}; -1: any size, None: unknown rank."""
        return self.transport.signature_defs()

    def close(self) -> None:
        self.transport.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _only(self, outputs: dict, name: str) -> np.ndarray:
        """Output ``name`` (or the only output of a REST answer)."""
        for key in (name, ""):
            if key in outputs:
                return outputs[key]
        raise ServerError(f"the answer has no output {name!r}: it has {sorted(outputs)}")


class _RewardCalls(ModelClient):
    def score(self, states, goals: str | Sequence[str]) -> np.ndarray:
        """R(s, g) for each (state, goal) pair.

        Args:
          states: float32 [B, D], Playground states [o_t, o_t - o_0].
          goals: [B] sentences, one per state, or one sentence for every state.

        Returns:
          float32 [B]: the probability that each state satisfies its goal.
        """
        return self.score_details(states, goals)["probability"]

    def score_details(self, states, goals: str | Sequence[str]) -> dict[str, np.ndarray]:
        """``score``'s outputs: "probability" float32 [B], "reward" bool [B] (probability >
        the model's threshold), "module_probabilities" float32 [B, M]."""
        states = states_array(states)
        goals = goal_array(goals, len(states))
        outputs = self.predict("score", {"goals": goals, "states": states})
        return {
            "probability": self._only(outputs, "probability").astype(np.float32),
            "reward": self._only(outputs, "reward").astype(bool),
            "module_probabilities": self._only(outputs, "module_probabilities").astype(np.float32),
        }

    def scan(self, states, goals: str | Sequence[str]) -> np.ndarray:
        """Every state with every goal: states float32 [B, D], goals [K] -> float32 [B, K]."""
        inputs = {"states": states_array(states), "goals": goal_array(goals)}
        return self._only(self.predict("scan", inputs), "probabilities").astype(np.float32)

    def metadata(self) -> dict:
        """The model's own metadata: architecture, num_objects (the N accepted), threshold,
        vocabulary, max_goal_words, train and test goals, versions of its making."""
        value = self._only(self.predict("metadata", {}), "metadata").item()
        return json.loads(value.decode("utf-8") if isinstance(value, bytes) else value)


class _PolicyCalls(ModelClient):
    def act(self, observation: Mapping) -> np.ndarray:
        """The policy's noise-free actions.

        Args:
          observation: {"state": float32 [B, D], "goal": ...} where the goal is [B] sentences
            (or one for every state), through the ``act`` signature, or int32 token ids
            [B, L] as `PlaygroundEnv` observes them, through PolicySaver's ``action``.

        Returns:
          float32 [B, 3] in [-1, 1].
        """
        if not isinstance(observation, Mapping) or {"state", "goal"} - set(observation):
            raise InvalidInput(
                "observation must be a dict with 'state' [B, D] and 'goal' (sentences [B] or "
                f"token ids [B, L]), got {_keys(observation)}"
            )
        states = states_array(observation["state"], "observation['state']")
        goal = observation["goal"]
        if isinstance(goal, str) or np.asarray(goal).dtype.kind in "OSU":
            inputs = {"goals": goal_array(goal, len(states)), "states": states}
            return self._only(self.predict("act", inputs), "action").astype(np.float32)
        count = len(states)
        inputs = {
            "0/step_type": np.ones(count, np.int32),  # MID: the policy keeps no state
            "0/reward": np.zeros(count, np.float32),
            "0/discount": np.ones(count, np.float32),
            "0/observation/state": states,
            "0/observation/goal": token_array(goal, count),
        }
        return self._only(self.predict("action", inputs), "action").astype(np.float32)

    def train_step(self) -> int:
        """The training step the policy was exported at (-1 if not recorded)."""
        return int(self._only(self.predict("get_train_step", {}), "int64"))


def _keys(value) -> str:
    return f"keys {sorted(value)}" if isinstance(value, Mapping) else type(value).__name__


class RewardClient(_RewardCalls):
    """The reward model over TF Serving's REST API.

    Args:
      rest_url: "http://host:port" (the server's ``--rest_api_port``, 8501 by default).
      model: the served model's name.
      version, label: a version number or a version label (None, None: the newest served).
      timeout: seconds per call.
    """

    def __init__(
        self,
        rest_url="http://127.0.0.1:8501",
        model="reward",
        version=None,
        label=None,
        timeout=10.0,
    ):
        super().__init__(RestTransport(rest_url, model, version, label, timeout))


class GrpcRewardClient(_RewardCalls):
    """The reward model over TF Serving's gRPC API.

    Args:
      target: "host:port" (the server's ``--port``, 8500 by default).
      model, version, label, timeout: as `RewardClient`.
      root_certificates: PEM bytes to verify a TLS server (None: plaintext).
    """

    def __init__(
        self,
        target="127.0.0.1:8500",
        model="reward",
        version=None,
        label=None,
        timeout=10.0,
        root_certificates=None,
    ):
        from imagine_tf_client.grpc_transport import GrpcTransport  # grpcio: only for gRPC

        super().__init__(GrpcTransport(target, model, version, label, timeout, root_certificates))


class PolicyClient(_PolicyCalls):
    """The exported policy over TF Serving's REST API (arguments as `RewardClient`'s)."""

    def __init__(
        self,
        rest_url="http://127.0.0.1:8501",
        model="policy",
        version=None,
        label=None,
        timeout=10.0,
    ):
        super().__init__(RestTransport(rest_url, model, version, label, timeout))


class GrpcPolicyClient(_PolicyCalls):
    """The exported policy over TF Serving's gRPC API (arguments as `GrpcRewardClient`'s)."""

    def __init__(
        self,
        target="127.0.0.1:8500",
        model="policy",
        version=None,
        label=None,
        timeout=10.0,
        root_certificates=None,
    ):
        from imagine_tf_client.grpc_transport import GrpcTransport  # grpcio: only for gRPC

        super().__init__(GrpcTransport(target, model, version, label, timeout, root_certificates))
