"""ToolChain*-style tool tasks (home search, trip booking, spreadsheet, virtual home), judged on the final state."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/ToolTasks-v0", "treegym.envs.tooltasks.env:ToolTasksEnv", name="tooltasks", order=4),)
