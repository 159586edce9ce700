"""treegym/Game24-v0: the Game of 24 with exact arithmetic, an exact solver and native snapshots."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/Game24-v0", "treegym.envs.game24.env:Game24Env", name="game24", order=0),)
