"""Known-wrong implementations of every exercise: each checkpoint must fail them.

One module per episode, ``epNN.py``, defining ``WRONG = {exercise: [(label,
source), ...]}`` where ``source`` defines the exercise's function the way a
learner might get it wrong (reversed strides, a forgotten offset...). Lesson
authors add a module next to their checkpoint; ``test_checks.py`` requires at
least one entry per exercise and runs them all.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["WRONG", "by_episode"]


def by_episode() -> dict[str, dict[str, list[tuple[str, str]]]]:
    out = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("ep") and info.name[2:].isdigit():
            out[info.name[2:]] = importlib.import_module(f"{__name__}.{info.name}").WRONG
    return out


WRONG = {ex: cases for cases_by_ex in by_episode().values() for ex, cases in cases_by_ex.items()}
