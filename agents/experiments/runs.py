"""Run records and resume: what an experiment is, and which stored records a rerun may reuse.

This module is the one place that decides whether a record in a results file
answers the question a command asks. ``treegym run`` (``agents/evaluation.py``)
and anything built on it (sweeps, reports) go through it.

**The experiment config.** :func:`experiment_config` returns a JSON-able dict of
everything that can change an episode's result:

* ``env_id`` and ``env_options`` (the ``gym.make`` kwargs),
* ``input_files``: for every env or agent option whose value names an existing
  file or folder (a catalog, a task file, a game folder), a digest of its
  *content* (:func:`input_digest`), so a rebuilt catalog at the same path is a
  new experiment (absent when no option names a file),
* ``split`` (the split the tasks were chosen from or validated against; None
  when tasks were given by id with no split),
* ``agent`` and ``agent_options`` (minus options that only say where to write
  files, :data:`NON_RESULT_AGENT_OPTIONS`),
* ``budget`` (LLM calls per episode; None = the agent's own default),
* ``llm``: the LLM's result-affecting settings from :func:`llm_config` (name,
  backend, model, endpoint, default completion length, grammar support, the
  local model file and context size; never the local server's random port,
  the timeout or the retry count, which change how an answer is fetched, not
  what it is),
* ``seed`` (the run seed; each episode's seed derives from it and the task),
* ``results_version``: :data:`RESULTS_VERSION`, bumped whenever a change to
  treegym alters the results of an existing config (env dynamics, rewards,
  prompts, agent logic).

:func:`config_hash` is a stable 16-hex-digit digest of it (canonical JSON,
sorted keys). Every record carries ``config`` and ``config_hash`` next to
``task_id`` and ``seed``. Settings that never change a result (``--workers``,
``--backend``, ``--cache``, ``--timeout``, ``--max-retries``, output paths) are
not part of it.

**What a rerun reuses.** :func:`load_reusable_records` reads a results file
(dropping a torn last line) and, for each episode ``(config_hash, task_id,
seed)`` of the configs asked for, looks at the *last* record written for it
(later records supersede earlier ones). That record is reused when its stored
``config`` hashes to its ``config_hash`` (it was not edited) and either it has
no error, or its error is not an infrastructure error, or ``retry_errors`` is
False. Infrastructure errors (:data:`RETRYABLE_ERROR_KINDS`: the LLM was
unreachable, refused the credentials or model, timed out, answered garbage; a
connection or OS error; a worker process that died) are run again, and the new
record is appended after the old one. Records of other configs, and records
without a ``config`` (written by treegym before resume keys existed), are never
reused; they stay in the file untouched. Readers that tabulate a file (reports)
take :func:`latest_records`: one record per episode, the last one written.

Error kinds (``error_kind`` in a record, see :func:`classify_error`):
``"budget"`` (the call budget ran out), ``"gave_up"`` (the agent found nothing
to do), ``"llm"`` (LLM infrastructure), ``"infra"`` (connection/OS/worker
failure), ``"exception"`` (any other exception in env or agent code), or None.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..llm.info import result_config_of
from .results_file import ResultsFile
from ..llm.base import BudgetExceeded, LLMError
from ..policy import AgentGaveUp

#: Bump when a treegym change alters the results of an existing experiment config.
RESULTS_VERSION = 1

#: Agent options that only name output files; they never change a result.
NON_RESULT_AGENT_OPTIONS = frozenset({"tree_out"})

#: Error kinds that a rerun retries by default (``--no-retry-errors`` keeps them).
RETRYABLE_ERROR_KINDS = frozenset({"llm", "infra"})

ERROR_KINDS = ("budget", "gave_up", "llm", "infra", "exception")

#: Error kinds that are the agent's own outcome (it gave up, or spent its LLM budget without an
#: answer): failures, like a wrong answer, but not errors of the run.
AGENT_OUTCOME_KINDS = frozenset({"budget", "gave_up"})


# ----------------------------------------------------------------- the config
def _canonical(value: Any) -> Any:
    """JSON-able, order-independent form: tuples -> lists, paths and unknown objects -> str."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def llm_config(llm: Any) -> dict[str, Any] | None:
    """The result-affecting settings of ``llm`` (None for agents without an LLM).

    ``treegym.agents.llm.info.result_config_of``: ``llm.result_config()`` when the LLM
    defines it (the OpenAI-compatible and local backends do); otherwise ``{"name": llm.name}``
    (scripted and synthetic LLMs put their settings in their name). Wrappers (cache, budget)
    are seen through via their ``llm`` attribute.
    """
    if llm is None:
        return None
    return _canonical(result_config_of(llm))


