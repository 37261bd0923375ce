"""Files written whole or not at all (a temporary file in the same directory, then a rename),
and the result records written that way."""

from __future__ import annotations

import contextlib
import datetime
import json
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


def written_now() -> str:
    """When a record is written: UTC, ISO 8601 to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def write_record(path: str | os.PathLike, body: dict, command: str | None = None) -> dict:
    """The one writer of result records (experiment reports, reward studies, agent reports,
    searches): ``{"command": command, "written": now, **body}`` as indented JSON, whole or not
    at all, directories created; returns the record. ``body`` may set either key itself; with
    no ``command`` the record names none."""
    head = {"command": command} if command is not None else {}
    record = {**head, "written": written_now(), **body}
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(path, json.dumps(record, indent=1) + "\n")
    return record
