"""The earlier name of `imagine_tf.analysis.figures`, kept for one release."""

from imagine_tf.analysis.figures import (  # noqa: F401
    CURVES,
    plot_learning_curve,
    plot_runs,
    render_agent,
    run_labels,
)
