"""Old module names of imagine_tf, the old paths of its config files, and the old names of
settings: run directories store gin files and ``config.json`` files that use them
(``import imagine_tf.training.reward_recipe`` heads a reward run's operative config;
``TrainConfig.reward_max_epochs = 20`` binds what is ``RewardModelConfig.max_epochs`` now).

Stored configs are rewritten as they are parsed (`renamed_config`, read by
`runs.config_files`): an ``import <old>`` line imports the module that holds its code now, an
old binding name binds its new name. Nothing changes Python's import system: code that imports
an old module name gets a ModuleNotFoundError. Standard library only.
"""

from __future__ import annotations

import re

#: old name -> the module that holds its code now
MOVED = {
    "imagine_tf.agent.exploration_policy": "imagine_tf.agent.ddpg",
    "imagine_tf.agent.failure_modes": "imagine_tf.env.grow_outcomes",
    "imagine_tf.agent.replay_checkpoint": "imagine_tf.runs.replay_checkpoint",
    "imagine_tf.reward.model_config": "imagine_tf.reward.config",
    "imagine_tf.agents": "imagine_tf.agent",
    "imagine_tf.agents.ddpg_agent": "imagine_tf.agent.ddpg",
    "imagine_tf.agents.episode_replay": "imagine_tf.agent.replay",
    "imagine_tf.agents.exploration_policy": "imagine_tf.agent.ddpg",
    "imagine_tf.agents.goal_sampler": "imagine_tf.agent.goals",
    "imagine_tf.agents.her_relabeler": "imagine_tf.agent.relabelling",
    "imagine_tf.cli.reward_commands": "imagine_tf.cli.supervised_commands",
    "imagine_tf.export.policy_export": "imagine_tf.agent.export",
    "imagine_tf.export.reward_export": "imagine_tf.reward.export",
    "imagine_tf.networks.actor_network": "imagine_tf.agent.actor_network",
    "imagine_tf.networks.critic_network": "imagine_tf.agent.critic_network",
    "imagine_tf.networks.goal_token_actor": "imagine_tf.agent.goal_token_actor",
    "imagine_tf.networks.or_network": "imagine_tf.reward.or_network",
    "imagine_tf.networks.reward_ensemble": "imagine_tf.reward.ensemble_network",
    "imagine_tf.networks.reward_network": "imagine_tf.reward.network",
    "imagine_tf.networks.reward_scan": "imagine_tf.reward.scan",
    "imagine_tf.reward.reward_memory": "imagine_tf.reward.memory",
    "imagine_tf.reward.run_layout": "imagine_tf.reward.layout",
    "imagine_tf.training.actor": "imagine_tf.agent.acting",
    "imagine_tf.training.agent_report": "imagine_tf.analysis.success_report",
    "imagine_tf.training.builder": "imagine_tf.agent.builder",
    "imagine_tf.training.checkpoint_snapshot": "imagine_tf.runs.snapshot",
    "imagine_tf.training.config": "imagine_tf.agent.config",
    "imagine_tf.training.config_files": "imagine_tf.runs.config_files",
    "imagine_tf.training.earlier_report": "imagine_tf.runs.earlier_report",
    "imagine_tf.training.episode_batch": "imagine_tf.agent.episode_batch",
    "imagine_tf.training.evaluation": "imagine_tf.agent.evaluation",
    "imagine_tf.training.failure_modes": "imagine_tf.env.grow_outcomes",
    "imagine_tf.training.goal_probe": "imagine_tf.reward.goal_probe",
    "imagine_tf.training.learner": "imagine_tf.agent.learning",
    "imagine_tf.training.learner_state": "imagine_tf.runs.checkpoint",
    "imagine_tf.training.model_loading": "imagine_tf.analysis.saved_run",
    "imagine_tf.training.replay_checkpoint": "imagine_tf.runs.replay_checkpoint",
    "imagine_tf.training.reward_config": "imagine_tf.reward.config",
    "imagine_tf.training.reward_ensemble": "imagine_tf.reward.ensemble",
    "imagine_tf.training.reward_recipe": "imagine_tf.reward.recipe",
    "imagine_tf.training.reward_study": "imagine_tf.reward.study",
    "imagine_tf.training.run_evaluation": "imagine_tf.analysis.run_evaluation",
    "imagine_tf.training.run_fork": "imagine_tf.runs.fork",
    "imagine_tf.training.run_layout": "imagine_tf.runs.layout",
    "imagine_tf.training.run_lock": "imagine_tf.runs.lock",
    "imagine_tf.training.run_precision": "imagine_tf.runs.precision",
    "imagine_tf.training.run_report": "imagine_tf.analysis.figures",
    "imagine_tf.tuning.reward_tuning": "imagine_tf.tuning.supervised_tuning",
}


