"""The one-direction import rule of the package layout (README, Layout), checked on the source (no imports executed)."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "imagine_tf"

# package -> the imagine_tf packages it may import (besides itself).
ALLOWED = {
    "env": set(),
    "distributed": set(),
    "networks": set(),  # the shared layers: Deep Sets, gated attention, sentence encoder; Adam
    "export": set(),  # SavedModel helpers shared by the reward's and the policy's exports
    "language": {"env"},
    # the Gymnasium environments: the world and its language, no TensorFlow
    "gymnasium_env": {"env", "language"},
    "policies": {"env", "language"},
    "data": {"env", "language", "policies"},
    "runs": {"networks"},  # run directories: layout, lock, fork, precision, snapshots
    "reward": {"networks", "language", "env", "policies", "data", "runs", "export"},
    "agent": {
        "networks",
        "reward",
        "language",
        "env",
        "data",
        "runs",
        "export",
        "distributed",
    },
    # a saved run read back: loaded, its policy evaluated, success tables, figures
    "analysis": {"env", "language", "reward", "agent", "runs"},
    "training": {
        "analysis",
        "env",
        "language",
        "policies",
        "networks",
        "reward",
        "data",
        "agent",
        "runs",
        "distributed",
    },
    "benchmarks": {
        "env",
        "gymnasium_env",
        "language",
        "policies",
        "data",
        "training",
        "agent",
        "reward",
        "runs",
        "networks",
        "distributed",
    },
    "tuning": {"language", "networks", "reward", "data", "agent", "analysis", "runs", "training"},
    # experiments run `imagine-tf` subprocesses; they read run files (both run layouts)
    "experiments": {"agent", "reward", "runs"},
    # the repository's pretrained models: made from runs, measured, played
    "pretrained": {
        "agent",
        "analysis",
        "reward",
        "language",
        "env",
        "runs",
        "networks",
        "export",
        "playground",
    },
    "cli": {
        "analysis",
        "env",
        "gymnasium_env",
        "language",
        "policies",
        "networks",
        "reward",
        "data",
        "training",
        "tuning",
        "agent",
        "runs",
        "benchmarks",
        "playground",
        "export",
        "distributed",
        "experiments",
        "pretrained",
    },
}


# Top-level modules that import nothing of imagine_tf: any package may use them.
LEAVES = {"atomic_files", "constants", "old_names", "provenance"}


def imported_names(path: pathlib.Path) -> set[str]:
    """The modules a file imports (anywhere in it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def imported_packages(path: pathlib.Path) -> set[str]:
    return {n.split(".")[1] for n in imported_names(path) if n.startswith("imagine_tf.")}


# Modules kept under their earlier names for one release: each imports its new home only.
RENAMED = {
    "agent/saved_run_evaluation.py": "imagine_tf.analysis.run_evaluation",
    "agent/success_report.py": "imagine_tf.analysis.success_report",
    "agent/figures.py": "imagine_tf.analysis.figures",
    "agent/goal_sampler.py": "imagine_tf.agent.goals",
    "agent/checkpoint.py": "imagine_tf.runs.checkpoint",
    "agent/loading.py": "imagine_tf.analysis.saved_run",
    "reward/model_config.py": "imagine_tf.reward.config",
    "language/goal_invention.py": "imagine_tf.language.imagination",
}


def test_the_agent_package_holds_the_algorithm_only():
    """16 modules at most (aliases of earlier names aside): persistence is in `runs`, saved
    runs read back in `analysis`."""
    modules = sorted(
        path.name
        for path in (PACKAGE / "agent").glob("*.py")
        if path.name != "__init__.py" and f"agent/{path.name}" not in RENAMED
    )
    assert len(modules) <= 16, modules


def test_a_module_of_an_earlier_name_imports_its_new_home_only():
    for old, new in RENAMED.items():
        assert imported_names(PACKAGE / old) == {new}, old


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_go_one_way(package):
    for path in (PACKAGE / package).rglob("*.py"):
        if str(path.relative_to(PACKAGE)) in RENAMED:
            continue
        bad = imported_packages(path) - ALLOWED[package] - {package} - LEAVES
        assert not bad, f"{path.relative_to(PACKAGE)} imports imagine_tf.{bad}"


@pytest.mark.parametrize("leaf", sorted(LEAVES))
def test_a_leaf_module_imports_nothing_of_imagine_tf(leaf):
    assert imported_packages(PACKAGE / f"{leaf}.py") == set()


def test_the_environment_needs_no_tensorflow_except_its_tf_agents_wrapper():
    for path in (PACKAGE / "env").rglob("*.py"):
        source = path.read_text()
        assert "import tensorflow" not in source, path.name


def test_the_gymnasium_environments_need_neither_tensorflow_nor_tf_agents():
    for path in (PACKAGE / "gymnasium_env").rglob("*.py"):
        names = imported_names(path)
        assert not {n.split(".")[0] for n in names} & {"tensorflow", "tf_agents"}, path.name
        assert "imagine_tf.env.playground_env" not in names, path.name


def test_the_server_imports_nothing_from_imagine_tf():
    for path in (PACKAGE.parent / "serving").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else ([alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            )
            assert not any(n.split(".")[0] == "imagine_tf" for n in names), path.name


def module_imports(path: pathlib.Path, modules: set[str]) -> set[str]:
    """The imagine_tf modules a file imports at module level (function-local ones excluded);
    ``from package import submodule`` counts as importing the submodule only."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("imagine_tf")
        ):
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            names.update(submodules & modules)
            if submodules - modules:  # names defined in the module itself
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("imagine_tf"))
    return names


def test_no_module_imports_form_a_cycle():
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph = {
        name: module_imports(path, set(modules)) & set(modules) - {name}
        for name, path in modules.items()
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name, path):
        state[name] = 1
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path, name, other]))
            if other not in state:
                visit(other, [*path, name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
