"""Known mistakes: for each exercise, wrong implementations a learner might write,
each with the diagnosis :func:`stridegrad.course.check` shows when a learner's
function fails the tests in exactly the same way.

One module per episode, ``epNN.py``, defines ``MISCONCEPTIONS = {exercise:
[Misconception(label, diagnosis, source), ...]}``. ``source`` defines the
exercise's function (and anything it needs: it runs alone, in a fresh namespace);
``diagnosis`` says what the mistake is and what it visibly does. The test suite
checks that every checkpoint rejects every misconception and tells each one apart
from the others of its exercise.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import textwrap
from dataclasses import dataclass

__all__ = ["Misconception", "by_episode", "fill", "for_episode"]


def fill(template: str, **parts: str) -> str:
    """A misconception's source from a template shared by its variants: each
    ``{NAME}`` in ``template`` replaced by ``parts["NAME"]``, in the order given."""
    for name, text in parts.items():
        template = template.replace("{" + name + "}", text)
    return template


@dataclass(frozen=True)
class Misconception:
    """One known mistake in one exercise."""

    label: str  # a few words, unique within the exercise ("reversed strides")
    diagnosis: str  # the mistake and its visible consequence, shown to the learner
    source: str  # Python source defining the wrong function, self-contained
    #: its results hold numbers that vary from run to run (counts, timings): it is
    #: recognised by the learner's outcomes with every number masked. Off for the
    #: others, where a number is the evidence (a numel that returns 7 is not one that
    #: returns len(shape))
    varies: bool = False

    def __post_init__(self):
        if not self.label or not self.diagnosis.strip() or not self.source.strip():
            raise ValueError(f"misconception {self.label!r} needs a label, a diagnosis "
                             "and a source")

    def define(self) -> dict:
        """Run the source as a notebook cell does, in a fresh ``__main__`` namespace."""
        ns = {"__name__": "__main__"}
        code = compile(textwrap.dedent(self.source), f"<misconception: {self.label}>", "exec")
        exec(code, ns)
        return ns


@functools.cache
def for_episode(episode: str) -> dict[str, list[Misconception]]:
    """The misconceptions of an episode (``"01"``), by exercise; {} when it has none."""
    name = f"{__name__}.ep{episode}"
    if importlib.util.find_spec(name) is None:
        return {}
    return importlib.import_module(name).MISCONCEPTIONS


def by_episode() -> dict[str, dict[str, list[Misconception]]]:
    """Every episode's misconceptions: ``{"01": {exercise: [...]}, ...}``."""
    return {m.name[2:]: for_episode(m.name[2:]) for m in pkgutil.iter_modules(__path__)
            if m.name.startswith("ep") and m.name[2:].isdigit()}
