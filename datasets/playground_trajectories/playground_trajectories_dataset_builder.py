"""`tfds build datasets/playground_trajectories`: the `tfds new` entry point of the dataset.

The builder is defined once, in `imagine_tf.data.playground_trajectories` (importing that
package registers the dataset; `tfds.load` then finds it by name). This
module re-exports its `Builder`. `tfds build <folder>` imports this module and builds the one
class that TFDS recorded as defined in it (`registered._MODULE_TO_DATASETS`, filled when a class
is defined), so the re-exported class is recorded under this module's name as well.
"""

from tensorflow_datasets.core import registered

from imagine_tf.data.playground_trajectories import Builder

_recorded = registered._MODULE_TO_DATASETS[__name__]  # noqa: SLF001 - read by `tfds build`
if Builder not in _recorded:
    _recorded.append(Builder)

__all__ = ["Builder"]
