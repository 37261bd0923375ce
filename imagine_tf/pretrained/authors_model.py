"""``models/authors_epoch160/``: the authors' released agent (`authors.convert_authors`) as a
shipped directory, with their licence, a card and the measured figures.

    models/authors_epoch160/
      LICENSE        the authors' MIT licence notice (flowersteam/Imagine), as they ship it
      config.json    the run configuration (`authors.authors_config`)
      checkpoint/    actor and reward networks (networks-only: no critic, no replay)
      reward/1/      the reward model as a SavedModel (`imagine-tf serve --model authors`)
      card.json      what it is, where it came from (files and their sha256), its vocabulary
                     and object-type order, and the evaluation records measured here
      README.md      the card for people (`render_authors_readme`)

The measured figures are the records of `imagine-tf eval --agent authors --out FILE` in
``docs/results/authors_agent/``, read when the directory is written: converting again after a
new evaluation refreshes the card (the weights come out the same).
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil

from imagine_tf.atomic_files import write_text_atomically
from imagine_tf.env import ontology

REPOSITORY_URL = "https://github.com/flowersteam/Imagine"
DIRECTORY = "authors_epoch160"
REWARD = "reward"
RECORDS = pathlib.Path("docs") / "results" / "authors_agent"
#: their run (params.json: 167 epochs of 50 cycles; 6 workers, 2 episodes and 50 updates per
#: cycle each, gradients averaged over the workers), at the shipped epoch 160
BUDGET = (
    "epoch 160 of a 167-epoch run: 96,000 episodes, 400,000 updates of 6 x 256 transitions "
    "(6 workers' gradients averaged)"
)


def licence_file(source: pathlib.Path) -> pathlib.Path:
    """The authors' LICENSE: beside ``pretrained_weights/`` in a clone of their repository."""
    for candidate in (source / "LICENSE", source.parent / "LICENSE"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"No LICENSE in {source} or {source.parent}: give the pretrained_weights directory of "
        f"a clone of {REPOSITORY_URL} (its LICENSE, MIT, ships with the converted weights)."
    )


def _sha256(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def measured_records(repository: pathlib.Path) -> list[dict]:
    """The evaluation records of the authors' agent, one per file of ``RECORDS``, sorted."""
    records = []
    for path in sorted((repository / RECORDS).glob("*.json")):
        record = json.loads(path.read_text())
        records.append(
            {
                "file": str(RECORDS / path.name),
                "world": record["world"],
                "episodes_per_goal": record["repetitions"],
                "num_objects": record["num_objects"],
                "train_success": record["train_success"],
                "test_success": record["test_success"],
                "per_type": record["per_type"],
                "train_per_predicate": record["train_per_predicate"],
                "test_per_predicate": record["test_per_predicate"],
                "code_version": record.get("code_version"),
                "machine": record.get("machine", {}).get("cpu_model"),
            }
        )
    return records


def authors_card(source: pathlib.Path, files: list[str], words: list[str], params: dict) -> dict:
    """card.json's content (the measured part is added by `write_authors_model`)."""
    return {
        "kind": "authors_release",
        "what": "The IMAGINE agent released by Colas et al. (NeurIPS 2020): MA policy, MA "
        "learned reward (LSTM + Deep Sets + OR net), trained with CGH imagination.",
        "source": {
            "repository": REPOSITORY_URL,
            "licence": "MIT (LICENSE in this directory)",
            "files": {name: _sha256(source / name) for name in files},
            "trained": params["date_time"],
            "budget": BUDGET,
        },
        "conversion": "imagine-tf pretrained convert-authors (imagine_tf/pretrained/authors.py)",
        "no_critic": "their release holds the actor and the reward model only",
        "vocabulary": words,
        "object_types": list(ontology.OBJECT_TYPES),
        "train_goals": len(params["train_descriptions"]),
        "test_goals": len(params["test_descriptions"]),
    }


def render_authors_readme(card: dict) -> str:
    """README.md: the card for people."""
    lines = [
        "# The authors' IMAGINE agent (epoch 160), converted",
        "",
        f"{card['what']} Source: {card['source']['repository']} (`pretrained_weights/`, "
        f"trained {card['source']['trained'][:10]}; {card['source']['budget']}), "
        f"{card['source']['licence']}. Converted by `{card['conversion']}`; "
        f"{card['no_critic']}.",
        "",
        f"Vocabulary: {len(card['vocabulary'])} words, one-hot in this order "
        "(0 = padding): " + ", ".join(card["vocabulary"]) + ".",
        "",
        "Object types, in the observation's one-hot order: " + ", ".join(card["object_types"]),
        "",
        "## Measured here (`imagine-tf eval --agent authors`, noise-free episodes)",
        "",
        "| world | episodes / goal | train SR | test SR | test SR, types 1-5 | train SR, Go / "
        "Grasp / Grow | test SR, Grasp / Grow | record |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in card["measured"]:
        types = " / ".join(f"{row['per_type'][str(t)]:.3f}" for t in range(1, 6))
        train, test = (
            " / ".join(f"{v:.3f}" for v in row[f"{split}_per_predicate"].values())
            for split in ("train", "test")
        )
        lines.append(
            f"| {row['world']} | {row['episodes_per_goal']} | {row['train_success']:.3f} | "
            f"{row['test_success']:.3f} | {types} | {train} | {test} | `{row['file']}` |"
        )
    if not card["measured"]:
        lines.append("| (not measured yet) | | | | | | | |")
    lines += ["", "Source files (sha256):", ""]
    lines += [f"* `{name}`: `{digest}`" for name, digest in card["source"]["files"].items()]
    return "\n".join(lines) + "\n"


def write_authors_model(learner, source, out, files, words, params, repository) -> dict:
    """Writes the shipped directory ``out`` (module docstring) from a converted learner, whole:
    into ``tmp.<name>`` beside it, then renamed onto it. Returns the card."""
    from imagine_tf.runs.checkpoint import write_networks_checkpoint, write_run_config
    from imagine_tf.reward.export import export_reward_model

    source, out = pathlib.Path(source), pathlib.Path(out)
    licence = licence_file(source)
    temporary = out.with_name("tmp." + out.name)
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    shutil.copy2(licence, temporary / "LICENSE")
    write_run_config(temporary, learner.config, None)
    write_networks_checkpoint(learner, temporary)
    card = authors_card(source, files, words, params)
    export_reward_model(
        learner.reward_network,
        temporary / REWARD,
        {"source": {"kind": card["kind"], "repository": REPOSITORY_URL, "epoch": 160}},
        version=1,
    )
    card["measured"] = measured_records(pathlib.Path(repository))
    write_text_atomically(temporary / "card.json", json.dumps(card, indent=1) + "\n")
    write_text_atomically(temporary / "README.md", render_authors_readme(card))
    if out.exists():
        if (
            not (out / "card.json").is_file()
            or json.loads((out / "card.json").read_text()).get("kind") != card["kind"]
        ):
            shutil.rmtree(temporary)
            raise FileExistsError(f"{out} exists and is not a converted authors' agent: "
                                  "give a new --out, or remove it.")  # fmt: skip
        shutil.rmtree(out)
    os.replace(temporary, out)
    return card
