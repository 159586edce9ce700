"""Loading a saved Z-machine state into Jericho's interpreter, at the cost of the copy itself.

A TextWorld state holds ``FrotzEnv.get_state()``: the machine's dynamic memory and stack (two
``uint8`` arrays), its registers, random-number generator and last narrative text. Jericho's own
``FrotzEnv.set_state`` passes the two arrays to its C library through ``numpy.ctypeslib.as_ctypes``,
which builds a ctypes array type and object for each: two thirds of the load's time, and more
when the load follows other work (a restore's first step), 40-70 us of a 0.6-3 ms step.
:class:`MachineLoader` makes the same C calls with the arrays' addresses (the library's
``setRAM``/``setStack`` take a ``void *``) and checks the arrays' sizes against the game's first,
so a state of another game, or a hand-made one, is refused instead of read past its end.
``tests/envs/textworld/test_textworld_first_step.py`` checks a load equal to Jericho's.
"""
from __future__ import annotations

from typing import Any

import numpy as np


class MachineLoader:
    """Loads ``FrotzEnv.get_state()`` tuples into one ``FrotzEnv`` (see the module docstring)."""

    def __init__(self, frotz: Any):
        self.frotz = frotz
        self._lib = frotz.frotz_lib
        self._sizes = (self._lib.getRAMSize(), self._lib.getStackSize())

    def load(self, state: tuple) -> None:
        """Make ``state`` (a ``get_state()`` tuple of this game) the machine's state; ValueError, changing
        nothing, when its memory or stack is not this game's size."""
        ram, stack, pc, sp, fp, frame_count, opcode, rng, narrative = state
        ram_at, stack_at = self._address("memory", ram, self._sizes[0]), self._address("stack", stack, self._sizes[1])
        lib = self._lib
        lib.setRng(*rng)
        lib.setRAM(ram_at)
        lib.setStack(stack_at)
        lib.setPC(pc)
        lib.setSP(sp)
        lib.setFP(fp)
        lib.set_opcode(opcode)
        lib.setFrameCount(frame_count)
        lib.set_narrative_text(narrative)

    @staticmethod
    def _address(name: str, array: Any, size: int) -> int:
        """The address of ``array``'s bytes, when it is ``size`` contiguous bytes (the C side copies ``size``)."""
        face = array.__array_interface__ if type(array) is np.ndarray else None
        if face is None or face["typestr"] != "|u1" or face["shape"] != (size,) or face["strides"] is not None:
            got = f"{face['typestr']} {face['shape']}" if face else type(array).__name__
            raise ValueError(f"this TextWorld state's Z-machine {name} is not {size} contiguous bytes (got {got}): "
                             "it is not a state of this game")
        return face["data"][0]
