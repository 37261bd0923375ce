"""`python -m imagine_tf_serving --model_base_path models/reward --model_name reward [--port 8500]`
(from a checkout, `python -m serving` too)."""

import sys

from .server import main

sys.exit(main())
