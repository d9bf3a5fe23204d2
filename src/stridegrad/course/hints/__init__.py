"""Hints in levels: for every exercise, from a nudge to the full idea.

One module per episode, ``epNN.py``, defines ``HINTS = {exercise: [level 1, ...,
level n]}`` with 2 to 4 levels: level 1 is a nudge (where to look, what to think
about), the middle ones narrow it down, the last is the whole idea in words or
pseudo-code. The exercise's docstring states only the contract (what, shapes,
errors, examples); the algorithm lives here, so a learner chooses how much of it
to read.

In a notebook::

    from stridegrad.course import hint
    hint("01", "numel")            # level 1; each further call shows the next level
    hint("01", "numel", level=3)   # jump to a level

The levels already shown are remembered per kernel (a restarted kernel starts
at level 1 again). :func:`stridegrad.course.check` shows level 1 under a failing
exercise whose mistake it cannot name.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import textwrap

__all__ = ["HINT_WIDTH", "by_episode", "for_episode", "hint", "levels", "nudge", "pointer"]

#: Width of the printed hint text.
HINT_WIDTH = 88

# (episode, exercise) -> the last level shown in this kernel
_SHOWN: dict[tuple[str, str], int] = {}


def _episode(lesson: int | str) -> str:
    from stridegrad.course.checks import _episode_of
    return _episode_of(lesson)


@functools.cache
def for_episode(episode: str) -> dict[str, list[str]]:
    """The hint levels of an episode (``"01"``), by exercise; {} when it has none."""
    name = f"{__name__}.ep{episode}"
    if importlib.util.find_spec(name) is None:
        return {}
    return importlib.import_module(name).HINTS


def by_episode() -> dict[str, dict[str, list[str]]]:
    """Every episode's hints: ``{"01": {exercise: [level 1, ...]}, ...}``."""
    return {m.name[2:]: for_episode(m.name[2:]) for m in pkgutil.iter_modules(__path__)
            if m.name.startswith("ep") and m.name[2:].isdigit()}


def levels(lesson: int | str, exercise: str) -> list[str]:
    """The hint levels of one exercise.

    Raises:
        LookupError: naming the lessons that have hints, for a lesson without any.
        ValueError: naming the lesson's exercises, for an exercise it does not have.
    """
    episode = _episode(lesson)
    hints = for_episode(episode)
    if not hints:
        known = ", ".join(f'"{ep}"' for ep, h in sorted(by_episode().items()) if h)
        raise LookupError(f"lesson {episode} has no hints; lessons with hints: {known}")
    if exercise not in hints:
        names = ", ".join(f'"{ex}"' for ex in hints)
        raise ValueError(f"lesson {episode} has no exercise {exercise!r}; its exercises are "
                         f"{names}")
    return hints[exercise]


def pointer(episode: str, exercise: str) -> str:
    """How to ask for more: ``hint("01", "numel")``."""
    return f'hint("{episode}", "{exercise}")'


def nudge(episode: str, exercise: str) -> str:
    """Level 1 of an exercise's hints and where the next level is ("" when it has none)."""
    try:
        first = levels(episode, exercise)[0]
    except (LookupError, ValueError):
        return ""
    return f"{first} (more: {pointer(episode, exercise)})"


def _level_of(episode: str, exercise: str, level: int | None, n: int) -> int:
    if level is None:
        return _SHOWN.get((episode, exercise), 0) + 1
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"level must be an int from 1 to {n}, got {level!r}")
    if not 1 <= level <= n:
        raise ValueError(f"{exercise} (lesson {episode}) has hint levels 1 to {n}, "
                         f"not {level}")
    return level


def hint(lesson: int | str, exercise: str, level: int | None = None) -> None:
    """Print the next hint level for an exercise (or level ``level``).

    Each call without ``level`` prints the level after the last one shown in this
    kernel, from 1 (a nudge) up to the last (the full idea), then says there is no
    more. ``level=k`` prints level ``k`` and goes on from there.

    Args:
        lesson: the lesson, as for ``check``: ``"01"``, ``1`` or ``"01_flat_storage"``.
        exercise: the exercise's name, as in ``check("01", "numel")``.
        level: the level to show, from 1 to the number of levels.

    Raises:
        LookupError: for a lesson without hints (naming those with hints).
        ValueError: for an unknown exercise (naming the lesson's exercises) or a
            level out of range (naming the range).
    """
    episode = _episode(lesson)
    texts = levels(episode, exercise)
    n = len(texts)
    k = _level_of(episode, exercise, level, n)
    if k > n:
        print(f"No more hints for {exercise}: you have seen all {n} levels "
              f"({pointer(episode, exercise)[:-1]}, level={n}) shows the last again).")
        return
    _SHOWN[(episode, exercise)] = k
    what = "the full idea" if k == n else ("a nudge" if k == 1 else "more")
    print(f"Hint {k} of {n} for {exercise} (lesson {episode}), {what}:")
    for paragraph in texts[k - 1].split("\n\n"):
        if paragraph.startswith("    ") or "\n    " in paragraph:  # pseudo-code: as written
            print(textwrap.indent(textwrap.dedent(paragraph), "    "))
        else:
            print(textwrap.fill(" ".join(paragraph.split()), HINT_WIDTH,
                                initial_indent="    ", subsequent_indent="    "))
    if k < n:
        print(f"Next level: {pointer(episode, exercise)}")
    else:
        print("That was the last level.")
