"""The earlier name of `imagine_tf.language.imagination` (CGH and the other imagination
methods), kept for one release: import from `imagine_tf.language.imagination`."""

from imagine_tf.language.imagination import (  # noqa: F401
    IMAGINATION_METHODS,
    ConstructionGrammarHeuristic,
    GoalImagination,
    coverage,
    imaginable_test_goals,
)
