"""Runs `imagine-tf bench env` from a checkout: python benchmarks/env_bench.py [--json] [--out F]."""

import sys

from imagine_tf.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["bench", "env", *sys.argv[1:]]))
