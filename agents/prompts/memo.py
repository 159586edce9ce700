"""What a prompt spec remembers so that building prompts and parsing answers stay cheap in a search
(issue 26 item 2): per list of valid actions, the lookups ``normalise`` and ``extract`` need
(:class:`ActionIndex`), and per task, the contract answers that depend on the task only
(:class:`TaskMemo`). Both are pure caches: a spec answers the same with or without them."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

_BRACKET = re.compile(r"\b([A-Za-z_]\w*)\s*\[([^\]\n]*)\]")
MAX_INDEXES = 512  # valid-action lists remembered per task (a search visits a few hundred states)


class ActionIndex:
    """Lookups over one list of valid actions, built once: ``lower`` (lower-cased text -> the listed
    action, the last one listed winning as a dict comprehension does), ``labels`` (the lower-cased label of
    a bracketed action ``click[Buy Now]`` -> the first such action), ``verbs`` (the lower-cased verbs of
    bracketed actions) and, filled lazily by :meth:`by_canonical`, canonical form -> the first action."""

    __slots__ = ("valid", "lower", "labels", "verbs", "_canonical")

    def __init__(self, valid: Sequence[str]):
        self.valid = tuple(valid)
        self.lower = {v.lower(): v for v in self.valid}
        self.labels: dict[str, str] = {}
        verbs = set()
        for v in self.valid:
            m = _BRACKET.fullmatch(v)
            if m:
                self.labels.setdefault(m.group(2).strip().lower(), v)
            m = _BRACKET.match(v)
            if m:
                verbs.add(m.group(1).lower())
        self.verbs = frozenset(verbs)
        self._canonical: dict[str, str] | None = None

    def by_canonical(self, canonical: Callable[[str], str | None]) -> dict[str, str]:
        """Canonical form -> the first listed action with it (``canonical`` must not depend on the state)."""
        if self._canonical is None:
            out: dict[str, str] = {}
            for v in self.valid:
                c = canonical(v)
                if c is not None:
                    out.setdefault(c, v)
            self._canonical = out
        return self._canonical


class TaskMemo:
    """Answers remembered for one task of one env: cleared when the env or its task changes
    (a task is told apart by its ``task_id``, or the ``task`` attribute itself)."""

    def __init__(self) -> None:
        self._key: tuple[int, Any] | None = None
        self.values: dict[str, Any] = {}
        self.canonical: dict[str, str | None] = {}
        self.indexes: dict[tuple[str, ...], ActionIndex] = {}

    def check(self, env: Any) -> "TaskMemo":
        """This memo, emptied first when ``env`` (unwrapped) holds another task than when it was filled."""
        task = getattr(env, "task", None)
        key = (id(env), getattr(task, "task_id", task))
        if key != self._key:
            self._key = key
            self.values.clear()
            self.canonical.clear()
            self.indexes.clear()
        return self

    def index(self, valid: tuple[str, ...]) -> ActionIndex:
        found = self.indexes.get(valid)
        if found is None:
            if len(self.indexes) >= MAX_INDEXES:
                self.indexes.clear()
            found = self.indexes[valid] = ActionIndex(valid)
        return found


def template_verbs(templates: Sequence[str]) -> frozenset[str]:
    """The lower-cased verbs of bracketed templates (``search[<query>]`` -> ``search``)."""
    return frozenset(m.group(1).lower() for m in map(_BRACKET.match, templates) if m)
