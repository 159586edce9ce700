"""Golden transcripts: what ALFWorld's official engine showed, replayed through ``gym.make``.

A :class:`Transcript` is one episode of one game as the official engine
(textworld ``PddlEnv`` + ALFWorld's ``AlfredDemangler``) played it: the
commands sent, and after reset and after every command the frame the engine
returned, ``(text, admissible commands, won)``. Two kinds per game:

* ``"plan"``: the official planner's plan from reset (``policy_commands``),
  played until the game is won;
* ``"walk"``: a seeded random walk of up to ``walk_steps`` commands over the
  admissible commands with about 5% invalid commands mixed in
  (:data:`INVALID_COMMANDS`), stopped early when the game is won.

:func:`replay` plays a transcript's commands through the public Gym API
(``gym.make("treegym/ALFWorld-v0")``, ``reset(options={"task_id": ...})``,
``step``) and lists every frame where ``obs["text"]``,
``obs["valid_actions"]`` or ``info["won"]`` differ from the official frame.

The transcripts of the 134 shipped games are recorded once by
``python -m treegym.scripts.dev.make_alfworld_transcripts`` (which needs the
official engine, ``treegym[alfworld-official]``) and committed as test data
(``tests/fixtures/alfworld_golden.jsonl.xz``): the default test suite replays
them, so parity with the official engine is checked without compiling it.

File format: xz-compressed JSON lines, one transcript per line,
``{"task_id", "kind", "seed", "commands": [str, ...],
"frames": [[text, [admissible, ...], won], ...]}`` with
``len(frames) == len(commands) + 1`` (frame 0 is the reset).
"""
from __future__ import annotations

import json
import lzma
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping
from .official import OfficialGame

INVALID_COMMANDS = ("fly away", "take moon 1 from sky 1", "go to nowhere 1", "open", "look around")
KINDS = ("plan", "walk")

Frame = tuple[str, tuple[str, ...], bool]


@dataclass(frozen=True)
class Transcript:
    """One episode as an engine played it (see the module docstring)."""

    task_id: str
    kind: str
    seed: int
    commands: tuple[str, ...]
    frames: tuple[Frame, ...]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"transcript kind must be one of {KINDS}, got {self.kind!r}")
        if len(self.frames) != len(self.commands) + 1:
            raise ValueError(f"transcript {self.task_id} ({self.kind}): {len(self.frames)} frames for "
                             f"{len(self.commands)} commands; expected one frame per command plus the reset")

    @property
    def won(self) -> bool:
        return self.frames[-1][2]

    def to_json(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "kind": self.kind, "seed": self.seed, "commands": list(self.commands),
                "frames": [[text, list(adm), won] for text, adm, won in self.frames]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Transcript":
        frames = tuple((str(t), tuple(str(c) for c in adm), bool(w)) for t, adm, w in data["frames"])
        return cls(str(data["task_id"]), str(data["kind"]), int(data["seed"]),
                   tuple(str(c) for c in data["commands"]), frames)


def save(path: str | Path, transcripts: Iterable[Transcript]) -> int:
    """Write transcripts as xz-compressed JSON lines; returns how many were written."""
    n = 0
    with lzma.open(path, "wt", encoding="utf-8", preset=9) as fh:
        for t in transcripts:
            fh.write(json.dumps(t.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    return n


def load(path: str | Path) -> list[Transcript]:
    """Read a file written by :func:`save`; a broken line raises ValueError naming its number."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no ALFWorld transcripts at {path}; record them with "
                                "python -m treegym.scripts.dev.make_alfworld_transcripts --out " + str(path))
    out = []
    with lzma.open(path, "rt", encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            try:
                out.append(Transcript.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{i}: not a transcript line ({exc})") from exc
    return out


# ---------------------------------------------------------------------- recording (official engine)
def record_official(task_id: str, data: Mapping[str, Any], seed: int = 0, walk_steps: int = 30) -> list[Transcript]:
    """The ``plan`` and ``walk`` transcripts of one game, played by the official engine.

    Needs ``treegym[alfworld-official]`` (see :func:`.official.official_available`).
    """
    official = OfficialGame(data)
    text, adm, won, plan = official.reset(policy=True)
    commands: list[str] = []
    frames: list[Frame] = [(text, tuple(adm), won)]
    for cmd in plan or []:
        if frames[-1][2]:
            break
        text, adm, won = official.step(cmd)
        commands.append(cmd)
        frames.append((text, tuple(adm), won))
    plan_t = Transcript(task_id, "plan", seed, tuple(commands), tuple(frames))

    text, adm, won, _ = official.reset()
    commands, frames = [], [(text, tuple(adm), won)]
    rng = random.Random(f"{seed}:{task_id}")
    for _ in range(walk_steps):
        if frames[-1][2]:
            break
        cmd = rng.choice(INVALID_COMMANDS) if rng.random() < 0.05 else rng.choice(frames[-1][1])
        text, adm, won = official.step(cmd)
        commands.append(cmd)
        frames.append((text, tuple(adm), won))
    return [plan_t, Transcript(task_id, "walk", seed, tuple(commands), tuple(frames))]


# ---------------------------------------------------------------------- replay (the Gym API)
def replay(env: Any, transcript: Transcript, max_mismatches: int = 5) -> tuple[int, list[dict]]:
    """Play ``transcript`` through a Gym env (as ``gym.make`` returns it) and compare every frame.

    Returns ``(frames compared, mismatches)``; each mismatch names the frame
    (``reset`` or ``step[i] 'command'``), the field (``text``, ``admissible``
    or ``won``), our value and the official one. At most ``max_mismatches``
    are kept, but every frame is compared and counted.
    """
    mismatches: list[dict] = []

    def compare(where: str, obs: Mapping, info: Mapping, frame: Frame) -> None:
        ours = (obs["text"], tuple(obs["valid_actions"]), bool(info["won"]))
        for name, a, b in zip(("text", "admissible", "won"), ours, frame):
            if a != b and len(mismatches) < max_mismatches:
                mismatches.append({"task_id": transcript.task_id, "kind": transcript.kind, "where": where,
                                   "field": name, "ours": a, "official": b})

    obs, info = env.reset(seed=transcript.seed, options={"task_id": transcript.task_id})
    compare("reset", obs, info, transcript.frames[0])
    compared = 1
    for i, (cmd, frame) in enumerate(zip(transcript.commands, transcript.frames[1:])):
        obs, _reward, terminated, truncated, info = env.step(cmd)
        compare(f"step[{i}] {cmd!r}", obs, info, frame)
        compared += 1
        if (terminated or truncated) and i < len(transcript.commands) - 1:
            if len(mismatches) < max_mismatches:
                mismatches.append({"task_id": transcript.task_id, "kind": transcript.kind,
                                   "where": f"step[{i}] {cmd!r}", "field": "episode end",
                                   "ours": "terminated" if terminated else "truncated",
                                   "official": f"{len(transcript.commands) - 1 - i} more commands"})
            break
    return compared, mismatches
