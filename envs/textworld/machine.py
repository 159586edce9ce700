"""Saving and loading Jericho's Z-machine state, at the cost of the copies themselves.

A TextWorld state holds the machine's state as Jericho's ``FrotzEnv.get_state`` lays it out: its
dynamic memory and stack, its registers (pc, sp, fp, frame count, opcode), its random-number
generator and its last narrative text. Jericho's own ``get_state``/``set_state`` hand the memory and
stack to its C library as numpy arrays through ``numpy.ctypeslib.as_ctypes``, which builds a ctypes
array type and object for each: two thirds of a load, and 40-60 us when the load follows other
work (a restore's first step; a load in a tight loop costs 8 us). :class:`Machine` makes the same C
calls with ``bytes`` (immutable, as a snapshot's parts must be; ctypes passes their buffer as the
library's ``void *``): a save copies into two buffers it keeps and takes their bytes, a load checks
the sizes against the game's (a state of another game, or a hand-made one, is refused instead of
read past its end) and passes them as they are.
``tests/envs/textworld/test_textworld_first_step.py`` checks both against Jericho's own.
"""
from __future__ import annotations

import ctypes
from typing import Any


class Machine:
    """Saves and loads the state of one ``FrotzEnv`` (see the module docstring)."""

    def __init__(self, frotz: Any):
        self._lib = lib = frotz.frotz_lib
        self._ram = ctypes.create_string_buffer(lib.getRAMSize())
        self._stack = ctypes.create_string_buffer(lib.getStackSize())

    def save(self) -> tuple:
        """The machine's state: ``(memory, stack, pc, sp, fp, frame_count, opcode, rng, narrative)``,
        the layout of ``FrotzEnv.get_state()`` with ``bytes`` for its memory and stack."""
        lib = self._lib
        lib.getRAM(self._ram)
        lib.getStack(self._stack)
        rng = (lib.getRngA(), lib.getRngInterval(), lib.getRngCounter())
        return (self._ram.raw, self._stack.raw, lib.getPC(), lib.getSP(), lib.getFP(), lib.getFrameCount(),
                lib.get_opcode(), rng, lib.get_narrative_text())

    def load(self, state: tuple) -> None:
        """Make ``state`` (a :meth:`save` of this game) the machine's state; ValueError, changing nothing,
        when its memory or stack is not this game's size."""
        ram, stack, pc, sp, fp, frame_count, opcode, rng, narrative = state
        for name, data, buffer in (("memory", ram, self._ram), ("stack", stack, self._stack)):
            if type(data) is not bytes or len(data) != len(buffer):
                got = f"{len(data)} bytes" if isinstance(data, bytes) else type(data).__name__
                raise ValueError(f"this TextWorld state's Z-machine {name} is not {len(buffer)} bytes (got {got}): "
                                 "it is not a state of this game")
        lib = self._lib
        lib.setRng(*rng)
        lib.setRAM(ram)
        lib.setStack(stack)
        lib.setPC(pc)
        lib.setSP(sp)
        lib.setFP(fp)
        lib.set_opcode(opcode)
        lib.setFrameCount(frame_count)
        lib.set_narrative_text(narrative)
