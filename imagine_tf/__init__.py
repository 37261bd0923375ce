"""imagine-tf: language-conditioned, object-centred RL in the Playground (TF2 / TF-Agents).

Re-implements the Playground, its goal grammar and social partner, and the Deep Sets networks of
*Deep Sets for Generalization in RL* (Karch, Colas et al. 2020) and *IMAGINE* (Colas et al. 2020).
"""

from imagine_tf import old_names as _old_names
from imagine_tf.data import tfds_registration as _tfds_registration

__version__ = "0.1.0"

# `tfds.load("playground_trajectories/...")` works after `import imagine_tf`; TFDS is not imported.
_tfds_registration.register_on_tfds_import()
# Module names of earlier versions, which stored run configs import, keep working.
_old_names.install()


def __getattr__(name):  # lazy: `import imagine_tf` stays cheap (no TensorFlow import)
    if name in ("make_env", "play"):
        from imagine_tf import playground

        return getattr(playground, name)
    raise AttributeError(f"module 'imagine_tf' has no attribute {name!r}")
