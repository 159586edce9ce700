"""A hand-built decision tree as a real forkable env, its prompt spec, and a scripted model over it.

For tests of the search *policies*: every number the algorithm sees comes from
tables the test writes, never from the truth of the env, so an assertion on
what the search did checks the algorithm itself.

* :class:`TreeWorldEnv` - the state is the path of actions taken (``"a/b"``;
  the root is ``""``). ``tree[path]`` lists the actions allowed there; a path
  with no entry is a leaf and ends the episode (reward 1 and success when it
  is in ``wins``). Real snapshots (``ForkableEnv``).
* :class:`TreePrompts` - prompts that carry the request kind and the paths,
  parsers for the scripted replies.
* :class:`TreeLLM` - a :class:`ScriptedLLM` answering from tables:
  ``proposals[path]`` (propose: the first k not in the avoid list),
  ``samples[path]`` (ReAct samples, cycled per path), ``values[path]``
  (a number in [0, 1]), ``judge[path]`` (compare: the higher score wins,
  ties go to the trajectory shown first), ``imagined[path]`` (the rest of the
  plan). ``log`` records ``(kind, path...)`` per call.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Sequence

from treegym.agents.prompts import PromptSpec, Step
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.envs.core import ForkableEnv, action_space, text_observation_space
from treegym.agents.llm.request import Request


def join(path: str, action: str) -> str:
    return f"{path}/{action}" if path else action


class TreeWorldEnv(ForkableEnv):
    """See the module docstring. ``max_steps`` defaults to more than any test tree is deep."""

    def __init__(self, tree: dict[str, Sequence[str]], wins: Sequence[str] = (), max_steps: int = 50,
                 rewards: dict[str, float] | None = None):
        super().__init__(max_steps=max_steps)
        self.tree = {k: tuple(v) for k, v in tree.items()}
        self.wins = set(wins)
        self.rewards = dict(rewards or {})  # partial rewards of leaves that are not wins
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self.task = "tree"
        self.path = ""

    def _get_state(self) -> str:
        return self.path

    def _set_state(self, state: str) -> None:
        self.path = state

    def _observe(self) -> tuple[dict, dict]:
        obs = {"text": f"at {self.path or 'root'}", "instruction": "walk the tree",
               "valid_actions": self.tree.get(self.path, ())}
        return obs, {"path": self.path, "success": self.path in self.wins}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps, self.path = 0, ""
        return self._observe()

    def step(self, action):
        if str(action) in self.tree.get(self.path, ()):
            self.path = join(self.path, str(action))
        truncated = self._count_step()
        obs, info = self._observe()
        terminated = self.path not in self.tree
        reward = (1.0 if info["success"] else self.rewards.get(self.path, 0.0)) if terminated else 0.0
        return obs, reward, terminated, truncated and not terminated, info


def path_of(history: Sequence[Step]) -> str:
    return "/".join(s.action for s in history)


class TreePrompts(PromptSpec):
    """Prompts: system ``kind``, user ``path`` (and ``avoid`` / the two paths)."""

    env_id = "test/TreeWorld"

    def react_messages(self, obs, history, reflections=(), avoid=()):
        return [{"role": "system", "content": "react"},
                {"role": "user", "content": self._lessons(reflections) + f"{obs['text']}\n{path_of(history)}"}]

    def propose_messages(self, obs, history, k, avoid=(), reflections=()):
        return [{"role": "system", "content": "propose"},
                {"role": "user", "content": self._lessons(reflections) + f"{obs['text']}\n" + path_of(history) + "|"
                 + ",".join(avoid)}]

    @staticmethod
    def _lessons(reflections):
        """Reflections (LATS) as lines above the observation, in the generic spec's words."""
        return "".join(line + "\n" for line in PromptSpec.reflection_lines(reflections))

    def parse_proposals(self, text, obs):
        return [a for a in text.split(",") if a]

    def parse_action(self, text, obs):
        return text.strip()

    def compare_messages(self, obs, traj_a, traj_b):
        return [{"role": "system", "content": "compare"},
                {"role": "user", "content": path_of(traj_a) + "|" + path_of(traj_b)}]

    def value_messages(self, obs, history):
        return [{"role": "system", "content": "value"}, {"role": "user", "content": f"{obs['text']}\n{path_of(history)}"}]

    def parse_value(self, text):
        return float(text)

    def imagine_messages(self, obs, history):
        return [{"role": "system", "content": "imagine"},
                {"role": "user", "content": f"{obs['text']}\n{path_of(history)}"}]

    def parse_imagined(self, text, obs=None):
        return [a for a in text.split(",") if a]

    def reflect_messages(self, obs, trajectory, outcome):
        return [{"role": "system", "content": "reflect"},
                {"role": "user", "content": f"outcome: {outcome}\n{path_of(trajectory)}"}]


