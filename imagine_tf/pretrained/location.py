"""Where the pretrained models are: ``models/`` at the root of the repository's clone, beside
the package ``imagine_tf/``, described by ``models/card.json``.

    models/
      card.json          what `imagine-tf pretrained build` measured and copied (the card)
      README.md          the card for people, generated from card.json
      imagine_cgh_s0/    an agent run with a networks-only checkpoint (`load_agent` reads it)
        reward/1/        its reward model as a SavedModel (`imagine-tf serve`)
      authors_epoch160/  the authors' released agent, converted (`pretrained.authors_model`)

The card names the directories (``agent.directory``, ``reward.directory``), so that
``--pretrained`` follows a rebuilt card without a code change.
"""

from __future__ import annotations

import json
import pathlib

import imagine_tf

#: The clone's root: the folder holding the package imagine_tf/ (an editable install).
REPOSITORY = pathlib.Path(imagine_tf.__file__).resolve().parents[1]
MODELS = "models"
CARD = "card.json"
README = "README.md"


class PretrainedModelsMissing(FileNotFoundError):
    """No ``models/card.json`` beside the package (an installed wheel, a stripped copy)."""


def models_dir(repository: pathlib.Path | None = None) -> pathlib.Path:
    """``<repository>/models``, checked to hold a card; `PretrainedModelsMissing` if not."""
    directory = pathlib.Path(repository or REPOSITORY) / MODELS
    if not (directory / CARD).is_file():
        raise PretrainedModelsMissing(
            f"No pretrained models at {directory} (no {CARD} there). --pretrained reads the "
            "models/ directory of a clone of the repository, beside the package imagine_tf/ "
            f"(this one is imported from {pathlib.Path(imagine_tf.__file__).parent}). Work in "
            "a clone installed with `make install` (pip install -e .), or make them with "
            "`imagine-tf pretrained build --run RUN --seed-runs 'GLOB' --out models`."
        )
    return directory


def read_card(directory: pathlib.Path | None = None) -> dict:
    """The card (``models/card.json``) of ``directory`` (default: `models_dir()`)."""
    directory = pathlib.Path(directory) if directory is not None else models_dir()
    return json.loads((directory / CARD).read_text())


def agent_dir(directory: pathlib.Path | None = None) -> pathlib.Path:
    """The pretrained agent's run directory (for `load_agent`, `evaluate_run`)."""
    directory = pathlib.Path(directory) if directory is not None else models_dir()
    return directory / read_card(directory)["agent"]["directory"]


def reward_dir(directory: pathlib.Path | None = None) -> pathlib.Path:
    """The pretrained reward model's base path (versioned SavedModels, for `serve`)."""
    directory = pathlib.Path(directory) if directory is not None else models_dir()
    return directory / read_card(directory)["reward"]["directory"]


def authors_dir(repository: pathlib.Path | None = None) -> pathlib.Path:
    """The authors' converted agent (``models/authors_epoch160``), checked to exist."""
    from imagine_tf.pretrained.authors_model import DIRECTORY

    directory = pathlib.Path(repository or REPOSITORY) / MODELS / DIRECTORY
    if not (directory / CARD).is_file():
        raise PretrainedModelsMissing(
            f"No converted authors' agent at {directory}. Work in a clone of the repository, or "
            "convert it: git clone https://github.com/flowersteam/Imagine, then "
            "`imagine-tf pretrained convert-authors --from Imagine/pretrained_weights`."
        )
    return directory
