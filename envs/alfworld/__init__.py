"""treegym/ALFWorld-v0: ALFWorld's text household games on a pure-Python interpreter of its PDDL domain."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/ALFWorld-v0", "treegym.envs.alfworld.env:ALFWorldEnv", name="alfworld", order=6),)
