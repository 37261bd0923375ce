"""Run by tf_free_client_test.py with the python of a virtual environment holding only
imagine-tf-client: calls a server through every client and prints the results as JSON.

    python tf_free_calls.py SPEC.json    # {"kind": "reward" | "policy", "rest", "grpc", ...}

Not a test module (pytest collects *_test.py): it must import nothing but the client, numpy
and the standard library.
"""

import json
import sys

import numpy as np

import imagine_tf_client as client


def reward_calls(spec: dict) -> dict:
    """Every reward-model call over REST and gRPC, with the version and label routes."""
    states, goals = np.array(spec["states"], np.float32), spec["goals"]
    results = {}
    for transport, make in transports(spec, client.RewardClient, client.GrpcRewardClient):
        with make() as reward, make(version=1) as by_version, make(label="stable") as by_label:
            details = reward.score_details(states, goals)
            results[transport] = {
                "score": reward.score(states, goals).tolist(),
                "dtype": str(reward.score(states, goals).dtype),
                "score_version": by_version.score(states, goals).tolist(),
                "score_label": by_label.score(states, goals).tolist(),
                "score_one_goal": reward.score(states, goals[0]).tolist(),
                "reward": details["reward"].tolist(),
                "module_probabilities": details["module_probabilities"].tolist(),
                "scan": reward.scan(states, goals[:2]).tolist(),
                "metadata": reward.metadata(),
                "status": {str(k): v for k, v in reward.status().items()},
                "signatures": jsonable(reward.signature_defs()),
            }
    results["errors"] = reward_errors(spec, states, goals)
    return results


def reward_errors(spec: dict, states: np.ndarray, goals: list) -> dict:
    """(error class, message) of each wrong call, by case and transport."""
    cases = {
        "unknown_model": (dict(model="rewrd"), lambda c: c.score(states, goals)),
        "unknown_version": (dict(version=7), lambda c: c.score(states, goals)),
        "unknown_label": (dict(label="canary"), lambda c: c.score(states, goals)),
        "one_state": ({}, lambda c: c.score(states[0], goals[0])),
        "goal_count": ({}, lambda c: c.score(states, goals[:2])),
        "not_a_goal": ({}, lambda c: c.score(states[:1], [3])),
        "bad_width": ({}, lambda c: c.score(states[:, :100], goals)),
        "unknown_word": ({}, lambda c: c.score(states[:1], ["Grasp purple unicorn"])),
        "nan_state": ({}, lambda c: c.score(np.full_like(states[:1], np.nan), goals[:1])),
        "refused": (dict(closed=True), lambda c: c.status()),
    }
    errors = {}
    for transport, make in transports(spec, client.RewardClient, client.GrpcRewardClient):
        for case, (options, call) in cases.items():
            errors[f"{case}/{transport}"] = raised(make, options, call)
    return errors


def policy_calls(spec: dict) -> dict:
    """The policy's actions from sentences and from token ids, over REST and gRPC."""
    states = np.array(spec["states"], np.float32)
    tokens = np.array(spec["tokens"], np.int32)
    results = {}
    for transport, make in transports(spec, client.PolicyClient, client.GrpcPolicyClient):
        with make() as policy:
            results[transport] = {
                "act": policy.act({"state": states, "goal": spec["goals"]}).tolist(),
                "act_tokens": policy.act({"state": states, "goal": tokens}).tolist(),
                "train_step": policy.train_step(),
                "status": {str(k): v for k, v in policy.status().items()},
                "bad_observation": raised(make, {}, lambda c: c.act({"state": states})),
            }
    return results


def transports(spec: dict, rest_class, grpc_class):
    """("rest" | "grpc", make(**options) -> client of the spec's server)."""

    def rest(closed=False, **options):
        return rest_class(spec["closed_url"] if closed else spec["rest"], **options)

    def grpc(closed=False, **options):
        return grpc_class(spec["closed_target"] if closed else spec["grpc"], **options)

    return [("rest", rest), ("grpc", grpc)]


def raised(make, options: dict, call) -> list:
    """[error class name, message] of ``call(make(**options))`` (["none", ""] if it returned)."""
    try:
        with make(**options) as instance:
            call(instance)
    except client.ClientError as error:
        return [type(error).__name__, str(error)]
    return ["none", ""]


def jsonable(value):
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    return list(value) if isinstance(value, tuple) else value


def main() -> None:
    with open(sys.argv[1]) as file:
        spec = json.load(file)
    results = reward_calls(spec) if spec["kind"] == "reward" else policy_calls(spec)
    results["loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in FORBIDDEN)
    results["client_file"] = client.__file__
    print(json.dumps(results))


FORBIDDEN = ("tensorflow", "tensorflow_serving", "tf_agents", "imagine_tf", "serving")

if __name__ == "__main__":
    main()
