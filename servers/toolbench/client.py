"""A client that calls a ToolBench service the way upstream's ``rapidapi_wrapper._step`` does (for tests and benchmarks).

Written from ToolBench's documented interface, not its code: for a function of
a task (``{api}_for_{tool}``, matched by suffix as upstream does) it POSTs
``{category, tool_name (standardized), api_name (standardized), tool_input
(the arguments as JSON text), strip, toolbench_key}`` with a ``toolbench_key``
header to the one URL it was given, and returns the ``{"error", "response"}``
answer. Only the URL differs between the shared world
(``http://HOST:PORT/virtual``) and a URL-chosen one
(``http://HOST:PORT/s/<session>/virtual``).
"""
from __future__ import annotations

import json
import urllib.request
from typing import Any, Mapping

from treegym.envs.toolbench.schema import api_to_openai_function, change_name, standardize


def upstream_payload(task: Mapping[str, Any], function_name: str, arguments: Any) -> dict[str, Any] | None:
    """The body upstream sends for ``function_name`` of ``task`` (None when no function of the task ends with it)."""
    for api in task.get("api_list", []):
        std_tool = standardize(api["tool_name"])
        if api_to_openai_function(api, std_tool)["name"].endswith(function_name):
            return {"category": api["category_name"], "tool_name": std_tool,
                    "api_name": change_name(standardize(api["api_name"])),
                    "tool_input": arguments if isinstance(arguments, str) else json.dumps(arguments),
                    "strip": "truncate", "toolbench_key": "treegym"}
    return None


def post_call(service_url: str, payload: Mapping[str, Any], timeout: float = 60.0) -> dict[str, Any]:
    """POST ``payload`` to ``service_url``; the decoded JSON answer (raises on a non-200 status, as upstream reads it)."""
    req = urllib.request.Request(service_url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "toolbench_key": "treegym"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())
