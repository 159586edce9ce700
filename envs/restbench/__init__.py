"""RestBench-style REST tasks on mock TMDB and Spotify APIs (see env.py)."""
