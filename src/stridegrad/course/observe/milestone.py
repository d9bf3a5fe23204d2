"""A lesson's milestone on a graded notebook's own functions (``stridegrad grade --yours``).

The grader runs the milestone of :mod:`stridegrad.course.milestones` (lessons 04, 08, 09,
12) in the notebook's own process, after its tests, as one more observation: the judge
(:mod:`stridegrad.course._judge`) knows which of the lesson's exercises passed every one
of their tests in this grade, builds the library's plan here (:func:`library_plan`:
each library exercise of the lessons up to this one that the library calls, and whether
the notebook's function stands in for it) and asks the worker to run :func:`on_library`
on the notebook's functions. Only plain data comes back (the value, what the run did,
which of the notebook's functions and which of the reference's it called, the error that
stopped it); no test, expected value or verdict enters the notebook's process, only the
names of the exercises whose functions are used.

What comes back is computed where the notebook's code runs, so a notebook can forge it:
the grader reports it as advice (no points), never as a grade.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["library_plan", "on_library", "passing_exercises"]


def passing_exercises(rows: Iterable) -> set[str]:
    """The exercises every row of which passed (a checkpoint result's rows)."""
    seen: dict[str, bool] = {}
    for r in rows:
        seen[r.exercise] = seen.get(r.exercise, True) and bool(r.passed)
    return {ex for ex, ok in seen.items() if ok}


def library_plan(lesson: str, passing: set[str]) -> list[list]:
    """Each library exercise of the lessons up to ``lesson`` (``"09"``) that the library
    calls: ``[episode, name, "module:function", mine]``, ``mine`` when it is one of
    ``lesson``'s exercises in ``passing`` (the notebook's function then stands in for it).
    Read where the course's lesson modules can be read (the judge), and sent as data."""
    from stridegrad.course.yours import _called, library_exercises

    key = f"{int(lesson):02d}"
    plan = []
    for episode, targets in sorted(library_exercises().items()):
        if episode > key:
            continue
        for name, target in targets.items():
            if _called(target):
                plan.append([episode, name, target, episode == key and name in passing])
    return plan


def on_library(first: Callable, lesson: str, functions: dict, plan: list) -> dict:
    """Run ``lesson``'s milestone (:func:`stridegrad.course.milestones.run_milestone`)
    on the library with ``functions`` (exercise name -> the notebook's function; ``first``
    is one of them, the observation's handle) where :func:`library_plan`'s ``plan`` says
    ``mine``, and the reference everywhere else. Plain data: ``value``, ``what``,
    ``yours`` and ``reference`` (the exercises it called, by whose function), ``problem``
    (the error that stopped it, naming the function of the notebook's)."""
    from stridegrad.course.milestones import run_milestone
    from stridegrad.course.yours import Lesson, Library, Piece

    lessons: dict[str, list] = {}
    for episode, name, target, mine in plan:
        fn = functions.get(name) if mine else None
        lessons.setdefault(str(episode), []).append(Piece(
            str(episode), str(name), str(target), passed=callable(fn),
            why="passes" if callable(fn) else "the reference", function=fn))
    library = Library(Path("."), [Lesson(e, "", None, pieces) for e, pieces in lessons.items()])
    result = run_milestone(lesson, library)
    value = float(result.value)
    return {"value": value, "what": str(result.what), "yours": list(result.yours),
            "reference": list(result.reference), "problem": str(result.problem)}
