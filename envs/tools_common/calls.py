"""Parsing an agent's action into one tool call (lenient; never raises).

Accepted forms (surrounding prose and Markdown code fences are ignored):

* **JSON tool call**: ``{"name": "search_flights_for_skyroutes", "arguments": {...}}``;
  ``arguments`` may also be a JSON string (OpenAI's ``function_call`` form).
  ``{"function_call": {...}}``, ``{"type": "function", "function": {...}}``,
  ``{"tool_calls": [one call]}`` and a one-element list are unwrapped.
* **ToolBench's ReAct text**::

      Thought: I should search first.
      Action: search_flights_for_skyroutes
      Action Input: {"origin": "CDG", "destination": "LHR", "date": "2026-03-03"}

  ``Action Input`` runs to the end (or to an ``Observation:`` line); when it
  is not valid JSON it is passed on as text, and the service answers with
  ToolBench's "Tool input parse error..." as upstream does.

:func:`parse_action` returns a :class:`ParsedCall` or an error message saying
which form to use.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from treegym.envs.core import jsonsafe

MAX_ACTION_CHARS = 20_000

FORMAT_HELP = ('give one tool call as JSON {"name": "<function name>", "arguments": {...}} or in ToolBench\'s '
               'ReAct form "Thought: ...\\nAction: <function name>\\nAction Input: {...}"')

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_ACTION = re.compile(r"^\s*Action\s*:\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_INPUT = re.compile(r"^\s*Action\s*Input\s*:\s*", re.IGNORECASE | re.MULTILINE)
_OBS = re.compile(r"^\s*Observation\s*:", re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class ParsedCall:
    """One call: the function name and its arguments (a dict, or the raw text when it was not JSON)."""

    name: str
    arguments: Any
    form: str  # "json" or "react"

    def canonical(self) -> str:
        """One JSON line with sorted keys: the canonical action text."""
        return json.dumps({"name": self.name, "arguments": self.arguments}, sort_keys=True, ensure_ascii=False)


def _clean_name(name: Any) -> str:
    return str(name).strip().strip("`'\"").strip()


def _unwrap(obj: Any) -> Any:
    for _ in range(4):
        if isinstance(obj, list):
            if len(obj) != 1:
                return f"{len(obj)} calls in one action; make one tool call per step"
            obj = obj[0]
        elif isinstance(obj, dict) and "tool_calls" in obj and isinstance(obj["tool_calls"], list):
            obj = obj["tool_calls"]
        elif isinstance(obj, dict) and isinstance(obj.get("function_call"), dict):
            obj = obj["function_call"]
        elif isinstance(obj, dict) and isinstance(obj.get("function"), dict):
            obj = obj["function"]
        else:
            break
    return obj


def _from_json(obj: Any) -> ParsedCall | str:
    obj = _unwrap(obj)
    if isinstance(obj, str):
        return obj
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"].strip():
        return 'a JSON action needs a "name" (the function to call)'
    args = obj.get("arguments", obj.get("parameters", {}))
    if args is None or args == "":
        args = {}
    if isinstance(args, str):
        try:
            parsed = jsonsafe.loads(args, strict=False)
            args = parsed if isinstance(parsed, dict) else args
        except ValueError:
            pass
    return ParsedCall(_clean_name(obj["name"]), args, "json")


def _json_object(text: str) -> Any:
    """The first JSON value of ``text`` (a dict or list), or None."""
    for start, ch in enumerate(text):
        if ch in "{[":
            try:
                value, _ = jsonsafe.raw_decode(text[start:], strict=False)
                return value
            except ValueError:
                return None
    return None


def parse_action(action: Any) -> ParsedCall | str:
    """A :class:`ParsedCall`, or a message saying what was wrong (see module docstring)."""
    if isinstance(action, (dict, list)):
        if jsonsafe.too_deep(action):
            return f"the action nests more than {jsonsafe.MAX_DEPTH} levels deep; {FORMAT_HELP}"
        return _from_json(action)
    text = str(action)
    if len(text) > MAX_ACTION_CHARS:
        return f"the action is {len(text)} characters long (at most {MAX_ACTION_CHARS}); {FORMAT_HELP}"
    stripped = _FENCE.sub("", text.strip()).strip()
    if not stripped:
        return f"the action is empty; {FORMAT_HELP}"
    m = _ACTION.search(text)
    if m and _clean_name(m.group(1)):
        name = _clean_name(m.group(1))
        rest = text[m.end():]
        im = _INPUT.search(rest)
        raw = ""
        if im:
            raw = rest[im.end():]
            om = _OBS.search(raw)
            if om:
                raw = raw[: om.start()]
            raw = _FENCE.sub("", raw.strip()).strip()
        if raw == "":
            return ParsedCall(name, {}, "react")
        try:
            args = jsonsafe.loads(raw, strict=False)
        except ValueError:
            value = _json_object(raw)
            args = value if isinstance(value, dict) else raw
        return ParsedCall(name, args, "react")
    if stripped[0] in "{[":
        value = _json_object(stripped)
        if value is None:
            return f"the action looks like JSON but does not parse; {FORMAT_HELP}"
        return _from_json(value)
    value = _json_object(stripped)
    if isinstance(value, (dict, list)):
        parsed = _from_json(value)
        if isinstance(parsed, ParsedCall):
            return parsed
    return f"no tool call found in the action; {FORMAT_HELP}"
