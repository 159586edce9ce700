"""Checks on a run's inputs, done before any episode starts.

Each check raises :class:`InputError` with one line that names the flag and
the value that is wrong and says what would be right; ``treegym run`` prints
it and exits 2. Used by ``treegym run`` (and commands built on it).

* :func:`parse_tasks` - the ``--tasks`` syntax (``A:B`` end excluded, or ``3,5,9``);
* :func:`select_tasks` - the task list of a run, checked against the env's own
  task ids (``--tasks`` must name tasks of ``--split`` when both are given);
* :func:`check_env_options` - ``--env-opt`` keys against the env constructor,
  then (given ``make``: ``treegym sweep``) one real construction so a bad value fails now;
  ``treegym run`` makes its first episode's env up front instead (``evaluate``);
* :func:`check_agent_options` - checks the agent once (``registry.check_agent``: without
  building it); when that fails, names the ``--agent-opt`` that caused it.
"""
from __future__ import annotations

import inspect
import os
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

# gym.make's own keyword arguments (not passed to the env constructor).
GYM_MAKE_KWARGS = frozenset({"max_episode_steps", "disable_env_checker", "autoreset", "apply_api_compatibility",
                             "render_mode"})


MAX_TASKS = 1_000_000  # a range longer than this is a typo, and building it would exhaust memory


class InputError(ValueError):
    """A run input is wrong; the message is one line saying which and how to fix it."""


def parse_tasks(text: str) -> list[Any]:
    """``"900:905"`` -> ``[900, ..., 904]``; ``"3,5,9"`` -> ``[3, 5, 9]``; non-numeric items stay strings."""
    raw = text
    text = text.strip()
    if re.fullmatch(r"\d+\s*-\s*\d+", text):
        a, b = (int(x) for x in text.split("-"))
        raise InputError(f"--tasks {raw}: a range is written A:B (end excluded), e.g. --tasks {a}:{b + 1}")
    if ":" in text:
        m = re.fullmatch(r"(\d+)\s*:\s*(\d+)", text)
        if not m:
            raise InputError(f"--tasks {raw}: a range is A:B with two whole numbers, e.g. --tasks 900:905")
        a, b = int(m.group(1)), int(m.group(2))
        if b <= a:
            raise InputError(f"--tasks {raw}: the range end must be greater than its start (A:B, end excluded)")
        if b - a > MAX_TASKS:
            raise InputError(f"--tasks {raw}: {b - a} tasks is more than any env has (at most {MAX_TASKS}); "
                             "check the range")
        return list(range(a, b))
    items = [t.strip() for t in text.split(",")]
    if not text or any(not t for t in items):
        raise InputError(f"--tasks {raw}: give a range A:B or a comma list of task ids such as 3,5,9 (no empty items)")
    tasks = [int(t) if re.fullmatch(r"\d+", t) else t for t in items]
    seen: set = set()
    for t in tasks:
        if t in seen:
            raise InputError(f"--tasks {raw}: task {t!r} is listed twice")
        seen.add(t)
    return tasks


def _describe_ids(ids: Sequence[Any]) -> str:
    if ids and all(isinstance(i, int) for i in ids):
        lo, hi = min(ids), max(ids)
        if hi - lo + 1 == len(ids):
            return f"ids {lo}..{hi}"
        return f"{len(ids)} ids between {lo} and {hi}"
    preview = ", ".join(map(repr, list(ids)[:5]))
    return f"{len(ids)} ids ({preview}{', ...' if len(ids) > 5 else ''})"


def env_task_ids(env_cls: type, split: str, env_kwargs: Mapping[str, Any] | None = None) -> list[Any] | None:
    """The task ids of ``split`` as the env lists them, or None when the env does not list its ids.

    Data-selecting env options (``catalog=``, ``data_path=``) reach ``split_task_ids``
    when it takes them. Raises :class:`InputError` for an unknown split.
    """
    lister = getattr(env_cls, "split_task_ids", None)
    if lister is None:
        return None
    try:
        params = inspect.signature(lister).parameters
        extra = {k: v for k, v in (env_kwargs or {}).items() if k in params and k != "split"}
    except (TypeError, ValueError):
        extra = {}
    try:
        return list(lister(split, **extra))
    except NotImplementedError:
        return None
    except (KeyError, ValueError) as exc:
        splits = _split_names(env_cls)
        hint = f"; its splits: {', '.join(splits)}" if splits else ""
        msg = exc.args[0] if exc.args else exc
        raise InputError(f"--split {split}: {msg}{hint}") from None
    except Exception as exc:  # noqa: BLE001 - e.g. a data file the env cannot read
        raise InputError(f"cannot list the tasks of split {split!r}: {type(exc).__name__}: {exc}") from None


def _split_names(env_cls: type) -> list[str]:
    try:
        return list(env_cls.task_counts())
    except Exception:  # noqa: BLE001 - only for a hint
        return []


