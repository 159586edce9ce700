"""Parsing a RestBench action into one HTTP request or a Finish (lenient; never raises).

* Request text, as RestGPT's caller writes it: ``GET /search/person?query=Sofia Coppola``
  or ``POST /users/treegym_user/playlists {"name": "Road Trip"}`` (a JSON body
  after the path; query values may be URL-encoded; a full
  ``https://api.themoviedb.org/3/...`` or ``https://api.spotify.com/v1/...``
  URL is accepted).
* Request JSON: ``{"method": "GET", "url": "/search/person", "params": {...}, "data": {...}}``
  (``path`` for ``url``; ``body`` or ``json`` for ``data``).
* Finish: ``Final Answer: ...`` / ``Finish: ...``, or ToolBench's
  ``{"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": ...}}``
  (``give_up_and_restart`` gives up).
"""
from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

from treegym.envs.core import jsonsafe

METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")
FORMAT_HELP = ('write one request as "GET /path?param=value" (a JSON body after the path for POST/PUT/DELETE) or '
               '{"method": ..., "url": ..., "params": {...}, "data": {...}}, or finish with "Final Answer: ..."')
_REQ = re.compile(r"^\s*(GET|POST|PUT|DELETE|PATCH)\s+([^{\n]+?)\s*(\{.*)?$", re.IGNORECASE | re.DOTALL)
_FINAL = re.compile(r"^\s*(?:final answer|finish)\s*:\s*(.*)$", re.IGNORECASE | re.DOTALL)
_PREFIXES = ("https://api.themoviedb.org/3", "http://api.themoviedb.org/3", "https://api.spotify.com/v1",
             "http://api.spotify.com/v1")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    args: tuple[tuple[str, Any], ...]   # query and body parameters, sorted

    def canonical(self) -> str:
        return json.dumps({"method": self.method, "url": self.path, "params": dict(self.args)}, sort_keys=True,
                          ensure_ascii=False)


@dataclass(frozen=True)
class Finish:
    return_type: str
    final_answer: str | None

    def canonical(self) -> str:
        args = {"return_type": self.return_type}
        if self.final_answer is not None:
            args["final_answer"] = self.final_answer
        return json.dumps({"name": "Finish", "arguments": args}, sort_keys=True, ensure_ascii=False)


def _split_url(url: str) -> tuple[str, dict[str, Any]]:
    url = url.replace(" ", "%20")  # spaces in query values, as a model writes them
    for p in _PREFIXES:
        if url.lower().startswith(p):
            url = url[len(p):]
    parsed = urllib.parse.urlsplit(url)
    path = parsed.path or "/"
    if not path.startswith("/"):
        path = "/" + path
    return urllib.parse.unquote(path), dict(urllib.parse.parse_qsl(parsed.query, keep_blank_values=False))


def _request(method: str, url: str, params: Any, body: Any) -> Request | str:
    if method.upper() not in METHODS:
        return f"unknown HTTP method {method!r}; use one of {', '.join(METHODS)}"
    path, query = _split_url(str(url))
    args: dict[str, Any] = dict(query)
    for extra in (params, body):
        if extra in (None, ""):
            continue
        if not isinstance(extra, dict):
            return f"request parameters and body must be JSON objects; {FORMAT_HELP}"
        args.update(extra)
    frozen = tuple(sorted((str(k), v if not isinstance(v, (dict, list)) else json.loads(json.dumps(v)))
                          for k, v in args.items()))
    return Request(method.upper(), path, frozen)


def _finish(args: Any) -> Finish | str:
    if not isinstance(args, dict):
        return "Finish needs arguments {\"return_type\": \"give_answer\", \"final_answer\": ...}"
    rtype = args.get("return_type", "give_answer" if "final_answer" in args else None)
    if rtype not in ("give_answer", "give_up_and_restart"):
        return 'Finish needs "return_type": "give_answer" or "give_up_and_restart"'
    answer = args.get("final_answer")
    return Finish(rtype, None if answer is None else str(answer))


def parse_action(action: Any) -> Request | Finish | str:
    """A :class:`Request`, a :class:`Finish`, or a message saying what was wrong."""
    if isinstance(action, dict):
        if jsonsafe.too_deep(action):
            return f"the action nests more than {jsonsafe.MAX_DEPTH} levels deep; {FORMAT_HELP}"
        obj = action
    else:
        text = str(action).strip()
        if text.startswith("```"):
            text = re.sub(r"^```[a-zA-Z]*\s*|\s*```$", "", text).strip()
        if not text:
            return f"the action is empty; {FORMAT_HELP}"
        m = _FINAL.match(text)
        if m:
            return Finish("give_answer", m.group(1).strip())
        m = _REQ.match(text)
        if m:
            rest = (m.group(3) or "").strip()
            body = None
            if rest:
                try:
                    body = jsonsafe.loads(rest)
                except ValueError:
                    return f"the text after the path is not a JSON body ({rest[:60]!r}); {FORMAT_HELP}"
            return _request(m.group(1), m.group(2).strip(), None, body)
        if not text.startswith("{"):
            return f"no request found; {FORMAT_HELP}"
        try:
            obj = jsonsafe.loads(text)
        except ValueError:
            return f"the action looks like JSON but does not parse; {FORMAT_HELP}"
    if not isinstance(obj, dict):
        return f"no request found; {FORMAT_HELP}"
    if obj.get("name") == "Finish":
        args = obj.get("arguments", {})
        if isinstance(args, str):
            try:
                args = jsonsafe.loads(args)
            except ValueError:
                return "Finish arguments are not JSON"
        return _finish(args)
    if "method" in obj and ("url" in obj or "path" in obj):
        return _request(str(obj["method"]), str(obj.get("url", obj.get("path"))), obj.get("params"),
                        obj.get("data", obj.get("body", obj.get("json"))))
    return f"a JSON action needs method and url; {FORMAT_HELP}"
