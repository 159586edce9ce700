"""Adapters from treegym envs to RL trainers.

* :mod:`.trl` - TRL ``environment_factory`` classes, one per env family (tools = the family's actions);
* :mod:`.gem` - GEM text envs with ``spawn(same_state=True)`` by fork;
* :mod:`.verifiers` - a ``verifiers.v1`` env over treegym's OpenEnv server (``treegym.servers.openenv``);
* :mod:`.episode` - the text episode they share, with group starts cached as forks.
"""
