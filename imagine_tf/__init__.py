"""imagine-tf: language-conditioned, object-centred RL in the Playground (TF2 / TF-Agents).

Re-implements the Playground, its goal grammar and social partner, and the Deep Sets networks of
*Deep Sets for Generalization in RL* (Karch, Colas et al. 2020) and *IMAGINE* (Colas et al. 2020).
"""

__version__ = "0.1.0"

# `gymnasium.make("imagine_tf/Playground-v0")` works after `import imagine_tf`, as after
# `import ale_py` (Gymnasium 1.x: `gymnasium.register_envs(imagine_tf)`): importing the package
# registers its ids with Gymnasium's registry, where Gymnasium is installed (it need not be).
# The TFDS dataset registers as TFDS community datasets do, when its module is imported
# (`imagine_tf.data.playground_trajectories`): TFDS and TensorFlow are not imported here.
try:
    from imagine_tf import gymnasium_env as _gymnasium_env
except ModuleNotFoundError as missing:  # pragma: no cover - Gymnasium is in the lock
    if missing.name != "gymnasium":
        raise


def __getattr__(name):  # lazy: `import imagine_tf` stays cheap (no TensorFlow import)
    if name in ("make_env", "play"):
        from imagine_tf import playground

        return getattr(playground, name)
    raise AttributeError(f"module 'imagine_tf' has no attribute {name!r}")
