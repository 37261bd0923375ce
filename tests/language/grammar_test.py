import collections

import pytest

from imagine_tf.language import grammar
from imagine_tf.language.vocabulary import Vocabulary


def test_255_goals_split_191_train_64_test():
    goals = grammar.one_object_goals()
    assert len(goals) == len(set(goals)) == 255
    verbs = collections.Counter(g.split()[0] for g in goals)
    assert verbs == {"Go": 9, "Grasp": 151, "Grow": 95}
    train, test = grammar.train_goals(), grammar.test_goals()
    assert (len(train), len(test)) == (191, 64)
    assert list(train) == sorted(train) and not set(train) & set(test)
    assert collections.Counter(g.split()[0] for g in train) == {"Go": 9, "Grasp": 136, "Grow": 46}
    assert collections.Counter(g.split()[0] for g in test) == {"Grasp": 15, "Grow": 49}


def test_generalization_types_4_8_4_4_44():
    types = collections.Counter(grammar.generalization_type(g) for g in grammar.test_goals())
    assert types == {1: 4, 2: 8, 3: 4, 4: 4, 5: 44}
    assert grammar.generalization_type("Grow red tree") == 5
    assert grammar.generalization_type("Grasp blue door") == 1
    assert grammar.generalization_type("Grow any fly") is None  # a training goal
    assert "flower" not in " ".join(grammar.train_goals())


def test_relational_goals_160_with_the_paper_test_pair():
    goals = grammar.relational_goals()
    assert len(goals) == len(set(goals)) == 160
    assert grammar.test_goals(relational=True) == (
        "Grasp any left_of blue thing",
        "Grasp any right_of dog thing",
    )
    assert len(grammar.train_goals(relational=True)) == 158


def test_check_goal_normalises_and_suggests():
    assert grammar.check_goal("  grasp  RED cat ") == "Grasp red cat"
    with pytest.raises(ValueError) as error:
        grammar.check_goal("Grasp red kat")
    assert "Grasp red cat" in str(error.value) and "Grasp red kat" in str(error.value)


def test_vocabulary_51_words_length_4():
    vocabulary = Vocabulary.default()
    assert len(vocabulary) == 51 and vocabulary.max_length == 4
    assert "flower" in vocabulary and "feed" not in vocabulary
    tokens = vocabulary.encode(["Grasp any red thing", "Go left"])
    assert tokens.dtype.name == "int32" and tokens.shape == (2, 4)
    assert (tokens[1, 2:] == 0).all()  # padding at the end
    assert vocabulary.decode(tokens) == ["Grasp any red thing", "Go left"]
    relational = Vocabulary.default(relational=True)
    assert len(relational) == 55 and relational.max_length == 5
    assert Vocabulary.from_config(relational.get_config()) == relational


def test_vocabulary_errors_name_the_word():
    vocabulary = Vocabulary.default()
    with pytest.raises(ValueError, match="'kat'.*Known words"):
        vocabulary.encode("Grasp red kat")
    with pytest.raises(ValueError, match="5 words"):
        vocabulary.encode("Grasp any left_of blue thing")
