"""Generic prompt builders and parsers that render any env from the env-agent contract.

:class:`PromptSpec` builds every prompt an agent sends (ReAct, propose, value,
compare, reflect, imagine) from what the contract gives: the observation's
``text``, ``instruction`` and ``valid_actions``, and, once bound to an env
(:meth:`PromptSpec.bind`), its ``task_fields()``, ``action_templates()`` and
``canonical_action()``. It runs on any env as is (the *generic spec*); an env's
**prompt spec** is a subclass that sets text (``task``, ``action_syntax``,
``react_example``, ``value_rubric`` ...) and overrides a builder only where a
paper's exact prompt is wanted (``specs/game24.py``: ToT's propose and value
prompts). Nothing here knows an env's rules: actions are matched to the listed
ones by the env's own ``canonical_action``.

Every builder returns ``[system, user]`` chat messages. A trajectory is a list
of :class:`Step` from the task's start; ``history`` is the current path.
Parsers never raise; they return what the env should judge. The ``render_*``
methods write an oracle answer (``oracle.py``) as a model would, in the form the
parsers read (the scripted and synthetic LLMs use them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from ..llm.base import Message
from .answers import AnswerForms
from .memo import ActionIndex, TaskMemo
from .reading import _BULLET, ActionReading  # noqa: F401 - _BULLET stays importable from here
from .rendering import MAX_REMEMBERED_LINES, ContextRendering  # noqa: F401 - importable from here too



@dataclass(frozen=True)
class Step:
    """One transition of a trajectory as prompts show it."""

    action: str
    observation: str
    reward: float = 0.0
    thought: str = ""


_last_collapsed: tuple[Any, str] = (None, "")  # the last text one_line read and its collapsed form


def one_line(text: Any, n: int) -> str:
    """``text`` with whitespace collapsed, cut to ``n`` characters (``...`` marks a cut). The text read last is
    remembered: a new node's observation is shown twice in a row (its step in the history, its state)."""
    global _last_collapsed
    last = _last_collapsed
    if last[0] is text and text is not None:
        t = last[1]
    else:
        t = text if type(text) is str else str(text or "")
        # printable text has no whitespace but " ": with no run of spaces and no space at an end it is one line already
        if not t.isprintable() or "  " in t or t.startswith(" ") or t.endswith(" "):
            t = " ".join(t.split())
        if type(text) is str:
            _last_collapsed = (text, t)
    return t if len(t) <= n else t[: n - 3] + "..."


MAX_FITS = 4096  # action texts whose template is remembered per set of templates known
_REACT_HEAD = "Each turn, reply with two lines:\nThought: <brief reasoning>\nAction: <exactly one action>"
_PROPOSE_HEAD = "Propose promising next actions, one per line, nothing else."


@lru_cache(maxsize=1024)
def template_regex(template: str) -> re.Pattern:
    """``"search[<query>]"`` -> a regex matching a whole action that fills the template's slots."""
    parts = re.split(r"<[^<>]+>", template)
    return re.compile("^" + ".+?".join(re.escape(p) for p in parts) + "$", re.IGNORECASE | re.DOTALL)


