"""`frozen_imports`: a command's TensorFlow import is out of the cyclic garbage collector's way
in a process of its own; where TensorFlow was imported before, nothing changes."""

import gc
import subprocess
import sys

from imagine_tf.cli import common

# A command's process: the block imports (json stands for TensorFlow) without collections, then
# what is alive is frozen and the collector runs again.
FRESH = """
import gc
from imagine_tf.cli import common
with common.frozen_imports():
    collecting = gc.isenabled()
    import json
print(collecting, gc.get_freeze_count() > 0, gc.isenabled())
"""


def test_a_commands_imports_are_frozen_in_a_process_of_its_own():
    result = subprocess.run(
        [sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.split() == ["False", "True", "True"], result.stderr


def test_where_tensorflow_was_imported_before_nothing_is_frozen(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", sys.modules.get("tensorflow", sys))
    monkeypatch.setattr(common, "_frozen", False)
    frozen = gc.get_freeze_count()
    with common.frozen_imports():
        assert gc.isenabled()
    assert gc.get_freeze_count() == frozen and gc.isenabled()


# What the distributed commands' error wrapper and their usage checks import, in a fresh
# process: a TensorFlow imported there would be imported before the command's frozen block (and
# never frozen), and would make a usage error cost the import.
WRAPPER_IMPORTS = """
import sys
from imagine_tf.cli.main import main
from imagine_tf.distributed.errors import PortInUse, ReplayServerUnavailable
from imagine_tf.distributed.stop_signal import TrainingStopped
code = main(["train", "--root-dir", "run", "--gin-file", "configs/nothing.gin"])
print(code, "tensorflow" in sys.modules, "reverb" in sys.modules)
"""


def test_a_train_usage_error_imports_neither_tensorflow_nor_reverb(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER_IMPORTS],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.stdout.split() == ["2", "False", "False"], result.stdout + result.stderr
    assert "no gin file configs/nothing.gin" in result.stderr
