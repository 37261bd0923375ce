"""The versions of a model base path, as TF Serving reads them: ``<base>/<integer>/``, each
written whole (into ``.partial-<v>``, then renamed) and never changed; shared by the reward
model's and the policy's exports."""

from __future__ import annotations

import os
import pathlib
import shutil


def versions(model_base_path: str | os.PathLike) -> list[int]:
    """The integer version directories under a model base path, ascending ([] if none)."""
    base = pathlib.Path(model_base_path)
    if not base.is_dir():
        return []
    return sorted(int(p.name) for p in base.iterdir() if p.is_dir() and p.name.isdigit())


def next_version(model_base_path: str | os.PathLike) -> int:
    """1 + the largest integer version directory under the base path (1 if none)."""
    return max(versions(model_base_path), default=0) + 1


def claim_version(
    model_base_path: str | os.PathLike, version: int | None = None
) -> tuple[pathlib.Path, pathlib.Path]:
    """(final, temporary) directories of a new version: write into ``temporary``, then
    ``os.replace(temporary, final)``. ValueError if the version exists (versions are immutable)."""
    base = pathlib.Path(model_base_path)
    base.mkdir(parents=True, exist_ok=True)
    version = int(version) if version is not None else next_version(base)
    final = base / str(version)
    if final.exists():
        raise ValueError(
            f"{final} exists: versions are immutable; omit --version to export version "
            f"{next_version(base)}."
        )
    temporary = base / f".partial-{version}"
    shutil.rmtree(temporary, ignore_errors=True)
    return final, temporary
