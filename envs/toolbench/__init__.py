"""ToolBench-style tool-use tasks on offline, deterministic, stateful mock services (see README.md)."""
