"""Agents that do not search a tree of forks: ReAct/CoT, the oracle and random policies (:mod:`.react`),
CoT@k, self-consistency and Reflexion over whole attempts (:mod:`.attempts`), Auto-GPT with additional
opinions (:mod:`.autogpt`) and WebShop's rule baseline (:mod:`.webshop_rule`). Each registers its names
with :func:`treegym.agents.registry.register_agent` where it is defined."""
