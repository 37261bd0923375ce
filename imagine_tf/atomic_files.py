"""Files written whole or not at all: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import contextlib
import os
import pathlib
from typing import Iterator


@contextlib.contextmanager
def replacing(path: str | os.PathLike) -> Iterator[pathlib.Path]:
    """Yields ``tmp.NAME`` beside ``path`` to write; renames it onto ``path`` if the block ends
    without an error (a reader sees the old file or the new one, never half of one)."""
    path = pathlib.Path(path)
    temporary = path.with_name("tmp." + path.name)
    yield temporary
    os.replace(temporary, path)


def write_text_atomically(path: str | os.PathLike, text: str) -> None:
    """Writes ``text`` to ``path``; a reader never sees half a file."""
    with replacing(path) as temporary:
        temporary.write_text(text)


def save_figure_atomically(figure, path: str | os.PathLike, dpi: int = 120) -> None:
    """Saves a matplotlib figure as PNG to ``path`` atomically, then closes it."""
    import matplotlib.pyplot as plt

    with replacing(path) as temporary:
        figure.savefig(temporary, format="png", dpi=dpi)
    plt.close(figure)


def save_array_atomically(path: str | os.PathLike, array) -> None:
    """Saves a numpy array as ``.npy`` to ``path`` atomically."""
    import numpy as np

    with replacing(path) as temporary, open(temporary, "wb") as file:
        np.save(file, array)  # a file object: np.save adds no ".npy" suffix
