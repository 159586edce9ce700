"""A game's goal compiled once into a checker over the fluent facts (the won test of every step).

The problem's ``:goal`` is a first-order formula (``exists``/``and``/``or``/``not``/``=``/atoms)
over static facts (types, affordances, receptacle locations: fixed for the game) and
fluent facts (:data:`~.game.FLUENT_PREDICATES`: what actions change). :class:`GoalChecker`
grounds it against the game's static facts once, into a disjunction of ground
conjunctions ``(pos, neg)``: the goal holds in a state iff for some disjunct every fact of
``pos`` is in the state and none of ``neg`` is. An ALFWorld goal grounds to a few to a few
hundred disjuncts (one per goal object x target receptacle, or lamp x receptacle x object).

* :meth:`GoalChecker.holds` evaluates the disjunction on a fact set: only the disjuncts
  whose *watch* fact (their first positive fact) is in the state are tested.
* :meth:`GoalChecker.after` is the incremental test of a step: when the step changed no
  fact the goal mentions (:attr:`GoalChecker.relevant`), the answer is the one before.

Goals that ground to more than :data:`MAX_DISJUNCTS` disjuncts, or use a construct the
grounder does not handle (a ``not`` over a quantified formula), fall back to
:func:`~.pddl.holds` (the generic evaluator) in both methods: same answers, slower.
"""
from __future__ import annotations

import weakref
from typing import Iterable

from .game import FLUENT_PREDICATES, Game
from .pddl import _flatten, holds, index_facts, unify

MAX_DISJUNCTS = 20_000

Fact = tuple
Disjunct = tuple  # (frozenset pos, frozenset neg)


class _Unsupported(Exception):
    """The grounder cannot compile this goal (the checker falls back to :func:`holds`)."""


def _is_fluent(pred: str) -> bool:
    return pred in FLUENT_PREDICATES or pred.startswith("not_")


class _Grounder:
    """Grounds a goal formula against one game's static facts (see the module docstring)."""

    def __init__(self, game: Game):
        self.static = game.static_index
        self.by_type = game.objects_by_type

    def formula(self, f: tuple, binding: dict) -> list[Disjunct]:
        """The DNF of ``f`` under ``binding`` (a list of (pos, neg); [] = false; [(∅, ∅)] = true)."""
        op = f[0]
        if op in ("and", "exists"):
            if op == "and":
                conjuncts, free = _flatten(list(f[1:]), [])
                inner = dict(binding)
            else:
                inner = {k: v for k, v in binding.items() if k not in {var for var, _t in f[1]}}
                conjuncts, free = _flatten([f[2]], list(f[1]))
            out: list[Disjunct] = []
            self._conj(conjuncts, inner, free, frozenset(), frozenset(), out)
            return out
        if op == "or":
            out = []
            for g in f[1:]:
                out.extend(self.formula(g, binding))
            return out
        if op == "=":
            a, b = (binding.get(x, x) if x.startswith("?") else x for x in f[1:])
            if a.startswith("?") or b.startswith("?"):
                raise _Unsupported("'=' over an unbound variable")
            return [(frozenset(), frozenset())] if a == b else []
        if op == "atom":
            fact = self._ground_atom(f, binding)
            if fact is None:
                raise _Unsupported("an atom with an unbound variable outside a conjunction")
            if _is_fluent(fact[0]):
                return [(frozenset((fact,)), frozenset())]
            return [(frozenset(), frozenset())] if fact[1:] in self.static.get(fact[0], ()) else []
        if op == "not":
            g = f[1]
            if g[0] == "atom":
                fact = self._ground_atom(g, binding)
                if fact is None:
                    raise _Unsupported("a negated atom with an unbound variable")
                if _is_fluent(fact[0]):
                    return [(frozenset(), frozenset((fact,)))]
                return [] if fact[1:] in self.static.get(fact[0], ()) else [(frozenset(), frozenset())]
            if g[0] == "=":
                return [] if self.formula(g, binding) else [(frozenset(), frozenset())]
            raise _Unsupported(f"'not' over {g[0]!r}")
        raise _Unsupported(f"unknown formula {op!r}")

    @staticmethod
    def _ground_atom(f: tuple, binding: dict) -> Fact | None:
        args = []
        for a in f[2]:
            if a.startswith("?"):
                a = binding.get(a)
                if a is None:
                    return None
            args.append(a)
        return (f[1], *args)

    def _conj(self, conjuncts: list, binding: dict, free: list, pos: frozenset, neg: frozenset,
              out: list) -> None:
        """Append to ``out`` the ground disjuncts of ``conjuncts`` (a conjunction) under ``binding``."""
        if len(out) > MAX_DISJUNCTS:
            raise _Unsupported(f"more than {MAX_DISJUNCTS} ground disjuncts")
        # 1. anything already ground: evaluate it (static, =) or collect it (fluent)
        rest: list = []
        for f in conjuncts:
            if f[0] == "atom":
                fact = self._ground_atom(f, binding)
                if fact is None:
                    rest.append(f)
                elif _is_fluent(fact[0]):
                    pos = pos | {fact}
                elif fact[1:] not in self.static.get(fact[0], ()):
                    return
            elif f[0] == "not" and f[1][0] in ("atom", "=") and all(
                    not a.startswith("?") or a in binding for a in _args(f[1])):
                ground = self.formula(f, binding)
                if not ground:
                    return
                neg = neg | ground[0][1]
            elif f[0] == "=" and all(not a.startswith("?") or a in binding for a in f[1:]):
                if not self.formula(f, binding):
                    return
            else:
                rest.append(f)
        if pos & neg:
            return
        if not rest:
            unbound = [(v, t) for v, t in free if v not in binding]
            if all(self.by_type.get(t) for _v, t in unbound):
                out.append((pos, neg))
            return
        # 2. join on a static atom with unbound variables (binds them from the game's facts)
        for i, f in enumerate(rest):
            if f[0] == "atom" and not _is_fluent(f[1]):
                others = rest[:i] + rest[i + 1:]
                for values in self.static.get(f[1], ()):
                    added = unify(f[2], values, binding)
                    if added is not None:
                        self._conj(others, binding, free, pos, neg, out)
                        for a in added:
                            del binding[a]
                return
        # 3. nested or/exists whose variables are bound: ground them and distribute
        for i, f in enumerate(rest):
            if f[0] in ("or", "exists", "and") and all(
                    not a.startswith("?") or a in binding for a in _free_vars(f)):
                others = rest[:i] + rest[i + 1:]
                for p, n in self.formula(f, binding):
                    self._conj(others, binding, free, pos | p, neg | n, out)
                return
        # 4. enumerate the first unbound variable over its type
        wanted = {a for f in rest for a in _free_vars(f)}
        for v, t in free:
            if v not in binding and v in wanted:
                for value in self.by_type.get(t, ()):
                    binding[v] = value
                    self._conj(rest, binding, free, pos, neg, out)
                del binding[v]
                return
        raise _Unsupported(f"cannot bind the variables of {rest!r}")


