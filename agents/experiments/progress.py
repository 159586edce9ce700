"""The progress bar of a run (tqdm when installed, else nothing) and its live search postfix."""
from __future__ import annotations

import contextlib
import sys
import time
from typing import Any, Callable, ContextManager

from ..search.telemetry import listening, progress_line




class _NoBar:
    def update(self, n: int) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


def _search_postfix(bar: Any, every_s: float = 0.5) -> Callable[[dict], None]:
    """A telemetry listener showing the latest search figures on ``bar`` (redrawn at most every ``every_s``)."""
    last = [0.0]

    def show(figures: dict) -> None:
        now = time.monotonic()
        if now - last[0] >= every_s:
            last[0] = now
            bar.set_postfix_str(progress_line(figures))

    return show


def search_figures_on(bar: Any) -> ContextManager[Any]:
    """Show every search's live figures on ``bar`` while inside the block; nothing at all (no telemetry
    listener, so searches compute no per-expansion figures) when the bar is silent."""
    if isinstance(bar, _NoBar):
        return contextlib.nullcontext()
    return listening(_search_postfix(bar))


def progress_bar(total: int, desc: str, enabled: bool, initial: int = 0) -> Any:
    """A tqdm bar over ``total`` episodes on stderr (``initial`` already done), or a silent
    stand-in when disabled or there is nothing to do. Used by ``run`` and ``sweep``."""
    if not enabled or total == 0:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="ep", file=sys.stderr, dynamic_ncols=True)
