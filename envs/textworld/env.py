"""``treegym/TextWorld-v0``: TextWorld games (``.z8``, made by ``tw-make``) as a forkable env.

Played by TextWorld's own stack (``textworld.start``: Jericho's Z-machine plus
TextWorld's Python-side ``GameProgression``), needs ``pip install 'treegym[textworld]'``.
The family is an Engine (``engine.py``: :class:`TextWorldEngine`, also a ``LiveEngine``)
run by ``EngineEnv``: in-process, or with ``server_url=`` against ``treegym serve textworld``.

* **Action** (a ``str``): any text command (``go north``, ``take coin``). Commands
  the game does not understand are answered by the game ("That's not a verb I
  recognise.") and count as a step; nothing raises. Characters outside ASCII,
  line breaks and backslashes (Frotz's meta-command prefix) are replaced by spaces, and commands cut
  to 190 characters, before the command reaches the game. The interpreter's file commands (``save``,
  ``restore``, ``script``, ...) never reach it: they answer that they are turned off (and count a step).
* **Observation** (dict): ``text`` (the game's feedback, the status line
  removed), ``instruction`` (the game's objective), ``valid_actions``
  (TextWorld's admissible commands, sorted).
* **info**: ``success`` (= ``won``), ``won``, ``lost``, ``score``,
  ``max_score``, ``moves`` (TextWorld's count of state-changing actions),
  ``game`` (the task id), plus ``task_id`` and ``steps``.
* **Reward**: the score gained by the step. ``terminated`` when the game is won
  or lost; ``truncated`` at ``max_steps`` (default 100). A step after the end
  changes nothing and says so in ``info["message"]``.
* **Tasks**: the shipped games (``split=`` ``train``/``test``/``all``; task id =
  the file stem, e.g. ``coin_1``), or the user's games with ``game_files=`` /
  ``game_dir=`` (split ``all``).
* **Steps and snapshots**: a step steps the live game in place (no copy: as cheap as
  textworld's own ``step`` plus the observation, ``scripts/bench/bench_textworld.py``); a
  snapshot freezes a :class:`TextWorldState` value (Jericho's machine state, TextWorld's
  ``GameProgression`` and the tracking fields, plus what the agent saw); a restore is lazy: it
  puts that value in place and the next step loads it (the Z-machine's memory, a fork of the
  progression that copies only what the step writes: ``progression.py``), so a fork costs
  restore + first step. It restores into any env on the same game file (also after pickling).
  Never ``env.copy()`` or deepcopy.
* **Contract**: ``expert()`` is TextWorld's winning policy from the current state
  (``policy_commands``); ``action_templates()`` the game's command templates
  (``take <o>``); ``task_fields()`` the objective and max score.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from treegym.envs.core import EngineEnv, TaskPool

from .engine import REQUEST as _REQUEST
from .engine import TextWorldEngine, game_pool
from .gamefiles import GameFileError, TextWorldGame
from .state import TextWorldState, clean_command, clean_feedback

DEFAULT_MAX_STEPS = 100
_SLOT = re.compile(r"\{(\w+)\}")


class TextWorldEnv(EngineEnv):
    """TextWorld games through Jericho (see the module docstring)."""

    snapshot_cost_seconds = 1e-3  # snapshot+restore copy nothing; the next step loads the state (0.05-0.2 ms more)
    server_hint = "start a session server (treegym serve textworld --port PORT)"

    def __init__(self, split: str | None = None, task_ids: Sequence[str] | str | None = None,
                 game_files: Sequence[str] | str | None = None, game_dir: str | None = None,
                 max_steps: int | None = DEFAULT_MAX_STEPS, render_mode: str | None = None,
                 server_url: str | None = None):
        if isinstance(task_ids, str):
            task_ids = [task_ids]
        super().__init__(TextWorldEngine(game_files, game_dir), split=split,
                         task_ids=None if task_ids is None else tuple(task_ids), max_steps=max_steps,
                         render_mode=render_mode, server_url=server_url)

    @classmethod
    def default_task_pool(cls, game_files: Sequence[str] | str | None = None,
                          game_dir: str | None = None) -> TaskPool:
        """The shipped games by split, or your own ``game_files`` / ``game_dir`` (one split, ``all``)."""
        return game_pool(game_files, game_dir)

    @classmethod
    def split_task_ids(cls, split: str, game_files: Sequence[str] | str | None = None,
                       game_dir: str | None = None) -> list[str]:
        return list(cls.default_task_pool(game_files, game_dir).ids(split))

    def action_templates(self) -> tuple[str, ...]:
        """The current game's command templates in ``<slot>`` style (``take <o>``); () before reset."""
        if self.task is None:
            return ()
        return tuple(_SLOT.sub(r"<\1>", t) for t in self.engine.game_info(self.task.spec.path)["templates"])

    def close(self) -> None:
        super().close()
        self.engine.close()


__all__ = ["TextWorldEnv", "TextWorldEngine", "TextWorldState", "TextWorldGame", "GameFileError",
           "clean_feedback", "clean_command", "DEFAULT_MAX_STEPS", "_REQUEST"]
