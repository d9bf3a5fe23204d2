"""One checkpoint module per episode: ``epNN.py`` defines ``checkpoint``.

They are plain Python, visible to learners: reading a test is a fine way to
understand what an exercise asks. ``stridegrad.course.check("NN")`` runs them.
"""

from __future__ import annotations

import pkgutil

__all__ = ["available"]


def available() -> list[str]:
    """Episodes that have a checkpoint, as two-digit strings, in order."""
    return sorted(m.name[2:] for m in pkgutil.iter_modules(__path__)
                  if m.name.startswith("ep") and m.name[2:].isdigit())
