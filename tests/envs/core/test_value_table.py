"""ValueTable: one object per value, bounded."""
import pytest

from treegym.envs.core.value_table import ValueTable


def test_equal_values_get_the_first_object_kept():
    table = ValueTable()
    first = tuple(["a", "b"])
    again = tuple(["a", "b"])
    assert again is not first
    assert table.one(first) is first and table.one(again) is first
    assert table.one(("c",)) == ("c",) and len(table) == 2


def test_a_full_table_is_cleared_and_shares_again():
    table = ValueTable(limit=2)
    a, b = table.one(("a",)), table.one(("b",))
    c = table.one(("c",))  # full: cleared, then keeps ("c",)
    assert len(table) == 1 and table.one(("c",)) is c
    fresh = tuple(["a"])
    assert table.one(fresh) is fresh and fresh is not a and b == ("b",)


def test_a_table_needs_room_for_one_value():
    with pytest.raises(ValueError, match="limit >= 1"):
        ValueTable(limit=0)