def select_tasks(env_id: str, env_cls: type, tasks: str | None, split: str | None,
                 env_kwargs: Mapping[str, Any] | None = None) -> tuple[list[Any], str | None]:
    """The task ids of a run and the split recorded for it.

    No ``--tasks``: every task of ``split`` (default: ``test``, else ``all``, else
    the first split the env lists, e.g. ALFWorld's ``valid_unseen`` or the
    ``all`` of a TextWorld ``game_dir``). With ``--tasks``: those ids, each of
    which must be a task of ``split`` when one is given, else a task of the env
    at all (its ``all`` split, else one of the splits it lists, which is then
    the split recorded and played).
    """
    if tasks is None:
        chosen = split or default_split(env_cls, env_kwargs)
        ids = env_task_ids(env_cls, chosen, env_kwargs)
        if ids is None:
            raise InputError(f"{env_id} does not list the task ids of its splits; pass --tasks explicitly")
        if not ids:
            raise InputError(f"--split {chosen}: {env_id} has no tasks in this split")
        return ids, chosen
    wanted = parse_tasks(tasks)
    where, known = f"split {split!r} of {env_id}", None
    if split is not None:
        known = env_task_ids(env_cls, split, env_kwargs)
    else:
        where = env_id
        try:
            known = env_task_ids(env_cls, "all", env_kwargs)
        except InputError:  # no "all" split: the splits the env lists, the first that holds every task
            known, by_split = _listed_split_ids(env_cls, env_kwargs)
            for name, ids in by_split.items():
                if set(wanted) <= set(ids):
                    split = name
                    break
    if known is not None:
        known_set = set(known)
        missing = [t for t in wanted if t not in known_set]
        if missing:
            preview = ", ".join(map(repr, missing[:5])) + (f", ... ({len(missing)} in all)" if len(missing) > 5 else "")
            raise InputError(f"--tasks {tasks}: not task(s) of {where}: {preview}; it has {_describe_ids(known)}")
    return wanted, split


def _listed_split_ids(env_cls: type, env_kwargs: Mapping[str, Any] | None) -> tuple[list | None, dict[str, list]]:
    """The ids of every split the env lists (``task_counts``) that it can list with these options, and per split."""
    by_split: dict[str, list] = {}
    for name in _split_names(env_cls):
        try:
            ids = env_task_ids(env_cls, name, env_kwargs)
        except InputError:
            continue
        if ids is not None:
            by_split[name] = ids
    if not by_split:
        return None, by_split
    return [t for ids in by_split.values() for t in ids], by_split


def default_split(env_cls: type, env_kwargs: Mapping[str, Any] | None = None) -> str:
    """``test`` when the env (with these options) has it, else ``all``, else the first split it lists."""
    names = ["test", "all"] + [n for n in _split_names(env_cls) if n not in ("test", "all")]
    for name in names:
        try:
            if env_task_ids(env_cls, name, env_kwargs) is not None:
                return name
        except InputError:
            continue
    return "test"  # the env lists nothing: the caller's message names the split it tried


def check_output_file(path: str | Path, flag: str = "--out") -> None:
    """Raise :class:`InputError` unless ``path`` can be a results file: not a folder, in a folder that
    exists or can be made, writable."""
    try:
        p = Path(path)
        if p.is_dir():
            raise InputError(f"{flag} {path}: is a folder; give a file name such as {p / 'results.jsonl'}")
        _check_folder(p.parent, flag, path)
        if p.exists() and not os.access(p, os.W_OK):
            raise InputError(f"{flag} {path}: the file is not writable; choose another {flag}")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{flag} {str(path)[:80]!r}: not a usable file name ({exc.args[-1]})") from None


def check_output_folder(path: str | Path, flag: str = "--out") -> None:
    """Raise :class:`InputError` unless ``path`` is a folder that exists or can be made, and is writable."""
    try:
        _check_folder(Path(path), flag, path)
    except (OSError, ValueError) as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"{flag} {str(path)[:80]!r}: not a usable folder name ({exc.args[-1]})") from None


def _check_folder(folder: Path, flag: str, given: Any) -> None:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{flag} {given}: {existing} is a file, not a folder; choose another {flag}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {given}: cannot write in {existing} (permission denied); choose another {flag}")


def check_env_options(env_id: str, env_cls: type, env_kwargs: Mapping[str, Any],
                      make: Callable[..., Any] | None = None) -> None:
    """Unknown ``--env-opt`` keys, then one construction (``make(env_id, **env_kwargs)``), raise :class:`InputError`."""
    try:
        params = inspect.signature(env_cls.__init__).parameters
    except (TypeError, ValueError):
        params = {}
    if params and not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        accepted = [n for n, p in params.items() if n != "self" and p.kind is not inspect.Parameter.VAR_POSITIONAL]
        unknown = sorted(set(env_kwargs) - set(accepted) - GYM_MAKE_KWARGS)
        if unknown:
            raise InputError(f"--env-opt {', '.join(unknown)}: {env_id} has no such option; "
                             f"it takes: {', '.join(accepted)}")
    if make is None:
        return
    try:
        env = make(env_id, **env_kwargs)
    except Exception as exc:  # noqa: BLE001 - any construction failure is the user's input
        shown = ", ".join(f"{k}={v!r}" for k, v in env_kwargs.items()) or "no options"
        raise InputError(f"cannot make {env_id} with {shown}: {type(exc).__name__}: {exc}") from None
    env.close()


def check_agent_options(build: Callable[[dict], Any], agent: str, options: Mapping[str, Any]) -> None:
    """Check the agent with ``options`` once; on failure name the option(s) that caused it.

    ``build(options)`` checks (``registry.check_agent``) or constructs the agent. When it raises, it
    is called again without each option in turn: an option whose removal makes it pass is the one
    named.
    """
    try:
        build(dict(options))
        return
    except Exception as exc:  # noqa: BLE001 - reported with the option named
        error = f"{type(exc).__name__}: {exc.args[0] if exc.args else exc}"
    culprits = []
    for key in options:
        rest = {k: v for k, v in options.items() if k != key}
        try:
            build(rest)
        except Exception:  # noqa: BLE001
            continue
        culprits.append(key)
    if culprits:
        shown = ", ".join(f"{k}={options[k]!r}" for k in culprits)
        raise InputError(f"--agent-opt {shown}: agent {agent!r} rejects it: {error}")
    if options:
        shown = ", ".join(f"{k}={v!r}" for k, v in options.items())
        raise InputError(f"agent {agent!r} with --agent-opt {shown}: {error}")
    raise InputError(f"agent {agent!r}: {error}")
