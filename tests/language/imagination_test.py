"""Goal invention: CGH on handmade goal sets and on the 191 training goals, its determinism,
the ablations (none, oracle, random) and the saved state."""

import json
import os
import subprocess
import sys

import pytest

from imagine_tf.language import grammar
from imagine_tf.language.imagination import (
    ConstructionGrammarHeuristic,
    GoalImagination,
    coverage,
    imaginable_test_goals,
)


def test_words_that_swap_in_one_position_of_a_template_become_interchangeable():
    cgh = ConstructionGrammarHeuristic()
    cgh.learn(["Grasp red dog", "Grow red cat", "Grasp red cat", "Grasp blue cat"])
    # Learned in sorted order: "Grasp blue cat" is the first template, "Grasp red cat" is one
    # word from it (blue ~ red); the two others are two words from every template: templates.
    assert cgh.templates == [
        ("Grasp", "blue", "cat"),
        ("Grasp", "red", "dog"),
        ("Grow", "red", "cat"),
    ]
    assert cgh.classes() == [["blue", "red"]]
    assert cgh.invent() == ["Grasp blue dog", "Grow blue cat"]
    cgh.learn(["Grow blue cat"])  # one word from two templates: Grasp ~ Grow, blue ~ red
    assert cgh.classes() == [["Grasp", "Grow"], ["blue", "red"]]
    assert cgh.invent() == ["Grasp blue dog", "Grow red dog"]  # "Grow blue cat" is known now


def test_inventions_have_no_repeated_word_and_are_not_known():
    cgh = ConstructionGrammarHeuristic()
    cgh.learn(["Go top left", "Go top right", "Go bottom left"])
    assert cgh.classes() == [["bottom", "top"]]
    assert cgh.invent() == ["Go bottom right"]
    cgh.learn(["Go left right"])  # one word from "Go top right": left joins bottom ~ top
    assert cgh.classes() == [["bottom", "left", "top"]]
    invented = cgh.invent()
    assert invented == ["Go bottom right", "Go bottom top"]  # not "Go left left", not known
    assert all(len(set(g.split())) == len(g.split()) for g in invented)
    assert not set(invented) & set(cgh.known)


def test_padding_differences_make_no_equivalence():
    cgh = ConstructionGrammarHeuristic()
    cgh.learn(["Go top", "Go top left"])  # differ in one position, against a blank
    assert cgh.classes() == [] and cgh.invent() == []


def test_the_training_goals_give_the_reference_figures():
    imagination = GoalImagination("cgh")
    invented = imagination.update(grammar.train_goals())
    figures = coverage(invented)
    assert figures["imagined"] == 120  # the reference: 120 to 124, with Python's set order
    assert figures["test_goals_found"] == 56  # 87.5 %
    assert figures["test_goals_missed"] == sorted(g for g in grammar.test_goals() if "flower" in g)
    assert round(figures["share_of_imagined_in_test"], 3) == 0.467
    assert "Grow red door" in figures["not_achievable"]
    assert imagination.update(grammar.train_goals()) == []  # nothing new the second time
    found = sorted(set(invented) - set(figures["test_goals_missed"]) & set(grammar.test_goals()))
    assert list(imaginable_test_goals()) == found and len(found) == 56


_INVENT = (
    "import json; from imagine_tf.language import grammar;"
    "from imagine_tf.language.imagination import GoalImagination;"
    "print(json.dumps(GoalImagination('cgh').update(grammar.train_goals()[::-1])))"
)


def test_inventions_do_not_depend_on_the_hash_seed():
    outputs = set()
    for seed in ("0", "1", "12345"):
        environment = dict(os.environ, PYTHONHASHSEED=seed)
        result = subprocess.run(
            [sys.executable, "-c", _INVENT],
            env=environment,
            check=True,
            capture_output=True,
            text=True,
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1 and len(json.loads(outputs.pop())) == 120


def test_the_ablations():
    train = grammar.train_goals()
    assert GoalImagination("none").update(train) == []
    assert GoalImagination("oracle").update(train[:20]) == list(grammar.test_goals())
    random_goals = GoalImagination("random", seed=3).update(train)
    words = {w for g in train for w in g.split()}
    assert len(random_goals) == 120 == len(set(random_goals))
    assert not set(random_goals) & set(train)
    for goal in random_goals:
        assert set(goal.split()) <= words and len(set(goal.split())) == len(goal.split()) <= 4
    with pytest.raises(ValueError, match="imagination must be one of"):
        GoalImagination("gpt")


def test_the_state_restores_the_heuristic_and_the_imagined_set():
    imagination = GoalImagination("random", seed=1)
    imagination.update(grammar.train_goals()[:60])
    imagination.update(grammar.train_goals()[60:])
    restored = GoalImagination("random")
    restored.load_state_dict(json.loads(json.dumps(imagination.state_dict())))
    assert restored.imagined == imagination.imagined
    assert restored.heuristic.templates == imagination.heuristic.templates
    assert restored.heuristic.invent() == imagination.heuristic.invent()
    more = ["Grasp red cat"]
    assert restored.update(more) == imagination.update(more)  # the same random stream
    switched = GoalImagination("cgh")  # a fork that changes the method keeps what was imagined
    switched.load_state_dict(imagination.state_dict())
    assert switched.method == "cgh" and switched.imagined == imagination.imagined
