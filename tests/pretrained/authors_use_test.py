"""The authors' converted agent in use: `imagine-tf eval --agent authors --world authors --out`,
`play --policy authors`, and `serve --model authors` answering TF Serving's REST API with what
their own PyTorch reward network computed (tests/fixtures/authors/networks.npz)."""

import json
import pathlib
import signal
import sys

import numpy as np
import pytest
import requests

from imagine_tf.cli.main import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "authors" / "networks.npz"


def test_eval_of_the_authors_agent_in_their_world_writes_a_record(tmp_path, capsys):
    out = tmp_path / "authors.json"
    argv = ["eval", "--agent", "authors", "--world", "authors", "--repetitions", "1"]
    assert main([*argv, "--out", str(out), "--threads", "1"]) == 0
    record = json.loads(out.read_text())
    assert record["agent"] == "authors" and record["world"] == "authors"
    assert record["repetitions"] == 1 and len(record["per_goal"]) == 255
    assert record["train_success"] > 0.9  # their agent, one episode per goal (30: 0.994)
    assert set(record["test_per_predicate"]) == {"Grasp", "Grow"}
    assert "96,000 episodes" in record["budget"] and record["machine"]["logical_cpus"] >= 1
    assert record["command"].startswith("imagine-tf ")
    assert main(["eval", "--agent", "authors", "--root-dir", str(tmp_path)]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_play_with_the_authors_policy(tmp_path, capsys):
    out = tmp_path / "episode.gif"
    argv = ["play", "--goal", "Grow red living_thing", "--policy", "authors", "--json"]
    assert main([*argv, "--out", str(out)]) == 0
    output = json.loads(capsys.readouterr().out.strip().splitlines()[0])
    assert output["goal"] == "Grow red living_thing" and isinstance(output["achieved"], bool)
    assert out.stat().st_size > 0


@pytest.mark.timeout(300)
def test_serve_authors_answers_rest_as_their_torch_network():
    from imagine_tf_serving.launcher import launch_command

    with np.load(FIXTURE) as recorded:
        rows = slice(0, 8)
        goals = recorded["sentences"][recorded["reward_goal_index"][rows]]
        states, expected = recorded["reward_states"][rows], recorded["reward_probabilities"][rows]
    command = [sys.executable, "-m", "imagine_tf.cli.main", "serve", "--model", "authors"]
    process, _ = launch_command([*command, "--port", "0", "--rest-port", "0"])
    try:
        body = {
            "signature_name": "score",
            "instances": [{"goals": str(g), "states": s.tolist()} for g, s in zip(goals, states)],
        }
        answer = requests.post(
            f"{process.rest_url}/v1/models/reward:predict", json=body, timeout=60
        )
        served = [row["probability"] for row in answer.json()["predictions"]]
        np.testing.assert_allclose(served, expected, atol=1e-5)
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
