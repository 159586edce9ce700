"""The PDDL side of a ``game.tw-pddl`` file: s-expressions, the problem, the goal formula.

Names are lowercased, as the official engine (fast-downward's translator) does,
so ids compare and sort exactly as they do there.

* :func:`parse_problem` reads the problem text into a :class:`Problem`:
  ``objects`` (name -> PDDL type), ``init`` (fact tuples ``(pred, arg, ...)``)
  and ``goal`` (a formula tree, see :func:`compile_formula`).
* :func:`holds` evaluates a goal formula (``and``/``or``/``not``/``exists``/
  ``=``/atoms) against a fact index, joining atoms on the facts instead of
  enumerating every object (a pick-two goal has three nested quantifiers).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

Fact = tuple  # (predicate, arg1, arg2, ...), all lowercase strings

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


class PddlError(ValueError):
    """The PDDL text is not something this interpreter understands."""


def parse_sexpr(text: str) -> list:
    """Parse PDDL text (``;`` comments allowed) into nested lists of lowercase atoms."""
    text = "\n".join(line.split(";", 1)[0] for line in text.splitlines())
    stack: list[list] = [[]]
    for token in _TOKEN.findall(text):
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise PddlError("unbalanced ')' in PDDL text")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token.lower())
    if len(stack) != 1:
        raise PddlError("unbalanced '(' in PDDL text")
    if len(stack[0]) != 1:
        raise PddlError("expected one top-level (define ...) form")
    return stack[0][0]


def _typed_list(items: list) -> list[tuple[str, str]]:
    """``a b - t c - u`` -> [(a, t), (b, t), (c, u)] (untyped names get ``object``)."""
    out: list[tuple[str, str]] = []
    pending: list[str] = []
    i = 0
    while i < len(items):
        item = items[i]
        if item == "-":
            if i + 1 >= len(items):
                raise PddlError("a '-' without a type in a typed list")
            out.extend((name, items[i + 1]) for name in pending)
            pending = []
            i += 2
            continue
        if not isinstance(item, str):
            raise PddlError(f"unexpected {item!r} in a typed list")
        # fast-downward accepts "?a - t, ?b - t" (the comma sticks to a name)
        pending.append(item.rstrip(","))
        i += 1
    out.extend((name, "object") for name in pending)
    return out


def compile_formula(expr: Any) -> tuple:
    """A goal/precondition s-expression as a tree of tuples.

    ``("and", f...)``, ``("or", f...)``, ``("not", f)``, ``("exists", ((var, type), ...), f)``,
    ``("=", x, y)`` and ``("atom", pred, (arg, ...))``; variables keep their ``?``.
    """
    if not isinstance(expr, list) or not expr:
        raise PddlError(f"not a formula: {expr!r}")
    head = expr[0]
    if head in ("and", "or"):
        return (head, *(compile_formula(e) for e in expr[1:]))
    if head == "not":
        if len(expr) != 2:
            raise PddlError(f"'not' takes one formula: {expr!r}")
        return ("not", compile_formula(expr[1]))
    if head in ("exists", "forall"):
        if head == "forall":
            raise PddlError("'forall' goals are not supported")
        if len(expr) != 3 or not isinstance(expr[1], list):
            raise PddlError(f"malformed exists: {expr!r}")
        return ("exists", tuple(_typed_list(expr[1])), compile_formula(expr[2]))
    if head == "=":
        return ("=", expr[1], expr[2])
    if not all(isinstance(a, str) for a in expr):
        raise PddlError(f"malformed atom: {expr!r}")
    return ("atom", head, tuple(expr[1:]))


@dataclass(frozen=True)
class Problem:
    name: str
    objects: Mapping[str, str]
    init: tuple[Fact, ...]
    goal: tuple


def parse_problem(text: str) -> Problem:
    """Parse a PDDL problem (``(define (problem ...) (:objects ...) (:init ...) (:goal ...))``)."""
    tree = parse_sexpr(text)
    if not tree or tree[0] != "define":
        raise PddlError("the problem does not start with (define ...)")
    name, objects, init, goal = "", {}, [], None
    for part in tree[1:]:
        if not isinstance(part, list) or not part:
            continue
        key = part[0]
        if key == "problem":
            name = part[1] if len(part) > 1 else ""
        elif key == ":objects":
            for obj, typ in _typed_list(part[1:]):
                objects[obj] = typ
        elif key == ":init":
            for fact in part[1:]:
                if not isinstance(fact, list) or not fact or not all(isinstance(a, str) for a in fact):
                    raise PddlError(f"unsupported :init entry {fact!r} (only plain facts)")
                init.append(tuple(fact))
        elif key == ":goal":
            if len(part) != 2:
                raise PddlError("(:goal ...) must hold one formula")
            goal = compile_formula(part[1])
    if goal is None:
        raise PddlError("the problem has no (:goal ...)")
    return Problem(name=name, objects=dict(objects), init=tuple(init), goal=goal)


def index_facts(facts: Iterable[Fact]) -> dict[str, set[tuple]]:
    """pred -> set of argument tuples (the join in :func:`holds` scans these)."""
    index: dict[str, set[tuple]] = {}
    for fact in facts:
        index.setdefault(fact[0], set()).add(fact[1:])
    return index


def _flatten(conjuncts: list, variables: list) -> tuple[list, list]:
    """Inline nested ``and``s and ``exists`` (with fresh variable names) into one conjunction."""
    out: list = []
    names = {v for v, _t in variables}
    work = list(conjuncts)
    while work:
        f = work.pop(0)
        if f[0] == "and":
            work[:0] = list(f[1:])
        elif f[0] == "exists" and not names.intersection(v for v, _t in f[1]):
            variables = variables + list(f[1])
            names.update(v for v, _t in f[1])
            work.insert(0, f[2])
        else:
            out.append(f)
    return out, variables


def _subst(arg: str, binding: Mapping[str, str]) -> str | None:
    if arg.startswith("?"):
        return binding.get(arg)
    return arg


def unify(args: tuple, values: tuple, binding: dict) -> list | None:
    """Bind ``args`` to ``values`` in place; the variables added, or None (binding unchanged) on a clash."""
    if len(args) != len(values):
        return None
    added = []
    for a, v in zip(args, values):
        if a.startswith("?"):
            cur = binding.get(a)
            if cur is None:
                binding[a] = v
                added.append(a)
                continue
            a = cur
        if a != v:
            for x in added:
                del binding[x]
            return None
    return added


def _solve(conjuncts: list, binding: dict, index: Mapping[str, list], objects_by_type: Mapping[str, list],
           free: list) -> bool:
    """True when some extension of ``binding`` satisfies every conjunct (backtracking join)."""
    if not conjuncts:
        # any quantified variable never constrained by an atom ranges over its type
        unbound = [(v, t) for v, t in free if v not in binding]
        if not unbound:
            return True
        var, typ = unbound[0]
        for value in objects_by_type.get(typ, ()):
            binding[var] = value
            if _solve([], binding, index, objects_by_type, free):
                del binding[var]
                return True
        binding.pop(var, None)
        return False
    # pick the first positive atom to join on; other formulas wait until their variables are bound
    for i, f in enumerate(conjuncts):
        if f[0] == "atom":
            rest = conjuncts[:i] + conjuncts[i + 1:]
            _, pred, args = f
            for values in index.get(pred, ()):
                added = unify(args, values, binding)
                if added is None:
                    continue
                found = _solve(rest, binding, index, objects_by_type, free)
                for a in added:
                    del binding[a]
                if found:
                    return True
            return False
    # no atoms left: bind the remaining free variables, then test the rest
    unbound = [(v, t) for v, t in free if v not in binding]
    if unbound:
        var, typ = unbound[0]
        for value in objects_by_type.get(typ, ()):
            binding[var] = value
            if _solve(conjuncts, binding, index, objects_by_type, free):
                del binding[var]
                return True
        binding.pop(var, None)
        return False
    return all(holds(f, binding, index, objects_by_type) for f in conjuncts)


def holds(formula: tuple, binding: dict, index: Mapping[str, list], objects_by_type: Mapping[str, list]) -> bool:
    """Evaluate ``formula`` under ``binding`` against ``index`` (closed world: absent facts are false)."""
    op = formula[0]
    if op == "atom":
        args = tuple(_subst(a, binding) for a in formula[2])
        return args in index.get(formula[1], ())
    if op == "=":
        return _subst(formula[1], binding) == _subst(formula[2], binding)
    if op == "not":
        return not holds(formula[1], binding, index, objects_by_type)
    if op == "or":
        return any(holds(f, binding, index, objects_by_type) for f in formula[1:])
    if op == "and":
        conjuncts, free = _flatten(list(formula[1:]), [])
        return _solve(conjuncts, dict(binding), index, objects_by_type, free)
    if op == "exists":
        _, variables, body = formula
        inner = dict(binding)
        for v, _t in variables:
            inner.pop(v, None)
        conjuncts, free = _flatten([body], list(variables))
        return _solve(conjuncts, inner, index, objects_by_type, free)
    raise PddlError(f"unknown formula {op!r}")


def formula_constants(formula: tuple) -> set[str]:
    """Every constant (non-variable argument) in a formula, e.g. ``appletype``."""
    op = formula[0]
    if op == "atom":
        return {a for a in formula[2] if not a.startswith("?")}
    if op == "=":
        return {a for a in formula[1:] if not a.startswith("?")}
    if op == "exists":
        return formula_constants(formula[2])
    if op == "not":
        return formula_constants(formula[1])
    return set().union(*(formula_constants(f) for f in formula[1:])) if len(formula) > 1 else set()


def formula_predicates(formula: tuple) -> set[str]:
    op = formula[0]
    if op == "atom":
        return {formula[1]}
    if op == "=":
        return set()
    if op == "exists":
        return formula_predicates(formula[2])
    if op == "not":
        return formula_predicates(formula[1])
    return set().union(*(formula_predicates(f) for f in formula[1:])) if len(formula) > 1 else set()
