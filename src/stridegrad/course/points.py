"""An instructor's points file: the checkpoint's points per test, overridden.

``stridegrad grade --points FILE`` (and ``stridegrad check --points FILE``, to
reproduce a grade) reads a small TOML file with two optional tables::

    # points for lesson 01
    [tests]
    numel_of_a_scalar = 2              # this test is worth 2 points
    strides_with_a_zero_size = "skip"  # this test is not run and not counted

    [exercises]
    index_to_offset = 16               # its 8 tests share 16 points: 2 each
    offset_to_index = 0                # its tests run and show, worth nothing
    contiguous_strides = "skip"        # none of its tests run

A test is named as in the checkpoint (``stridegrad/course/checkpoints/epNN.py``)
or in the ``--extra-tests`` file; an exercise as the function the learner writes.
``[tests]`` gives one test's points (a whole number, 0 or more) or ``"skip"``.
``[exercises]`` gives an exercise's total, split evenly over its tests that run
(extra tests included; the total must be a multiple of their number), 0, or
``"skip"``. A test of an exercise that has a total may still be skipped in
``[tests]``, but cannot have points of its own there. Every other test keeps the
points its checkpoint gives. An unknown name, table or value is an error naming
it and what is allowed.

The overrides (:func:`read_points`) are a mapping test -> points or ``None``
(skipped): the grader sends them to each worker with the tests, adds them to the
tests hash (:func:`stridegrad.course.gradebook.tests_hash`), and
:func:`apply_points` makes the checkpoint that runs.
"""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

__all__ = ["SKIP", "PointsError", "apply_points", "read_points"]

SKIP = "skip"
_TABLES = ("tests", "exercises")


class PointsError(ValueError):
    """The points file cannot be used as it is (the message names the file and the value)."""


def _parse(text: str, name: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise PointsError("--points needs Python 3.11 or later (tomllib), or the tomli "
                              "package: pip install tomli") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # the message ends with "(at line N, column M)"
        raise PointsError(f"{name} is not valid TOML: {exc}") from None


def _unknown(kind: str, name: str, valid: list[str], where: str, lesson: str) -> PointsError:
    close = difflib.get_close_matches(name, valid, n=1)
    return PointsError(
        f"{where}: [{kind}s] {name}: lesson {lesson} has no {kind} {name!r}"
        + (f" (did you mean {close[0]!r}?)" if close else "")
        + f"; its {kind}s are {', '.join(valid)}")


def _value(value, where: str, key: str) -> int | None:
    if value == SKIP:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        raise PointsError(f"{where}: {key} = {shown}: give a whole number of points "
                          f"(0 or more) or \"{SKIP}\"")
    if value < 0:
        raise PointsError(f"{where}: {key} = {value}: points must be 0 or more")
    return value


def read_points(path: Path, checkpoint) -> dict[str, int | None]:
    """The overrides of the points file ``path`` for ``checkpoint`` (the lesson's
    tests and the extra tests): test name -> points, or None for a skipped test.
    :class:`PointsError` naming the file, the key and what is allowed."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PointsError(f"cannot read the points file {path}: {exc}") from None
    data = _parse(text, str(path))
    where = str(path)
    lesson = checkpoint.lesson
    extra = sorted(set(data) - set(_TABLES))
    if extra:
        raise PointsError(f"{where}: unknown table or key {', '.join(map(repr, extra))}; a "
                          "points file has a [tests] table and an [exercises] table")
    for table in _TABLES:
        if not isinstance(data.get(table, {}), dict):
            raise PointsError(f"{where}: {table} must be a table ([{table}]), "
                              f"got {data[table]!r}")
    names = [t.name for t in checkpoint.tests]
    exercises = checkpoint.exercises
    tests = data.get("tests", {})
    per_exercise = data.get("exercises", {})
    for name in tests:
        if name not in names:
            raise _unknown("test", name, names, where, lesson)
    for name in per_exercise:
        if name not in exercises:
            raise _unknown("exercise", name, exercises, where, lesson)

    overrides: dict[str, int | None] = {}
    for name, value in tests.items():
        overrides[name] = _value(value, where, f"[tests] {name}")
    for exercise, value in per_exercise.items():
        total = _value(value, where, f"[exercises] {exercise}")
        mine = [t.name for t in checkpoint.tests if t.exercise == exercise]
        own = [n for n in mine if n in overrides and overrides[n] is not None]
        if own:
            raise PointsError(
                f"{where}: [exercises] {exercise} = {value!r} and [tests] "
                f"{', '.join(own)} give points to the same tests: give the exercise's "
                "total or its tests' points, not both")
        running = [n for n in mine if not (n in overrides and overrides[n] is None)]
        if total is None:
            overrides.update({n: None for n in mine})
            continue
        if total and not running:
            raise PointsError(f"{where}: [exercises] {exercise} = {total}, but every test of "
                              f"{exercise} is skipped")
        if running and total % len(running):
            raise PointsError(
                f"{where}: [exercises] {exercise} = {total} does not split evenly over its "
                f"{len(running)} tests that run ({', '.join(running)}): give a multiple of "
                f"{len(running)}, or each test's points in [tests]")
        overrides.update({n: total // len(running) for n in running})
    if all(overrides.get(n, 1) is None for n in names):
        raise PointsError(f"{where}: every test of lesson {lesson} is skipped: nothing to grade")
    return overrides


def apply_points(checkpoint, overrides: dict[str, int | None]):
    """A new checkpoint with ``overrides`` applied: each named test with its points,
    the skipped ones (None) left out, the others as they are."""
    from stridegrad.course.checks import Checkpoint

    unknown = sorted(set(overrides) - {t.name for t in checkpoint.tests})
    if unknown:
        raise PointsError(f"points for tests that checkpoint {checkpoint.lesson} does not "
                          f"have: {', '.join(unknown)}")
    out = Checkpoint(checkpoint.lesson, checkpoint.title, reference=checkpoint.reference)
    out.tests = [t if t.name not in overrides else dataclasses.replace(t, points=overrides[t.name])
                 for t in checkpoint.tests if overrides.get(t.name, 0) is not None]
    return out
