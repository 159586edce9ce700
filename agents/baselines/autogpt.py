"""Auto-GPT with additional opinions (Yang et al. 2023, "Auto-GPT for Online Decision Making").

Every step the LLM answers in Auto-GPT's JSON format::

    {"thoughts": {"text": ..., "reasoning": ..., "plan": ..., "criticism": ...},
     "command": {"name": "act", "args": {"action": "<one action in the env's syntax>"}}}

With ``opinions=...`` an expert policy is asked for its top-k next actions
before the LLM decides, and they are put in the prompt with the paper's
template ("Here's one suggestion for the command: ... Please use this
suggestion as a reference and make your own judgement."). The expert is any
policy: ``oracle`` (the env's scripted expert), ``rule``/``random``/``react``
or any other registered agent name. A policy that can rank several actions
exposes ``propose_actions(observation, info, k) -> list[str]``; others give
their single ``act`` choice, so ``top_k`` is an upper bound. The expert is
asked once per step with the live observation; an expert that keeps its own
history (``react``) records its suggestions, not the actions Auto-GPT took.
An LLM expert spends the same episode budget as the agent.

The reply is parsed without ``eval``: the first JSON object in the text
(code fences, smart quotes, trailing commas, Python literals and missing
closing braces are repaired), else an explicit ``Action:`` line. A reply with
no usable command is retried ``retries`` times, the prompt's last message
saying what was wrong with the previous reply; after that the policy raises
:class:`AgentGaveUp` naming the problem, and the run record says so.

The prompt is the env's ReAct prompt (``agents/prompts``: task, few-shot,
history) with the Auto-GPT format and the opinions appended, so every env
works, and the scripted/synthetic LLMs (its requests are ``ReactRequest``s about
the live state, ``agents/requests.py``) can drive it.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..prompts import Step, get_prompts
from ..llm.base import LLM, BudgetExceeded, LLMError, Message
from ..policy import AgentGaveUp, BasePolicy
from ..registry import check_agent, make_agent, register_agent
from ..requests import ReactRequest
from ..search.options import build_config, option

FORMAT_INSTRUCTIONS = """You are Auto-GPT, an autonomous agent. Decide the next command yourself.
You should only respond in JSON format as described below.
Response Format:
{
  "thoughts": {
    "text": "thought",
    "reasoning": "reasoning",
    "plan": "- short bulleted\\n- list that conveys\\n- long-term plan",
    "criticism": "constructive self-criticism"
  },
  "command": {"name": "act", "args": {"action": "<exactly one action in the task's action syntax>"}}
}
Ensure the response can be parsed by Python json.loads."""

DECIDE = "Determine which next command to use, and respond using the JSON format specified above:"
ORACLE_EXPERTS = ("oracle", "gold")  # experts that know the task's answer (the env's scripted expert)
TEMPERATURE = 0.01  # the paper's setting (3.1.1: "set to 0.01 across all models to reduce randomness")


def tool_section(observation: dict, max_examples: int = 3) -> str:
    """Auto-GPT's action-as-tool prompt (paper 2.2): every kind of listed action (``name[...]``)
    is a command, shown with one to three few-shot examples taken from the listed actions.
    Empty when the env lists no ``name[arg]`` actions (then the generic ``act`` command stands)."""
    tools: dict[str, list[str]] = {}
    for action in observation.get("valid_actions") or ():
        m = re.match(r"^(\w+)\[(.*)\]$", str(action).strip())
        if m:
            tools.setdefault(m.group(1), []).append(m.group(2))
    if not tools:
        return ""
    lines = ["Commands (each action is a tool; give its argument as tool_input):"]
    for i, (name, args) in enumerate(tools.items(), 1):
        lines.append(f'{i}. {name}: "{name}", args: {{"tool_input": "<{name} argument>"}}')
        for arg in args[:max_examples]:
            example = {"command": {"name": name, "args": {"tool_input": arg}}}
            lines.append(f"   Example: {json.dumps(example)}")
    return "\n".join(lines)

_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_TRAILING_COMMA_RE = re.compile(r",\s*([}\]])")
_ACTION_LINE_RE = re.compile(r"^\s*action\s*:\s*(.+?)\s*$", re.I | re.M)
_MAX_REPLY_CHARS = 20_000
_MAX_OBJECT_STARTS = 50


def opinion_prompt(opinions: Sequence[str]) -> str:
    """The paper's template wrapping the top-k additional opinions."""
    if len(opinions) == 1:
        return (f"Here's one suggestion for the command: {opinions[0]}\n"
                "Please use this suggestion as a reference and make your own judgement.")
    listed = "\n".join(f"- {o}" for o in opinions)
    return (f"Here are a few suggestions for the command:\n{listed}\n"
            "Please use these suggestions as a reference and make your own judgement.")



