"""What a prompt spec remembers so that building prompts and parsing answers stay cheap in a search
(issue 26 item 2): per list of valid actions, the lookups ``normalise`` and ``extract`` need
(:class:`ActionIndex`), and per task, the contract answers that depend on the task only
(:class:`TaskMemo`). Both are pure caches: a spec answers the same with or without them."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

_BRACKET = re.compile(r"\b([A-Za-z_]\w*)\s*\[([^\]\n]*)\]")
_UNKNOWN = object()
MAX_INDEXES = 512  # valid-action lists remembered per task (a search visits a few hundred states)
MAX_EXTRACTED = 256  # answer lines remembered per list of valid actions
MAX_CONTEXTS = 512  # state prompts' context lines remembered per task (``PromptSpec.context``)


class ActionIndex:
    """Lookups over one list of valid actions, each built on first use: ``lower`` (lower-cased text ->
    the listed action, the last one listed winning as a dict comprehension does; ``stripped`` the same for
stripped text), ``labels`` (the
    lower-cased label of a bracketed action ``click[Buy Now]`` -> the first such action), ``verbs``
    (the lower-cased verbs of bracketed actions) and :meth:`find_canonical` (canonical form -> the
    first listed action with it, reading the list only as far as needed). ``extracted`` and ``answers`` are
    free for the spec to remember what it read from answer lines and whole answers against this list
    (``PromptSpec.extract``, ``PromptSpec.parse_action``)."""

    __slots__ = ("valid", "lower", "_stripped", "_labels", "_verbs", "_canonical", "_scanned", "extracted", "answers",
                 "_fills")

    def __init__(self, valid: Sequence[str]):
        self.valid = valid = tuple(valid)
        self.lower = dict(zip(map(str.lower, valid), valid))  # the last one listed wins, as in a comprehension
        self._stripped: dict[str, str] | None = None
        self._labels: dict[str, str] | None = None
        self._verbs: frozenset[str] | None = None
        self._canonical: dict[str, str] = {}
        self._scanned = 0
        self.extracted: dict[str, tuple[Any, str | None, bool]] = {}
        self.answers: dict[str, tuple[Any, str, bool]] = {}  # whole answers -> the action read (``PromptSpec.parse_action``)
        self._fills: dict[str, bool] | None = None  # template -> whether a listed action fills it

    def fills(self, template: str, pattern: re.Pattern) -> bool:
        """Whether a listed action matches ``pattern`` (``template``'s regex), remembered per template."""
        known = self._fills
        if known is None:
            known = self._fills = {}
        found = known.get(template)
        if found is None:
            found = known[template] = any(pattern.match(v) for v in self.valid)
        return found

    @property
    def stripped(self) -> dict[str, str]:
        """Stripped lower-cased text -> the listed action (the last one listed wins): ``lower`` itself when
        no listed action has whitespace at an end (the common case: one dict per list, not two)."""
        if self._stripped is None:
            unpadded = tuple(map(str.strip, self.valid)) == self.valid
            self._stripped = self.lower if unpadded else {v.strip().lower(): v for v in self.valid}
        return self._stripped

    @property
    def labels(self) -> dict[str, str]:
        if self._labels is None:
            labels: dict[str, str] = {}
            for v in self.valid:
                m = _BRACKET.fullmatch(v) if "[" in v else None
                if m:
                    labels.setdefault(m.group(2).strip().lower(), v)
            self._labels = labels
        return self._labels

    @property
    def verbs(self) -> frozenset[str]:
        if self._verbs is None:
            self._verbs = frozenset(m.group(1).lower() for m in map(_BRACKET.match, self.valid) if m)
        return self._verbs

    def find_canonical(self, canon: str, canonical: Callable[[str], str | None],
                       known: dict[str, str | None] | None = None) -> str | None:
        """The first listed action whose ``canonical(action)`` is ``canon`` (``canonical`` must not depend
        on the state: its answers are kept), or None. ``known``: answers of ``canonical`` remembered by the
        caller (action -> form), read before calling it."""
        table = self._canonical
        found = table.get(canon)
        if found is not None:
            return found
        valid, i, n = self.valid, self._scanned, len(self.valid)
        get = known.get if known is not None else {}.get
        while i < n:
            v = valid[i]
            i += 1
            c = get(v, _UNKNOWN)
            if c is _UNKNOWN:
                c = canonical(v)
            if c is not None:
                table.setdefault(c, v)
                if c == canon:
                    self._scanned = i
                    return table[c]
        self._scanned = i
        return None


class TaskMemo:
    """Answers remembered for one task of one env: cleared when the env or its task changes
    (a task is told apart by its ``task_id``, or the ``task`` attribute itself)."""

    def __init__(self) -> None:
        self._key: tuple[int, Any] | None = None
        self._task: Any = None  # the task object last seen (held, so its identity is never reused)
        self._env: Any = None
        self._outer: Any = None  # the env as bound (wrapped), whose ``unwrapped`` is ``base``
        self.base: Any = None  # the bound env unwrapped: looked up once per env (Gymnasium walks every wrapper)
        self.values: dict[Any, Any] = {}
        self.canonical: dict[str, str | None] = {}
        self.indexes: dict[tuple[str, ...], ActionIndex] = {}
        self.lines: dict[Any, list[str]] = {}
        self.contexts: dict[int, tuple[Any, tuple, list[str]]] = {}  # id(obs) -> (obs, steps, block)
        self.histories: dict[int, tuple[tuple, list[str]]] = {}  # id(last step) -> (steps, block)
        self._last: tuple[Any, list, ActionIndex] | None = None  # (a list of valid actions, its copy, index)
        self._tuples: dict[int, tuple[tuple, ActionIndex]] = {}  # id of a tuple of valid actions -> (it, index)

    def check(self, env: Any) -> "TaskMemo":
        """This memo, emptied first when ``env`` (as bound: it is unwrapped here, once per env) holds another
        task than when it was filled."""
        if env is not self._outer or env is None:
            self._outer, self.base = env, getattr(env, "unwrapped", env)
        env = self.base
        task = getattr(env, "task", None)
        if task is self._task and env is self._env and task is not None:
            return self
        key = (id(env), getattr(task, "task_id", task))
        self._task, self._env = task, env
        try:
            same = bool(key == self._key)
        except Exception:  # noqa: BLE001 - a task that does not compare plainly (an array): start over
            same = False
        if not same:
            self._key = key
            self.values.clear()
            self.canonical.clear()
            self.indexes.clear()
            self._tuples.clear()
            self.lines.clear()
            self.contexts.clear()
            self.histories.clear()
            self._last = None
        return self

    def index(self, valid_actions: Any) -> ActionIndex:
        """The :class:`ActionIndex` of an observation's ``valid_actions``. An object seen before is answered
        without building the key: a tuple by its identity (it is held, so the identity is not reused), the
        last list when it still equals the copy taken then (a list may have been changed in place)."""
        is_tuple = isinstance(valid_actions, tuple)  # immutable: its identity stands for its content
        if is_tuple:
            seen = self._tuples.get(id(valid_actions))
            if seen is not None:
                return seen[1]
        else:
            last = self._last
            if last is not None and last[0] is valid_actions and valid_actions is not None and last[1] == valid_actions:
                return last[2]
        valid = tuple(map(str, valid_actions or ()))
        found = self.indexes.get(valid)
        if found is None:
            if len(self.indexes) >= MAX_INDEXES:
                self.indexes.clear()
                self._tuples.clear()
            found = self.indexes[valid] = ActionIndex(valid)
        if is_tuple:
            if len(self._tuples) >= MAX_INDEXES:
                self._tuples.clear()
            self._tuples[id(valid_actions)] = (valid_actions, found)
        elif type(valid_actions) is list:
            self._last = (valid_actions, list(valid_actions), found)
        return found


def template_verbs(templates: Sequence[str]) -> frozenset[str]:
    """The lower-cased verbs of bracketed templates (``search[<query>]`` -> ``search``)."""
    return frozenset(m.group(1).lower() for m in map(_BRACKET.match, templates) if m)
