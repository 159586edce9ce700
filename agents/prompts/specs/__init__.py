"""Prompt specs of the shipped envs (text, plus overrides where a paper's exact prompt is wanted)."""
