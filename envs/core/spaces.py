"""Text spaces that hold any Unicode text.

Gymnasium's ``spaces.Text`` checks every character against a charset, so real
page text (dashes, emoji, newlines) is rejected and ``check_env`` fails. The
``UnicodeText`` space here only checks the type and the length, the way
BrowserGym and MiniWoB++ do, and still samples printable strings.
"""
from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

DEFAULT_MAX_LENGTH = 1 << 20  # characters; a page, never a book

_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "


class UnicodeText(spaces.Text):
    """A text space containing every ``str`` whose length is in ``[min_length, max_length]``.

    ``sample()`` draws printable ASCII (plus the occasional non-ASCII letter) so a
    random action exercises an env's malformed-input path.
    """

    def __init__(self, max_length: int = DEFAULT_MAX_LENGTH, *, min_length: int = 0, seed: Any = None):
        super().__init__(max_length=max_length, min_length=min_length, charset=_SAMPLE_CHARSET + "éü–✓", seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(self.np_random.integers(self.min_length, min(self.max_length, 64) + 1))
        chars = self.character_list
        idx = self.np_random.integers(0, len(chars), size=length)
        return "".join(chars[int(i)] for i in idx)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


def action_space(max_length: int = 4096) -> UnicodeText:
    """The action space every treegym env uses: one command string."""
    return UnicodeText(max_length=max_length, min_length=0)


def valid_actions_space(max_length: int = 4096) -> spaces.Sequence:
    """``valid_actions``: a tuple of command strings (``Sequence`` needs a tuple, not a list)."""
    return spaces.Sequence(UnicodeText(max_length=max_length, min_length=0), stack=False)


def text_observation_space(**extra: spaces.Space) -> spaces.Dict:
    """The common observation dict: ``text``, ``instruction``, ``valid_actions`` plus env extras."""
    base: dict[str, spaces.Space] = {
        "text": UnicodeText(),
        "instruction": UnicodeText(),
        "valid_actions": valid_actions_space(),
    }
    base.update(extra)
    return spaces.Dict(base)


def number_list_space(max_len: int = 16) -> spaces.Sequence:
    """A variable-length tuple of floats (e.g. Game of 24's numbers left)."""
    return spaces.Sequence(spaces.Box(low=-np.inf, high=np.inf, shape=(), dtype=np.float64), stack=False)
