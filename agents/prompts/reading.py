"""How a prompt spec reads the actions an answer states: against the table of the node's valid actions.

:class:`ActionReading` is the part of :class:`~.spec.PromptSpec` that turns answer lines into actions
(``parse_action``, ``parse_proposals``, ``parse_imagined``, ``extract``, ``normalise``). Every line is
matched against the :class:`~.memo.ActionIndex` of the observation's ``valid_actions`` (built once per
list and task), and what a line states is remembered per list when the env's canonical forms depend on
its task only. It uses the spec's contract methods (``canonical``, ``templates``) and per-task memo.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from .memo import _BRACKET, MAX_EXTRACTED, ActionIndex, template_verbs

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _answer_text(line: str) -> str:
    """An answer line without its bullet and its ``Action:`` label."""
    line = _BULLET.sub("", line.strip()).strip()
    if line.lower().lstrip("*# ").startswith("action") and ":" in line:
        line = line.split(":", 1)[1].strip()
    return line


def _as_written(line: str) -> bool:
    """Whether reading ``line`` in full would cut nothing from it: it starts with a letter (not ``action``:
    no label) or with a number that no ``.`` or ``)`` follows (no bullet), ends with neither whitespace nor a
    backtick, and holds no bracket (a bracketed line is read for its verb first). Such a line is read against
    the action table as it is (``_answer_text`` and ``_clean_line`` would return it unchanged)."""
    if not line or "[" in line or line[-1].isspace() or line[-1] == "`":
        return False
    first = line[0]
    if first.isalpha():
        return not (first in "aA" and line.lower().startswith("action"))
    if first in _ASCII_DIGITS:
        after = line.lstrip(_ASCII_DIGITS)[:1]
        return bool(after) and after not in ".)" and not after.isdigit()
    return False


_ASCII_DIGITS = "0123456789"


def _clean_line(line: str) -> str:
    """An answer line without its bullet, surrounding whitespace and backticks."""
    return _BULLET.sub("", line).strip().strip("`").strip()


class ActionReading:
    """Answer parsers of :class:`~.spec.PromptSpec` (module docstring); a base of it, reading its ``env``,
    ``per_task``, ``canonical``, ``templates`` and per-task memo."""

    env: Any
    per_task: frozenset[str]
    _templates: tuple[str, ...]
    _template_asks: int
    _template_verbs: tuple[tuple[str, ...], frozenset[str]]

    def normalise(self, line: str, obs: dict) -> str:
        """``line`` as the env's listed action when it means one (exactly, by a bracketed
        label, or by the env's canonical form), else as written (the env judges it)."""
        return self._normalised(_clean_line(str(line)), self.action_index(obs))

    def _normalised(self, line: str, index: ActionIndex) -> str:
        """:meth:`normalise` of a line already cleaned, against ``index`` (the observation's table)."""
        low = line.lower()
        found = index.lower.get(low)
        if found is not None:
            return found
        found = index.labels.get(low)  # a bare label: click[Buy Now] for "Buy Now"
        if found is not None:
            return found
        canon = self.canonical(line)
        if canon is not None:
            if "canonical_action" in self.per_task:
                return index.find_canonical(canon, self.canonical, self._known_canonical()) or line
            return next((v for v in index.valid if self.canonical(v) == canon), line)
        return line

    def action_index(self, obs: dict) -> ActionIndex:
        """The table of ``obs``'s valid actions answers are read against (:class:`~.memo.ActionIndex`: built
        once per list and task)."""
        return self._memo().index(obs.get("valid_actions") if isinstance(obs, dict) else None)

    def _verbs(self, index: ActionIndex, ask: bool = True) -> frozenset[str]:
        """Verbs of bracketed actions the env lists (in ``index``) or templates (``search``, ``click``);
        ``ask=False``: the templates known (the env was asked on this page already)."""
        templates = self.templates() if ask else self._templates
        if self._template_verbs[0] is not templates:
            self._template_verbs = (templates, template_verbs(templates))
        extra = self._template_verbs[1]
        return index.verbs | extra if extra else index.verbs

    def extract(self, line: str, obs: dict) -> str | None:
        """The action one line of an answer states, or None; remembered per list of valid actions when
        templates and canonical forms are per task (then a function of line, list and templates)."""
        return self.extract_lines((line,), obs)[0]

    def extract_lines(self, lines: Sequence[str], obs: dict) -> list[str | None]:
        """:meth:`extract` of every line, in order, reading ``obs``'s table of valid actions once.

        With canonical forms per task, what a line states is a function of the line, the list and the
        templates known, so it is remembered per list. A line with a bracket asks the env for its templates
        (:meth:`templates`, which may learn one from the env's page); when templates depend on the page, a
        remembered line asks again, as reading it would, and counts only while the templates are the same.
        The env's page does not change while one answer is read, so it is asked at most once per call."""
        if self.env is None or "canonical_action" not in self.per_task:
            return [self._extract(line, obs) for line in lines]
        return self._extract_at(lines, obs, self.action_index(obs))

    def _extract_at(self, lines: Sequence[str], obs: dict, index: ActionIndex) -> list[str | None]:
        """:meth:`extract_lines` with canonical forms per task, against ``index`` (``obs``'s table, looked up
        by the caller)."""
        valid = obs.get("valid_actions") or () if isinstance(obs, dict) else ()
        ask_templates = "action_templates" not in self.per_task
        asked = False
        memo = index.extracted
        out: list[str | None] = []
        for line in lines:
            hit = memo.get(line)
            if hit is not None:
                if hit[2] and ask_templates and not asked:
                    self.templates()
                    asked = True
                if hit[0] is self._templates:
                    out.append(hit[1])
                    continue
            if _as_written(line):  # the common answer line: nothing to cut, no verb to read
                bracket = False
                found = self._checked(self._normalised(line, index), valid)
            else:
                text = _answer_text(line)
                bracket = "[" in text
                found = self._read(text, obs, index, valid, bracket and asked)
                asked = asked or bracket
            if len(memo) < MAX_EXTRACTED:
                memo[line] = (self._templates, found, bracket)  # the templates as they are after reading
            out.append(found)
        return out

    def _extract(self, line: str, obs: dict) -> str | None:
        return self._read(_answer_text(line), obs, self.action_index(obs),
                          obs.get("valid_actions") or () if isinstance(obs, dict) else ())

    def _read(self, line: str, obs: dict, index: ActionIndex, valid: Sequence[Any], asked: bool = False) -> str | None:
        """The action in an answer line already stripped of its bullet and ``Action:`` label, or None.
        ``asked``: the env's templates were asked for on this page already (they are known as they are now)."""
        if "[" in line:  # only a bracketed action can name a verb
            verbs = self._verbs(index, ask=not asked)
            found = [m for m in _BRACKET.finditer(line) if m.group(1).lower() in verbs]
            if found:
                return f"{found[-1].group(1).lower()}[{found[-1].group(2).strip()}]"
        return self._checked(self._normalised(_clean_line(line), index), valid)

    def _checked(self, action: str, valid: Sequence[Any]) -> str | None:
        """``action`` when the env would judge it, else None."""
        # a listed action is one the env judges; anything else must have a canonical form
        return action if action and (action in valid or self.canonical(action) is not None) else None

    def parse_action(self, text: str, obs: dict) -> str:
        """The action in an answer: the last ``Action:`` line, else the last line stating an action, else the last line.

        Remembered per list of valid actions when the env's canonical forms depend on its task only (a search
        samples the same answer for a node often): then what an answer states is a function of the answer, the
        list and the templates known. A remembered answer whose reading asked the env for its templates asks
        again (they may depend on the page) and counts only while the templates are the same."""
        if self.env is None or "canonical_action" not in self.per_task or not isinstance(text, str):
            return self._parse_action(text, obs)
        index = self.action_index(obs)
        answers = index.answers
        hit = answers.get(text)
        if hit is not None:
            if hit[2] and "action_templates" not in self.per_task:
                self.templates()
            if hit[0] is self._templates:
                return hit[1]
        asks = self._template_asks
        found = self._parse_action(text, obs, index)
        if len(answers) < MAX_EXTRACTED:
            answers[text] = (self._templates, found, self._template_asks != asks)
        return found

    def _parse_action(self, text: str, obs: dict, index: ActionIndex | None = None) -> str:
        """:meth:`parse_action` read afresh. ``index``: ``obs``'s table, looked up by the caller (canonical forms
        per task), which the spec's own ``extract`` and ``normalise`` then read without looking it up again."""
        lines = [ln.strip() for ln in str(text or "").strip().splitlines() if ln.strip()]
        if not lines:
            return ""
        if index is not None and not self._plain_reading():
            index = None  # a spec's own extract or normalise: called as they are
        if index is None:
            extract, normalise = self.extract, self.normalise
        else:
            def extract(line: str, obs: dict) -> str | None:
                return self._extract_at((line,), obs, index)[0]

            def normalise(line: str, obs: dict) -> str:
                return self._normalised(_clean_line(line), index)
        for ln in reversed(lines):
            if ln.lower().lstrip("*# ").startswith("action"):
                chosen = ln.split(":", 1)[1].strip() if ":" in ln else ln
                return extract(chosen, obs) or normalise(chosen, obs)
        return next((a for a in map(lambda ln: extract(ln, obs), reversed(lines)) if a), None) \
            or normalise(lines[-1], obs)

    def _plain_reading(self) -> bool:
        """Whether the spec reads answer lines with these ``extract``, ``extract_lines`` and ``normalise``."""
        own = type(self)
        return (own.extract is ActionReading.extract and own.extract_lines is ActionReading.extract_lines
                and own.normalise is ActionReading.normalise)

    def parse_proposals(self, text: str, obs: dict) -> list[str]:
        """Distinct actions, one per line that states one, in order."""
        out: list[str] = []
        for action in self.extract_lines([ln for ln in str(text or "").splitlines() if ln.strip()], obs):
            if action and action not in out:
                out.append(action)
        return out

    def parse_imagined(self, text: str, obs: dict | None = None) -> list[str]:
        """The imagined remaining actions ([] when the model says it cannot be done)."""
        if str(text or "").strip().lower().startswith("impossible"):
            return []
        return self.parse_proposals(text, obs or {})
