"""imagine-tf: language-conditioned, object-centred RL in the Playground (TF2 / TF-Agents).

Re-implements the Playground, its goal grammar and social partner, and the Deep Sets networks of
*Deep Sets for Generalization in RL* (Karch, Colas et al. 2020) and *IMAGINE* (Colas et al. 2020).
"""

from imagine_tf import import_hooks as _import_hooks
from imagine_tf.data import tfds_registration as _tfds_registration

__version__ = "0.1.0"


def _register_gymnasium_environments() -> None:
    from imagine_tf.gymnasium_env import register_environments

    register_environments()


# `tfds.load("playground_trajectories/...")` works after `import imagine_tf`; TFDS is not imported.
_tfds_registration.register_on_tfds_import()
# `gymnasium.make("imagine_tf/Playground-v0")` too: the ids are registered when Gymnasium is
# imported (at once if it already is); Gymnasium is not imported, and need not be installed.
_import_hooks.call_after_import("gymnasium", _register_gymnasium_environments)


def __getattr__(name):  # lazy: `import imagine_tf` stays cheap (no TensorFlow import)
    if name in ("make_env", "play"):
        from imagine_tf import playground

        return getattr(playground, name)
    raise AttributeError(f"module 'imagine_tf' has no attribute {name!r}")
