"""Reading gin config files: where the paths of their ``include`` statements are looked up.

gin opens an included path relative to the working directory, then relative to each directory
on its search path. `parse_config_files` puts three directories there, so that a config of
``configs/`` parses from any working directory:

* the directory of each given file (``include 'base/agent.gin'`` in ``configs/agent/ma.gin``);
* the repository's ``configs/`` directory (a config elsewhere may include ``base/agent.gin``);
* the repository root (the ``configs/NAME.gin`` paths of experiment files and the docs).

The files (included ones too) and bindings are read with the old module names and binding
names of `old_names` renamed (``import imagine_tf.training.config`` imports
``imagine_tf.agent.config``; ``TrainConfig.reward_max_epochs`` binds
``RewardModelConfig.max_epochs``): the ``config.gin`` of earlier runs resumes as it is.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import pathlib
from typing import Sequence

import gin
import gin.config

from imagine_tf.old_names import MOVED_CONFIG_FILES, renamed_config

REPOSITORY_DIR = pathlib.Path(__file__).resolve().parents[2]
CONFIGS_DIR = REPOSITORY_DIR / "configs"

_search_paths: list[str] = []  # added to gin's (module-global) search path, in order


def add_search_paths(gin_files: Sequence[str | os.PathLike] = ()) -> None:
    """Adds the directories of ``gin_files`` (those that exist), ``configs/`` and the
    repository root to gin's search path (each once)."""
    directories = [pathlib.Path(f).resolve().parent for f in gin_files if pathlib.Path(f).is_file()]
    for directory in (*directories, CONFIGS_DIR, REPOSITORY_DIR):
        if directory.is_dir() and str(directory) not in _search_paths:
            _search_paths.append(str(directory))
            gin.add_config_file_search_path(str(directory))


def resolve_config_file(gin_file: str | os.PathLike) -> str:
    """``gin_file`` as given if it exists, else the path under the repository root or
    ``configs/`` that does (``configs/agent/ma.gin`` from another working directory); a path
    of configs/ before its folders per kind (``configs/ma.gin``) reads the file there now."""
    path = pathlib.Path(gin_file)
    if path.is_absolute() or path.is_file():
        return str(path)
    path = pathlib.Path(MOVED_CONFIG_FILES.get(path.as_posix(), path.as_posix()))
    for directory in (REPOSITORY_DIR, CONFIGS_DIR):
        if (directory / path).is_file():
            return str(directory / path)
    return str(path)


def parse_config_files(
    gin_files: Sequence[str | os.PathLike], bindings: Sequence[str] = ()
) -> None:
    """Parses ``gin_files`` then ``bindings`` (later ones win), then runs gin's checks
    (`gin.finalize`: unknown references, undefined macros, REQUIRED values).

    The config is left unlocked, unlike gin's default: commands import TensorFlow and TF-Agents
    lazily, and a module that registers a configurable after the lock fails to import (an
    ensemble's scoring did, in a fresh `reward study` process).

    Raises IOError for a file that is not found, ValueError for a bad binding.
    """
    files = [resolve_config_file(f) for f in gin_files]
    add_search_paths(files)
    bindings = [renamed_config(binding) for binding in bindings]
    with _quiet_search(), _reading_old_names():
        gin.parse_config_files_and_bindings(files, bindings, finalize_config=False)
    with gin.unlock_config():  # on exit, back to the unlocked state finalize leaves
        gin.finalize()


@contextlib.contextmanager
def _reading_old_names():
    """gin reads each config file, and each file it includes, with `renamed_config`.

    gin opens files with the readers of its (module-private) reader list; they are wrapped for
    the parse. An include is parsed within it, so it is renamed too.
    """
    readers = gin.config._FILE_READERS
    saved = list(readers)
    readers[:] = [(_renaming(reader), exists) for reader, exists in saved]
    try:
        yield
    finally:
        readers[:] = saved


def _renaming(reader):
    @contextlib.contextmanager
    def read(path):
        with reader(path) as file:
            text = file.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        renamed = io.StringIO(renamed_config(text))
        renamed.name = getattr(file, "name", str(path))  # gin's error messages name the file
        yield renamed

    return read


class _SearchMisses(logging.Filter):
    """Drops gin's "Path not found" error of each search-path entry that lacks a file."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "Path not found: %s"


@contextlib.contextmanager
def _quiet_search():
    quiet = _SearchMisses()
    logging.getLogger().addFilter(quiet)
    try:
        yield
    finally:
        logging.getLogger().removeFilter(quiet)
