"""Files written whole or not at all: a temporary file in the same directory, then a rename."""

from __future__ import annotations

import os
import pathlib


def write_text_atomically(path: str | os.PathLike, text: str) -> None:
    """Writes ``text`` to ``path``; a reader never sees half a file."""
    path = pathlib.Path(path)
    temporary = path.with_name("tmp." + path.name)
    temporary.write_text(text)
    os.replace(temporary, path)


def save_figure_atomically(figure, path: str | os.PathLike, dpi: int = 120) -> None:
    """Saves a matplotlib figure as PNG to ``path`` atomically, then closes it."""
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    temporary = path.with_name("tmp." + path.name)
    figure.savefig(temporary, format="png", dpi=dpi)
    plt.close(figure)
    os.replace(temporary, path)


def save_array_atomically(path: str | os.PathLike, array) -> None:
    """Saves a numpy array as ``.npy`` to ``path`` atomically."""
    import numpy as np

    path = pathlib.Path(path)
    temporary = path.with_name("tmp." + path.name)
    with open(temporary, "wb") as file:  # a file object: np.save adds no suffix
        np.save(file, array)
    os.replace(temporary, path)
