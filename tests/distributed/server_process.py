"""Runs a replay server in its own process for the tests that stop or kill it.

Usage: ``python server_process.py PORT QUEUE_CAPACITY``; prints ``ready ADDRESS`` once serving
and exits 0 on SIGTERM or SIGINT.
"""

import sys

from imagine_tf.distributed.replay_server import serve_forever

if __name__ == "__main__":
    serve_forever(
        int(sys.argv[1]),
        int(sys.argv[2]),
        on_ready=lambda server: print(f"ready {server.address}", flush=True),
    )
