"""The `playground_trajectories` TFDS dataset: Playground episodes in the RLDS format.

Importing this package registers the dataset with TFDS, as a TFDS community dataset's module
does: `tfds.load("playground_trajectories/...")` works after
`import imagine_tf.data.playground_trajectories` (`import imagine_tf` alone imports neither
TFDS nor TensorFlow). The `tfds new` folder `datasets/playground_trajectories/`
exposes the same `Builder` to `tfds build`.
"""

from imagine_tf.data.playground_trajectories.builder import (
    Builder,
    IncompleteBuild,
    PlaygroundConfig,
)

__all__ = ["Builder", "IncompleteBuild", "PlaygroundConfig"]
