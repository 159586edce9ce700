"""Upstream WebShop's text env on our site: a ``server=`` for ``WebAgentTextEnv`` that fetches every page
over HTTP.

princeton-nlp/WebShop's ``WebAgentTextEnv`` renders its pages in-process with a
simulated server (``SimServer``) unless it is given ``server=``: any object with
``receive(session_id, current_url, session_int=None, **kwargs) -> (html, url,
status)`` and ``user_sessions`` (its rich text mode reads the products opened in
a session there). :class:`SiteServer` is such an object for a running
``treegym serve webshop``::

    from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv   # upstream's code, unchanged
    from treegym.servers.webshop.upstream_client import SiteServer

    env = WebAgentTextEnv(observation_mode="text", server=SiteServer("http://127.0.0.1:3000"))
    obs, _ = env.reset(session=12)        # goal 12 (the site's session fixed_12)

``receive`` does what upstream's browser and server do between them, through
upstream's routes on the site: no keyword arguments opens the session's search
page (``session_int`` picks the goal: ``fixed_<n>``; otherwise the session id is
the site's session name, ``fixed_<n>`` included); ``keywords`` posts
``search_query``; ``clickable_name`` with ``text_to_clickable`` (the env's own
parse of our page) follows the element: a button posts its form, a product link
gets its ``href``, an option gets its radio input's ``data-url``. A page with a
``#reward`` block (the done page) reports that reward and ``done``. The URL it
returns is percent-decoded, as upstream's simulated URLs are, so the rich text
mode marks selected options. Needs beautifulsoup4 (the ``webshop`` extra).
"""
from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, unquote, urlencode, urljoin, urlsplit


class SiteError(RuntimeError):
    """The site refused a request (its one-line reason is the message)."""


class SiteServer:
    """A treegym WebShop site at ``base_url`` in the place of upstream's ``SimServer`` (module docstring)."""

    def __init__(self, base_url: str = "http://127.0.0.1:3000", timeout: float = 60.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.user_sessions: dict[str, dict[str, Any]] = {}  # per env session: asins opened, done, reward
        self._names: dict[str, str] = {}                     # env session id -> the site's session name
        self._http = urllib.request.build_opener()           # follows redirects (a POST's 302 becomes a GET)

    def receive(self, session_id: str, current_url: str | None, session_int: int | None = None,
                **kwargs: Any) -> tuple[str, str, dict[str, Any]]:
        """The page after one move (see the module docstring): ``(html, url, {"reward", "done"})``."""
        if not kwargs or session_id not in self._names:
            fixed = isinstance(session_int, int) and not isinstance(session_int, bool)
            self._names[session_id] = f"fixed_{session_int}" if fixed else str(session_id)
        name = self._names[session_id]
        record = self.user_sessions.setdefault(session_id, {"asins": set(), "done": False, "reward": 0.0})
        index = f"/{quote(name, safe='')}"
        if "keywords" in kwargs:
            words = kwargs["keywords"]
            text = " ".join(words) if isinstance(words, (list, tuple)) else str(words)
            html, url = self._load("POST", index, {"search_query": text})
        elif "clickable_name" in kwargs:
            el = kwargs["text_to_clickable"][kwargs["clickable_name"]]
            if el.name == "a":
                record["asins"].add(el.get_text().upper())
                html, url = self._load("GET", el["href"])
            elif el.name == "input":
                html, url = self._load("GET", el["data-url"])
            else:
                form = el.find_parent("form")
                html, url = self._load(form.get("method", "get").upper(), form["action"])
        else:
            html, url = self._load("GET", index)
        if urlsplit(url).path.rstrip("/").count("/") <= 1:  # the search page starts over, as upstream's
            record["asins"] = set()
        status = {"reward": 0.0, "done": False}
        reward = _reward(html)
        if reward is not None:
            status = {"reward": reward, "done": True}
            record.update(status)
        return html, url, status

    def _load(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[str, str]:
        body = None if form is None else urlencode(form).encode()
        req = urllib.request.Request(urljoin(self.base_url + "/", path), data=body, method=method)
        try:
            with self._http.open(req, timeout=self.timeout) as resp:
                return resp.read().decode("utf-8"), unquote(resp.geturl())
        except urllib.error.HTTPError as exc:
            reason = exc.read().decode("utf-8", "replace")[:300]
            raise SiteError(f"{method} {path}: the WebShop site answered {exc.code}: {reason}") from None
        except urllib.error.URLError as exc:
            raise SiteError(f"cannot reach the WebShop site at {self.base_url} ({exc.reason}); start it with "
                            f"`treegym serve webshop --port {urlsplit(self.base_url).port or 3000}`") from None


def _reward(html: str) -> float | None:
    """The reward in the page's ``#reward pre`` (the done page), or None."""
    if 'id="reward"' not in html:
        return None
    from bs4 import BeautifulSoup

    block = BeautifulSoup(html, "html.parser").find(id="reward")
    pre = block.find("pre") if block is not None else None
    return float(pre.get_text()) if pre is not None else None
