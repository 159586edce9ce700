"""B-MoCA: Android control tasks on a simulated phone (or a device over ADB) as ``treegym/BMoCA-v0``."""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/BMoCA-v0", "treegym.envs.android.env:BMoCAEnv", name="bmoca", order=5),)
