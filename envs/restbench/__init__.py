"""RestBench-style REST tasks on mock TMDB and Spotify APIs (see env.py)."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/RestBench-v0", "treegym.envs.restbench.env:RestBenchEnv", name="restbench", order=3),)