class TreeLLM(ScriptedLLM):
    """Scripted answers from tables (see the module docstring)."""

    def __init__(self, *, proposals: dict | None = None, samples: dict | None = None, values: dict | None = None,
                 judge: dict | None = None, imagined: dict | None = None, default_value: float = 0.5):
        self.proposals = proposals or {}
        self.samples = samples or {}
        self.values = values or {}
        self.judge = judge or {}
        self.imagined = imagined or {}
        self.default_value = default_value
        self.log: list[tuple] = []
        self.prompts: list[tuple[str, str]] = []  # (kind, the whole last message)
        self._drawn: dict[str, int] = defaultdict(int)
        super().__init__(self._reply, name="tree-scripted")

    def complete(self, request: Request) -> list[str]:  # noqa: D401 - records the seed a propose asked with
        self._seed = request.seed
        return super().complete(request)

    def _reply(self, messages: list[dict]) -> str:
        kind, full = messages[0]["content"], messages[-1]["content"]
        user = full.split("\n")[-1]  # the lines above it: the observation, reflections an agent added
        self.prompts.append((kind, full))
        if kind == "propose":
            path, avoid = user.split("|")
            self.log.append(("propose", path, getattr(self, "_seed", None)))
            fresh = [a for a in self.proposals.get(path, ()) if a not in avoid.split(",")]
            return ",".join(fresh)
        if kind == "react":
            self.log.append(("react", user))
            options = self.samples.get(user, ())
            i = self._drawn[user]
            self._drawn[user] += 1
            return options[i % len(options)] if options else ""
        if kind == "value":
            self.log.append(("value", user))
            return str(self.values.get(user, self.default_value))
        if kind == "compare":
            a, b = user.split("|")
            self.log.append(("compare", a, b))
            return "A" if self.judge.get(a, 0.0) >= self.judge.get(b, 0.0) else "B"
        if kind == "imagine":
            self.log.append(("imagine", user))
            return ",".join(self.imagined.get(user, ()))
        self.log.append((kind, user))
        return "lesson"

    def request_kinds(self) -> list[str]:
        return [entry[0] for entry in self.log]


class CountingPrompts(TreePrompts):
    """:class:`TreePrompts` that record the ``k`` of every propose prompt (how many actions the model
    is asked for; the real prompt specs write it into the prompt)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.ks: list[int] = []

    def propose_messages(self, obs, history, k, avoid=(), reflections=()):
        self.ks.append(k)
        return super().propose_messages(obs, history, k, avoid, reflections)


def run(algorithm: type, tree: dict, llm: TreeLLM, wins: Sequence[str] = (), rewards: dict | None = None,
        **options: Any) -> Any:
    """Build the search policy around ``algorithm`` (or an agent factory ``(env_id, llm, **options)``) on a fresh TreeWorld (``prompts=``: a :class:`TreePrompts` of the test's, else a
    fresh one), run its search; returns the agent (``agent.result``)."""
    env = TreeWorldEnv(tree, wins, rewards=rewards)
    obs, info = env.reset()
    options.setdefault("budget", 1000)
    prompts = options.pop("prompts", None) or TreePrompts()
    if isinstance(algorithm, type):
        agent = SearchPolicy(algorithm, TreePrompts.env_id, llm, prompts=prompts, **options)
    else:  # an agent factory (a registered name's: presets, @N)
        agent = algorithm(TreePrompts.env_id, llm, prompts=prompts, **options)
    agent.reset()
    agent.bind(env)
    agent.run_search(obs, info)
    return agent


def started(policy: Any, seed: int = 0) -> Any:
    """``policy`` with its algorithm started as a search would start it (a seeded rng, the policy's
    ``peek_success`` and prompts), for tests that call the algorithm's parts directly."""
    import numpy as np
    from types import SimpleNamespace

    policy.algorithm.start(SimpleNamespace(rng=np.random.default_rng(seed), peek_success=policy.options.peek_success,
                                           prompts=policy.prompts, env_id=policy.env_id, seed=policy.options.seed))
    return policy
