"""Rendering of Playground states to RGB frames with PIL (no pygame), and GIF/PNG writing.

A frame shows the arena [-1.2, 1.2]^2 (the object start area [-1, 1]^2 in a lighter tone and the
Go-zone lines at ±0.05 and ±0.25), each object as a shape tinted with its RGB (animal: circle,
plant: triangle, furniture: square, supply: diamond) with its type written under it, a thick
outline on the held object, and the hand as a small ring (filled when the gripper is closed).
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from imagine_tf.atomic_files import replacing
from imagine_tf.env import ontology
from imagine_tf.env.config import ARENA_LIMIT
from imagine_tf.env.observation import (
    BODY_DIM,
    GRASPED_INDEX,
    OBJECT_DIM,
    POSITION_SLICE,
    RGB_SLICE,
    SIZE_INDEX,
    TYPE_SLICE,
    num_objects_of,
)

#: The default frame: a 480-pixel arena under a caption band (labels readable in a README).
DEFAULT_SIDE = 480


def caption_height(side: int) -> int:
    """Pixels of the caption band above an arena of ``side`` pixels."""
    return max(22, side // 16)


def _to_pixel(xy: np.ndarray, side: int) -> tuple[float, float]:
    x = (xy[0] + ARENA_LIMIT) / (2 * ARENA_LIMIT) * side
    y = (1 - (xy[1] + ARENA_LIMIT) / (2 * ARENA_LIMIT)) * side + caption_height(side)
    return float(x), float(y)


def render_state(
    state: np.ndarray, goal: str | None = None, side: int = DEFAULT_SIDE
) -> np.ndarray:
    """One frame of one state s_t (float [2 (3 + 39 N)]) as uint8 [side + caption, side, 3]
    (`caption_height`)."""
    state = np.asarray(state, dtype=np.float32)
    num_objects = num_objects_of(state)
    top = caption_height(side)
    image = Image.new("RGB", (side, side + top), (236, 236, 236))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=max(10, side // 36))
    scale = side / (2 * ARENA_LIMIT)
    start = _to_pixel(np.array([-1.0, 1.0]), side) + _to_pixel(np.array([1.0, -1.0]), side)
    draw.rectangle(start, fill=(248, 248, 248))
    for edge in (-0.25, -0.05, 0.05, 0.25):
        x, _ = _to_pixel(np.array([edge, 0.0]), side)
        _, y = _to_pixel(np.array([0.0, edge]), side)
        draw.line([(x, top), (x, side + top)], fill=(220, 220, 225))
        draw.line([(0, y), (side, y)], fill=(220, 220, 225))
    objects = state[BODY_DIM : BODY_DIM + OBJECT_DIM * num_objects].reshape(num_objects, -1)
    for features in objects:
        type_index = int(np.argmax(features[TYPE_SLICE]))
        type_name = ontology.OBJECT_TYPES[type_index]
        cx, cy = _to_pixel(features[POSITION_SLICE], side)
        radius = max(features[SIZE_INDEX] * scale / 2, 2.0)
        fill = tuple(int(c) for c in np.clip(features[RGB_SLICE] * 255, 0, 255))
        held = features[GRASPED_INDEX] > 0
        outline, width = ((0, 0, 0), 3) if held else ((90, 90, 90), 1)
        box = (cx - radius, cy - radius, cx + radius, cy + radius)
        if ontology.IS_ANIMAL[type_index]:
            draw.ellipse(box, fill=fill, outline=outline, width=width)
        elif ontology.IS_PLANT[type_index]:
            points = [(cx, cy - radius), (cx + radius, cy + radius), (cx - radius, cy + radius)]
            draw.polygon(points, fill=fill, outline=outline, width=width)
        elif ontology.CATEGORY_MEMBERS[ontology.FURNITURE_CATEGORY, type_index]:
            draw.rectangle(box, fill=fill, outline=outline, width=width)
        else:
            points = [(cx, cy - radius), (cx + radius, cy), (cx, cy + radius), (cx - radius, cy)]
            draw.polygon(points, fill=fill, outline=outline, width=width)
        draw.text((cx, cy + radius + 1), type_name, fill=(40, 40, 40), font=font, anchor="mt")
    hx, hy = _to_pixel(state[0:2], side)
    hand = max(0.05 * scale, 4.0)
    closed = state[2] > 0
    draw.ellipse(
        (hx - hand, hy - hand, hx + hand, hy + hand),
        fill=(20, 20, 20) if closed else None,
        outline=(20, 20, 20),
        width=2,
    )
    draw.rectangle((0, 0, side, top), fill=(255, 255, 255))
    if goal:
        _draw_words(draw, (6, top // 5), goal, ImageFont.load_default(size=top * 3 // 5))
    return np.asarray(image)


def _draw_words(draw, xy: tuple[float, float], text: str, font) -> None:
    """Text word by word, an "n" apart: the default font's space is 2-3 pixels wide, too
    narrow to see ("Grasp any animal" read as one word)."""
    x, y = xy
    gap = font.getlength("n")
    for word in text.split():
        draw.text((x, y), word, fill=(0, 0, 0), font=font)
        x += font.getlength(word) + gap


def render_states(
    states: np.ndarray, goals: Sequence[str] | None = None, side: int = DEFAULT_SIDE
) -> np.ndarray:
    """Frames of a batch of states [B, D], uint8 [B, side + caption, side, 3]."""
    states = np.atleast_2d(np.asarray(states))
    goals = list(goals) if goals is not None else [None] * len(states)
    return np.stack([render_state(s, g, side) for s, g in zip(states, goals)])


def write_episode(frames: np.ndarray, path: str, fps: int = 10) -> str:
    """Writes frames [T, H, W, 3] as a GIF (or the last frame as PNG for a .png path).

    The file is written to a temporary name and then renamed, so a reader never sees half a
    file. Returns the path.
    """
    frames = np.asarray(frames, dtype=np.uint8)
    if frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"Expected frames of shape [T, H, W, 3], got {frames.shape}.")
    extension = os.path.splitext(path)[1].lower()
    if extension not in (".gif", ".png"):
        raise ValueError(f"Episodes are written as .gif or .png, got {path!r}.")
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with replacing(path) as temporary:  # keeps the extension PIL reads the format from
        if extension == ".gif":
            images = _shared_palette_images(frames)
            images[0].save(
                temporary,
                save_all=True,
                append_images=images[1:],
                duration=int(1000 / fps),
                loop=0,
            )
        else:
            Image.fromarray(frames[-1]).save(temporary)
    return path


PALETTE_SAMPLE_FRAMES = 16


def _shared_palette_images(frames: np.ndarray) -> list:
    """Frames [T, H, W, 3] as "P" images of one 256-colour palette, taken (median cut, no
    dithering) from up to PALETTE_SAMPLE_FRAMES frames spread over the episode: exact when those
    frames hold ≤ 256 colours, as rendered scenes do but for anti-aliased caption edges. GIF's
    own per-frame quantisation costs about 5x more."""
    step = max(1, len(frames) // PALETTE_SAMPLE_FRAMES)
    sample = Image.fromarray(np.concatenate([*frames[::step], frames[-1]], axis=0))
    palette = sample.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    return [
        Image.fromarray(frame).quantize(palette=palette, dither=Image.Dither.NONE)
        for frame in frames
    ]
