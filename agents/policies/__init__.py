"""Policies that belong to one env family (``webshop``: the rule baseline); generic ones live in ``agents/baselines.py``."""
