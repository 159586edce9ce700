"""TextWorld games (tw-make ``.z8``) as ``treegym/TextWorld-v0``; needs the ``textworld`` extra.

``gamefiles`` (the shipped fixtures and the user's game files) imports without textworld;
``env`` (the Gym class) and ``make`` (game generation) need it.
"""
from ..core.env_entry import EnvEntry

ENV_SPECS = (EnvEntry("treegym/TextWorld-v0", "treegym.envs.textworld.env:TextWorldEnv", extra="textworld", name="textworld", order=7),)
