"""Reading a family's state JSON strictly: every field checked, one ``ValueError`` naming it.

``Engine.state_from_json`` takes client data (a session server's ``restore``, a remote snapshot):
a value of the wrong type that is accepted would break a later step, observation or render instead
(``unhashable type: 'list'`` in a step, a lone surrogate in a page). So a state reader takes each
field as exactly the JSON type the engine writes, never coerces (``str([])`` is not a string field),
refuses strings holding a lone surrogate (they cannot be written out as UTF-8), bounds integers, and
names the field in its message::

    r = StateReader(data, "ToolTasks state")
    done = r.flag("done")
    calls = [r.items_of(c, f"calls[{i}]") for i, c in enumerate(r.items("calls"))]
"""
from __future__ import annotations

import math
from typing import Any

_MISSING: Any = object()
#: the largest magnitude an integer field may hold (a step count, an index, a status code)
INT_LIMIT = 2 ** 53


def shown(value: Any) -> str:
    """A short, one-line rendering of ``value`` for a message."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10 ** 30 else f"an int of {len(str(abs(value)))}+ digits"
    return text if len(text) <= 60 else text[:57] + "..."


class StateReader:
    """Strict readers of one state JSON object (see the module docstring); ``what`` names the state
    in messages (``"ALFWorld state"``), every reader takes a field name or a path (``calls[2].code``)."""

    def __init__(self, data: Any, what: str):
        if not isinstance(data, dict):
            raise ValueError(f"a {what} is a JSON object, got {type(data).__name__}")
        self.data = data
        self.what = what

    def fail(self, name: str, wanted: str, value: Any) -> ValueError:
        return ValueError(f"{self.what} field {name!r} must be {wanted}, got {shown(value)}")

    def get(self, name: str, default: Any = _MISSING) -> Any:
        """The raw value of top-level field ``name`` (``default`` when it is missing, else refused)."""
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            raise ValueError(f"{self.what} has no field {name!r}")
        return default

    # ------------------------------------------------------------------ top-level fields
    def task_id(self, name: str = "task_id") -> str | int:
        """A task id: a string or an integer (the engine's ``task`` then says whether it is one of its)."""
        value = self.get(name)
        if isinstance(value, str):
            return self.text_of(value, name)
        return self.integer_of(value, name)

    def text(self, name: str, default: Any = _MISSING) -> str:
        return self.text_of(self.get(name, default), name)

    def flag(self, name: str, default: Any = _MISSING) -> bool:
        return self.flag_of(self.get(name, default), name)

    def integer(self, name: str, default: Any = _MISSING, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int:
        return self.integer_of(self.get(name, default), name, lo, hi)

    def items(self, name: str, default: Any = _MISSING) -> list:
        return self.items_of(self.get(name, default), name)

    def optional(self, name: str, read: Any) -> Any:
        """None when field ``name`` is missing or null, else ``read(value, name)``."""
        value = self.data.get(name)
        return None if value is None else read(value, name)

    # ------------------------------------------------------------------ values at a path
    def text_of(self, value: Any, name: str) -> str:
        if not isinstance(value, str):
            raise self.fail(name, "a string", value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{self.what} field {name!r} holds a lone surrogate (not writable as UTF-8)") from None
        return value

    def flag_of(self, value: Any, name: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(name, "true or false", value)
        return value

    def integer_of(self, value: Any, name: str, lo: int = -INT_LIMIT, hi: int = INT_LIMIT) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise self.fail(name, f"an integer in {lo}..{hi}", value)
        return value

    def number_of(self, value: Any, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, int) and abs(value) > INT_LIMIT) or not math.isfinite(value):
            raise self.fail(name, "a finite number", value)
        return float(value)

    def items_of(self, value: Any, name: str) -> list:
        if not isinstance(value, list):
            raise self.fail(name, "a list", value)
        return value

    def object_of(self, value: Any, name: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(name, "an object", value)
        return value

    def texts_of(self, value: Any, name: str) -> list[str]:
        """A list of strings."""
        return [self.text_of(x, f"{name}[{i}]") for i, x in enumerate(self.items_of(value, name))]

    def plain_of(self, value: Any, name: str) -> Any:
        """Any JSON value (a free-form field: an evaluation, a finish payload), its strings checked."""
        if isinstance(value, str):
            return self.text_of(value, name)
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, float)):
            return self.number_of(value, name) if isinstance(value, float) else self.integer_of(value, name)
        if isinstance(value, list):
            return [self.plain_of(x, f"{name}[{i}]") for i, x in enumerate(value)]
        if isinstance(value, dict):
            return {self.text_of(k, f"{name} key"): self.plain_of(v, f"{name}.{k}") for k, v in value.items()}
        raise self.fail(name, "a JSON value", value)
