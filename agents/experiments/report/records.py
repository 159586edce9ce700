"""Reading run files for ``treegym report``: records, cells and their episodes.

A *run file* is the JSONL that ``treegym run`` / ``treegym sweep`` append to,
one episode record per line. ``load_runs(paths)`` reads any number of them
(folders are searched for ``*.jsonl``), skips a torn last line (a run killed
mid-write, reported on stderr, the file is not touched), and refuses a line
that is not JSON with the file and line number.

A *cell* is one experimental condition: env (with its options), agent (with
its options), LLM and LLM call budget. They come from the record's ``config``
(``agents/runs.py``: every record of treegym run/sweep carries it) or, for
older records, from top-level ``budget`` / ``agent_options`` fields; a record
with neither has budget ``None`` ("the agent's own"). Records of different run
seeds of one condition are replicates of one cell.

What a cell says about its LLM beyond the name comes from the record's
``llm_info`` (what the LLM declared, ``treegym.agents.llm.info.LLMInfo``): whether
it was simulated and its price. The report never guesses it from the name; a
record written before ``llm_info`` existed counts as a real model of unknown price.

Which records count, following ``agents/runs.py``:

* within a file, the *last* record of an episode (config hash, task, seed)
  supersedes earlier ones (a rerun of an infrastructure failure);
* a record whose ``success`` is not a JSON boolean (``"false"``, 1, null) is
  refused with its file and line: a string would count as a pass;
* a record whose ``config`` does not hash to its ``config_hash`` (edited) is
  left out, and so is an episode whose final record is an infrastructure
  error (LLM unreachable, worker died: not the agent's result; rerun the
  command to retry it); both are counted and reported;
* the same episode met in two files (a file passed twice, a copy) is counted
  once; two *different* outcomes for one episode are an error, since
  averaging them would report a number no single run produced.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ....envs.core.utf8_json import load_line
from ..runs import config_hash, is_retryable as retryable, record_key


class RunFileError(ValueError):
    """A run file cannot be read as treegym records; the message says which file and line."""


@dataclass(frozen=True, order=True)
class Cell:
    """One condition of an experiment (see module docstring)."""

    env_id: str
    agent: str
    llm: str
    budget: int | None = None
    options: str = ""  # the agent options as canonical JSON ("" when none)
    env_options: str = ""  # the gym.make kwargs as canonical JSON ("" when none)
    #: what the LLM declared about itself (the record's ``llm_info``, ``treegym.agents.llm.info.LLMInfo``):
    #: a simulated model, and its price in USD per 1M (input, output) tokens (None: not declared)
    simulated: bool = field(default=False, compare=False)
    price: tuple[float, float] | None = field(default=None, compare=False)

    @property
    def agent_label(self) -> str:
        """The agent name with its options (and env options), e.g. ``elo(explorations=10)``."""
        label = self.agent
        if self.options:
            opts = json.loads(self.options)
            label += "(" + ",".join(f"{k}={v}" for k, v in sorted(opts.items())) + ")"
        if self.env_options:
            opts = json.loads(self.env_options)
            label += " [env " + ",".join(f"{k}={v}" for k, v in sorted(opts.items())) + "]"
        return label


def llm_info(record: dict) -> tuple[bool, tuple[float, float] | None]:
    """(simulated, price) as the LLM declared them in the record's ``llm_info``; (False, None) for a record
    without one (no LLM, or written before records carried it)."""
    info = record.get("llm_info")
    if not isinstance(info, dict):
        return False, None
    price = info.get("price")
    ok = isinstance(price, (list, tuple)) and len(price) == 2 and all(isinstance(p, (int, float)) for p in price)
    return info.get("simulated") is True, (float(price[0]), float(price[1])) if ok else None


def record_config(record: dict) -> dict:
    """The experiment config a record carries (``config``), or the empty dict."""
    cfg = record.get("config")
    return cfg if isinstance(cfg, dict) else {}


def record_budget(record: dict) -> int | None:
    cfg = record_config(record)
    budget = cfg.get("budget", record.get("budget"))
    return None if budget in (None, "", "none") else int(budget)


def record_options(record: dict) -> dict:
    cfg = record_config(record)
    opts = cfg.get("agent_options", record.get("agent_options")) or {}
    # tree_out names a file, not a condition: two runs differing only there are one cell
    return {k: v for k, v in dict(opts).items() if k != "tree_out"}


def cell_of(record: dict) -> Cell:
    opts = record_options(record)
    env_opts = record_config(record).get("env_options") or {}
    simulated, price = llm_info(record)
    return Cell(
        env_id=str(record["env_id"]), agent=str(record["agent"]), llm=str(record.get("llm") or "none"),
        budget=record_budget(record),
        options=json.dumps(opts, sort_keys=True, default=str) if opts else "",
        env_options=json.dumps(env_opts, sort_keys=True, default=str) if env_opts else "",
        simulated=simulated, price=price,
    )


def _task_key(task_id: Any) -> Any:
    return tuple(task_id) if isinstance(task_id, list) else task_id


def episode_key(record: dict) -> tuple:
    return (record.get("config_hash") or cell_of(record), json.dumps(_task_key(record.get("task_id")), default=str),
            record.get("seed"))


def succeeded(record: dict) -> bool:
    """The record's ``success``, which must be a real boolean (``"false"`` is truthy; never count it as a pass)."""
    value = record.get("success")
    if not isinstance(value, bool):
        raise RunFileError(f"episode {record.get('env_id')} task {record.get('task_id')!r}: \"success\" must be "
                           f"true or false, got {value!r}")
    return value


def is_retryable(record: dict) -> bool:
    return retryable(record)


