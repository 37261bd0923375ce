"""The earlier name of `imagine_tf.analysis.success_report`, kept for one release."""

from imagine_tf.analysis.success_report import (  # noqa: F401
    EXPERIMENT_FIELDS,
    row_key,
    run_logs,
    run_rows,
    write_agent_report,
)
