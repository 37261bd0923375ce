"""Ensembles of reward runs: member seeds, the mean probability, refusals, the study's rows."""

import dataclasses
import json

import numpy as np
import pytest

from imagine_tf.data.episodes import EpisodeSpec
from imagine_tf.data.supervised import generate_supervised_data
from imagine_tf.language.vocabulary import Vocabulary
from imagine_tf.reward.config import RewardModelConfig
from imagine_tf.reward.f1 import f1_per_goal
from imagine_tf.reward.supervised_training import (
    SupervisedTrainer,
    score_matrix,
)
from imagine_tf.reward.layout import TEST_PROBABILITIES
from imagine_tf.analysis.saved_run import load_reward_network
from imagine_tf.reward.ensemble import evaluate_ensemble, member_seeds
from imagine_tf.reward.study import collect_study

# learning rate None: per architecture, as a supervised run's default
TINY = dict(learning_rate=None, batch_size=64, batches_per_epoch=3, hidden_units=16, max_epochs=2)


@pytest.fixture(scope="module")
def data():
    return generate_supervised_data(EpisodeSpec(seed=5), 200)


@pytest.fixture(scope="module")
def members(data, tmp_path_factory):
    root = tmp_path_factory.mktemp("members")
    for seed in (0, 1):
        SupervisedTrainer(
            data, RewardModelConfig("ma", seed=seed, **TINY), root / f"ma_s{seed}"
        ).train(progress=False)
    return root


def test_member_seeds_make_disjoint_ensembles():
    assert member_seeds(0, 3) == [0, 1, 2] and member_seeds(2, 3) == [6, 7, 8]
    assert member_seeds(4, 1) == [4]
    assert member_seeds(0, 3, first=100) == [100, 101, 102] and member_seeds(9, 3, 100)[-1] == 129
    with pytest.raises(ValueError, match="size >= 1"):
        member_seeds(0, 0)
    with pytest.raises(ValueError, match="first -1"):
        member_seeds(0, 3, first=-1)


def test_the_ensemble_scores_the_mean_probability_of_its_members(data, members, tmp_path):
    command = 'imagine-tf reward study --gin-binding "RewardStudyConfig.ensemble_size = 2"'
    metrics = evaluate_ensemble(
        data, [members / "ma_s0", members / "ma_s1"], tmp_path, seed=0, command=command
    )
    tokens = Vocabulary.from_goals(list(data.goals)).encode(list(data.goals))
    scores = [
        score_matrix(load_reward_network(members / f"ma_s{s}")[0], data.test_states, tokens)
        for s in (0, 1)
    ]
    assert not np.array_equal(scores[0] > 0.5, scores[1] > 0.5)  # the members disagree somewhere
    expected = f1_per_goal((scores[0] + scores[1]) / 2 > 0.5, data.test_labels).numpy()
    saved = json.loads((tmp_path / "metrics.json").read_text())
    got = np.array([np.nan if v is None else v for v in saved["f1_per_goal"].values()])
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert list(saved["f1_per_goal"]) == list(data.goals)
    assert saved["config"]["ensemble_size"] == 2 and [m["seed"] for m in saved["members"]] == [0, 1]
    member_seconds = [
        json.loads((members / f"ma_s{s}" / "metrics.json").read_text())["training_seconds"]
        for s in (0, 1)
    ]
    assert metrics["training_seconds"] == pytest.approx(sum(member_seconds))
    assert (tmp_path / "command.txt").read_text().startswith("imagine-tf reward study")


def test_members_that_kept_their_test_probabilities_are_not_scored_again(data, tmp_path):
    kept = []
    for seed in (0, 1):
        run = tmp_path / f"ma_s{seed}"
        trainer = SupervisedTrainer(data, RewardModelConfig("ma", seed=seed, **TINY), run)
        trainer.train(progress=False, keep_test_probabilities=True)
        kept.append(run)
    probabilities = np.load(kept[0] / TEST_PROBABILITIES)
    assert probabilities.shape == data.test_labels.shape and probabilities.dtype == np.float32
    averaged = evaluate_ensemble(data, kept, tmp_path / "averaged", seed=0)
    assert averaged["scored_from"] == "the members' saved test probabilities"
    (kept[1] / TEST_PROBABILITIES).unlink()  # one member without them: the networks score
    scored = evaluate_ensemble(data, kept, tmp_path / "scored", seed=0)
    assert scored["scored_from"] == "the members' networks"
    assert averaged["f1_per_goal"] == pytest.approx(scored["f1_per_goal"], abs=1e-6, nan_ok=True)
    other = dataclasses.replace(data, test_states=data.test_states[::-1].copy())
    (kept[1] / TEST_PROBABILITIES).write_bytes((kept[0] / TEST_PROBABILITIES).read_bytes())
    reordered = evaluate_ensemble(other, kept, tmp_path / "other", seed=0)
    assert reordered["scored_from"] == "the members' networks"  # saved for other states


def test_an_unfinished_or_different_member_is_refused_by_name(data, members, tmp_path):
    with pytest.raises(FileNotFoundError, match="ma_s7 is not a finished reward run"):
        evaluate_ensemble(data, [members / "ma_s0", members / "ma_s7"], tmp_path / "a", seed=0)
    other = tmp_path / "wide"
    SupervisedTrainer(
        data, RewardModelConfig("ma", **{**TINY, "hidden_units": 8, "max_epochs": 1}), other
    ).train(progress=False)
    with pytest.raises(ValueError, match="hidden_units"):
        evaluate_ensemble(data, [members / "ma_s0", other], tmp_path / "b", seed=0)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()  # nothing written


def test_the_study_reports_ensembles_apart_from_their_members(data, members, tmp_path):
    study = tmp_path / "study"
    for seed in (0, 1):
        (study / f"ma_s{seed}").mkdir(parents=True)
        for name in ("metrics.json", "network.json"):
            source = members / f"ma_s{seed}" / name
            (study / f"ma_s{seed}" / name).write_text(source.read_text())
    evaluate_ensemble(data, [members / "ma_s0", members / "ma_s1"], study / "ma_x2_s0", seed=0)
    report = collect_study(study)
    assert sorted(report["mean_std"]) == ["ma", "ma x2"]
    assert report["mean_std"]["ma"]["seeds"] == 2 and report["mean_std"]["ma x2"]["seeds"] == 1
    ensemble_row = next(r for r in report["runs"] if r["run"] == "ma_x2_s0")
    assert ensemble_row["ensemble_size"] == 2 and ensemble_row["best_validation_f1"] is None
