"""The training of the test grids' cells: `configs/agent/smoke.gin` shrunk until a cell's CPU is
mostly TensorFlow's import and tracing. Each epoch is one cycle of 2 episodes and 4 updates of
16 transitions with 16 hidden units, and no ``agent.gif`` is drawn; every epoch is still
evaluated on every goal, checkpointed and logged, as in any run."""

CELL_BINDINGS = (
    "TrainConfig.cycles_per_epoch = 1",
    "TrainConfig.episodes_per_cycle = 2",
    "TrainConfig.updates_per_cycle = 4",
    "TrainConfig.batch_size = 16",
    "TrainConfig.hidden_units = 16",
    "train_eval.demo_goals = []",
)


def gin_items(*bindings: str) -> str:
    """`CELL_BINDINGS` and ``bindings`` as the items of a gin list (a configuration's
    "bindings" in an experiment file)."""
    return ", ".join(repr(binding) for binding in (*CELL_BINDINGS, *bindings))
