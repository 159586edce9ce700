"""A client that uses a WebShop site the way princeton-nlp/WebShop's own envs do (written from their
documented interface, not copied).

Reading a page, as upstream's text env (``WebAgentTextEnv``) does with BeautifulSoup:

* clickables: ``has_search_bar`` when an element ``#search_input`` exists; every
  element of class ``btn`` and of class ``product-link`` keyed by its lower-cased
  text, then every ``input[type=radio]`` keyed by its ``value`` (a dict: a repeated
  key keeps its first place and its last element);
* instruction: the text of the first ``h4`` inside ``#instruction-text``;
* observation ``text``: the visible strings (not inside style, script, head,
  title or meta; no comments), each stripped, joined by ``" [SEP] "``;
  ``text_rich``: one line per visible string, ``[button] X [button_]`` when its
  parent is a button, option labels (parent ``label``) indented and clicked when
  ``"X"`` appears in the page URL (then ``You have clicked X.`` goes in front),
  product links (class exactly ``product-link``) after an empty line, clicked
  when the product was opened since the last visit to the search page;
* reward: the float in ``#reward pre`` (its site env's ``get_reward``), 0 without one.

Moving: as upstream's text env moves (its browser asks its ``server`` for the
next page: ``receive(session, url, keywords=...)`` or ``receive(session, url,
clickable_name=..., text_to_clickable=...)``), with treegym's ``SiteServer``
(servers/webshop/upstream_client.py) as that server, so every page is fetched
from the site through upstream's routes.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from bs4 import BeautifulSoup
from bs4.element import Comment

from treegym.servers.webshop.upstream_client import SiteServer

HIDDEN_PARENTS = {"style", "script", "head", "title", "meta", "[document]"}


@lru_cache(maxsize=4)
def soup_of(html: str) -> BeautifulSoup:
    """The parsed page (shared by the readers below: they only read it)."""
    return BeautifulSoup(html, "html.parser")


def visible_strings(html: str) -> list:
    return [t for t in soup_of(html).find_all(string=True)
            if t.parent.name not in HIDDEN_PARENTS and not isinstance(t, Comment)]


def text_simple(html: str) -> str:
    return " [SEP] ".join(t.strip() for t in visible_strings(html) if t != "\n")


def text_rich(html: str, url: str, opened_asins: set[str]) -> str:
    out = ""
    for t in visible_strings(html):
        if t == "\n":
            continue
        if t.parent.name == "button":
            piece = f"[button] {t} [button_]"
        elif t.parent.name == "label":
            if f'"{t}"' in url:
                piece = f"  [clicked button] {t} [clicked button_]"
                out = f"You have clicked {t}.\n" + out
            else:
                piece = f"  [button] {t} [button_]"
        elif t.parent.get("class") == ["product-link"]:
            tag = "clicked button" if str(t) in opened_asins else "button"
            piece = f"\n[{tag}] {t} [{tag}_]"
        else:
            piece = str(t)
        out += piece + "\n"
    return out


def clickables(html: str) -> tuple[dict[str, Any], bool]:
    """``(text -> element, has_search_bar)`` as upstream's ``get_available_actions`` builds them."""
    soup = soup_of(html)
    table: dict[str, Any] = {}
    for el in soup.find_all(class_="btn") + soup.find_all(class_="product-link"):
        table[el.get_text().lower()] = el
    for el in soup.select('input[type="radio"]'):
        table[str(el.get("value"))] = el
    return table, soup.find(id="search_input") is not None


def available_actions(html: str) -> dict[str, Any]:
    table, has_search_bar = clickables(html)
    return {"has_search_bar": has_search_bar, "clickables": list(table)}


def instruction_text(html: str) -> str:
    return soup_of(html).find(id="instruction-text").h4.text


def page_reward(html: str) -> float:
    block = soup_of(html).find(id="reward")
    return float(block.find_all("pre")[0].string) if block is not None else 0.0


class UpstreamStyleClient:
    """One shopping session moved as upstream's text env moves it (its browser asks its ``server`` for
    every page), with treegym's :class:`SiteServer` as that server: every page comes from the site."""

    def __init__(self, base_url: str):
        self.server = SiteServer(base_url)
        self.html = ""
        self.url = ""
        self.session = ""

    def reset(self, session: str | int) -> None:
        """``session``: a site session name, or a goal index (upstream's ``reset(session=n)``)."""
        self.session = str(session)
        session_int = session if isinstance(session, int) else None
        self.html, self.url, _ = self.server.receive(self.session, None, session_int=session_int)

    def step(self, action: str) -> dict:
        """``search[text]`` or ``click[label]`` as upstream's text env takes them: the label lower-cased and
        looked up among the page's clickables (an unknown label does nothing, as there)."""
        verb, _, arg = action.partition("[")
        arg = (arg[:-1] if arg.endswith("]") else arg).lower()
        table, _ = clickables(self.html)
        if verb == "search" and arg:
            kwargs = {"keywords": arg.split(" ")}
        elif verb == "click" and arg in table and arg != "search":
            kwargs = {"clickable_name": arg, "text_to_clickable": table}
        else:
            return {"reward": 0.0, "done": False}
        self.html, self.url, status = self.server.receive(self.session, self.url, **kwargs)
        return status

    # what upstream's text env reads off the current page
    def observation(self, mode: str) -> str:
        if mode == "html":
            return self.html
        if mode == "text":
            return text_simple(self.html)
        return text_rich(self.html, self.url, self.server.user_sessions[self.session]["asins"])

    def available_actions(self) -> dict[str, Any]:
        return available_actions(self.html)

    def instruction_text(self) -> str:
        return instruction_text(self.html)

    def reward(self) -> float:
        return page_reward(self.html)
