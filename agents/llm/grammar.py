"""GBNF grammars (llama.cpp syntax) that hold a completion to a finite set of strings.

Backends that support grammars (llama.cpp's server, vLLM) receive one for a
request with ``choices``; see ``openai_client.py``.
"""
from __future__ import annotations

from bisect import bisect_left
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


def decisive_prefixes(choices: Sequence[str]) -> dict[str, str]:
    """Each choice's shortest *decisive* prefix, mapped to the choice: ``{prefix: choice}``.

    A prefix is decisive when it ends where the choice has a space (or at its end) and no other
    choice starts with it: once a model has written it, the rest of the choice is forced. Sampling
    from a grammar over these prefixes therefore picks among the choices as a grammar over the
    whole choices does (up to how tokens fall at the cut), while the model writes a few tokens
    instead of the whole line; the caller expands the answer back with this map. A choice that
    starts another choice keeps its full text. Duplicates are dropped (first order kept).
    """
    unique = list(dict.fromkeys(str(c) for c in choices))
    ordered = sorted(unique)
    out: dict[str, str] = {}
    for choice in unique:
        for cut in [i for i, ch in enumerate(choice) if ch == " " and i > 0] + [len(choice)]:
            prefix = choice[:cut]
            # the choices starting with ``prefix`` are one run of the sorted list: is ``choice`` alone in it?
            starting = bisect_left(ordered, prefix + "\U0010ffff") - bisect_left(ordered, prefix)
            if starting == 1 or cut == len(choice):
                out[prefix] = choice
                break
    return out
