"""Forks for training: training data from saved search trees (``export``) and group rollouts from
one snapshot (``groups``). See docs/training.md, "Export training data" and "Group rollouts"."""
