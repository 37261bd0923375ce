"""The earlier name of `imagine_tf.analysis.run_evaluation`, kept for one release."""

from imagine_tf.analysis.run_evaluation import REACHED, evaluate_learner, evaluate_run  # noqa: F401
