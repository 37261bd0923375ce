"""What `import imagine_tf` registers: the Gymnasium ids (as `import ale_py` does), without
TensorFlow, in either import order, leaving `sys.meta_path` as it was, and nothing needed when
Gymnasium is missing (fresh interpreters, as a user has)."""

import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run_python(code: str) -> str:
    """Runs ``code`` in a fresh interpreter from the repository root; its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_import_imagine_tf_then_gymnasium_registers_the_ids_without_tensorflow():
    out = run_python(
        """
        import sys
        finders = list(sys.meta_path)
        import imagine_tf
        assert sys.meta_path == finders, sys.meta_path
        import gymnasium
        gymnasium.register_envs(imagine_tf)  # Gymnasium 1.x's spelling of the import
        env = gymnasium.make("imagine_tf/Playground-v0", num_objects=3)
        env.reset(seed=0)
        env.step(env.action_space.sample())
        goal_env = gymnasium.make("imagine_tf/PlaygroundGoal-v0")
        goal_env.reset(seed=0)
        envs = gymnasium.make_vec(
            "imagine_tf/Playground-v0", num_envs=4, vectorization_mode="vector_entry_point"
        )
        envs.reset(seed=0)
        envs.step(envs.action_space.sample())
        print(type(envs).__name__, "tensorflow" in sys.modules, "tf_agents" in sys.modules)
        """
    )
    assert out.split() == ["PlaygroundVectorEnv", "False", "False"]


def test_gymnasium_imported_first_works_too():
    out = run_python(
        """
        import gymnasium
        import imagine_tf
        print(gymnasium.make("imagine_tf/Playground-v0").unwrapped.episode_length)
        """
    )
    assert out.split() == ["50"]


def test_import_imagine_tf_works_without_gymnasium():
    run_python(
        """
        import importlib.machinery, sys

        class NoGymnasium(importlib.machinery.PathFinder):
            @classmethod
            def find_spec(cls, name, path=None, target=None):
                if name == "gymnasium":
                    raise ModuleNotFoundError("No module named 'gymnasium'", name=name)
                return None

        sys.meta_path.insert(0, NoGymnasium)
        import imagine_tf
        assert imagine_tf.__version__ and "gymnasium" not in sys.modules
        """
    )


def test_gymnasiums_module_prefix_makes_the_envs_in_a_fresh_interpreter():
    """Gymnasium 1.x has no plugin entry points; its own mechanism is "module:id", which
    imports the module first: no `import imagine_tf` in the user's code."""
    out = run_python(
        """
        import gymnasium
        for env_id in ("Playground-v0", "PlaygroundGoal-v0"):
            env = gymnasium.make(f"imagine_tf.gymnasium_env:imagine_tf/{env_id}")
            observation, info = env.reset(seed=0)
            print(env_id, sorted(observation), bool(info["goal"]))
        """
    )
    assert out.split("\n")[:2] == [
        "Playground-v0 ['goal', 'state'] True",
        "PlaygroundGoal-v0 ['achieved_goal', 'desired_goal', 'observation'] True",
    ]
