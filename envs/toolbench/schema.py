"""ToolBench's tool JSON and its conversion to OpenAI functions (ToolBench's rules, reproduced).

* A **tool file** is ToolBench's own format: ``tool_name``, ``tool_description``,
  ``title``, ``standardized_name``, ``api_list`` (each API: ``name``, ``url``,
  ``description``, ``method``, ``required_parameters`` / ``optional_parameters``
  as ``{name, type, description, default}``, ``template_response``). Our APIs carry
  an extra ``x-mock`` block (handler and table) that upstream code ignores.
* :func:`api_to_openai_function` follows ToolBench's ``api_json_to_openai_json``:
  the name is ``{api}_for_{tool}`` (api standardized, seven reserved words
  prefixed with ``is_``; the last 64 characters), the description gets ToolBench's prefix
  and is cut to 256 characters, NUMBER -> integer, STRING -> string, BOOLEAN ->
  boolean, anything else -> string, a non-empty ``default`` becomes
  ``example_value``, and the non-standard ``optional`` list is kept. As upstream,
  optional parameters are only listed when the API has a required one.
* :data:`FINISH_FUNCTION` is ToolBench's Finish function, appended last.
"""
from __future__ import annotations

import copy
import re
from typing import Any, Mapping

DESCRIPTION_MAX = 256
TYPE_MAP = {"NUMBER": "integer", "STRING": "string", "BOOLEAN": "boolean"}

FINISH_FUNCTION: dict[str, Any] = {
    "name": "Finish",
    "description": (
        "If you believe that you have obtained a result that can answer the task, please call this function to "
        "provide the final answer. Alternatively, if you recognize that you are unable to proceed with the task in "
        "the current state, call this function to restart. Remember: you must ALWAYS call this function at the end "
        "of your attempt, and the only part that will be shown to the user is the final answer, so it should "
        "contain sufficient information."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "return_type": {"type": "string", "enum": ["give_answer", "give_up_and_restart"]},
            "final_answer": {
                "type": "string",
                "description": "The final answer you want to give the user. You should have this field if "
                               "\"return_type\"==\"give_answer\"",
            },
        },
        "required": ["return_type"],
    },
}

# ToolBench's prompt preamble for function-calling models (its task_description).
TASK_DESCRIPTION_HEAD = (
    "You should use functions to help handle the real time user querys. Remember:\n"
    "1.ALWAYS call \"Finish\" function at the end of the task. And the final answer should contain enough "
    "information to show to the user,If you can't handle the task, or you find that function calls always "
    "fail(the function is not valid now), use function Finish->give_up_and_restart.\n"
    "2.Do not use origin tool names, use only subfunctions' names.\n"
    "You have access of the following tools:\n"
)


_NON_WORD = re.compile("[^\u4e00-\u9fa5a-zA-Z0-9_]")
_KEYWORDS = ("from", "class", "return", "false", "true", "id", "and")


def standardize(name: str) -> str:
    """ToolBench's ``standardize``: characters other than letters, digits, ``_`` and CJK become ``_``,
    runs collapse, lower case, ends trimmed; a leading digit gets ``get_``."""
    s = re.sub(r"(_)\1+", "_", _NON_WORD.sub("_", str(name))).lower().strip("_")
    if s and s[0].isdigit():
        s = "get_" + s
    return s


def change_name(name: str) -> str:
    """ToolBench's ``change_name``: ``from class return false true id and`` get an ``is_`` prefix."""
    return "is_" + name if name in _KEYWORDS else name


def api_function_name(api_name: str, standard_tool_name: str) -> str:
    """``{api}_for_{tool}``, the last 64 characters (as ToolBench cuts it)."""
    return (change_name(standardize(api_name)) + f"_for_{standard_tool_name}")[-64:]


def _param_schema(para: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": TYPE_MAP.get(para.get("type"), "string"),
                           "description": str(para.get("description", ""))[:DESCRIPTION_MAX]}
    default = para.get("default", "")
    if len(str(default)) != 0:
        out["example_value"] = default
    return out


def api_to_openai_function(api: Mapping[str, Any], standard_tool_name: str) -> dict[str, Any]:
    """One ToolBench API (tool-file entry or query ``api_list`` entry) as an OpenAI function."""
    api_name = api.get("api_name", api.get("name", ""))
    name = api_function_name(api_name, standard_tool_name)
    description = f"This is the subfunction for tool \"{standard_tool_name}\", you can use this tool."
    api_description = str(api.get("api_description", api.get("description", ""))).strip()
    if api_description:
        cut = api_description.replace(api_name, name)[:DESCRIPTION_MAX]
        description += f"The description of this function is: \"{cut}\""
    params: dict[str, Any] = {"type": "object", "properties": {}, "required": [], "optional": []}
    required = api.get("required_parameters") or []
    if required:
        for para in required:
            pname = change_name(standardize(para["name"]))
            params["properties"][pname] = _param_schema(para)
            params["required"].append(pname)
        for para in api.get("optional_parameters") or []:
            pname = change_name(standardize(para["name"]))
            params["properties"][pname] = _param_schema(para)
            params["optional"].append(pname)
    return {"name": name, "description": description, "parameters": params}


def strict_function(function: Mapping[str, Any]) -> dict[str, Any]:
    """A strict-schema copy: drops ToolBench's non-standard ``optional`` list and ``example_value``."""
    out = copy.deepcopy(dict(function))
    params = out.get("parameters", {})
    params.pop("optional", None)
    for prop in params.get("properties", {}).values():
        prop.pop("example_value", None)
    return out


def as_tools(functions: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The newer ``tools`` form (``{"type": "function", "function": ...}``) StableToolBench uses."""
    return [{"type": "function", "function": copy.deepcopy(dict(f))} for f in functions]


def tool_description_block(tools: list[tuple[str, str]]) -> str:
    """ToolBench's task description: the preamble plus ``k.tool: description`` (512 characters each)."""
    text = TASK_DESCRIPTION_HEAD
    seen: dict[str, str] = {}
    for name, desc in tools:
        seen.setdefault(name, desc)
    for k, (name, desc) in enumerate(seen.items()):
        cut = str(desc)[:512].replace("\n", "").strip() or "None"
        text += f"{k + 1}.{name}: {cut}\n"
    return text
