"""`python -m serving --model_base_path models/reward --model_name reward [--port 8500]`."""

import sys

from serving.server import main

sys.exit(main())
