"""Typed options: an algorithm's settings are one frozen dataclass, typed once from its fields.

Each field is declared with :func:`option`, which records where its default comes from
(``source``: "paper (...)", "authors' code (...)" or "ours (reason)"), what it means (``help``), and
what it accepts beyond its type (``choices``, ``minimum``, ``words``). :func:`build_config` turns
``--agent-opt key=value`` strings and Python keyword arguments into that dataclass: the one place
where an option is coerced and checked. A wrong option is a ``ValueError`` naming the option, the
algorithm and what it accepts. ``agents/search/README.md``'s defaults table is tested against the
fields (``tests/agents/search/test_search_defaults.py``).
"""
from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from typing import Any, Sequence, TypeVar, Union

C = TypeVar("C")

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
#: strings that mean "unset" for an option that may be None
_NONE = ("none", "null", "")


def option(default: Any, source: str, help: str = "", *, choices: Sequence[str] = (),
           minimum: float | None = None, words: Sequence[str] = ()) -> Any:
    """A config field: ``default`` and its ``source``; ``choices`` (the accepted strings of a str
    option), ``minimum`` (of a number), ``words`` (strings a non-str option also accepts, e.g.
    ``budget=default``)."""
    meta = {"source": source, "help": help, "choices": tuple(choices), "minimum": minimum, "words": tuple(words)}
    return dataclasses.field(default=default, metadata=meta)


def fields_of(config_cls: type) -> dict[str, dataclasses.Field]:
    """The option fields of a config class, by name, in declaration order."""
    return {f.name: f for f in dataclasses.fields(config_cls)}


def own_fields(config_cls: type) -> list[str]:
    """The fields ``config_cls`` sets itself: new ones, and inherited ones it redeclares with another
    default or source (what its rows of the README's defaults table document)."""
    declared = config_cls.__dict__.get("__annotations__", {})
    base = next((b for b in config_cls.__mro__[1:] if dataclasses.is_dataclass(b)), None)
    inherited = fields_of(base) if base is not None else {}
    out = []
    for name, f in fields_of(config_cls).items():
        if name not in declared:
            continue
        old = inherited.get(name)
        if old is None or old.default != f.default or old.metadata["source"] != f.metadata["source"]:
            out.append(name)
    return out


@functools.lru_cache(maxsize=256)
def _hints(config_cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(config_cls)``, resolved once per class (it evaluates every annotation string
    of the class and its bases: ~0.2 ms, paid per option per built agent before). Read only."""
    return typing.get_type_hints(config_cls)


def _kinds(config_cls: type, name: str) -> tuple[tuple[type, ...], bool]:
    """(the accepted non-None types of field ``name``, whether None is accepted)."""
    hint = _hints(config_cls)[name]
    args = typing.get_args(hint) if typing.get_origin(hint) in (Union, types.UnionType) else (hint,)
    return tuple(a for a in args if a is not type(None)), type(None) in args


def _accepted(kinds: tuple[type, ...], nullable: bool, meta: dict) -> str:
    if meta["choices"]:
        out = " or ".join(repr(c) for c in meta["choices"])
    else:
        names = {int: "a whole number", float: "a number", bool: "true or false", str: "a string"}
        out = " or ".join(names.get(k, "any value") for k in kinds)
        if meta["minimum"] is not None:
            out += f" of at least {meta['minimum']:g}"
    for extra in (*meta["words"], *(("none",) if nullable else ())):
        out += f" or {extra!r}"
    return out


def _number(value: Any, kind: type) -> Any:
    """``value`` as an int or float (``kind``), or None: a whole float is an int, text is parsed,
    NaN and infinities are no number an option takes."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip()) if kind is float else int(value.strip())
        except ValueError:
            return None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if kind is float:
        return float(value)
    return value if isinstance(value, int) else (int(value) if value.is_integer() else None)


def _coerce(value: Any, kinds: tuple[type, ...], nullable: bool, meta: dict) -> Any:
    """``value`` as the field's type, or raise ValueError (the caller words the message)."""
    if isinstance(value, str) and value.strip().lower() in meta["words"]:
        return value.strip().lower()
    if nullable and (value is None or (isinstance(value, str) and value.strip().lower() in _NONE)):
        return None
    if typing.Any in kinds:
        return value
    for kind in kinds:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
                return value.strip().lower() in _TRUE
        elif kind in (int, float):
            number = _number(value, kind)
            if number is not None:
                return number
        elif kind is str:
            if isinstance(value, str):
                return value
            if isinstance(value, (int, float)) and not isinstance(value, bool) and not meta["choices"]:
                return str(value)  # --agent-opt memory_id=7 arrives as the number 7
        elif isinstance(value, kind):
            return value
    raise ValueError


def typed_value(config_cls: type, name: str, value: Any, algorithm: str) -> Any:
    """``value`` typed and checked as field ``name`` of ``config_cls``."""
    f = fields_of(config_cls)[name]
    kinds, nullable = _kinds(config_cls, name)
    meta = f.metadata
    try:
        out = _coerce(value, kinds, nullable, meta)
        if meta["choices"] and out not in meta["choices"] and out is not None:
            raise ValueError
        if meta["minimum"] is not None and isinstance(out, (int, float)) and not isinstance(out, bool) \
                and not out >= meta["minimum"]:
            raise ValueError
    except ValueError:
        raise ValueError(f"{algorithm}: {name} must be {_accepted(kinds, nullable, meta)}, not {value!r} "
                         f"(an option of agent {algorithm!r})") from None
    return out


def build_config(config_cls: type[C], options: dict[str, Any], algorithm: str) -> C:
    """``config_cls`` with ``options`` typed over its defaults; unknown options are a ValueError
    naming them, the algorithm and its options."""
    known = fields_of(config_cls)
    unknown = [k for k in options if k not in known]
    if unknown:
        raise ValueError(f"agent {algorithm!r}: unknown option(s) {', '.join(map(repr, unknown))}; "
                         f"its options are: {', '.join(sorted(known))}")
    return config_cls(**{k: typed_value(config_cls, k, v, algorithm) for k, v in options.items()})


def split_options(options: dict[str, Any], *config_classes: type) -> list[dict[str, Any]]:
    """``options`` split by which config class declares each (the first that does), plus a last dict
    of the options none declares."""
    parts: list[dict[str, Any]] = [{} for _ in range(len(config_classes) + 1)]
    for key, value in options.items():
        i = next((i for i, c in enumerate(config_classes) if key in fields_of(c)), len(config_classes))
        parts[i][key] = value
    return parts
