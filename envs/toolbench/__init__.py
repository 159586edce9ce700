"""ToolBench-style tool-use tasks on offline, deterministic, stateful mock services (see README.md)."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/ToolBench-v0", "treegym.envs.toolbench.env:ToolBenchEnv", name="toolbench", order=2),)
