"""A client that uses a WebShop site the way princeton-nlp/WebShop's own envs do (written from their
documented interface, not copied).

Reading a page, as upstream's text env (``WebAgentTextEnv``) does with BeautifulSoup:

* clickables: ``has_search_bar`` when an element ``#search_input`` exists; every
  element of class ``btn`` and of class ``product-link`` keyed by its lower-cased
  text, then every ``input[type=radio]`` keyed by its ``value`` (a dict: a repeated
  key keeps its first place);
* instruction: the text of the first ``h4`` inside ``#instruction-text``;
* observation ``text``: the visible strings (not inside style, script, head,
  title or meta; no comments), each stripped, joined by ``" [SEP] "``;
  ``text_rich``: one line per visible string, ``[button] X [button_]`` when its
  parent is a button, option labels (parent ``label``) indented and clicked when
  ``"X"`` appears in the page URL (then ``You have clicked X.`` goes in front),
  product links (class exactly ``product-link``) after an empty line, clicked
  when the product was opened since the last visit to the search page;
* reward: the float in ``#reward pre`` (its site env's ``get_reward``), 0 without one.

Acting, as an HTTP client of upstream's routes: the session starts at
``/<session>``; a search POSTs ``search_query`` to the search form's action; a
button POSTs its form; a product link GETs its ``href``; an option GETs its
radio input's ``data-url``. Redirects are followed; :attr:`url` is the page's
URL, percent-decoded (as upstream's text env keeps it).
"""
from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import unquote, urlencode, urljoin, urlsplit

from bs4 import BeautifulSoup
from bs4.element import Comment

HIDDEN_PARENTS = {"style", "script", "head", "title", "meta", "[document]"}


def soup_of(html: str) -> BeautifulSoup:
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
        table.setdefault(el.get_text().lower(), el)
    for el in soup.select('input[type="radio"]'):
        table.setdefault(str(el.get("value")), el)
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
    """One shopping session on a site at ``base_url``, driven through upstream's routes only."""

    def __init__(self, base_url: str):
        self.base = base_url.rstrip("/")
        self.http = urllib.request.build_opener()  # follows redirects (a POST's 302 becomes a GET)
        self.html = ""
        self.url = ""
        self.name = ""
        self.opened: set[str] = set()  # products opened since the last search page (upstream's session asins)

    def _load(self, method: str, url: str, data: dict | None = None) -> None:
        body = None if data is None else urlencode(data).encode()
        req = urllib.request.Request(urljoin(self.base + "/", url), data=body, method=method)
        try:
            with self.http.open(req, timeout=60) as resp:
                self.html, final = resp.read().decode("utf-8"), resp.geturl()
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {url}: HTTP {exc.code} {exc.read()[:300]!r}") from None
        self.url = unquote(final)
        if urlsplit(final).path.rstrip("/").count("/") == 1:  # the search page: a fresh start
            self.opened = set()

    def reset(self, name: str) -> None:
        self.name = name
        self._load("GET", f"/{name}")

    def step(self, action: str) -> None:
        """``search[text]`` or ``click[label]`` as upstream's text env accepts them (labels lower-cased)."""
        verb, _, arg = action.partition("[")
        arg = arg[:-1] if arg.endswith("]") else arg
        if verb == "search":
            form = soup_of(self.html).find(id="search_input").find_parent("form")
            self._load("POST", form["action"], {"search_query": arg})
            return
        table, _ = clickables(self.html)
        el = table.get(arg.lower()) or table[arg]
        if el.name == "a":
            self.opened.add(el.get_text().upper())
            self._load("GET", el["href"])
        elif el.name == "input":
            self._load("GET", el["data-url"])
        else:
            self._load("POST", el.find_parent("form")["action"])

    # what upstream's envs read off the current page
    def observation(self, mode: str) -> str:
        if mode == "html":
            return self.html
        if mode == "text":
            return text_simple(self.html)
        return text_rich(self.html, self.url, self.opened)

    def available_actions(self) -> dict[str, Any]:
        return available_actions(self.html)

    def instruction_text(self) -> str:
        return instruction_text(self.html)

    def reward(self) -> float:
        return page_reward(self.html)
