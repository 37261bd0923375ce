"""What the reference's network update costs on *this* CPU: a PyTorch proxy (not our stack).

We timed the authors' PyTorch actor + critic update (batch 256, MA networks of
Colas et al. 2020; Karch, Colas et al. 2020; flowersteam/Imagine) at 22.7 ms isolated and 27.7 ms in the loop, on an "Intel Xeon" 2-vCPU
VM. This script rebuilds networks of the same shapes and parameter counts in PyTorch (our own
code: the same layer sizes, not the authors' code) and times one DDPG update — target actor and
critic, critic MSE step, actor −Q + action-L2 step, Adam — at one thread, and the reference's way
of scoring the relabelling candidates (the 256 × 50 pairs tiled, one forward of the MA reward),
so that our TensorFlow figures can be compared with the same arithmetic in the reference's
framework on this machine. (The reference's Python balancing loops, ≈ 11 ms there, are not
included.)

It needs PyTorch, which imagine-tf does not depend on:

    python -m venv /tmp/torch && /tmp/torch/bin/pip install torch==2.13.0
    /tmp/torch/bin/python docs/results/scripts/torch_update_floor.py [--batch 256] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch
from torch import nn

HIDDEN, OBJECTS, OBJECT_INPUT, GOAL, ACTION = 256, 3, 84, 100, 3


class DeepSetsMA(nn.Module):
    """x_i ⊙ σ(Dense(F)(g)) -> 256 -> N·F per object, sum, -> 256 -> out."""

    def __init__(self, feature_dim: int, outputs: int):
        super().__init__()
        self.attention = nn.Linear(GOAL, feature_dim)
        self.before_sum = nn.Sequential(
            nn.Linear(feature_dim, HIDDEN),
            nn.ReLU(),
            nn.Linear(HIDDEN, OBJECTS * feature_dim),
            nn.ReLU(),
        )
        self.after_sum = nn.Sequential(
            nn.Linear(OBJECTS * feature_dim, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, outputs)
        )

    def forward(self, objects, goal):  # objects [B, N, F], goal [B, E]
        gated = objects * torch.sigmoid(self.attention(goal))[:, None, :]
        return self.after_sum(self.before_sum(gated).sum(dim=1))


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = DeepSetsMA(OBJECT_INPUT, ACTION)

    def forward(self, objects, goal):
        return torch.tanh(self.net(objects, goal))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = DeepSetsMA(OBJECT_INPUT + ACTION, 1)

    def forward(self, objects, goal, action):
        with_action = torch.cat([objects, action[:, None, :].expand(-1, OBJECTS, -1)], dim=-1)
        return self.net(with_action, goal)[:, 0]


class RewardMA(nn.Module):
    """The MA reward of Colas et al. 2020, IMAGINE; flowersteam/Imagine: p_i = σ(Dense(1)(ReLU(Dense(100)(x_i ⊙ α(g))))), then
    an OR over objects (here the max: the reference's OR net is a 353-parameter MLP, negligible)."""

    def __init__(self):
        super().__init__()
        self.attention = nn.Linear(GOAL, OBJECT_INPUT)
        self.module_net = nn.Sequential(nn.Linear(OBJECT_INPUT, 100), nn.ReLU(), nn.Linear(100, 1))

    def forward(self, objects, goal):
        gated = objects * torch.sigmoid(self.attention(goal))[:, None, :]
        return torch.sigmoid(self.module_net(gated))[..., 0].max(dim=1).values


def measure_relabel_scoring(batch: int, candidates: int = 50, repeats: int = 50) -> float:
    """Median ms to score [batch transitions × candidates] pairs the reference's way: the pairs
    tiled (np.repeat), one forward of the reward network on all of them."""
    reward = RewardMA()
    objects, goals = torch.randn(batch, OBJECTS, OBJECT_INPUT), torch.randn(candidates, GOAL)
    times = []
    with torch.no_grad():
        for _ in range(repeats + 5):
            start = time.perf_counter()
            tiled_objects = objects.repeat_interleave(candidates, dim=0)
            tiled_goals = goals.repeat(batch, 1)
            (reward(tiled_objects, tiled_goals) > 0.5).reshape(batch, candidates)
            times.append(time.perf_counter() - start)
    return statistics.median(times[5:]) * 1e3


def count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def measure(batch: int, repeats: int = 200) -> dict:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    actor, critic = Actor(), Critic()
    target_actor, target_critic = Actor(), Critic()
    target_actor.load_state_dict(actor.state_dict())
    target_critic.load_state_dict(critic.state_dict())
    actor_optimizer = torch.optim.Adam(actor.parameters(), 1e-3)
    critic_optimizer = torch.optim.Adam(critic.parameters(), 1e-3)
    objects, next_objects = torch.randn(batch, OBJECTS, OBJECT_INPUT), torch.randn(
        batch, OBJECTS, OBJECT_INPUT
    )
    goal, action, reward = (
        torch.randn(batch, GOAL),
        torch.rand(batch, ACTION) * 2 - 1,
        -torch.ones(batch),
    )

    def update():
        with torch.no_grad():
            target = reward + 0.98 * target_critic(
                next_objects, goal, target_actor(next_objects, goal)
            )
            target = target.clamp(-50.0, 0.0)
        critic_loss = ((critic(objects, goal, action) - target) ** 2).mean()
        critic_optimizer.zero_grad()
        critic_loss.backward()
        critic_optimizer.step()
        policy_action = actor(objects, goal)
        actor_loss = -critic(objects, goal, policy_action).mean() + (policy_action**2).mean()
        actor_optimizer.zero_grad()
        actor_loss.backward()
        actor_optimizer.step()

    for _ in range(10):
        update()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        update()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    scoring_ms = measure_relabel_scoring(batch)
    return {
        "relabel_scoring_ms_median": round(scoring_ms, 2),
        "update_with_scoring_per_s": round(1e3 / (median * 1e3 + scoring_ms), 1),
        "framework": f"torch {torch.__version__}",
        "threads": torch.get_num_threads(),
        "batch": batch,
        "parameters": {"actor": count(actor), "critic": count(critic)},
        "update_ms_median": round(median * 1e3, 2),
        "updates_per_s": round(1 / median, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.batch)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            f"{result['framework']}, {result['threads']} thread, batch {result['batch']}: "
            f"{result['update_ms_median']} ms per actor + critic update "
            f"({result['updates_per_s']} updates/s); scoring {batch_pairs(result)} pairs for "
            f"relabelling: {result['relabel_scoring_ms_median']} ms; together "
            f"{result['update_with_scoring_per_s']} updates/s; parameters {result['parameters']}"
        )


def batch_pairs(result: dict) -> str:
    return f"{result['batch']} × 50"


if __name__ == "__main__":
    main()
