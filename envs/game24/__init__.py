"""treegym/Game24-v0: the Game of 24 with exact arithmetic, an exact solver and native snapshots."""
