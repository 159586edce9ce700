"""Simulated LLMs for tests and offline runs: the scripted oracle (:mod:`.scripted`), the synthetic model
with tunable skill (:mod:`.synthetic`), and the oracle they share (:mod:`.oracle`), which reads the truth
from the env states a request concerns, never from its prompt text."""
