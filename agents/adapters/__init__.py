"""LLM adapters per env id (prompts, parsers, scripted replies)."""
from .base import EnvAdapter, Step, adapter_env_ids, get_adapter, register_adapter

__all__ = ["EnvAdapter", "Step", "get_adapter", "register_adapter", "adapter_env_ids"]
