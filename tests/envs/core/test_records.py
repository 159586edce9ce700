"""``records.replaced`` is ``dataclasses.replace``: every field, fields without ``init``, one or no
fields, keyword-only fields, unknown names."""
from __future__ import annotations

import dataclasses

import pytest

from treegym.envs.core.records import replaced


@dataclasses.dataclass(frozen=True)
class State:
    a: int
    b: tuple = ()
    c: str = "x"
    derived: int = dataclasses.field(default=0, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "derived", self.a * 2)


@dataclasses.dataclass(frozen=True)
class One:
    only: tuple


@dataclasses.dataclass(frozen=True)
class Empty:
    pass


@dataclasses.dataclass(frozen=True)
class Keywords:
    a: int
    b: int = dataclasses.field(default=1, kw_only=True)


@pytest.mark.parametrize("record, changes", [
    (State(1, (2,), "y"), {}), (State(1), {"a": 5}), (State(1), {"b": (1, 2), "c": "z"}),
    (One((1, 2)), {}), (One((1, 2)), {"only": (3,)}), (Empty(), {}), (Keywords(1, b=2), {"b": 3}),
])
def test_replaced_is_dataclasses_replace(record, changes):
    got, want = replaced(record, **changes), dataclasses.replace(record, **changes)
    assert type(got) is type(want) and got == want and dataclasses.astuple(got) == dataclasses.astuple(want)


def test_an_unknown_or_non_init_field_is_refused():
    with pytest.raises(TypeError, match="no field 'colour'"):
        replaced(State(1), colour="red")
    with pytest.raises(TypeError, match="no field 'derived'"):
        replaced(State(1), derived=3)