OUTCOME_FIELDS = ("success", "reward", "steps", "actions", "error")


@dataclass
class Runs:
    """Records read from run files, one per episode, grouped by cell."""

    records: list[dict] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    duplicates: int = 0
    superseded: int = 0  # earlier records of an episode rerun later in the same file
    tampered: int = 0  # config does not hash to config_hash
    infra_errors: int = 0  # episodes whose final record is an infrastructure error (left out)

    def warnings(self) -> list[str]:
        out = []
        if self.infra_errors:
            out.append(f"{self.infra_errors} episodes ended with an infrastructure error (LLM unreachable, worker "
                       "died) and are left out of every number; rerun the same command to retry them")
        if self.tampered:
            out.append(f"{self.tampered} records whose config does not match their config_hash (edited?) "
                       "are left out")
        if self.duplicates:
            out.append(f"{self.duplicates} records appeared more than once (same episode, same outcome) "
                       "and were counted once")
        return out

    def cells(self) -> dict[Cell, list[dict]]:
        out: dict[Cell, list[dict]] = {}
        for r in self.records:
            out.setdefault(cell_of(r), []).append(r)
        return dict(sorted(out.items(), key=lambda kv: (kv[0].env_id, kv[0].agent_label, kv[0].llm,
                                                         kv[0].budget if kv[0].budget is not None else -1)))

    def envs(self) -> list[str]:
        return sorted({str(r["env_id"]) for r in self.records})


def _files(paths: Sequence[str | Path]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        try:
            is_dir, exists = p.is_dir(), p.exists()
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte
            raise RunFileError(f"{str(p)[:80]!r}: not a usable file or folder name ({exc.args[-1]})") from None
        if is_dir:
            files += _run_files_under(p)
        elif exists:
            files.append(p)
        else:
            raise RunFileError(f"{p}: no such file or folder")
    return files


#: Files and folders a report looks at under one folder argument before it asks for a narrower one.
MAX_WALK_ENTRIES = 100_000
#: Kernel pseudo file systems: never run folders, and endless to walk.
PSEUDO_FS = ("/proc", "/sys", "/dev", "/run")


def _run_files_under(root: Path) -> list[Path]:
    """The ``*.jsonl`` files under ``root`` (not LLM caches), without following links into other folders and
    without entering :data:`PSEUDO_FS`; :class:`RunFileError` after :data:`MAX_WALK_ENTRIES` entries."""
    seen, found = 0, []
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if os.path.join(folder, d) not in PSEUDO_FS)
        seen += len(dirs) + len(names)
        if seen > MAX_WALK_ENTRIES:
            raise RunFileError(f"{root}: more than {MAX_WALK_ENTRIES:,} files and folders to look through for run "
                               "files; name the run folder or the .jsonl files themselves (e.g. runs/)")
        found += [Path(folder) / n for n in names if n.endswith(".jsonl") and not n.endswith(".cache.jsonl")]
    return sorted(found)


def read_run_file(path: Path, runs: "Runs | None" = None) -> list[dict]:
    """The final episode records of one file (see module docstring; lines without ``env_id``/``agent``
    are skipped). Counts of superseded and edited records go to ``runs``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RunFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    lines = raw.split(b"\n")
    if lines and lines[-1].strip():
        try:  # a complete record that lacks only its newline counts (a rerun keeps it too)
            json.loads(lines[-1].decode("utf-8"))
            lines.append(b"")
        except (ValueError, RecursionError):
            print(f"treegym report: {path}: ignoring an unfinished last line (a run was killed mid-write)",
                  file=sys.stderr)
    out = []
    for no, line in enumerate(lines[:-1], 1):
        if not line.strip():
            continue
        try:
            rec = load_line(line, where=str(path), line_no=no, what_to_do="fix or remove that line; is this a "
                            "treegym run file?")
        except ValueError as exc:
            raise RunFileError(str(exc)) from None
        if isinstance(rec, dict) and "env_id" in rec and "agent" in rec:
            if not isinstance(rec.get("success"), bool):
                raise RunFileError(f"{path}:{no}: \"success\" must be true or false, got {rec.get('success')!r}; "
                                   "a treegym run writes a JSON boolean (was this line edited or written by "
                                   "another tool?)")
            out.append(rec)

    final: dict[Any, dict] = {}
    for i, rec in enumerate(out):
        key = record_key(rec)
        if key is not None:
            cfg = rec.get("config")
            if not isinstance(cfg, dict) or config_hash(cfg) != key[0]:
                if runs is not None:
                    runs.tampered += 1
                continue
            if key in final and runs is not None:
                runs.superseded += 1
        final[key if key is not None else ("legacy", i)] = rec
    return list(final.values())


def load_runs(paths: Iterable[str | Path]) -> Runs:
    """All episode records in ``paths`` (files or folders), each episode once (see module docstring)."""
    runs = Runs()
    seen: dict[tuple, tuple[dict, str]] = {}
    for path in _files(list(paths)):
        runs.sources.append(str(path))
        for rec in read_run_file(path, runs):
            if is_retryable(rec):
                runs.infra_errors += 1
                continue
            key = episode_key(rec)
            if key in seen:
                first, where = seen[key]
                if any(first.get(f) != rec.get(f) for f in OUTCOME_FIELDS):
                    raise RunFileError(
                        f"{path}: episode {rec.get('env_id')} task {rec.get('task_id')} seed {rec.get('seed')} "
                        f"agent {rec.get('agent')} LLM {rec.get('llm')} appears again with a different outcome "
                        f"(first in {where}); report one of the runs, not both")
                runs.duplicates += 1
                continue
            seen[key] = (rec, str(path))
            runs.records.append(rec)
    return runs
