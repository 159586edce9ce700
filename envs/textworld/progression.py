"""Copy on write for TextWorld's ``GameProgression``, at the point where textworld writes.

A live TextWorld value steps its own ``GameProgression`` in place; a snapshot shares it. The
value's first step after a snapshot or a restore must not change what the snapshot holds, so
it steps a :func:`fork`: a new ``GameProgression`` object (:class:`ForkedProgression`) that
borrows the parts of the one it was forked from (the world ``State``, the valid actions, the
quest progressions) and copies them only when textworld first writes them, in
``GameProgression.update`` (the one method of it textworld's state tracking calls that writes;
it runs when the game reports an action of its rules). An unknown verb copies nothing; an action
that changes no fact (``look``, ``inventory``) copies the quest progressions only, and keeps
the valid actions instead of deriving them again from an unchanged state.

The copy itself is what textworld's ``GameProgression.copy`` gives (the same state facts, valid
actions, quest and event fields, a copy of every event's dependency tree) without the work that
method throws away: it builds a fresh progression from the game's start (every applicable action
of the initial state, every quest's tree pushed action by action) and then overwrites it, which
costs 10-20x the copy (0.15-1 ms on the shipped games, about a third of a step); and each tree is
copied without finding its leaves again (a copy's nodes hold the same elements).
``tests/envs/textworld/test_textworld_first_step.py`` checks the two copies equal, and play through
forks equal to textworld's own env, on every shipped game (textworld is pinned: ``textworld==1.7.0``).
"""
from __future__ import annotations

from typing import Any

from textworld.generator.game import ActionDependencyTree, EventProgression, GameProgression, QuestProgression


def _shallow(cls: type, obj: Any) -> Any:
    new = cls.__new__(cls)
    new.__dict__.update(obj.__dict__)
    return new


def _copy_tree(tree: ActionDependencyTree) -> ActionDependencyTree:
    """``tree.copy()``: new nodes over the same elements, hence the same leaves (textworld's copy builds an
    empty tree first and walks the new nodes twice to find them)."""
    new = _shallow(type(tree), tree)
    new.roots = [root.copy() for root in tree.roots]
    new._leaves_values = list(tree._leaves_values)
    new._leaves_elements = list(tree._leaves_elements)
    return new


def _copy_event(event: EventProgression) -> EventProgression:
    new = _shallow(EventProgression, event)  # event, kb, flags and the policy tuple: immutable or shared
    new._tree = _copy_tree(event._tree)        # the dependency tree: changed in place by update
    return new


def _copy_quest(quest: QuestProgression) -> QuestProgression:
    new = _shallow(QuestProgression, quest)
    new.win_events = [_copy_event(e) for e in quest.win_events]
    new.fail_events = [_copy_event(e) for e in quest.fail_events]
    return new


class ForkedProgression(GameProgression):
    """A ``GameProgression`` borrowing its parts from another until ``update`` writes them
    (see the module docstring); made by :func:`fork`, never by its constructor."""

    _shared_state = False
    _shared_quests = False

    def own(self) -> None:
        """Copy every borrowed part textworld changes in place (nothing when none is borrowed)."""
        self._own_quests()
        self._own_state()

    def _own_state(self) -> None:
        if self._shared_state:
            self.state = self.state.copy()
            self._shared_state = False

    def _own_quests(self) -> None:
        if self._shared_quests:
            self.quest_progressions = [_copy_quest(q) for q in self.quest_progressions]
            self._shared_quests = False

    def update(self, action: Any) -> None:
        self._own_quests()
        if action.added or action.removed:
            self._own_state()
            super().update(action)  # replaces _valid_actions (never changes the borrowed list)
            return
        # An action that adds and removes no fact (look, inventory, examine) leaves the world state
        # as it is, and with it the valid actions: textworld would derive the same list again (a
        # third to a half of such a step). The quests still see the action.
        for quest in self.quest_progressions:
            quest.update(action, self.state)


def fork(progression: GameProgression) -> ForkedProgression:
    """A progression equal to ``progression`` that may be stepped without changing it
    (it copies ``progression``'s parts on its first write; until then it costs one small object)."""
    forked = _shallow(ForkedProgression, progression)
    forked._shared_state = forked._shared_quests = True
    return forked
