"""`imagine-tf play` and `imagine-tf demo`: the Playground with a scripted or random policy,
the social partner's descriptions, and rendered episodes."""

from __future__ import annotations

import argparse
import json
import os

from imagine_tf.cli.common import UsageError, add_gin_flags, parse_gin
from imagine_tf.atomic_files import save_array_atomically

DEMO_GOALS = (
    "Go top left",
    "Grasp red cat",
    "Grasp any blue thing",
    "Grow green plant",
    "Grow any animal",
    "Grasp any right_of dog thing",
)


def _play_command(args: argparse.Namespace) -> int:
    from imagine_tf.language import grammar  # checks first: no TensorFlow import for a typo

    try:
        goal = grammar.check_goal(args.goal)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.num_objects is not None and args.num_objects < 1:
        raise UsageError(f"--num-objects must be >= 1, got {args.num_objects}.")
    if args.out and os.path.splitext(args.out)[1].lower() not in (".gif", ".png"):
        raise UsageError(f"--out must end in .gif or .png, got {args.out!r}.")
    from imagine_tf.env.rendering import render_states, write_episode

    parse_gin(args)
    try:
        result = _played(args, goal)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.out:
        frames = render_states(result.states[:, 0], goals=[goal] * len(result.states))
        write_episode(frames, args.out)
    if args.save_state:
        save_array_atomically(args.save_state, result.states[-1].astype("float32"))  # s_T, [1, D]
    output = {
        "goal": goal,
        "achieved": bool(result.achieved[0]),
        "descriptions": result.descriptions[0],
    }
    if args.json:
        print(json.dumps(output))
    else:
        print(f"Goal: {goal}")
        print(f"Achieved: {'yes' if output['achieved'] else 'no'}")
        print("The partner says:")
        for sentence in output["descriptions"] or ["(nothing)"]:
            print(f"  - {sentence}")
        if args.out:
            print(f"Episode written to {args.out}")
    return 0


def _played(args: argparse.Namespace, goal: str):
    """The `EpisodeResult` of one episode of --policy (pretrained: the repository's agent;
    authors: the authors' released agent, converted)."""
    if args.policy not in ("pretrained", "authors"):
        from imagine_tf.playground import play

        return play(
            [goal],
            policy=args.policy,
            num_objects=args.num_objects,
            seed=args.seed,
            noise_std=args.noise,
        )
    if args.noise:
        raise UsageError(f"--noise is the scripted policy's; --policy {args.policy} plays without.")
    from imagine_tf.analysis.saved_run import load_agent
    from imagine_tf.cli.pretrained_commands import pretrained_path
    from imagine_tf.pretrained.play import play_agent

    agent = load_agent(pretrained_path("agent", args.policy))
    return play_agent(agent, [goal], args.seed, args.num_objects)


def _demo_command(args: argparse.Namespace) -> int:
    from imagine_tf.env.rendering import render_states, write_episode
    from imagine_tf.playground import play

    from imagine_tf.language import grammar

    parse_gin(args)
    os.makedirs(args.out_dir, exist_ok=True)
    # One batch of one-object goals, one of two-object goals (whose partner also describes
    # spatial relations).
    one_object = [g for g in DEMO_GOALS if not grammar.is_relational(g)]
    two_object = [g for g in DEMO_GOALS if grammar.is_relational(g)]
    for goals in (one_object, two_object):
        result = play(goals, policy="scripted", seed=args.seed)
        for index, goal in enumerate(result.goals):
            path = os.path.join(args.out_dir, goal.lower().replace(" ", "_") + ".gif")
            frames = render_states(result.states[:, index], goals=[goal] * len(result.states))
            write_episode(frames, path)
            verdict = "achieved" if result.achieved[index] else "NOT achieved"
            print(f"{goal!r}: {verdict}; episode in {path}")
            print("  the partner says: " + "; ".join(result.descriptions[index]))
    return 0


def add_commands(commands) -> None:
    """Registers ``play`` and ``demo`` on the ``imagine-tf`` subparsers."""
    play = commands.add_parser("play", help="play one goal and hear the social partner")
    play.add_argument("--goal", required=True, help='e.g. "Grasp red cat"')
    play.add_argument(
        "--policy",
        choices=("scripted", "random", "pretrained", "authors"),
        default="scripted",
        help="the scripted expert, uniform random actions, the repository's trained agent "
        "(models/) or the authors' released agent (models/authors_epoch160)",
    )
    play.add_argument("--num-objects", type=int, help="N (default 3, or the gin binding)")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--noise", type=float, default=0.0, help="scripted action noise std")
    play.add_argument("--out", help="write the episode as .gif (or last frame as .png)")
    play.add_argument("--json", action="store_true")
    play.add_argument("--save-state", help="write the final state s_T as .npy [1, D] (for `score`)")
    add_gin_flags(play)
    play.set_defaults(run=_play_command)

    demo = commands.add_parser("demo", help="play a few goals with the scripted expert")
    demo.add_argument("--out-dir", default=os.path.join("outputs", "demo"))
    demo.add_argument("--seed", type=int, default=0)
    add_gin_flags(demo)
    demo.set_defaults(run=_demo_command)
