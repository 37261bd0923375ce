"""The layout of a reward model run directory (`imagine-tf reward train`, a study's member or
ensemble): the one place that names its files.

    <root>/
      network.json           the network's config (architecture, vocabulary, N, ...)
      checkpoints/           the last two epochs' checkpoints (resume)
      best.weights.h5        the weights of the best validation epoch
      tensorboard/           summaries
      metrics.json           the finished run's metrics (its presence marks the run finished);
                             an ensemble's names its members instead
      test_probabilities.npy float32 [S, G] kept for an ensemble (`reward.kept_probabilities`)
      command.txt            the command that started the run
"""

NETWORK_JSON = "network.json"
CHECKPOINTS = "checkpoints"
BEST_WEIGHTS = "best.weights.h5"
TENSORBOARD = "tensorboard"
METRICS_JSON = "metrics.json"
TEST_PROBABILITIES = "test_probabilities.npy"
COMMAND = "command.txt"
