"""The README's Python quick start: make an env, read the task, fork (snapshot, branch, restore), clone.

Run it with ``python -m treegym.envs.examples.quickstart``; ``tests/test_readme_examples.py`` keeps it equal to
the README's block and runs it.
"""
import gymnasium as gym
import treegym.envs as te                      # registers the treegym/... ids

env = gym.make("treegym/Game24-v0", split="test")
obs, info = env.reset(seed=0, options={"task_id": 900})
print(obs["instruction"])                      # ... Input: 4 5 6 10
print(obs["valid_actions"][:3])                # ('5 + 4 = 9 (left: 6 9 10)', ...)

# fork: snapshot, explore a branch, come back
snap = te.snapshot(env)                        # immutable, picklable, microseconds
for action in ("10 - 4 = 6 (left: 5 6 6)", "6 * 5 = 30 (left: 6 30)"):
    obs, reward, terminated, truncated, info = env.step(action)
obs, info = te.restore(env, snap)              # back where we were; the step counter too

twin = te.clone(env)                           # an independent copy in the same state
env.close(); twin.close()