def experiment_config(
    *,
    env_id: str,
    agent: str,
    env_options: Mapping[str, Any] | None = None,
    split: str | None = None,
    agent_options: Mapping[str, Any] | None = None,
    budget: int | None = None,
    llm: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The experiment as a JSON-able dict (see the module docstring); ``llm`` is :func:`llm_config`'s dict."""
    agent_opts = {k: v for k, v in dict(agent_options or {}).items() if k not in NON_RESULT_AGENT_OPTIONS}
    files = {f"{where}.{k}": digest for where, opts in (("env", env_options), ("agent", agent_opts))
             for k, v in dict(opts or {}).items() if (digest := input_digest(v)) is not None}
    extra = {"input_files": files} if files else {}
    return _canonical({**extra,
        "env_id": env_id,
        "env_options": dict(env_options or {}),
        "split": split,
        "agent": agent,
        "agent_options": agent_opts,
        "budget": budget,
        "llm": dict(llm) if llm is not None else None,
        "seed": int(seed),
        "results_version": RESULTS_VERSION,
    })


_DIGESTS: dict[tuple, str] = {}
_DIGESTS_LOCK = threading.Lock()


def input_digest(value: Any) -> str | None:
    """A sha256 of the content of the file or folder ``value`` names (every file under a folder, with its
    relative path), or None when ``value`` is no path of an existing file or folder.

    Cached per process by path, size and modification time of every file, so each run hashes once.
    """
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip() or len(str(value)) > 4096:
        return None
    try:
        root = Path(value)
        if root.is_file():
            files = [(root.name, root)]
        elif root.is_dir():
            files = sorted((p.relative_to(root).as_posix(), p) for p in root.rglob("*") if p.is_file())
        else:
            return None
        stamp = tuple((name, p.stat().st_size, p.stat().st_mtime_ns) for name, p in files)
    except (OSError, ValueError):
        return None
    key = (str(root.resolve()), stamp)
    with _DIGESTS_LOCK:
        if key in _DIGESTS:
            return _DIGESTS[key]
    h = hashlib.sha256()
    for name, p in files:
        h.update(name.encode() + b"\0")
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    digest = h.hexdigest()[:32]
    with _DIGESTS_LOCK:
        _DIGESTS[key] = digest
    return digest


def config_hash(config: Mapping[str, Any]) -> str:
    """A stable 16-hex-digit digest of ``config`` (canonical JSON with sorted keys)."""
    text = json.dumps(_canonical(dict(config)), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_key(task_id: Any) -> Any:
    """A hashable form of a task id (JSON turns tuples into lists)."""
    return tuple(task_key(t) for t in task_id) if isinstance(task_id, (list, tuple)) else task_id


def episode_key(chash: str, task_id: Any, seed: int) -> tuple[str, Any, int]:
    """The identity of one episode: (config hash, task id, episode seed)."""
    return (chash, task_key(task_id), int(seed))


def record_key(record: Mapping[str, Any]) -> tuple[str, Any, int] | None:
    """:func:`episode_key` of a stored record; None for records without a config."""
    chash = record.get("config_hash")
    if not isinstance(chash, str) or "task_id" not in record or "seed" not in record:
        return None
    try:
        return episode_key(chash, record["task_id"], int(record["seed"]))
    except (TypeError, ValueError):
        return None


# ----------------------------------------------------------------- errors
def classify_error(exc: BaseException) -> str:
    """The ``error_kind`` of an exception that ended an episode (see the module docstring)."""
    if isinstance(exc, BudgetExceeded):
        return "budget"
    if isinstance(exc, AgentGaveUp):
        return "gave_up"
    if isinstance(exc, LLMError):
        return "llm"
    try:
        from concurrent.futures.process import BrokenProcessPool
    except ImportError:  # pragma: no cover
        BrokenProcessPool = ()  # type: ignore[assignment]
    if isinstance(exc, (OSError, BrokenProcessPool)):  # ConnectionError and TimeoutError are OSErrors
        return "infra"
    return "exception"


def failure_counts(records: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """``(gave_up, errors)`` among ``records``: episodes the agent ended without an answer or with
    its budget spent (:data:`AGENT_OUTCOME_KINDS`), and episodes that ended in an LLM,
    infrastructure or code error (any other error, including records with no ``error_kind``).
    Both count as failures in a pass rate; only the second says something went wrong."""
    gave_up = errors = 0
    for r in records:
        if r.get("error"):
            if r.get("error_kind") in AGENT_OUTCOME_KINDS:
                gave_up += 1
            else:
                errors += 1
    return gave_up, errors


def wrong_answers(records: Iterable[Mapping[str, Any]]) -> int:
    """Episodes that ended without an error and without success: the agent answered (or the env ended the
    episode) and was wrong. With :func:`failure_counts` this accounts for every failed episode."""
    return sum(1 for r in records if not r.get("error") and r.get("success") is not True)


def lacks_saved_tree(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` names no saved search tree (``agent_stats.tree_json``) or one whose file is gone.

    A run asked to save trees (``tree_out``, ``--save-trees``) reruns such records instead of reusing
    them: ``tree_out`` is not part of the config, so a record of a run without trees matches."""
    stats = record.get("agent_stats")
    path = stats.get("tree_json") if isinstance(stats, Mapping) else None
    return not isinstance(path, str) or not path or not Path(path).is_file()


def is_retryable(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` failed for an infrastructure reason a rerun should try again."""
    return bool(record.get("error")) and record.get("error_kind") in RETRYABLE_ERROR_KINDS


# ----------------------------------------------------------------- resume
@dataclass
class ResumeState:
    """What a results file holds for the configs asked about.

    ``reusable`` maps :func:`episode_key` -> the record to reuse; ``retry`` maps
    the episodes whose last record is an infrastructure error (rerun them);
    ``other_records`` counts records of other configs, ``tampered_records`` those
    without a config or whose config does not hash to their ``config_hash``.
    """

    reusable: dict[tuple, dict] = field(default_factory=dict)
    retry: dict[tuple, dict] = field(default_factory=dict)
    other_records: int = 0
    tampered_records: int = 0

    def get(self, chash: str, task_id: Any, seed: int) -> dict | None:
        return self.reusable.get(episode_key(chash, task_id, seed))

    def describe(self, wanted: int, path: str | os.PathLike = "") -> str:
        """One line for the user: how many episodes were reused, rerun, and what was ignored."""
        where = f" from {path}" if path else ""
        parts = [f"reused {len(self.reusable)} of {wanted} episodes{where}"]
        if self.retry:
            parts.append(f"rerunning {len(self.retry)} that failed with an infrastructure error")
        ignored = []
        if self.other_records:
            ignored.append(f"{self.other_records} of other settings")
        if self.tampered_records:
            ignored.append(f"{self.tampered_records} whose config is missing or does not match its hash (edited?)")
        if ignored:
            parts.append("not reused: " + ", ".join(ignored) + " records")
        return "; ".join(parts)


def latest_records(records: Iterable[Mapping[str, Any]]) -> dict[tuple, dict]:
    """The last record per :func:`episode_key` (a rerun's record supersedes the one it replaced).

    Records without a config are left out.
    """
    out: dict[tuple, dict] = {}
    for rec in records:
        key = record_key(rec)
        if key is not None:
            out[key] = dict(rec)
    return out


def resume_state(
    records: Iterable[Mapping[str, Any]],
    configs: Iterable[Mapping[str, Any]],
    *,
    retry_errors: bool = True,
) -> ResumeState:
    """Sort ``records`` for the experiment ``configs`` (see the module docstring)."""
    wanted = {config_hash(c) for c in configs}
    state = ResumeState()
    latest: dict[tuple, dict] = {}
    for rec in records:
        key = record_key(rec)
        if key is None:
            state.tampered_records += 1
            continue
        if key[0] not in wanted:
            state.other_records += 1
            continue
        cfg = rec.get("config")
        if not isinstance(cfg, Mapping) or config_hash(cfg) != key[0]:
            state.tampered_records += 1
            continue
        latest[key] = dict(rec)
    for key, rec in latest.items():
        if retry_errors and is_retryable(rec):
            state.retry[key] = rec
        else:
            state.reusable[key] = rec
    return state


def load_reusable_records(
    path: str | os.PathLike,
    configs: Sequence[Mapping[str, Any]],
    *,
    retry_errors: bool = True,
) -> ResumeState:
    """:func:`resume_state` of the records in the results file ``path`` (missing file: nothing to reuse)."""
    return resume_state(ResultsFile(path).load(), configs, retry_errors=retry_errors)
