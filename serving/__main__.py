"""`python -m imagine_tf_serving --model_base_path models/reward --model_name reward [--port 8500]`
(from a checkout, `python -m serving` too)."""

import gc
import sys

# TensorFlow's import makes millions of long-lived objects and next to no garbage: imported
# without cyclic collections, then frozen out of the collector's reach (a server start took
# about 3 CPU-s less of 15).
gc.disable()
from .server import main  # noqa: E402

gc.freeze()
gc.enable()
sys.exit(main())