#: configs/ before it had a folder per kind: old path -> path (`runs.config_files` reads both)
MOVED_CONFIG_FILES = {
    "configs/fa.gin": "configs/agent/fa.gin",
    "configs/fc.gin": "configs/agent/fc.gin",
    "configs/imagination_study.gin": "configs/studies/imagination.gin",
    "configs/imagine.gin": "configs/agent/imagine.gin",
    "configs/imagine_final_goal.gin": "configs/agent/imagine_final_goal.gin",
    "configs/imagine_none.gin": "configs/agent/imagine_none.gin",
    "configs/ma.gin": "configs/agent/ma.gin",
    "configs/ma_final_goal.gin": "configs/agent/ma_final_goal.gin",
    "configs/ma_oracle.gin": "configs/agent/ma_oracle.gin",
    "configs/playground.gin": "configs/world/playground.gin",
    "configs/playground_many_objects.gin": "configs/world/playground_many_objects.gin",
    "configs/quickstart.gin": "configs/agent/quickstart.gin",
    "configs/reward_fa.gin": "configs/reward/fa.gin",
    "configs/reward_fc.gin": "configs/reward/fc.gin",
    "configs/reward_ma.gin": "configs/reward/ma.gin",
    "configs/reward_ma_pairs.gin": "configs/reward/ma_pairs.gin",
    "configs/reward_study_generalization.gin": "configs/studies/reward_generalization.gin",
    "configs/reward_study_generalization_ma_norm.gin": "configs/studies/reward_generalization_ma_norm.gin",
    "configs/reward_study_two_object.gin": "configs/studies/reward_two_object.gin",
    "configs/reward_study_two_object_baseline.gin": "configs/studies/reward_two_object_baseline.gin",
    "configs/reward_study_two_object_relations.gin": "configs/studies/reward_two_object_relations.gin",
    "configs/reward_study_two_object_relations_no_norm.gin": "configs/studies/reward_two_object_relations_no_norm.gin",
    "configs/reward_study_two_object_relations_x3.gin": "configs/studies/reward_two_object_relations_x3.gin",
    "configs/reward_study_two_object_relations_x5.gin": "configs/studies/reward_two_object_relations_x5.gin",
    "configs/reward_study_two_object_residual_gate.gin": "configs/studies/reward_two_object_residual_gate.gin",
    "configs/reward_study_two_object_shared_gate.gin": "configs/studies/reward_two_object_shared_gate.gin",
    "configs/smoke.gin": "configs/agent/smoke.gin",
    "configs/tune_agent_quickstart.gin": "configs/tuning/agent_quickstart.gin",
    "configs/tune_reward_ma.gin": "configs/tuning/reward_ma.gin",
}


#: `TrainConfig`'s reward-model fields before they moved into ``TrainConfig.reward_model`` (a
#: `RewardModelConfig`): old field -> its field there
MOVED_TRAIN_CONFIG_FIELDS = {
    f"reward_{name}": name
    for name in (
        "architecture",
        "batches_per_epoch",
        "max_epochs",
        "patience",
        "batch_size",
        "learning_rate",
        "positive_ratio",
        "normalize_goal",
    )
}
REWARD_MODEL_FIELD = "reward_model"
#: their gin bindings: old name -> name now (`runs.config_files` reads both)
MOVED_BINDINGS = {
    f"TrainConfig.{old}": f"RewardModelConfig.{new}"
    for old, new in MOVED_TRAIN_CONFIG_FIELDS.items()
}
# A binding's name at the start of a line: an optional scope and module, the configurable, the
# parameter; then "=". The module (of TrainConfig) is dropped: RewardModelConfig is unique.
_OLD_BINDING = re.compile(
    r"^(?P<indent>[ \t]*)(?P<scope>(?:[\w.]+/)*)(?:[\w.]+\.)?TrainConfig\."
    rf"(?P<field>{'|'.join(MOVED_TRAIN_CONFIG_FIELDS)})(?P<end>[ \t]*=)",
    re.MULTILINE,
)


def renamed_bindings(text: str) -> str:
    """Gin text (a file, or one binding) with the old binding names of `MOVED_BINDINGS` made
    the names now: ``scope/TrainConfig.reward_max_epochs = 20`` ->
    ``scope/RewardModelConfig.max_epochs = 20``."""

    def new_name(match: re.Match) -> str:
        field = MOVED_TRAIN_CONFIG_FIELDS[match["field"]]
        return f"{match['indent']}{match['scope']}RewardModelConfig.{field}{match['end']}"

    return _OLD_BINDING.sub(new_name, text)


def nested_train_config(values: dict) -> dict:
    """A stored `TrainConfig` dict (``config.json``) with the flat ``reward_<field>`` keys of
    `MOVED_TRAIN_CONFIG_FIELDS` moved into its ``reward_model`` dict (a key already there
    wins); a dict without them is returned as it is."""
    moved = {new: values[old] for old, new in MOVED_TRAIN_CONFIG_FIELDS.items() if old in values}
    if not moved:
        return values
    kept = {key: value for key, value in values.items() if key not in MOVED_TRAIN_CONFIG_FIELDS}
    return {**kept, REWARD_MODEL_FIELD: {**moved, **values.get(REWARD_MODEL_FIELD, {})}}


# An import statement of one old module name, the whole line (a trailing comment allowed).
_OLD_NAMES = "|".join(map(re.escape, sorted(MOVED, key=len, reverse=True)))
_OLD_IMPORT = re.compile(
    rf"^(?P<head>[ \t]*import[ \t]+)(?P<name>{_OLD_NAMES})(?P<end>[ \t]*(?:#.*)?)$", re.MULTILINE
)


def renamed_imports(text: str) -> str:
    """Gin text with each ``import <old name>`` line of `MOVED` importing the module now."""
    return _OLD_IMPORT.sub(lambda m: f"{m['head']}{MOVED[m['name']]}{m['end']}", text)


def renamed_config(text: str) -> str:
    """Gin text as this version reads it: old imports (`renamed_imports`) and old binding names
    (`renamed_bindings`) made today's."""
    return renamed_imports(renamed_bindings(text))
