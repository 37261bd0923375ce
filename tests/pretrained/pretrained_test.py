"""The shipped pretrained models (models/): they load, score what their card says (within the
seeds' spread and close to the card's own figure), and `play`, `eval` and `serve` find them.

The figures measured again are the card's check (the training goals' SR over 5 episodes per
goal, seed 12345) and the reward's F1 on the training and test goals through the exported
SavedModel (`imagine_tf.pretrained.measures`); docs in models/README.md, Checks."""

import hashlib
import json
import pathlib

import numpy as np
import pytest
import tensorflow as tf

from imagine_tf.cli.main import main
from imagine_tf.pretrained import location, measures
from imagine_tf.pretrained.card import METRICS, figure_text, render_readme
from imagine_tf.pretrained.play import load_pretrained_agent, play_agent

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def card() -> dict:
    return location.read_card()


@pytest.fixture(scope="module")
def learner():
    return load_pretrained_agent()


@pytest.fixture(scope="module")
def served():
    return measures.load_served(location.reward_dir())


@pytest.fixture(scope="module")
def probes(card):
    return measures.goal_probes(card["agent"]["config"]["num_objects"])


def assert_as_the_card_says(card: dict, metric: str, measured: float, card_figure: float):
    """In the seeds' band (mean ± 3 std; none when one seed was measured) and within the
    card's tolerance of its figure."""
    band = card["seeds"]["spread"][metric]["band"]
    if band is not None:
        assert band[0] <= measured <= band[1], (metric, measured, band)
    tolerance = card["measures"]["check"]["tolerance"]
    assert abs(measured - card_figure) <= tolerance, (metric, measured, card_figure)


def test_the_shipped_policy_succeeds_as_its_card_says(card, learner):
    check = card["measures"]["check"]
    measured = measures.check_success(learner, check["episodes_per_goal"], check["seed"])
    assert_as_the_card_says(card, "train_success", measured, card["shipped"]["check_train_success"])
    assert int(learner.epoch.numpy()) == card["agent"]["epoch"]


def test_the_served_reward_scores_as_its_card_says(card, served, probes):
    measured = measures.served_reward_f1(served, probes)
    for metric in ("train_goal_f1", "test_goal_f1"):
        assert_as_the_card_says(card, metric, measured[metric], card["shipped"][metric])


def test_the_served_reward_is_the_checkpoints_reward_network(learner, served, probes):
    states = probes["test"].states[:16]
    goals = ["Grasp red cat"] * len(states)
    scored = served.signatures["score"](goals=tf.constant(goals), states=tf.constant(states))
    embeddings = learner.encode_goals(learner.builder.goal_tokens(goals))
    expected = learner.reward_network.head(tf.constant(states), embeddings)
    assert scored["module_probabilities"].shape == (16, 3)  # one per object
    np.testing.assert_allclose(
        scored["probability"].numpy(), np.ravel(expected.numpy()), rtol=0, atol=1e-5
    )


