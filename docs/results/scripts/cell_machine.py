"""Writes CELL/machine.json, the record of the machine a kept grid cell ran on.

    python docs/results/scripts/cell_machine.py CELL            # this machine (the keeper's)
    python docs/results/scripts/cell_machine.py CELL --samples  # the machine its CPU samples name

The keeper (keep_finished_cells.sh) runs it on the machine that ran the cell; ``--samples``
reads the ``machine`` field of the cell's ``cpu_seconds.json`` (sample_cell_cpu.py), for cells
kept before the keeper wrote this record.
"""

import argparse
import json
import pathlib
import shlex
import sys

from imagine_tf.atomic_files import write_record
from imagine_tf.provenance import machine_description


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cell", type=pathlib.Path)
    parser.add_argument("--samples", action="store_true")
    args = parser.parse_args()
    if args.samples:
        samples = json.loads((args.cell / "cpu_seconds.json").read_text()).values()
        body = {"source": "cpu_seconds.json", "machines": sorted({s["machine"] for s in samples})}
    else:
        body = {"source": "the keeper's machine", **machine_description()}
    command = "python " + shlex.join(sys.argv)
    write_record(args.cell / "machine.json", body, command)


if __name__ == "__main__":
    main()
