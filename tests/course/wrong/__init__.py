"""Known-wrong implementations of every exercise, as ``(label, source)`` pairs: a thin
view of the package's misconceptions (``stridegrad.course.misconceptions``), which
also carry the diagnosis each gets. Every checkpoint must fail all of them.

New known mistakes go into ``src/stridegrad/course/misconceptions/epNN.py`` with
their diagnosis. A module here, ``epNN.py`` defining ``WRONG = {exercise: [(label,
source)]}``, is still read (for an episode without misconceptions yet): its entries
must be rejected, but get no diagnosis until they move into the package.
"""

from __future__ import annotations

import importlib
import pkgutil

from stridegrad.course.misconceptions import by_episode as _misconceptions_by_episode
from stridegrad.course.misconceptions import for_episode

__all__ = ["WRONG", "by_episode", "pairs"]


def _legacy(episode: str) -> dict[str, list[tuple[str, str]]]:
    if not any(m.name == f"ep{episode}" for m in pkgutil.iter_modules(__path__)):
        return {}
    return importlib.import_module(f"{__name__}.ep{episode}").WRONG


def pairs(episode: str) -> dict[str, list[tuple[str, str]]]:
    """Episode ``episode``'s known-wrong implementations: {exercise: [(label, source)]}."""
    out = {ex: [(m.label, m.source) for m in ms] for ex, ms in for_episode(episode).items()}
    for ex, cases in _legacy(episode).items():
        out.setdefault(ex, []).extend(cases)
    return out


def by_episode() -> dict[str, dict[str, list[tuple[str, str]]]]:
    episodes = set(_misconceptions_by_episode()) | {
        m.name[2:] for m in pkgutil.iter_modules(__path__)
        if m.name.startswith("ep") and m.name[2:].isdigit()}
    return {ep: pairs(ep) for ep in sorted(episodes)}


WRONG = {ex: cases for cases_by_ex in by_episode().values() for ex, cases in cases_by_ex.items()}
