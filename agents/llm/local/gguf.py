"""Reading a GGUF model file's metadata without loading the model (the context length it declares)."""
from __future__ import annotations

import os
import struct
from typing import Any

_GGUF_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def gguf_context_length(path: str | os.PathLike) -> int | None:
    """The training context length a GGUF model file declares (``<arch>.context_length``), or None.

    Reads only the metadata header (GGUF v2/v3, little-endian); None for
    other files or when the key is missing.
    """
    def read(fh: Any, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        data = fh.read(size)
        if len(data) != size:
            raise EOFError
        return struct.unpack(fmt, data)[0]

    def read_str(fh: Any) -> bytes:
        n = read(fh, "<Q")
        if n > size_on_disk:  # a corrupt length: never allocate more than the file holds
            raise ValueError("GGUF string longer than the file")
        data = fh.read(n)
        if len(data) != n:
            raise EOFError
        return data

    def skip(fh: Any, vtype: int) -> None:
        if vtype in _GGUF_SCALARS:
            fh.seek(struct.calcsize(_GGUF_SCALARS[vtype]), 1)
        elif vtype == 8:
            fh.seek(read(fh, "<Q"), 1)
        elif vtype == 9:
            etype, count = read(fh, "<I"), read(fh, "<Q")
            if etype in _GGUF_SCALARS:
                fh.seek(struct.calcsize(_GGUF_SCALARS[etype]) * count, 1)
            else:
                for _ in range(count):
                    skip(fh, etype)
        else:
            raise ValueError(f"unknown GGUF value type {vtype}")

    try:
        size_on_disk = os.path.getsize(path)
        with open(path, "rb") as fh:
            if fh.read(4) != b"GGUF" or read(fh, "<I") < 2:
                return None
            read(fh, "<Q")  # tensor count
            for _ in range(read(fh, "<Q")):
                key = read_str(fh)
                vtype = read(fh, "<I")
                if key.endswith(b".context_length") and vtype in _GGUF_SCALARS and vtype not in (6, 7, 12):
                    value = int(read(fh, _GGUF_SCALARS[vtype]))
                    return value if value > 0 else None
                skip(fh, vtype)
    except (OSError, EOFError, ValueError):
        return None
    return None