class PromptSpec(ActionReading, ContextRendering, AnswerForms):
    """The generic prompts (see module docstring); env prompt specs subclass it and set text."""

    env_id: str = ""
    # ---- text an env's spec sets (the generic defaults work for any env)
    task = "You act in a text environment. Accomplish the task the instruction describes."
    action_syntax = ""  # default: the env's action templates, or "one of the valid actions listed"
    react_example = ""
    propose_example = ""
    value_rubric = ("Answer with one word on the last line: sure (the task will be accomplished from here), "
                    "likely, or impossible.")
    compare_rubric = "The better attempt is closer to accomplishing the task."
    reflect_focus = "what went wrong and what to do differently next time"
    malformed_examples: tuple[str, ...] = ("I need to think more.",)
    observation_label = "Current observation"
    history_obs_chars = 600  # of each past observation
    page_chars = 4000  # of the current observation
    # The answers the comparison and value prompts ask for; an LLM that can
    # constrain its output (the embedded model) is held to them.
    compare_choices: tuple[str, ...] = ("A", "B")
    value_choices: tuple[str, ...] = ("sure", "likely", "impossible")
    # The env's contract answers that depend on its current task only, never on the state, which the
    # spec then asks once per task (``memo.py``): a subset of {"task_fields", "action_templates",
    # "canonical_action"}. The generic spec assumes nothing; an env's spec declares what its env keeps.
    per_task: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self.env: Any = None
        self._templates: tuple[str, ...] = ()  # every template the env declared so far
        self._template_asks = 0  # times the env was asked for its templates (a reading tells whether it asked)
        # the templates known, their regexes, and which template each action text fills (remembered per set)
        self._template_patterns: tuple[tuple[str, ...], tuple[tuple[str, re.Pattern], ...], dict[str, str | None]] = \
            ((), (), {})
        self._declared: Any = None  # the env's last answer to action_templates(), all of it in _templates
        self._template_verbs: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
        self._memo_store = TaskMemo()

    def bind(self, env: Any) -> "PromptSpec":
        """Use ``env``'s contract methods (task fields, templates, canonical actions) from now on. The
        same env bound again keeps its per-task memo (a search binds once per search): the memo empties
        itself when the env's task changes (``TaskMemo.check``); another env starts a fresh memo."""
        if env is not self.env:
            self._memo_store = TaskMemo()
        self.env = env
        self.templates()  # remember the templates the env declares in its current state
        return self

    # ------------------------------------------------------------ the contract, through the bound env
    def _env(self) -> Any:
        """The bound env unwrapped (looked up once per bound env: Gymnasium walks every wrapper)."""
        return self._memo_store.check(self.env).base

    def _memo(self) -> TaskMemo:
        """The per-task memo of the bound env, emptied when its task changed (``memo.base`` is the env unwrapped)."""
        return self._memo_store.check(self.env)

    def task_fields(self) -> dict:
        if self.env is None:
            return {}
        return dict(self._task_fields())

    def _task_fields(self) -> dict:
        """:meth:`task_fields` not copied: remembered per task when it depends on the task only (callers only read it)."""
        if self.env is None:
            return {}
        memo = self._memo()
        if "task_fields" not in self.per_task:
            return memo.base.task_fields()
        values = memo.values
        got = values.get("task_fields")
        if got is None:
            got = values["task_fields"] = dict(memo.base.task_fields())
        return got

    def per_task_text(self, name: str, render: Any) -> str:
        """``render()``, remembered per task under ``name`` when the task fields depend on the task only (an
        env spec's example or help text chosen by its task fields), else rendered at each call."""
        if "task_fields" not in self.per_task or self.env is None:
            return render()
        values = self._memo().values
        got = values.get(name)
        if got is None:
            got = values[name] = render()
        return got

    def templates(self) -> tuple[str, ...]:
        """The env's action templates: those it declares now and any it declared before (an env may
        offer a template on some pages only; :meth:`is_listed_or_templated` checks the page)."""
        if self.env is not None:
            self._template_asks += 1
            memo = self._memo()
            if "action_templates" in self.per_task:
                values = memo.values
                now = values.get("action_templates")
                if now is None:
                    now = values["action_templates"] = tuple(memo.base.action_templates())
            else:
                now = tuple(memo.base.action_templates())
            if now is not self._declared:  # the same tuple as last time: every template of it is known
                self._declared = now
                if any(t not in self._templates for t in now):
                    self._templates += tuple(t for t in now if t not in self._templates)
        return self._templates

    def canonical(self, action: str) -> str | None:
        """The env's canonical form of ``action`` (None: malformed); unbound: the stripped text."""
        if self.env is None:
            return action.strip() or None
        memo = self._memo()
        if "canonical_action" not in self.per_task:
            return memo.base.canonical_action(action)
        known = memo.canonical
        try:
            return known[action]
        except KeyError:
            known[action] = found = memo.base.canonical_action(action)
            return found

    def _known_canonical(self) -> dict[str, str | None] | None:
        """The per-task memo :meth:`canonical` answers from (action -> form), or None when it keeps none
        (canonical forms not per task, no env) or a spec answers its own way."""
        if self.env is None or "canonical_action" not in self.per_task or type(self).canonical is not PromptSpec.canonical:
            return None
        return self._memo().canonical

    def fits_template(self, action: str) -> str | None:
        """The action template ``action`` fills, or None (remembered per action text and set of templates known)."""
        templates = self.templates()
        patterns = self._template_patterns
        if patterns[0] is not templates:  # compiled once per set of templates known
            patterns = self._template_patterns = (templates, tuple((t, template_regex(t)) for t in templates), {})
        fits = patterns[2]
        try:
            return fits[action]
        except (KeyError, TypeError):  # TypeError: an unhashable action, read as before
            stripped = action.strip()
            found = next((t for t, rx in patterns[1] if rx.match(stripped)), None)
            if type(action) is str:
                if len(fits) >= MAX_FITS:
                    fits.clear()
                fits[action] = found
            return found

    def is_templated(self, action: str, obs: dict) -> bool:
        """A free-text action the page offers: it fills one of the env's action templates, and a
        listed action fills the same template (or the env lists nothing): remembered per list and template."""
        return self._templated_at(action, self.action_index(obs))

    def _templated_at(self, action: str, index: ActionIndex) -> bool:
        """:meth:`is_templated` against ``index`` (the observation's table, looked up by the caller)."""
        t = self.fits_template(action)
        if t is None:
            return False
        return not index.valid or index.fills(t, template_regex(t))

    def is_listed_or_templated(self, action: str, obs: dict) -> bool:
        """Legal-looking: listed in ``valid_actions``, or a free-text action the page offers."""
        index = self.action_index(obs)
        if isinstance(action, str):  # a listed action is found under its lower-cased text
            found = index.lower.get(action.lower())
            if found is not None and (found == action or action in index.valid):
                return True
        elif action in index.valid:
            return True
        if type(self).is_templated is not PromptSpec.is_templated:  # a spec's own: called as it is
            return self.is_templated(action, obs)
        return self._templated_at(action, index)

    # ------------------------------------------------------------ prompt pieces (override per env)
    def action_help(self) -> str:
        if self.action_syntax:
            return self.action_syntax
        templates = self.templates()
        extra = f" or a free-text action of the form {' / '.join(templates)}" if templates else ""
        return f"The action is exactly one of the valid actions listed{extra}."

    def task_lines(self, obs: dict) -> list[str]:
        lines = [f"Instruction: {one_line(obs.get('instruction', ''), 2000)}"]
        return lines + [f"{k}: {v}" for k, v in self.task_fields().items() if k != "instruction"]

    def step_lines(self, i: int, step: Step) -> list[str]:
        lines = [f"Action {i}: {step.action}"]
        if step.observation:
            lines.append(f"Observation {i}: {one_line(step.observation, self.history_obs_chars)}")
        return lines

    def without_verdict(self, obs: dict, history: Sequence[Step]) -> tuple[dict, Sequence[Step]]:
        """``obs`` and ``history`` without the env's verdict on the episode (e.g. a score the final page
        shows), for the prompts that judge states when the search may not read the env's success
        (``peek_success`` off). By default pages show no verdict: both come back unchanged."""
        return obs, history

    def state_lines(self, obs: dict) -> list[str]:
        line = f"{self.observation_label}: {one_line(obs.get('text', ''), self.page_chars)}"
        valid = obs.get("valid_actions") or ()
        if not valid:
            return [line]
        return [line, "Valid actions: " + " | ".join(map(str, valid))]

    @staticmethod
    def reflection_lines(reflections: Sequence[str]) -> list[str]:
        if not reflections:
            return []
        return ["Lessons from earlier attempts:"] + [f"- {' '.join(r.split())}" for r in reflections] + [""]

    @staticmethod
    def avoid_lines(avoid: Sequence[str]) -> list[str]:
        if not avoid:
            return []
        return ["These actions were already tried from here; choose different ones:"] + [f"- {a}" for a in avoid]

    def _system(self, *parts: str) -> str:
        key = (self.task,) + parts
        cache = self.__dict__.setdefault("_system_cache", {})
        got = cache.get(key)
        if got is None:
            if len(cache) > 64:
                cache.clear()
            got = cache[key] = "\n\n".join(p.strip() for p in key if p and p.strip()) + "\n"
        return got

    def _example_system(self, head: str, example: str) -> str:
        """``_system(head, action_help(), "Example:\n" + example)``, remembered by the identity of its parts
        (a spec's help and example texts are the same objects from call to call)."""
        help_text, task = self.action_help(), self.task
        last = self.__dict__.setdefault("_system_last", {}).get(head)
        if last is not None and last[0] is help_text and last[1] is example and last[2] is task:
            return last[3]
        got = self._system(head, help_text, f"Example:\n{example}" if example else "")
        self._system_last[head] = (help_text, example, task, got)
        return got

    @staticmethod
    def _messages(system: str, user: Sequence[str]) -> list[Message]:
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(user)}]

    # ------------------------------------------------------------ the prompts
    def react_messages(self, obs: dict, history: Sequence[Step], reflections: Sequence[str] = (),
                       avoid: Sequence[str] = ()) -> list[Message]:
        system = self._example_system(_REACT_HEAD, self.react_example)
        user = self.reflection_lines(reflections) + self._context_block(obs, history) + self.avoid_lines(avoid)
        return self._messages(system, user + ["Reply with Thought: ... and Action: ..."])

    def propose_messages(self, obs: dict, history: Sequence[Step], k: int, avoid: Sequence[str] = (),
                         reflections: Sequence[str] = ()) -> list[Message]:
        system = self._example_system(_PROPOSE_HEAD, self.propose_example)
        user = self.reflection_lines(reflections) + self._context_block(obs, history) + self.avoid_lines(avoid)
        return self._messages(system, user + [f"Propose {k} possible next actions, one per line."])

    def value_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        system = self._system("You judge an attempt in progress.", self.value_rubric)
        return self._messages(system, self._context_block(obs, history) + ["Is this attempt on track? Answer sure, likely or impossible."])

    def compare_messages(self, obs: dict, traj_a: Sequence[Step], traj_b: Sequence[Step]) -> list[Message]:
        system = self._system("You compare two attempts at the same task.", self.compare_rubric,
                              'Answer "Answer: A" or "Answer: B".')
        user = self._task_block(obs)
        for name, traj in (("A", traj_a), ("B", traj_b)):
            user = user + [f"Trajectory {name}:"] + (self._history_block(traj) or ["(no actions yet)"])
        return self._messages(system, user + ["Which attempt is better? Answer: A or Answer: B"])

    def imagine_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        system = self._system("Plan the rest of the attempt below: list every remaining action until the task is "
                              "accomplished, one per line; answer only the word impossible if it cannot be.",
                              self.action_help())
        return self._messages(system, self._context_block(obs, history) + ["Remaining actions:"])

    def reflect_messages(self, obs: dict, trajectory: Sequence[Step], outcome: str) -> list[Message]:
        system = self._system("You review a failed attempt and write a short plan for the next attempt.")
        user = self._task_block(obs) + self._history_block(trajectory)
        return self._messages(system, user + [f"Outcome: {outcome}", f"In two sentences, say {self.reflect_focus}."])

    def answer_key(self, obs: dict) -> str:
        """What a finished attempt answered, for self-consistency votes: the last line of its final text."""
        lines = [ln.strip() for ln in str(obs.get("text", "") if isinstance(obs, dict) else obs).splitlines() if ln.strip()]
        return lines[-1] if lines else ""
