"""The `playground_trajectories` TFDS dataset: Playground episodes in the RLDS format.

Importing this package registers the dataset with TFDS. `import imagine_tf` arranges that
import lazily (`imagine_tf.data.tfds_registration`), so `tfds.load("playground_trajectories/...")`
works after `import imagine_tf`. The `tfds new` folder `datasets/playground_trajectories/`
exposes the same `Builder` to `tfds build`.
"""

from imagine_tf.data.playground_trajectories.builder import (
    Builder,
    IncompleteBuild,
    PlaygroundConfig,
)

__all__ = ["Builder", "IncompleteBuild", "PlaygroundConfig"]