# --------------------------------------------------------------------------- parsing
def _candidates(text: str) -> list[str]:
    """Texts that may hold the JSON object: fenced blocks first, then the whole reply."""
    text = text[:_MAX_REPLY_CHARS]
    return [m.group(1) for m in _FENCE_RE.finditer(text)] + [text]


def _repairs(text: str) -> list[str]:
    """The text, then progressively repaired versions of it (no eval anywhere)."""
    fixed = (text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2018", "'").replace("\u2019", "'"))
    fixed = _TRAILING_COMMA_RE.sub(r"\1", fixed)
    fixed = re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", fixed)))
    out = [text, fixed]
    if '"' not in fixed and "'" in fixed:
        out.append(fixed.replace("'", '"'))
    depth = 0
    for ch in fixed:
        depth += {"{": 1, "}": -1}.get(ch, 0)
    if depth > 0:
        out.append(fixed.rstrip().rstrip(",") + "}" * depth)
    return out


def _first_object(text: str) -> dict | None:
    """The first JSON object holding a ``command`` (or ``action``), else the first object at all."""
    decoder = json.JSONDecoder()
    fallback: dict | None = None
    for candidate in _candidates(text):
        for repaired in _repairs(candidate):
            starts = [i for i, ch in enumerate(repaired) if ch == "{"][:_MAX_OBJECT_STARTS]
            for i in starts:
                try:
                    obj, _end = decoder.raw_decode(repaired, i)
                except (json.JSONDecodeError, RecursionError):
                    continue
                if isinstance(obj, dict):
                    if "command" in obj or "action" in obj:
                        return obj
                    fallback = fallback if fallback is not None else obj
    return fallback


def parse_command(text: str) -> tuple[dict | None, str]:
    """``(command, problem)``: the ``{"name", "args", "thoughts"}`` in an Auto-GPT reply.

    ``command`` is None when nothing usable was found; ``problem`` then says
    what was wrong, in words fit to send back to the model.
    """
    if not isinstance(text, str) or not text.strip():
        return None, "the reply was empty"
    obj = _first_object(text)
    if obj is not None:
        cmd = obj.get("command")
        if isinstance(cmd, str):
            cmd = {"name": "act", "args": {"action": cmd}}
        if not isinstance(cmd, dict) and isinstance(obj.get("action"), str):
            cmd = {"name": "act", "args": {"action": obj["action"]}}
        if not isinstance(cmd, dict):
            line = _ACTION_LINE_RE.findall(text[:_MAX_REPLY_CHARS])
            if line:  # an 'Action:' line whose action is itself JSON (a tool call), not a command object
                return {"name": "act", "args": {"action": line[-1]}, "thoughts": {}, "repaired": True}, ""
            return None, 'the JSON object has no "command" object'
        name = cmd.get("name")
        args = cmd.get("args") if isinstance(cmd.get("args"), dict) else {}
        if not isinstance(name, str) or not name.strip():
            return None, 'the "command" has no "name"'
        thoughts = obj.get("thoughts") if isinstance(obj.get("thoughts"), dict) else {}
        return {"name": name.strip(), "args": args, "thoughts": thoughts}, ""
    line = _ACTION_LINE_RE.findall(text[:_MAX_REPLY_CHARS])
    if line:
        return {"name": "act", "args": {"action": line[-1]}, "thoughts": {}, "repaired": True}, ""
    return None, "the reply holds no JSON object (and no 'Action:' line)"


_GENERIC_NAMES = {"act", "action", "step", "do", "command", "execute"}
_ARG_KEYS = ("action", "tool_input", "input", "command", "text", "value")


def command_to_action(cmd: dict, observation: dict) -> str:
    """The env action a parsed command stands for.

    ``act`` (or another generic name) takes its argument verbatim. A tool-style
    name (``click`` with ``tool_input``) becomes ``name[arg]`` or ``name arg``
    when that is a listed valid action, else ``name[arg]``; a bare name is the
    action itself.
    """
    args = cmd.get("args") or {}
    arg = next((str(args[k]) for k in _ARG_KEYS if k in args and args[k] is not None), None)
    if arg is None and len(args) == 1:
        arg = str(next(iter(args.values())))
    name = str(cmd.get("name", "")).strip()
    if name.lower() in _GENERIC_NAMES:
        return (arg or "").strip()
    if arg is None or arg == "":
        return name
    valid = {str(v) for v in (observation.get("valid_actions") or ())}
    for form in (f"{name}[{arg}]", f"{name} {arg}", arg):
        if form in valid:
            return form
    return f"{name}[{arg}]"


# --------------------------------------------------------------------------- the policy
class AutoGPTPolicy(BasePolicy):
    """Auto-GPT styled agent, optionally with top-k additional opinions from an expert policy."""

    name = "autogpt"

    def __init__(
        self,
        env_id: str,
        llm: LLM,
        *,
        expert: Any = None,
        top_k: int = 1,
        retries: int = 2,
        temperature: float = TEMPERATURE,
        seed: int | None = None,
        prompt: str = "tools",
        prompts: Any = None,
    ):
        if prompt not in ("tools", "act"):
            raise ValueError(f"autogpt: prompt must be 'tools' (each action a tool) or 'act', not {prompt!r}")
        self.prompt = prompt
        if int(top_k) < 1:
            raise ValueError(f"autogpt: top_k must be at least 1, got {top_k}")
        if int(retries) < 0:
            raise ValueError(f"autogpt: retries must be 0 or more, got {retries}")
        self.env_id = env_id
        self.llm = llm
        self.prompts = prompts or get_prompts(env_id)
        self.expert = expert
        self.top_k = int(top_k)
        self.retries = int(retries)
        self.temperature = float(temperature)
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        self.history: list[Step] = []
        self._pending: tuple[str, str] | None = None
        self.counts = {"steps": 0, "opinions_given": 0, "opinions_followed": 0,
                       "json_retries": 0, "json_repaired": 0, "expert_silent": 0, "purchased": False}
        if self.expert is not None and callable(getattr(self.expert, "reset", None)):
            self.expert.reset()

    def bind(self, env: Any) -> None:
        self.env = env
        self.prompts.bind(env)
        if self.expert is not None and callable(getattr(self.expert, "bind", None)):
            self.expert.bind(env)

    # ---- the expert's opinions
    def opinions(self, observation: dict, info: dict) -> list[str]:
        """Up to ``top_k`` distinct suggestions from the expert (empty when it has none)."""
        if self.expert is None:
            return []
        try:
            if callable(getattr(self.expert, "propose_actions", None)):
                raw = list(self.expert.propose_actions(observation, info, self.top_k))
            else:
                raw = [self.expert.act(observation, info)]
        except BudgetExceeded:
            raise
        except (AgentGaveUp, LLMError):
            self.counts["expert_silent"] += 1
            return []
        out: list[str] = []
        for a in raw:
            a = str(a).strip()
            if a and a not in out:
                out.append(a)
        return out[: self.top_k]

    # ---- the prompt
    def messages(self, observation: dict, opinions: Sequence[str]) -> list[Message]:
        base = [dict(m) for m in self.prompts.react_messages(observation, self.history, ())]
        base[0]["content"] = base[0]["content"].rstrip() + "\n\n" + FORMAT_INSTRUCTIONS
        tools = tool_section(observation) if self.prompt == "tools" else ""
        if tools:
            base[0]["content"] += "\n\n" + tools
        # The paper's Algorithm 1: the opinions replace the regular "determine which next command"
        # prompt; the regular prompt is added only when no opinion is given.
        tail = opinion_prompt(opinions) if opinions else DECIDE
        if base[-1]["role"] == "user":
            base[-1]["content"] = base[-1]["content"].rstrip() + "\n\n" + tail
        else:
            base.append({"role": "user", "content": tail})
        return base

    @staticmethod
    def retry_messages(base: list[Message], reply: str, problem: str) -> list[Message]:
        """The prompt again, its last user message saying what was wrong with ``reply``.

        The prompt stays self-contained (task, history, opinions in one user
        message), which keeps cached and oracle-backed models working.
        """
        last = dict(base[-1])
        last["content"] = (f"{last['content']}\n\nYour previous reply could not be used: {problem}. "
                           f"It began: {' '.join(reply.split())[:200]!r}. "
                           "Reply again with only the JSON object in the format specified above.")
        return [dict(m) for m in base[:-1]] + [last]

    def act(self, observation: dict, info: dict) -> str:
        if self._pending is not None:
            action, thought = self._pending
            self.history.append(Step(action, str(observation.get("text", "")), float(info.get("reward", 0.0) or 0.0), thought))
        opinions = self.opinions(observation, info)
        if opinions:
            self.counts["opinions_given"] += 1
        messages = base = self.messages(observation, opinions)
        problem, text = "", ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.counts["json_retries"] += 1
            text = ReactRequest(messages, self.env, temperature=self.temperature, seed=self.seed,
                                opinions=tuple(opinions)).send(self.llm)[0]
            cmd, problem = parse_command(text)
            if cmd is not None:
                action = command_to_action(cmd, observation)
                if action:
                    self.counts["json_repaired"] += int(bool(cmd.get("repaired")))
                    self.counts["steps"] += 1
                    self.counts["opinions_followed"] += int(action in opinions)
                    self.counts["purchased"] = action.strip().lower() == "click[buy now]"
                    thought = str(cmd.get("thoughts", {}).get("text", "")) if cmd.get("thoughts") else ""
                    self._pending = (action, thought)
                    return action
                problem = "the command names no action"
            messages = self.retry_messages(base, text, problem)
        raise AgentGaveUp(
            f"autogpt: no usable JSON command after {self.retries + 1} replies ({problem}); "
            f"last reply began {text[:120]!r}. Use a model that follows the JSON format, or raise retries=."
        )

    expert_knows_answer = False

    def stats(self) -> dict[str, Any]:
        s = dict(self.counts)
        s["prompt"], s["temperature"] = self.prompt, self.temperature
        if self.expert is not None:
            s["expert_knows_answer"] = bool(self.expert_knows_answer)
        if s["opinions_given"]:
            s["opinion_agreement"] = round(s["opinions_followed"] / s["opinions_given"], 3)
        return s


@dataclass(frozen=True)
class AutoGPTConfig:
    """The ``autogpt`` agent's options (Auto-GPT as the opinion study runs it)."""
    opinions: str | None = option(None, "paper (Auto-GPT 2.2: the plain agent; opinions are the study's addition, 2.3)",
                                  "the expert agent whose suggestions are shown: oracle, rule or an agent name")
    top_k: int = option(1, "paper (Auto-GPT Table 1: one opinion; top 5 also run)", "opinions shown", minimum=1)
    retries: int = option(2, "ours (a reply without a command is asked again twice)", "asks again", minimum=0)
    temperature: float = option(TEMPERATURE, "paper (Auto-GPT 3.1.1)", "sampling temperature", minimum=0)
    seed: int | None = option(None, "ours (the LLM's own sampling)", "sampling seed")
    prompt: str = option("tools", "paper (Auto-GPT 2.2: every action kind a command)", "", choices=("tools", "act"))


def _autogpt(env_id: str, llm: Any, build: Any, options: dict[str, Any]) -> tuple[AutoGPTConfig, Any]:
    """(the typed options, ``build(opinions, env_id, llm, seed=seed)``: the expert agent made or checked,
    None without ``opinions``); ``opinions`` must name another agent."""
    cfg = build_config(AutoGPTConfig, options, "autogpt")
    if cfg.opinions is None:
        return cfg, None
    if cfg.opinions == "autogpt":
        raise ValueError("autogpt: opinions=autogpt would ask itself; name another agent (oracle, rule, react, ...)")
    try:
        return cfg, build(cfg.opinions, env_id, llm, seed=cfg.seed)
    except KeyError as exc:
        raise ValueError(f"autogpt: opinions={cfg.opinions!r} is not an agent ({exc.args[0]}); use oracle, "
                         "rule, random, react or another agent name") from None


@register_agent("autogpt", needs_llm=True, check=lambda env_id, llm, **o: _autogpt(env_id, llm, check_agent, o),
                help="Auto-GPT JSON thoughts/command; opinions=oracle|rule|<agent> top_k=K adds expert suggestions")
def _make_autogpt(env_id: str, llm: LLM, **options: Any) -> AutoGPTPolicy:
    cfg, expert = _autogpt(env_id, llm, make_agent, options)
    policy = AutoGPTPolicy(env_id, llm, expert=expert, top_k=cfg.top_k, retries=cfg.retries,
                           temperature=cfg.temperature, seed=cfg.seed, prompt=cfg.prompt)
    # opinions=oracle / gold know the target (far stronger than the paper's imitation expert): records say so
    policy.expert_knows_answer = cfg.opinions in ORACLE_EXPERTS
    return policy
