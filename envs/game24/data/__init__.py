"""Packaged data of the Game of 24 env (24.csv)."""
