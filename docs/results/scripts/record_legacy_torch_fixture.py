"""Writes tests/fixtures/authors/legacy_torch.pkl: a small file in PyTorch's legacy format
(``torch.save(..., _use_new_zipfile_serialization=False)``, the format of the authors'
checkpoints) holding each storage type `imagine_tf.pretrained.torch_pickle` reads, a
non-contiguous view, a shared storage, a numpy array and nested containers; and beside it
legacy_torch.npz, the same values as numpy arrays (what the reader must return).

Needs PyTorch, for this recording only:
    python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy
    /tmp/torchvenv/bin/python docs/results/scripts/record_legacy_torch_fixture.py
"""

import collections
import pathlib

import numpy as np
import torch

OUT = pathlib.Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "authors"


def main() -> None:
    generator = torch.Generator().manual_seed(0)
    base = torch.randn(4, 6, generator=generator)
    values = collections.OrderedDict(
        float32=base,
        transposed=base.t(),  # strides (1, 6): a view of base's storage
        row=base[2],  # offset 12 in the same storage
        float64=torch.randn(3, generator=generator, dtype=torch.float64),
        int64=torch.arange(-3, 5, dtype=torch.int64),
        int32=torch.arange(7, dtype=torch.int32).reshape(7, 1),
        uint8=torch.arange(250, 256, dtype=torch.uint8),
        float16=torch.tensor([0.5, -2.0, 65504.0], dtype=torch.float16),
    )
    extra = np.linspace(0.0, 1.0, 5)
    torch.save(
        [values, {"nested": (values["int64"], extra)}, 7],
        OUT / "legacy_torch.pkl",
        _use_new_zipfile_serialization=False,
    )
    arrays = {name: tensor.numpy() for name, tensor in values.items()}
    np.savez(OUT / "legacy_torch.npz", extra=extra, **arrays)
    print(f"wrote {OUT / 'legacy_torch.pkl'} and legacy_torch.npz")


if __name__ == "__main__":
    main()