def test_the_files_are_those_the_card_lists_and_fit_in_20_mb(card):
    models = location.models_dir()
    agent = models / card["agent"]["directory"]
    found = {
        str(path.relative_to(agent)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in agent.rglob("*")
        if path.is_file()
    }
    assert found == {path: entry["sha256"] for path, entry in card["files"].items()}
    assert sum(p.stat().st_size for p in models.rglob("*") if p.is_file()) <= 20_000_000


def test_the_readme_is_the_card_rendered(card):
    readme = (location.models_dir() / location.README).read_text()
    assert readme == render_readme(card)


def test_the_results_page_quotes_the_card(card):
    text = (location.REPOSITORY / "docs" / "results.md").read_text()
    section = text[text.index("### Pretrained models") :]
    section = section[: section.index("\n## ")]
    shipped, spread = card["shipped"], card["seeds"]["spread"]
    assert "{:.3f} / {:.3f}; {:.3f} / {:.3f}".format(*(shipped[m] for m in METRICS)) in section
    seeds = [
        figure_text(spread[m]["mean"]) + " ± " + figure_text(spread[m]["std"]) for m in METRICS
    ]
    assert "{} / {}; {} / {}".format(*seeds) in section


def test_the_or_weights_are_those_the_card_names(card):
    from imagine_tf.reward.or_network import PACKAGED_DIR

    for name, digest in card["reward"]["or_weights"]["sha256"].items():
        assert hashlib.sha256((PACKAGED_DIR / name).read_bytes()).hexdigest() == digest, name


def test_the_agent_plays_a_goal_and_the_partner_describes_the_end(learner):
    result = play_agent(learner, ["grasp red cat", "Go top left"], seed=0)
    assert result.goals == ["Grasp red cat", "Go top left"]
    assert result.states.shape == (51, 2, 240) and result.actions.shape == (50, 2, 3)
    assert result.achieved.dtype == bool and len(result.descriptions) == 2
    assert all(isinstance(sentence, str) for sentence in result.descriptions[1])
    with pytest.raises(ValueError, match="two-object goal"):
        play_agent(learner, ["Grasp any right_of dog thing"])


@pytest.fixture
def loaded_once(monkeypatch, learner):
    """`load_agent` answers with the module's learner, if asked for the pretrained agent."""
    import imagine_tf.analysis.saved_run
    import imagine_tf.analysis.run_evaluation

    def load_agent(root_dir):
        assert pathlib.Path(root_dir) == location.agent_dir()
        return learner

    monkeypatch.setattr(imagine_tf.analysis.saved_run, "load_agent", load_agent)
    monkeypatch.setattr(imagine_tf.analysis.run_evaluation, "load_agent", load_agent)


def test_play_with_the_pretrained_policy_writes_the_episode(loaded_once, tmp_path, capsys):
    out = tmp_path / "e.gif"
    argv = ["play", "--goal", "Grasp red cat", "--policy", "pretrained", "--out", str(out)]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["goal"] == "Grasp red cat" and isinstance(result["achieved"], bool)
    assert out.read_bytes()[:6] == b"GIF89a"
    assert main([*argv, "--noise", "0.1"]) == 2
    assert "--noise is the scripted policy's" in capsys.readouterr().err


def test_eval_pretrained_prints_and_leaves_models_as_they_are(loaded_once, card, capsys):
    agent = location.agent_dir()
    before = {p: p.stat().st_mtime_ns for p in agent.rglob("*")}
    assert main(["eval", "--pretrained", "--repetitions", "1"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["epoch"] == card["agent"]["epoch"] and 0 <= result["test_success"] <= 1
    assert "models/card.json: train / test SR" in err
    assert {p: p.stat().st_mtime_ns for p in agent.rglob("*")} == before
    assert main(["eval", "--pretrained", "--root-dir", str(agent)]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_serve_pretrained_serves_the_cards_reward_model(monkeypatch, capsys):
    import imagine_tf_serving.server

    served = []
    monkeypatch.setattr(imagine_tf_serving.server, "serve", lambda args: served.append(args) or 0)
    assert main(["serve", "--pretrained", "--port", "0"]) == 0
    assert served[0].model_base_path == str(location.reward_dir())
    assert main(["serve"]) == 2
    assert "--model-base-path DIR" in capsys.readouterr().err


def test_without_models_pretrained_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(location, "REPOSITORY", tmp_path)
    for argv in (
        ["eval", "--pretrained"],
        ["serve", "--pretrained"],
        ["play", "--goal", "Go left", "--policy", "pretrained"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"No pretrained models at {tmp_path / 'models'}" in err, argv
        assert "make install" in err and "pretrained build" in err


def test_a_networks_only_checkpoint_is_not_trained_further(learner):
    from imagine_tf.runs.checkpoint import LearnerCheckpoint, NotResumable

    with pytest.raises(NotResumable, match="networks-only checkpoint"):
        LearnerCheckpoint(learner, location.agent_dir()).restore()