def _args(f: tuple) -> tuple:
    return f[2] if f[0] == "atom" else f[1:]


def _free_vars(f: tuple) -> set[str]:
    op = f[0]
    if op == "atom":
        return {a for a in f[2] if a.startswith("?")}
    if op == "=":
        return {a for a in f[1:] if a.startswith("?")}
    if op == "not":
        return _free_vars(f[1])
    if op == "exists":
        return _free_vars(f[2]) - {v for v, _t in f[1]}
    return set().union(*(_free_vars(g) for g in f[1:])) if len(f) > 1 else set()


class GoalChecker:
    """One game's goal as ground disjuncts (see the module docstring). Immutable after construction."""

    __slots__ = ("disjuncts", "relevant", "watch", "unwatched", "fallback", "_generic")

    def __init__(self, game: Game):
        # no reference to the game itself: the checker is the value of a weak-keyed cache
        self._generic = (game.problem.goal, game.static_index, game.objects_by_type)
        try:
            found = _Grounder(game).formula(game.problem.goal, {})
            self.fallback = None
        except _Unsupported as exc:
            found, self.fallback = [], str(exc)
        self.disjuncts: tuple[Disjunct, ...] = tuple(dict.fromkeys(found))
        self.relevant = frozenset(f for p, n in self.disjuncts for f in (*p, *n))
        watch: dict[Fact, list] = {}
        unwatched = []
        for p, n in self.disjuncts:
            if p:
                watch.setdefault(min(p), []).append((p, n))
            else:
                unwatched.append((p, n))
        self.watch = {k: tuple(v) for k, v in watch.items()}
        self.unwatched = tuple(unwatched)

    def holds(self, facts: frozenset) -> bool:
        """Whether the goal holds in ``facts`` (the state's fluent facts)."""
        if self.fallback is not None:
            goal, static_index, by_type = self._generic
            return holds(goal, {}, {**static_index, **index_facts(facts)}, by_type)
        for p, n in self.unwatched:
            if n.isdisjoint(facts):
                return True
        watch = self.watch
        for key in (watch.keys() & facts if len(watch) < len(facts) else [f for f in facts if f in watch]):
            for p, n in watch[key]:
                if p <= facts and n.isdisjoint(facts):
                    return True
        return False

    def after(self, won_before: bool, facts: frozenset, changed: Iterable[Fact]) -> bool:
        """Whether the goal holds in ``facts``, reached from a state where it was ``won_before`` by
        adding or removing ``changed`` (a superset of the facts that differ is fine)."""
        if self.fallback is None and self.relevant.isdisjoint(changed):
            return won_before
        return self.holds(facts)


_CHECKERS: "weakref.WeakKeyDictionary[Game, GoalChecker]" = weakref.WeakKeyDictionary()


def goal_checker(game: Game) -> GoalChecker:
    """The game's checker, compiled on first use and kept while the game lives."""
    checker = _CHECKERS.get(game)
    if checker is None:
        checker = _CHECKERS[game] = GoalChecker(game)
    return checker
