"""imagine-tf-client in a virtual environment without TensorFlow: installed from client/ with
pip (its dependencies linked from this environment's locked versions, nothing else), it scores
through REST and gRPC what the in-process model scores, and acts as the exported policy acts.

The environment is made once per test process (its time is printed); the reward server is the
shared one (tests/conftest.py); the policy server starts while the policy is exported. The
calls run in one subprocess per server (tf_free_calls.py). Every subprocess and wait has a
deadline."""

import concurrent.futures
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import requests

from tests.serving.models import random_states
from tests.waiting import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
ROOT = pathlib.Path(__file__).resolve().parents[2]
CALLS = pathlib.Path(__file__).with_name("tf_free_calls.py")
GOALS = ["Grasp red cat", "Go left", "Grow any plant", "Grasp any animal", "Go right"]
TOLERANCE = 1e-5


def run(command: list, timeout: float) -> str:
    """Runs ``command`` (in /, without the PYTHON* variables); its stdout; fails if non-zero."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd="/",
        env=environment,
    )
    assert result.returncode == 0, f"{command}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


#: What imagine-tf-client imports (its pinned dependencies), as folders of site-packages.
CLIENT_DEPENDENCIES = (
    "numpy",
    "numpy.libs",
    "grpc",
    "google/protobuf",
    "google/_upb",
    "requests",
    "urllib3",
    "idna",
    "charset_normalizer",
    "certifi",
)


@pytest.fixture(scope="session")
def client_python(tmp_path_factory) -> pathlib.Path:
    """The python of a fresh virtual environment without TensorFlow: ``pip`` installs the
    client into it (a wheel built from a copy of client/, --no-deps, no index), and a .pth file
    adds a folder that links its dependencies (the locked versions) from this environment, and
    nothing else."""
    root = tmp_path_factory.mktemp("tf_free")
    source = shutil.copytree(
        ROOT / "client",
        root / "source",
        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"),
    )
    start = time.monotonic()
    run([sys.executable, "-m", "venv", "--without-pip", root / "venv"], timeout=120)
    python = root / "venv" / "bin" / "python"
    dependencies = root / "dependencies"
    here = pathlib.Path(np.__file__).parents[1]  # this environment's site-packages
    for name in CLIENT_DEPENDENCIES:
        if (here / name).exists():
            (dependencies / name).parent.mkdir(parents=True, exist_ok=True)
            (dependencies / name).symlink_to(here / name)
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], 60)
    (pathlib.Path(site.strip()) / "client_dependencies.pth").write_text(f"{dependencies}\n")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", root / "wheel", source], 300)
    (wheel,) = (root / "wheel").glob("imagine_tf_client-*.whl")
    run([*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], timeout=300)
    print(f"\nthe client's virtual environment took {time.monotonic() - start:.1f} s")
    return python


def calls(python: pathlib.Path, spec: dict, folder: pathlib.Path) -> dict:
    """The results of tf_free_calls.py run by ``python`` (isolated: no PYTHON*, no cwd)."""
    path = folder / f"{spec['kind']}_spec.json"
    path.write_text(json.dumps(spec))
    return json.loads(run([python, "-I", CALLS, path], timeout=120))


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def endpoints(target: str, rest_url: str) -> dict:
    port = closed_port()
    return dict(
        grpc=target,
        rest=rest_url,
        closed_target=f"127.0.0.1:{port}",
        closed_url=f"http://127.0.0.1:{port}",
    )


@pytest.fixture(scope="module")
def reward_results(client_python, reward_server, tmp_path_factory):
    """(states, goals, results of the reward calls)."""
    states = random_states(len(GOALS), seed=3)
    spec = dict(kind="reward", states=states.tolist(), goals=GOALS)
    spec.update(endpoints(reward_server.target, reward_server.rest_url))
    folder = tmp_path_factory.mktemp("reward_calls")
    return states, GOALS, calls(client_python, spec, folder)


def test_rest_and_grpc_scores_are_the_models(reward_results, reward_server):
    import tensorflow as tf

    states, goals, results = reward_results
    model = tf.saved_model.load(str(reward_server.model_dir / "1"))
    expected = model.signatures["score"](goals=tf.constant(goals), states=tf.constant(states))
    probability = expected["probability"].numpy()
    assert results["loaded"] == [] and "/venv/lib/" in results["client_file"]
    for transport in ("rest", "grpc"):
        got = results[transport]
        assert got["dtype"] == "float32"
        for key in ("score", "score_version", "score_label"):
            np.testing.assert_allclose(got[key], probability, atol=TOLERANCE, err_msg=key)
        assert got["reward"] == expected["reward"].numpy().tolist()
        np.testing.assert_allclose(
            got["module_probabilities"], expected["module_probabilities"].numpy(), atol=TOLERANCE
        )
    # one goal for every state, and every state with two goals: the same scores
    one_goal = model.signatures["score"](
        goals=tf.constant(goals[:1] * len(goals)), states=tf.constant(states)
    )["probability"].numpy()
    scan = model.signatures["scan"](goals=tf.constant(goals[:2]), states=tf.constant(states))
    for transport in ("rest", "grpc"):
        np.testing.assert_allclose(results[transport]["score_one_goal"], one_goal, atol=TOLERANCE)
        np.testing.assert_allclose(
            results[transport]["scan"], scan["probabilities"].numpy(), atol=TOLERANCE
        )


def test_metadata_status_and_signatures_over_both(reward_results):
    _, _, results = reward_results
    rest, grpc = results["rest"], results["grpc"]
    assert rest["metadata"] == grpc["metadata"]
    assert rest["metadata"]["architecture"] == "ma" and rest["metadata"]["threshold"] == 0.5
    assert rest["status"] == grpc["status"] == {"1": "AVAILABLE"}
    assert rest["signatures"] == grpc["signatures"]
    score = rest["signatures"]["score"]
    assert score["inputs"] == {
        "goals": {"dtype": "DT_STRING", "shape": [-1]},
        "states": {"dtype": "DT_FLOAT", "shape": [-1, -1]},  # any N: D = 2 (3 + 39 N)
    }
    assert score["outputs"]["probability"] == {"dtype": "DT_FLOAT", "shape": [-1]}


#: case -> (error class, words its message must have)
EXPECTED_ERRORS = {
    "unknown_model": ("ModelNotFound", ["rewrd", "reward"]),
    "unknown_version": ("ModelNotFound", ["7"]),
    "unknown_label": ("ModelNotFound", ["canary"]),
    "one_state": ("InvalidInput", ["[B, D]", "[240]", "[state]"]),
    "goal_count": ("InvalidInput", ["5 states but 2 goals", "scan()"]),
    "not_a_goal": ("InvalidInput", ["goals[0]", "int"]),
    "bad_width": ("InvalidInput", ["100", "240"]),
    "unknown_word": ("InvalidInput", ["purple"]),
    "nan_state": ("InvalidInput", ["NaN"]),
    "refused": ("ServerUnavailable", ["cannot connect", "127.0.0.1", "running"]),
}


@pytest.mark.parametrize("case", sorted(EXPECTED_ERRORS))
def test_wrong_calls_say_what_to_fix(reward_results, case):
    kind, words = EXPECTED_ERRORS[case]
    for transport in ("rest", "grpc"):
        got_kind, message = reward_results[2]["errors"][f"{case}/{transport}"]
        assert got_kind == kind, (transport, message)
        for word in words:
            assert word in message, (transport, word, message)


@pytest.fixture(scope="module")
def policy_server(tmp_path_factory):
    """(gRPC target, REST URL, exported path) of a server of an exported MA policy (N = 3)."""
    from imagine_tf_serving.launcher import launch
    from tests.agent.export_test import make_actor

    from imagine_tf.agent.export import export_policy

    base = tmp_path_factory.mktemp("policy_server") / "policy"
    options = ("--model_name", "policy", "--poll_seconds", "0.3", "--rest_api_port", "0")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        starting = pool.submit(launch, base, *options)  # it loads the version once exported
        path = export_policy(make_actor(), base)
        process, target = starting.result(timeout=240)
    try:
        wait_until(
            lambda: _available(process.rest_url, "policy"),
            120,
            interval=0.1,
            what="the policy AVAILABLE",
            process=process,
        )
        yield target, process.rest_url, path
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def _available(url: str, model: str) -> bool:
    try:
        rows = requests.get(f"{url}/v1/models/{model}", timeout=5).json()["model_version_status"]
        return rows[0]["state"] == "AVAILABLE"
    except (requests.ConnectionError, KeyError, IndexError):
        return False


def test_rest_and_grpc_actions_are_the_policys(client_python, policy_server, tmp_path):
    import tensorflow as tf
    import tf_agents  # noqa: F401 - the policy's TypeSpecs, before loading

    from imagine_tf.language.vocabulary import Vocabulary

    target, rest_url, path = policy_server
    states = random_states(len(GOALS), seed=4)
    tokens = Vocabulary.default().encode(GOALS)
    spec = dict(kind="policy", states=states.tolist(), goals=GOALS, tokens=tokens.tolist())
    spec.update(endpoints(target, rest_url))
    results = calls(client_python, spec, tmp_path)
    act = tf.saved_model.load(str(path)).signatures["act"]
    expected = act(goals=tf.constant(GOALS), states=tf.constant(states))["action"].numpy()
    assert results["loaded"] == [] and np.abs(expected).max() > 0.01
    for transport in ("rest", "grpc"):
        got = results[transport]
        np.testing.assert_allclose(got["act"], expected, atol=TOLERANCE)
        np.testing.assert_allclose(got["act_tokens"], expected, atol=TOLERANCE)
        assert got["train_step"] == -1 and got["status"] == {"1": "AVAILABLE"}
        assert got["bad_observation"][0] == "InvalidInput"
        assert "'goal'" in got["bad_observation"][1]


def test_the_environment_has_the_client_and_no_tensorflow(client_python):
    for module in ("tensorflow", "tensorflow_serving", "tf_agents", "imagine_tf"):
        result = subprocess.run(
            [client_python, "-I", "-c", f"import {module}"], capture_output=True, timeout=60
        )
        assert result.returncode != 0 and b"ModuleNotFoundError" in result.stderr, module
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python"]
    installed = run([*pip, client_python, "list", "--format", "json"], timeout=60)
    names = {row["name"].lower() for row in json.loads(installed)}
    assert "imagine-tf-client" in names and not {"tensorflow", "tensorflow-serving-api"} & names
