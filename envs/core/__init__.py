"""The snapshot protocol shared by every treegym env (see docs/DESIGN.md)."""
from .api import clone, release, restore, snapshot, snapshot_cost, snapshot_kind
from .contract import Engine, ExpertAdvice, StepResult
from .engine_env import EngineEnv
from .fork_client import ForkClientEnv
from .remote import remote
from .check import RollbackCheckError, RollbackReport, check_rollback, first_difference
from .forkable import ForkableEnv
from .replay import ReplayForkable, ReplayRecord, WithReplaySnapshots, observation_digest
from .snapshot_bytes import SnapshotBytesError, snapshot_from_bytes, snapshot_to_bytes
from .snapshot import SNAPSHOT_COST_SECONDS, SNAPSHOT_KINDS, Snapshot, SnapshotDivergence, SnapshotError
from .spaces import UnicodeText, action_space, text_observation_space, valid_actions_space
from .task_pool import TaskPool

__all__ = [
    "ForkableEnv", "EngineEnv", "ForkClientEnv", "Engine", "ExpertAdvice", "StepResult", "ReplayForkable", "WithReplaySnapshots", "ReplayRecord", "Snapshot",
    "SnapshotError", "SnapshotDivergence", "SnapshotBytesError", "snapshot_to_bytes", "snapshot_from_bytes", "SNAPSHOT_KINDS", "SNAPSHOT_COST_SECONDS",
    "snapshot", "restore", "release", "clone", "remote", "snapshot_kind", "snapshot_cost", "check_rollback", "RollbackCheckError",
    "RollbackReport", "first_difference", "observation_digest", "UnicodeText", "action_space",
    "text_observation_space", "valid_actions_space", "TaskPool",
]
