"""GBNF grammars (llama.cpp syntax) that hold a completion to a finite set of strings.

Backends that support grammars (llama.cpp's server, vLLM) receive one for a
request with ``choices``; see ``openai_client.py``.
"""
from __future__ import annotations

from typing import Sequence


def _gbnf_literal(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def choices_grammar(choices: Sequence[str]) -> str:
    """A GBNF grammar (llama.cpp syntax) whose language is exactly ``choices``.

    ``root ::= "A" | "B"``; quotes, backslashes and control characters in a
    choice are escaped; duplicates are dropped (first order kept).
    """
    unique = list(dict.fromkeys(str(c) for c in choices))
    if not unique:
        raise ValueError("choices_grammar needs at least one choice")
    return "root ::= " + " | ".join(_gbnf_literal(c) for c in unique)
