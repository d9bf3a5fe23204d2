"""Checkpoints: an episode's tests, and ``check()`` that runs them on a learner's code.

A checkpoint module (``stridegrad/course/checkpoints/epNN.py``) defines one
``checkpoint = Checkpoint(...)`` and registers tests on it. A test is a small
function of exactly one argument, the learner's function, and it uses
:func:`expect` (or :func:`fail`) to say what went wrong::

    checkpoint = Checkpoint("01_flat_storage", "flat storage",
                            reference="stridegrad.array.layout")

    @checkpoint.test("numel", hint="A shape with no dimensions is a scalar: one element.")
    def scalar_has_one_element(numel):
        expect(numel, (), returns=1)

:func:`run_checkpoint` looks each exercise up in a namespace (a notebook's
globals), refuses to credit functions that were imported instead of defined
there, runs every test with a time limit, and never lets the learner's code
stop the caller: every exception except ``KeyboardInterrupt`` becomes a row of
the result. :func:`check` is the notebook-facing wrapper.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import functools
import importlib
import importlib.util
import inspect
import io
import math
import os
import re
import signal
import sys
import threading
import time
import types
import warnings
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ANY",
    "STATUSES",
    "CheckFailure",
    "CheckResult",
    "ShownResult",
    "Checkpoint",
    "CheckpointFailed",
    "Row",
    "Test",
    "check",
    "cut_between_items",
    "expect",
    "fail",
    "freed_when_dropped",
    "load_checkpoint",
    "load_checkpoint_file",
    "raised",
    "run_checkpoint",
    "short_repr",
    "summarise_array",
    "type_note",
    "written_forms",
]

#: Every status a row can have, with the word shown to learners.
STATUSES: dict[str, str] = {
    "pass": "pass",
    "fail": "fail",  # the function returned a wrong value
    "error": "error",  # the function raised something unexpected
    "timeout": "too slow",  # the test ran past its time limit
    "stub": "not implemented",  # the function still raises NotImplementedError
    "missing": "not defined",  # no such name in the notebook
    "imported": "not yours",  # imported (or copied by reference), not defined in the notebook
    "delegates": "not yours",  # defined in the notebook, but calls the reference implementation
    # the grader's, for a notebook that could not be graded at all
    "no-notebook": "no notebook",
    "invalid-notebook": "unreadable notebook",
    "notebook-timeout": "notebook too slow",
    "crashed": "notebook crashed",
    "out-of-memory": "out of memory",
}

# statuses that say nothing about a particular test, only about the function or notebook
FUNCTION_STATUSES = ("missing", "stub", "imported", "delegates", "no-notebook",
                     "invalid-notebook", "notebook-timeout", "crashed", "out-of-memory")

_MISSING = object()
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # .../stridegrad


class CheckFailure(AssertionError):
    """A test's verdict on the learner's function: what was called, expected, got."""

    def __init__(self, call: str, expected: str, got: str, *, kind: str = "fail"):
        super().__init__(f"{call}: expected {expected}, got {got}")
        self.call = call
        self.expected = expected
        self.got = got
        self.kind = kind  # "fail" (wrong value) or "error" (raised)


class CheckpointFailed(AssertionError):
    """Kept for code that catches it: :func:`check` no longer raises it under nbgrader,
    whose grade cells now read the points from the check cell's value (partial credit)."""


class _TestTimeout(BaseException):
    """Raised inside a test that ran past its time limit (BaseException: not swallowed
    by the learner's ``except Exception``)."""


#: How much of a value a row keeps: long enough for any checkpoint's inputs and answers;
#: a longer one is cut between two items, never inside a number or a name.
VALUE_LIMIT = 400
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _readable_repr(value: Any, limit: int) -> str:
    """``repr(value)`` as a learner wants to read it in one row: a function by its
    name (no ``<function f.<locals>.g at 0x7f...>``), an array too long for ``limit``
    summarised with its shape, bytes in hex, and no memory addresses."""
    if inspect.ismodule(value):
        return value.__name__  # not the path of the file it came from
    if (inspect.isfunction(value) or inspect.ismethod(value) or inspect.isbuiltin(value)
            or inspect.isclass(value)):
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", "?")
        name = name.rsplit(".<locals>.", 1)[-1]
        return "a lambda" if name == "<lambda>" else name
    if isinstance(value, (bytes, bytearray)) and value:
        # one pair of hex digits per byte, spaced (a repr such as b'\x02\x01\x00' is
        # hard to read and has no place to wrap); still Python that gives the value
        return f"{type(value).__name__}.fromhex('{value.hex(' ')}')"
    text = _ADDRESS.sub("", repr(value))
    if type(value).__module__ == "numpy" and len(_one_line(text)) > limit:
        return summarise_array(value)
    return text


def summarise_array(value: Any, digits: int | None = None) -> str:
    """A NumPy array too long for a row, in one line: its shape, its dtype and its
    first and last three numbers, ``array of shape (2, 50), float64: [0., 1., 2., ...,
    97., 98., 99.] (flattened)``; ``digits``: round the numbers to that many decimals
    first (results that hold rounding noise)."""
    import numpy as np
    flat = np.ravel(value)
    if digits is not None and flat.dtype.kind == "f":
        flat = np.round(flat, digits)
    values = np.array2string(flat, threshold=12, edgeitems=3, separator=", ",
                             max_line_width=10**6)
    return f"array of shape {np.shape(value)}, {flat.dtype}: {' '.join(values.split())} (flattened)"


def _one_line(text: str) -> str:
    """A multi-line repr on one line: lines that continue a bracket or a list (an
    array's rows) are joined with a space, separate statements (a graph's ops) with
    "; "."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    out = lines[0] if lines else ""
    for line in lines[1:]:
        out += " " if out.endswith((",", "(", "[", "{", ":")) or line[0] in ")]}" else "; "
        out += line
    return " ".join(out.split())


def short_repr(value: Any, limit: int = VALUE_LIMIT) -> str:
    """``value`` as a row of the table shows it: a readable repr on one line, at most
    ``limit`` characters, cut between items (for your own :class:`CheckFailure`)."""
    try:
        text = _readable_repr(value, limit)
    except BaseException as exc:  # a learner's object with a broken __repr__
        if isinstance(exc, KeyboardInterrupt):
            raise
        text = f"<{type(value).__name__} with a broken repr>"
    return cut_between_items(_one_line(text), limit)


def cut_between_items(text: str, limit: int) -> str:
    """``text`` if short enough, else its head cut after the last ", " that fits
    (so no number, name or string is cut in two) and marked with " ...", with the
    item count left out."""
    if len(text) <= limit:
        return text
    head = text[: limit - 4]
    cut = head.rfind(", ")
    if cut <= 0:
        cut = head.rfind(" ")
    return (head[:cut + 1] if cut > 0 else head) + " ..."


def _clip(text: str, limit: int) -> str:
    return cut_between_items(" ".join(str(text).split()), limit)


class _Anything:
    """``expect(..., returns=ANY, unchanged=True)``: any value will do; the test is about
    something else (that the inputs are left alone)."""

    def __repr__(self) -> str:
        return "any value (this test only looks at the inputs)"


ANY = _Anything()


def raised(exc: BaseException) -> str:
    """What a row's "got" says about an exception: ``raised ValueError: <message>``,
    the message whole up to 200 characters, then cut between two words."""
    return f"raised {_exception_name(exc)}: {_clip(exc, 200)}"


def _exception_name(exc: BaseException) -> str:
    """``ValueError``; a module's exception called just ``error`` with its module's
    name, ``struct.error``."""
    kind = type(exc)
    return f"{kind.__module__.lstrip('_')}.error" if kind.__name__ == "error" else kind.__name__


def _format_call(name: str, args: tuple, kwargs: dict) -> str:
    parts = [short_repr(a, 200) for a in args] + [f"{k}={short_repr(v, 200)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _same_kind(got: Any, expected: Any) -> bool:
    """Whether ``got`` is of the type an answer like ``expected`` must have, before any
    ``==``: an int only for an int (not a bool, a float or a NumPy integer: ``np.prod``
    of ``()`` is ``np.float64(1.0)``), a bool only for a bool, a float (Python's, or
    NumPy's float64, which is one) for a float, and otherwise an instance of the
    expected value's type. So an object whose ``__eq__`` says True to everything is
    never equal to an answer it is not."""
    kind = type(expected)
    if kind is bool or kind is int:
        return type(got) is kind
    if kind is float:
        return isinstance(got, float)
    if expected is None:
        return got is None
    return isinstance(got, kind)


def _equal(got: Any, expected: Any) -> bool:
    """Equality for checkpoint answers: exact, except floats compare with a tolerance,
    and an answer only equals one of its own type (``[3, 1]`` is not ``(3, 1)``, ``2.0``
    is not ``2``; :func:`_same_kind`)."""
    if not _same_kind(got, expected):
        return False
    if isinstance(expected, float):
        return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12) or (
            math.isnan(expected) and math.isnan(got)
        )
    if isinstance(expected, (tuple, list)):
        if type(got) is not type(expected) or len(got) != len(expected):
            return False
        return all(_equal(g, e) for g, e in zip(got, expected))
    if isinstance(expected, bytes) and type(got) is not bytes:
        return False  # a bytearray equals its bytes, but it is another type
    try:
        return bool(got == expected)
    except Exception:
        return False


def _name_of(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def expect(fn: Callable, *args: Any, returns: Any = _MISSING, raises: type | None = None,
           copy_inputs: bool = True, unchanged: bool = False, naming: tuple = (),
           **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` and check what it returns or raises.

    Exactly one of ``returns`` (the expected value) and ``raises`` (the expected
    exception type) is given. On a wrong answer raises :class:`CheckFailure`
    naming the call, the expected and the actual outcome. ``NotImplementedError``
    and ``KeyboardInterrupt`` pass through (a stub is reported as such).

    The function gets copies of the lists, tuples and dicts in its arguments, so a
    learner's function that writes into its input cannot change the data of later
    tests; a test that checks the inputs are left alone passes ``unchanged=True``:
    the function then gets the arguments themselves, and the check fails when it
    changed any of them in place (lists, nested lists, dicts, NumPy arrays, Tensors,
    at any depth) or returned a list, dict or array that is one of its inputs'
    (an alias: the caller's data would change with the result).

    ``naming`` (with ``raises``): values the error message must name, such as the
    bad offset and the shape (``str(value)``; a tuple may also be written as a list).

    Returns:
        What ``fn`` returned (None when it raised as expected).
    """
    if (returns is _MISSING) == (raises is None):
        raise TypeError("expect() needs exactly one of returns=... or raises=...")
    call = _format_call(_name_of(fn), args, kwargs)
    want = f"raises {raises.__name__}" if raises is not None else short_repr(returns)
    if naming:
        want += " naming " + " and ".join(short_repr(v) for v in naming)
    before = _freeze((args, kwargs)) if unchanged else None
    try:
        if copy_inputs and not unchanged:
            got = fn(*_fresh(args), **_fresh(kwargs))
        else:
            got = fn(*args, **kwargs)
    except (NotImplementedError, KeyboardInterrupt, _TestTimeout):
        raise
    except BaseException as exc:
        if raises is not None and isinstance(exc, raises):
            message = str(exc)
            if naming and not all(_names(message, v) for v in naming):
                raise CheckFailure(call, want, f"raised {_exception_name(exc)}: "
                                               f"{_clip(message, 200) or '(no message)'}") from exc
            if unchanged:
                _check_unchanged(call, args, kwargs, before, None)
            return None
        raise CheckFailure(call, want, raised(exc),
                           kind="error") from exc
    if raises is not None:
        raise CheckFailure(call, want, f"returned {short_repr(got)}")
    if returns is not ANY and not _equal(got, returns):
        raise CheckFailure(call, want, short_repr(got) + type_note(got, returns))
    if unchanged:
        _check_unchanged(call, args, kwargs, before, got)
    return got


def type_note(got: Any, expected: Any) -> str:
    """What a row's "got" adds to a wrong value: `` (a tuple, not a list)`` when a list,
    tuple or bytes came back as another type, and a note when a returned list holds one
    list object in two places; "" when neither."""
    note = ""
    if isinstance(expected, (tuple, list, bytes)) and type(got) is not type(expected):
        note = f" ({_a(type(got).__name__)}, not {_a(type(expected).__name__)})"
    return note + _shared_items_note(got)


def _a(noun: str) -> str:
    """``noun`` with its article: "an int", "a list"."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _shared_items_note(got: Any) -> str:
    """When a returned list holds one list object in two places (``[[0] * 3] * 2``), a
    note saying so: changing one of them changes the other."""
    seen: dict[int, int] = {}
    for i, item in enumerate(got if isinstance(got, list) else ()):
        if isinstance(item, (list, dict)):
            if id(item) in seen:
                return (f" (items {seen[id(item)]} and {i} are one and the same "
                        f"{type(item).__name__}: [row] * n repeats one object, it makes no "
                        f"copies)")
            seen[id(item)] = i
    return ""


def _names(message: str, value: Any) -> bool:
    """Whether an error message names ``value`` (a tuple may be written as a list)."""
    return any(t in message for t in written_forms(value) if t)  # () joins to ""


def written_forms(value: Any) -> set[str]:
    """The ways an error message may write ``value`` and be said to name it: ``str`` and
    ``repr``; for a tuple (a shape) also as a list, without spaces (NumPy's ``(2,3)``),
    as ``2 x 3`` and ``2x3``, and the empty shape as ``scalar``."""
    texts = {str(value), repr(value)}
    if isinstance(value, tuple):
        texts |= {str(list(value)), " x ".join(map(str, value)), "x".join(map(str, value)),
                  str(value).replace(" ", "")}
        if not value:
            texts.add("scalar")  # the empty shape, by its name
    return texts


def _freeze(obj: Any, _depth: int = 0) -> Any:
    """A plain-data picture of ``obj`` (lists, tuples, dicts, arrays and Tensors at any
    depth), to tell whether a call changed it in place."""
    if _depth > 50:
        return ("deep", id(obj))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_freeze(x, _depth + 1) for x in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((repr(k), _freeze(v, _depth + 1)) for k, v in obj.items()))
    if isinstance(obj, float):
        return ("float", repr(obj))
    array = _as_numpy(obj)
    if array is not None:
        return ("array", array.shape, array.dtype.str, array.tobytes())
    if isinstance(obj, (int, str, bytes, bool, type(None), complex)):
        return obj
    return ("object", id(obj))


def _is_array(obj: Any) -> bool:
    module = type(obj).__module__ or ""
    return (module.startswith(("numpy", "stridegrad", "cupy", "torch"))
            and not isinstance(obj, (tuple, list, dict))
            and (hasattr(obj, "__array__") or callable(getattr(obj, "numpy", None))))


def _as_numpy(obj: Any) -> Any:
    """``obj``'s values as a new NumPy array if it is an array or a Tensor, else None."""
    if not _is_array(obj):
        return None
    try:
        import numpy as np
        value = obj.numpy() if hasattr(obj, "numpy") and not isinstance(obj, np.ndarray) else obj
        return np.array(value, copy=True)
    except Exception:
        return None


def _mutable_parts(obj: Any, out: dict, _depth: int = 0) -> dict:
    """The lists, dicts, arrays and Tensors inside ``obj`` (at any depth), by id."""
    if _depth > 50:
        return out
    if isinstance(obj, (list, dict)) or _is_array(obj):
        out[id(obj)] = obj
    if isinstance(obj, (list, tuple)):
        for x in obj:
            _mutable_parts(x, out, _depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _mutable_parts(x, out, _depth + 1)
    return out


def _check_unchanged(call: str, args: tuple, kwargs: dict, before: Any, got: Any) -> None:
    after_args, after_kwargs = _freeze((args, kwargs))[1]
    before_args, before_kwargs = before[1]
    for k, (b, a) in enumerate(zip(before_args[1], after_args[1])):
        if a != b:
            raise CheckFailure(f"argument {k + 1} after {call}", "unchanged",
                               f"changed in place to {short_repr(args[k])}")
    if before_kwargs != after_kwargs:
        raise CheckFailure(f"the keyword arguments after {call}", "unchanged",
                           f"changed in place to {short_repr(kwargs)}")
    if got is None:
        return
    inputs = _mutable_parts((args, kwargs), {})
    shared = [v for i, v in _mutable_parts(got, {}).items() if i in inputs]
    if shared:
        what = ("the input itself" if shared[0] is got
                else f"{short_repr(got)}, which holds the input's own {short_repr(shared[0])}")
        raise CheckFailure(f"what {call} returned", "a new object, sharing nothing with the "
                                                    "inputs", what)


def _fresh(obj: Any) -> Any:
    """A copy of the plain containers (list, tuple, dict) in ``obj``, other objects
    shared: a learner's function that writes into its input must not change the test
    data that later tests use."""
    if isinstance(obj, list):
        return [_fresh(x) for x in obj]
    if type(obj) is tuple:
        return tuple(_fresh(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _fresh(v) for k, v in obj.items()}
    return obj


def freed_when_dropped(box: list) -> bool | None:
    """Whether the one object in ``box`` dies as soon as it is taken out of it (the
    caller holds no other reference), asked of the notebook's process when the
    grader's judge holds a stand-in (:func:`stridegrad.course._wire.freed_when_dropped`)."""
    from stridegrad.course import _wire

    return _wire.freed_when_dropped(box)


def fail(call: str, expected: Any, got: Any) -> None:
    """Fail the current test with a custom description (values are shown with ``repr``)."""
    raise CheckFailure(call, short_repr(expected), short_repr(got))


@dataclass(frozen=True)
class Test:
    """One checkpoint test: a function of the learner's function."""

    name: str
    exercise: str
    func: Callable[[Callable], None]
    points: int = 1
    hint: str = ""
    hidden: bool = False
    #: labels of the misconceptions the hint is about: the hint is shown only when the
    #: learner's failure of this test looks like one of them (same outcome on this test)
    hint_for: tuple[str, ...] = ()
    #: an optional exercise beyond the lesson: its points are counted apart (``stretch_score``)
    stretch: bool = False
    #: run before the test, outside its time limit and its watch for calls into the
    #: reference (a contract computes the reference's answers there)
    prepare: Callable[[], Any] | None = None


class Checkpoint:
    """The tests of one episode, grouped by exercise (the name the learner defines).

    Args:
        lesson: the lesson's file stem, ``"NN_slug"``.
        title: a few words, shown above the table.
        reference: the module holding the reference implementations of the
            exercises that are library functions (used to spot a notebook that
            calls the reference instead of its own code); None if none are.
        library: for an exercise written in the notebook, the library functions
            (dotted names, ``"stridegrad.array.asarray"``) that do its work, or whole
            modules (a name without a dot, ``"numpy"``): a function that calls one of
            them gets no credit either.
        hidden: default for :meth:`test`'s ``hidden`` (instructors' extra tests).
    """

    def __init__(self, lesson: str, title: str = "", *, reference: str | None = None,
                 library: Mapping[str, Sequence[str]] | None = None, hidden: bool = False):
        episode = lesson.split("_", 1)[0]
        if not (len(episode) == 2 and episode.isdigit()):
            raise ValueError(f"lesson must look like 'NN_slug', got {lesson!r}")
        self.lesson = lesson
        self.episode = episode
        self.title = title or lesson.split("_", 1)[-1].replace("_", " ")
        self.reference = reference
        self.library = {ex: tuple(names) for ex, names in (library or {}).items()}
        self.hidden = hidden
        self.tests: list[Test] = []

    def __repr__(self) -> str:
        return (f"Checkpoint({self.lesson!r}, {len(self.tests)} tests, "
                f"{self.max_points} points, exercises={self.exercises})")

    @property
    def exercises(self) -> list[str]:
        """Exercise names, in the order of their first test."""
        return list(dict.fromkeys(t.exercise for t in self.tests))

    @property
    def max_points(self) -> int:
        """The points of the lesson's exercises (stretch exercises not included)."""
        return sum(t.points for t in self.tests if not t.stretch)

    @property
    def stretch_points(self) -> int:
        """The points of the optional stretch exercises, counted apart."""
        return sum(t.points for t in self.tests if t.stretch)

    @property
    def stretch_exercises(self) -> list[str]:
        return list(dict.fromkeys(t.exercise for t in self.tests if t.stretch))

    def points_for(self, exercise: str) -> int:
        return sum(t.points for t in self.tests if t.exercise == exercise)

    def test(self, exercise: str, *, points: int = 1, hint: str = "",
             hidden: bool | None = None, hint_for: tuple[str, ...] | str = (),
             stretch: bool = False, prepare: Callable[[], Any] | None = None) -> Callable:
        """Decorator registering ``func(fn)`` as a test of ``exercise``.

        ``hint_for``: when the hint describes one particular mistake, the labels of the
        misconceptions (``stridegrad.course.misconceptions``) it describes; the hint is
        then shown only to a failure that looks like one of them.

        ``stretch``: the exercise is an optional stretch exercise; its points are
        reported apart (``CheckResult.stretch_score``), never in the lesson's total. All
        tests of one exercise must agree.

        ``prepare``: called before each run of the test, outside its time limit (see
        :attr:`Test.prepare`; :meth:`contract` passes its cases' preparation).
        """
        if not exercise.isidentifier():
            raise ValueError(f"exercise must be a Python name, got {exercise!r}")
        if points < 0:
            raise ValueError(f"points must be >= 0, got {points} for exercise {exercise!r}")

        def register(func: Callable) -> Callable:
            if any(t.name == func.__name__ for t in self.tests):
                raise ValueError(f"checkpoint {self.lesson}: two tests named {func.__name__!r}")
            if any(t.exercise == exercise and t.stretch != stretch for t in self.tests):
                raise ValueError(f"checkpoint {self.lesson}: exercise {exercise!r} has tests "
                                 "with and without stretch=True")
            self.tests.append(Test(func.__name__, exercise, func, points, hint,
                                   self.hidden if hidden is None else hidden,
                                   (hint_for,) if isinstance(hint_for, str) else tuple(hint_for),
                                   stretch, prepare))
            return func

        return register

    def contract(self, exercise: str, *, valid: Any, invalid: Sequence = (),
                 reference: str | None = None, cases: int = 40, invalid_cases: int = 10,
                 may_alias: bool = False, points: int = 1, hint: str = "",
                 stretch: bool = False, scenario: Callable[..., Any] | None = None) -> Any:
        """Register the contract of ``exercise`` (:mod:`stridegrad.course.contracts`)
        as one more test, ``<exercise>_on_generated_inputs``, after the exercise's
        hand-written tests: ``cases`` inputs drawn from ``valid`` and ``invalid_cases``
        from each :class:`~stridegrad.course.contracts.Invalid`, judged against
        ``reference`` (default: the lesson's own solution,
        ``stridegrad.course.solutions.epNN.<exercise>``, which ``stridegrad build`` writes
        from the course source; for a library exercise, the library's function).
        ``scenario``: for an exercise about live objects, how a case runs it and what is
        observed (:attr:`~stridegrad.course.contracts.Contract.scenario`).
        Returns the :class:`~stridegrad.course.contracts.Contract`."""
        from stridegrad.course.contracts import Contract
        if reference is None:
            reference = f"{SOLUTIONS}.ep{self.episode}.{exercise}"
        spec = Contract(exercise, reference, valid, tuple(invalid), cases, invalid_cases,
                        may_alias, scenario)
        what = f"up to {cases} inputs its docstring allows"
        if invalid:
            what += " and up to " + ", ".join(f"{invalid_cases} {bad.what}" for bad in invalid)
        hint = hint or (f"This row tries {what}, drawn by Hypothesis (the same ones every "
                        "run), and shows the smallest your function gets wrong: compare "
                        "it with the docstring, then try that call yourself.")

        def run(fn: Callable) -> None:
            spec.run(fn)

        # registered as any test is: its name unique, its stretch flag the exercise's
        run.__name__ = run.__qualname__ = f"{exercise}{CONTRACT_SUFFIX}"
        self.test(exercise, points=points, hint=hint, stretch=stretch,
                  prepare=spec.prepared)(run)
        return spec

    def extend(self, other: Checkpoint) -> Checkpoint:
        """A new checkpoint with ``other``'s tests after this one's (names must not clash)."""
        if other.episode != self.episode:
            raise ValueError(f"cannot add tests for lesson {other.lesson!r} to checkpoint "
                             f"{self.lesson!r}: episodes {other.episode} and {self.episode} differ")
        clash = {t.name for t in self.tests} & {t.name for t in other.tests}
        if clash:
            raise ValueError(f"test names used twice in {self.lesson}: {sorted(clash)}")
        merged = Checkpoint(self.lesson, self.title, reference=self.reference)
        merged.tests = self.tests + other.tests
        return merged


# --------------------------------------------------------------------------- results

@dataclass
class Row:
    """One test's outcome (also one line of the grader's CSV)."""

    test: str
    exercise: str
    status: str
    points: int
    max_points: int
    expected: str = ""
    got: str = ""
    hint: str = ""
    message: str = ""
    hidden: bool = False
    call: str = ""  # what was called (with its inputs), for a failing row
    diagnosis: str = ""  # the known mistake the function's outcomes match, if any
    cause: str = ""  # another exercise whose failures this row follows from, if any
    stretch: bool = False  # a test of an optional stretch exercise (points counted apart)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def tally(rows: Iterable[Row], *, stretch: bool = False) -> tuple[int, int]:
    """(points, max points) of the rows of the lesson's exercises, or with
    ``stretch=True`` of its optional stretch exercises (counted apart, never in the
    lesson's total)."""
    mine = [r for r in rows if r.stretch == stretch]
    return sum(r.points for r in mine), sum(r.max_points for r in mine)


@dataclass
class CheckResult:
    """What :func:`check` found: per-test rows and the score."""

    lesson: str
    title: str
    rows: list[Row] = field(default_factory=list)
    exercise: str | None = None
    #: exercise -> the parameters whose default value (a list, dict...) the tests'
    #: calls changed: one object shared by every call (see :func:`diagnose_rows`)
    grown_defaults: dict[str, list[str]] = field(default_factory=dict)

    @property
    def score(self) -> int:
        """Points of the lesson's exercises (an optional stretch exercise's are apart)."""
        return tally(self.rows)[0]

    @property
    def max_score(self) -> int:
        return tally(self.rows)[1]

    @property
    def stretch_score(self) -> int:
        """Points of the optional stretch exercises."""
        return tally(self.rows, stretch=True)[0]

    @property
    def stretch_max_score(self) -> int:
        return tally(self.rows, stretch=True)[1]

    @property
    def passed(self) -> bool:
        """Every test passes (a stretch exercise counts only when it alone was checked)."""
        main = [r for r in self.rows if not r.stretch] or self.rows
        return bool(main) and all(r.passed for r in main)

    def row(self, test: str) -> Row:
        for r in self.rows:
            if r.test == test:
                return r
        raise KeyError(f"no test named {test!r} in checkpoint {self.lesson} "
                       f"(tests: {[r.test for r in self.rows]})")

    def by_status(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows:
            out[r.status] = out.get(r.status, 0) + 1
        return out

    def to_dict(self) -> dict:
        return {"lesson": self.lesson, "title": self.title, "exercise": self.exercise,
                "score": self.score, "max_score": self.max_score,
                "rows": [r.to_dict() for r in self.rows]}

    @classmethod
    def from_dict(cls, data: Mapping) -> CheckResult:
        return cls(data["lesson"], data["title"], [Row(**r) for r in data["rows"]],
                   data.get("exercise"))

    def __str__(self) -> str:
        from stridegrad.course.report import result_text
        return result_text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        from stridegrad.course.report import result_html
        return result_html(self)


class ShownResult(CheckResult):
    """What :func:`check` returns in IPython and Jupyter, where it has shown the table
    itself (``display()``: HTML in JupyterLab, the text table in a text-only frontend).

    As a cell's value it is the points: ``text/plain`` is the score alone (``6``),
    which nbgrader reads as the grade cell's partial credit (``determine_grade``
    converts an ``execute_result``'s ``text/plain`` with ``float()``), and
    ``text/html`` is one short line for the learner. Everything else (``rows``,
    ``score``, ``passed``, ``print()``, ``str()``) is the :class:`CheckResult`'s."""

    @property
    def cell_points(self) -> int | float:
        """The cell's value: the lesson's points, or for a check of an optional stretch
        exercise alone (not an nbgrader grade cell) its stretch points."""
        main = [r for r in self.rows if not r.stretch]
        return self.score if main or not self.rows else self.stretch_score

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        import html

        main = [r for r in self.rows if not r.stretch]
        of = self.max_score if main or not self.rows else self.stretch_max_score
        what = f"lesson {self.lesson.split('_', 1)[0]}" + (
            f", {self.exercise}" if self.exercise else "")
        line = f"{what}: {self.cell_points}/{of} points" + (
            "" if main or not self.rows else " (stretch, optional)")
        return {"text/plain": str(self.cell_points),
                "text/html": f'<span style="color:#555">{html.escape(line)}</span>'}


# --------------------------------------------------------------------------- running

def _origin(obj: Any) -> str | None:
    """Where ``obj`` comes from, if it was not defined in the notebook (else None)."""
    module = getattr(obj, "__module__", None)
    if module != "__main__":
        return module or "somewhere else"
    code = getattr(obj, "__code__", None)
    if code is not None:
        filename = code.co_filename
        try:
            inside = Path(filename).resolve().is_relative_to(_PACKAGE_DIR)
        except (OSError, ValueError):
            inside = False
        if inside:
            return f"the file {filename}"
    return None


_MODULE_NAMES = {"numpy": "NumPy", "cupy": "CuPy", "torch": "PyTorch"}
#: The package of the lessons' solutions as modules (written by ``stridegrad build``).
SOLUTIONS = "stridegrad.course.solutions"


def _reference_codes(checkpoint: Checkpoint, exercise: str) -> dict:
    """What a learner's ``exercise`` may not call: the code objects of the library's own
    version of it (the reference implementation and the checkpoint's ``library``
    functions), each with how to name it ("the library's own asarray"), and the
    modules it names whole (``"numpy"``: str keys, with the module's display name)."""
    names = [f"{checkpoint.reference}.{exercise}"] if checkpoint.reference else []
    names.append(f"{SOLUTIONS}.ep{checkpoint.episode}.{exercise}")  # the lesson's own
    codes: dict = {}
    for dotted in names + list(checkpoint.library.get(exercise, ())):
        if "." not in dotted:
            codes[dotted] = _MODULE_NAMES.get(dotted, dotted)
            continue
        module_name, _, attr = dotted.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module_name), attr, None)
        except Exception:
            continue
        code = getattr(obj, "__code__", None)
        if code is not None:
            codes[code] = f"the library's own {attr}"
        elif isinstance(obj, type):  # a class: the code of each method it defines
            for name, member in vars(obj).items():
                method = getattr(member, "__func__", member)  # staticmethod, classmethod
                code = getattr(method, "__code__", None)
                if code is not None:
                    codes[code] = f"the library's own {attr}.{name}"
    return codes


class _Watch:
    """Run code with a time limit (SIGALRM, main thread only) and notice calls into
    given code objects, or calls from the learner's code (``learner``, the globals of
    the learner's function) into given modules (``sys.setprofile``), restoring
    whatever was there before."""

    def __init__(self, timeout: float | None, forbidden: Mapping, learner: Any = None):
        self.timeout = timeout if timeout and hasattr(signal, "setitimer") else None
        if threading.current_thread() is not threading.main_thread():
            self.timeout = None
        self.forbidden = forbidden
        self.modules = {k: v for k, v in forbidden.items() if isinstance(k, str)}
        self.learner = learner
        self.called_forbidden = ""  # how to name the first one called
        self.private_call = ""  # a module's private helper, named if nothing else is

    def _profile(self, frame, event, arg):
        if self.called_forbidden:
            return
        if event == "call" and frame.f_code in self.forbidden:
            self.called_forbidden = self.forbidden[frame.f_code]
        elif self.modules and event in ("call", "c_call"):
            # a call made by the learner's own code (not by the test's) into a module
            caller = frame.f_back if event == "call" else frame
            if caller is None or caller.f_globals is not self.learner:
                return
            if event == "call":
                module, name = frame.f_globals.get("__name__") or "", frame.f_code.co_name
            else:
                owner = getattr(arg, "__self__", None)
                module = getattr(arg, "__module__", None) or (
                    type(owner).__module__ if owner is not None else "")
                name = getattr(arg, "__name__", "?")
            top = (module or "").split(".")[0]
            if top in self.modules:
                said = f"{self.modules[top]}'s {name}"
                if not name.startswith("_"):
                    self.called_forbidden = said
                else:  # a helper it runs first (np.reshape's _reshape_dispatcher)
                    self.private_call = self.private_call or said

    def __enter__(self):
        self._start = time.monotonic()
        if self.timeout:
            def on_alarm(signum, frame):
                raise _TestTimeout()
            self._old_handler = signal.signal(signal.SIGALRM, on_alarm)
            self._old_timer = signal.setitimer(signal.ITIMER_REAL, self.timeout)
        if self.forbidden:
            self._old_profile = sys.getprofile()
            sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc):
        if self.forbidden:
            sys.setprofile(self._old_profile)
        if self.timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old_handler)
            remaining = self._old_timer[0]
            if remaining > 0:  # an outer time limit (the grader's) keeps running
                elapsed = time.monotonic() - self._start
                signal.setitimer(signal.ITIMER_REAL, max(remaining - elapsed, 1e-3))
        return False


def _default_values(fn: Any) -> dict[str, Any]:
    """The default values of a plain function's parameters, by name."""
    if not isinstance(fn, types.FunctionType):
        return {}
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    given = dict(zip(names[len(names) - len(fn.__defaults__ or ()):], fn.__defaults__ or ()))
    return given | (fn.__kwdefaults__ or {})


#: the containers a default value can be that calls may fill (arrays aside)
_GROWABLE = (list, dict, set, bytearray)


def _defaults(fn: Any) -> dict[str, Any]:
    """A picture of the mutable default values of a plain function's parameters (a
    list, dict, set or array given as ``def f(x, out=[])``), by parameter name."""
    return {name: _freeze(value) for name, value in _default_values(fn).items()
            if isinstance(value, _GROWABLE) or _as_numpy(value) is not None}


def _stub_spy(fn: Callable) -> tuple[Callable, list]:
    """Wrap a plain function so that a NotImplementedError it raises is recorded even
    when a test swallows it (``NotImplementedError`` is a ``RuntimeError``: a test that
    expects a RuntimeError would otherwise credit a stub). Classes stay as they are."""
    seen: list = []
    if not inspect.isfunction(fn):
        return fn, seen

    @functools.wraps(fn)
    def spy(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except NotImplementedError:
            seen.append(True)
            raise

    return spy, seen


def _run_one(test: Test, fn: Callable, timeout: float | None, forbidden: Mapping) -> Row:
    row = Row(test.name, test.exercise, "pass", test.points, test.points, hint=test.hint,
              hidden=test.hidden, stretch=test.stretch)
    if test.prepare is not None:
        test.prepare()
    watch = _Watch(timeout, forbidden, getattr(fn, "__globals__", None))
    fn, stub_raised = _stub_spy(fn)
    try:
        # NumPy's overflow and divide-by-zero warnings from a wrong answer would print the
        # library's file paths above the table; the row shows the inf or nan instead
        with watch, warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            test.func(fn)
    except KeyboardInterrupt:
        raise
    except CheckFailure as exc:
        row.status, row.expected, row.got = exc.kind, exc.expected, exc.got
        row.call, row.message = exc.call, str(exc)
    except NotImplementedError as exc:
        row.status = "stub"
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        raiser = getattr(exc, "raiser", None) or (  # the worker's, for a judged notebook
            tb.tb_frame.f_code.co_name if tb is not None else test.exercise)
        if raiser not in (test.exercise, test.name):
            row.message = (f"{test.exercise} calls {raiser}, which still raises "
                           f"NotImplementedError: finish {raiser} first")
        else:
            row.message = "not filled in yet: still raises NotImplementedError"
    except _TestTimeout:
        row.status = "timeout"
        row.message = f"{test.exercise} did not finish within {timeout:g} s (an endless loop?)"
    except BaseException as exc:  # RecursionError, SystemExit, MemoryError...
        row.status = "error"
        row.got = raised(exc)
        row.message = f"{test.name} {row.got}"
    if row.status == "pass" and stub_raised:
        row.status = "stub"
        row.message = "not filled in yet: still raises NotImplementedError"
    called = watch.called_forbidden or watch.private_call
    if row.status in ("pass", "fail", "error") and called:
        # passing or not: what to fix is the call, not the answer
        row.status = "delegates"
        row.message = (f"{test.exercise} calls {called}: "
                       "write the computation yourself")
    if row.status != "pass":
        row.points = 0
    return row


#: the time limit (seconds) of an exercise's tests once one of them has run past its own
AFTER_A_TIMEOUT = 2.0


def run_checkpoint(checkpoint: Checkpoint, namespace: Mapping[str, Any], *,
                   exercise: str | None = None, require_local: bool = True,
                   timeout: float | None = 10.0, diagnose: bool = True) -> CheckResult:
    """Run a checkpoint's tests against the functions found in ``namespace``.

    Args:
        checkpoint: the tests.
        namespace: where to look the exercises up (a notebook's globals, a module's ``vars``).
        exercise: run only this exercise's tests.
        require_local: credit only functions defined in the notebook itself
            (``__module__ == "__main__"``) that do not call the reference; off when
            testing the library.
        timeout: seconds per test (None: no limit).
        diagnose: look for the cause of each failing exercise (see :func:`diagnose`).

    Returns:
        A :class:`CheckResult`; never raises for anything the learner's code does,
        except ``KeyboardInterrupt``.
    """
    tests = checkpoint.tests
    if exercise is not None:
        if exercise not in checkpoint.exercises:
            raise ValueError(f"checkpoint {checkpoint.lesson} has no exercise {exercise!r}; "
                             f"its exercises are {checkpoint.exercises}")
        tests = [t for t in tests if t.exercise == exercise]
    result = CheckResult(checkpoint.lesson, checkpoint.title, exercise=exercise)
    defaults_before: dict[str, dict] = {}
    for test in tests:
        fn = namespace.get(test.exercise, _MISSING)
        base = Row(test.name, test.exercise, "", 0, test.points, hint=test.hint,
                   hidden=test.hidden, stretch=test.stretch)
        if fn is _MISSING:
            base.status = "missing"
            base.message = (f"{test.exercise} is not defined: run the cell that defines it, "
                            "and check that it ran without an error and that the name is "
                            "spelled as here")
        elif not callable(fn):
            base.status = "error"
            base.message = f"{test.exercise} should be a function, but it is {short_repr(fn)}"
        elif require_local and _origin(fn) is not None:
            base.status = "imported"
            base.message = (f"{test.exercise} comes from {_origin(fn)}, not from this notebook: "
                            "define it yourself with def")
        if base.status:
            result.rows.append(base)
            continue
        forbidden = _reference_codes(checkpoint, test.exercise) if require_local else {}
        if test.exercise not in defaults_before:
            defaults_before[test.exercise] = _defaults(fn)
        # after one test ran past the time limit, the exercise's other tests get a
        # short one: an endless loop costs one limit, not one per test
        slow = any(r.exercise == test.exercise and r.status == "timeout" for r in result.rows)
        limit = min(timeout, AFTER_A_TIMEOUT) if slow and timeout else timeout
        result.rows.append(_run_one(test, fn, limit, forbidden))
    _no_credit_for_delegating(result)
    for ex, before in defaults_before.items():
        if not before:
            continue
        after = _defaults(namespace.get(ex))
        grown = [name for name, value in before.items() if after.get(name) != value]
        if grown:
            result.grown_defaults[ex] = grown
    if diagnose:
        diagnose_rows(checkpoint, result, namespace, timeout=timeout)
    return result


# --------------------------------------------------------------------------- diagnosis

_FAILED = ("fail", "error", "timeout")
# checkpoint -> exercise -> [(misconception, {test name: outcome})], computed once
_KNOWN_OUTCOMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _outcome(row: Row) -> tuple[bool, str]:
    """What a test's row says about the function: passed, or what came back."""
    if row.passed:
        return (True, "")
    got = _ADDRESS.sub(" at 0x...", row.got)
    if got.startswith("raised RecursionError"):  # its message depends on where it hit
        got = "raised RecursionError"
    # the call's inputs too, not the function's name ("what f([5, 6]) returned" and
    # "flatten([5, 6])" in a misconception): the same wrong value from another input is
    # another mistake
    call = _ADDRESS.sub(" at 0x...", re.sub(r"[A-Za-z_][\w.]*(?=\()", "", row.call, count=1))
    return (False, f"{row.status}: {call} -> {got}")


def misconception_outcomes(checkpoint: Checkpoint, exercise: str,
                           timeout: float | None = 10.0) -> list[tuple[Any, dict]]:
    """Each known misconception of ``exercise`` with its outcome on every test of it
    (run once per checkpoint, each in a fresh namespace with the per-test time limit)."""
    from stridegrad.course.misconceptions import for_episode
    per_exercise = _KNOWN_OUTCOMES.setdefault(checkpoint, {})
    if exercise in per_exercise:
        return per_exercise[exercise]
    tests = [t for t in checkpoint.tests if t.exercise == exercise]
    known = []
    # quietly: a misconception's warnings and prints are not the learner's
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        for m in for_episode(checkpoint.episode).get(exercise, []):
            try:
                fn = m.define().get(exercise, _MISSING)
            except Exception:  # needs something this installation lacks
                continue
            if fn is _MISSING:
                continue
            known.append((m, {t.name: _outcome(_run_one(t, fn, timeout, {}))
                              for t in tests}))
    per_exercise[exercise] = known
    return known


_NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?")


def _masked(o):
    return (o[0], _NUMBER.sub("#", o[1]))


def _alike(m: Any, theirs: Any, o: Any) -> bool:
    """Does misconception ``m``'s outcome on a test (``theirs``) look like the learner's
    (``o``)? The same, or for a misconception marked ``varies`` (counts and timings
    that change from run to run) the same but for the numbers in them."""
    return theirs == o or (getattr(m, "varies", False) and theirs is not None
                           and _masked(theirs) == _masked(o))


_TYPE_NOTE = re.compile(r"\((an? [\w.]+), not (an? [\w.]+)\)$")
_TYPE_ADVICE = {
    "a generator": "a generator hands out its items once and has no len(); collect them "
                   "into a list (return list(...))",
    "a bytearray": "a bytearray holds bytes but is another type, one you can change; "
                   "return bytes(...)",
    "a tuple": "build a list, or return list(...)",
    "a list": "build a tuple, or return tuple(...)",
}


def _one_wrong_type(rows: list[Row]) -> str:
    """A diagnosis for an exercise whose every failing row returned a value of one wrong
    type (a generator where a list is expected): the type, whatever the values."""
    found = [_TYPE_NOTE.search(r.got) if r.status == "fail" else None
             for r in rows if r.status in _FAILED]
    notes = {m.groups() if m else None for m in found}
    if len(notes) != 1 or None in notes:
        return ""
    got, want = notes.pop()
    advice = _TYPE_ADVICE.get(got, f"return {want}")
    return f"returns {got} where {want} is expected, on every call that fails: {advice}"


def _endless_recursion(rows: list[Row]) -> str:
    """A diagnosis for an exercise whose every failing row ran into Python's recursion
    limit: whatever else is wrong, the recursion does not end."""
    failing = [r for r in rows if r.status in _FAILED]
    if not failing or not all(r.got.startswith("raised RecursionError") for r in failing):
        return ""
    return ("recurses without end: every failing call ran into Python's recursion limit "
            "(RecursionError); each call must work on something smaller than it was given "
            "(an item, not the whole list), down to a case it answers without calling itself")


def _side_effect(outcome: Any) -> str:
    """What an outcome says the function did to its inputs: "in place" (changed an
    argument), "alias" (returned one of them, or a part of one), or "" (neither)."""
    text = outcome[1] if isinstance(outcome, tuple) and not outcome[0] else ""
    if " -> changed in place to " in text:
        return "in place"
    if " returned -> the input itself" in text or "which holds the input's own" in text:
        return "alias"
    return ""


def _looks_like(m: Any, theirs: Any, o: Any) -> bool:
    """Does the learner's failure of a test (``o``) look like the failure of
    misconception ``m`` there (``theirs``), for showing a hint written about that
    mistake? The same outcome, or the same kind of side effect: any in-place change
    of an input, or alias of one, is like any other, whatever the values."""
    return _alike(m, theirs, o) or bool(_side_effect(o)) and bool(_side_effect(theirs))


def _row_diagnosis(known: list[tuple[Any, dict]], outcomes: dict, test: str) -> str:
    """For a learner whose outcomes match no single misconception (two mistakes at
    once): the diagnosis of the one known mistake that fails ``test`` and whose every
    failure the learner shares exactly (the same value, the same error message), so
    that the learner makes that mistake and something else besides; "" when none or
    several different ones do. A mistake that fails a single test does not count: one
    shared row is too little evidence (no range check at all fails the past-the-end
    row exactly as a range check with <= does)."""
    if outcomes[test][0]:
        return ""
    def shares(t: str, o: tuple) -> bool:
        # a contract row: failing is enough (its smallest case is the other mistake's)
        mine = outcomes.get(t)
        return mine == o or (is_contract_test(t) and mine is not None and not mine[0])

    found = {m.diagnosis for m, theirs in known
             if not theirs.get(test, (True, ""))[0]
             and sum(not o[0] for t, o in theirs.items()
                     if not is_contract_test(t)) >= 2  # one shared row is no evidence
             and all(shares(t, o) for t, o in theirs.items() if not o[0])}
    return found.pop() if len(found) == 1 else ""


def _match(known: list[tuple[Any, dict]], outcomes: dict) -> Any:
    """The misconception whose outcomes are the learner's: the same on every test;
    failing that, the only one marked ``varies`` (its results hold counts or timings
    that change from run to run) that passes and fails the same tests with the same
    results but for the numbers in them. Numbers are masked for those only: elsewhere
    the number is the evidence (a ``numel`` returning 7 does not count dimensions)."""
    for m, theirs in known:
        if all(theirs.get(t) == o for t, o in outcomes.items()):
            return m
    close = [m for m, theirs in known if getattr(m, "varies", False)
             and all(_alike(m, theirs.get(t), o) for t, o in outcomes.items())]
    if len(close) == 1:
        return close[0]
    # A contract's smallest failing case depends on how the mistake is written (another
    # way of writing it fails a smaller case first, or with another error): when the
    # hand-written tests' outcomes are one misconception's exactly, and some of them
    # fail, a contract row need only fail as that misconception's does.
    hand = {t: o for t, o in outcomes.items() if not is_contract_test(t)}
    if not any(not passed for passed, _ in hand.values()):
        return None
    loose = [m for m, theirs in known
             if all(theirs.get(t) == o for t, o in hand.items())
             and all((theirs.get(t) or (None,))[0] == o[0]
                     for t, o in outcomes.items() if t not in hand)]
    return loose[0] if len(loose) == 1 else None


#: the name of the test a contract registers is the exercise's with this suffix
CONTRACT_SUFFIX = "_on_generated_inputs"


def is_contract_test(name: str) -> bool:
    """Whether the test of this name is an exercise's contract (generated inputs)."""
    return name.endswith(CONTRACT_SUFFIX)


def _callees(fn: Any) -> set[str]:
    """The global names a function's code (nested functions included) reads."""
    from stridegrad.course._wire import Remote

    if isinstance(fn, Remote):  # the judge's stand-in: its code is not here
        return set()
    code = getattr(fn, "__code__", None)
    if code is None:  # a class: its methods
        return {n for v in getattr(fn, "__dict__", {}).values() for n in _callees(v)}
    names, todo = set(), [code]
    while todo:
        c = todo.pop()
        names.update(c.co_names)
        todo.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    return names


def diagnose_rows(checkpoint: Checkpoint, result: CheckResult, namespace: Mapping[str, Any],
                  *, timeout: float | None = 10.0) -> None:
    """Give the failing rows of ``result`` their root cause, in place.

    For each exercise that failed a test: when the outcomes of the exercise's tests
    (pass or fail, and what came back) are exactly those of one of its known
    misconceptions, every failing row gets that misconception's ``diagnosis``; when
    they match none as a whole (two mistakes at once), a failing row gets the
    diagnosis of the one known mistake that fails it and whose every failure the
    learner shares exactly (the same value, the same error message). When the
    function calls another exercise's function that fails its own tests, a row that
    passes with the reference version of that function swapped in gets that
    exercise as its ``cause``. A hint written for
    particular mistakes (``hint_for``) stays only on a row whose failure looks like
    one of them (else the row points to :func:`hint`). With neither a diagnosis nor a cause, the first failing row of the
    exercise adds level 1 of the exercise's hints (``stridegrad.course.hints``, a
    nudge, and how to ask for the next level) after its own hint, which says what
    that test checks, unless its own hint is about the mistake its failure looks like.
    """
    from stridegrad.course.hints import nudge
    tests = {t.name: t for t in checkpoint.tests}
    by_exercise: dict[str, list[Row]] = {}
    for r in result.rows:
        by_exercise.setdefault(r.exercise, []).append(r)
    failing = {ex for ex, rows in by_exercise.items() if any(r.status in _FAILED for r in rows)}
    for ex in checkpoint.exercises:
        rows = by_exercise.get(ex, [])
        if ex not in failing or any(r.status in FUNCTION_STATUSES for r in rows):
            continue
        if ex in result.grown_defaults and _blame_shared_default(
                checkpoint, namespace.get(ex), result.grown_defaults[ex], rows, timeout):
            continue
        known = misconception_outcomes(checkpoint, ex, timeout)
        outcomes = {r.test: _outcome(r) for r in rows}
        match = _match(known, outcomes)
        cause = None if match else _failing_callee(checkpoint, result, namespace, ex, timeout)
        # With the other exercise's function swapped for the reference, which rows still
        # fail? Those are the learner's own mistakes, diagnosed on their own; only the
        # rows that then pass are blamed on the other exercise.
        own = _outcomes_with_reference(checkpoint, namespace, ex, cause, timeout) if cause else None
        if own is not None:
            match = _match(known, own)
            outcomes = {test: own.get(test, outcome) for test, outcome in outcomes.items()}
        gated: list[Row] = []  # rows whose hint is about another mistake than theirs
        wrong_type = "" if match is not None or cause else (
            _one_wrong_type(rows) or _endless_recursion(rows))
        for r in rows:
            if r.status not in _FAILED:
                continue
            if cause and (own is None or own.get(r.test, (True, ""))[0]
                          or own.get(r.test) != _outcome(r)):
                # passes with the reference, or fails otherwise: what the row shows
                # comes (at least partly) from the other exercise
                r.cause = cause
            elif match is not None:
                r.diagnosis = match.diagnosis
            elif wrong_type:
                r.diagnosis = wrong_type
            else:  # several mistakes at once: a row that only one known mistake explains
                guess = _row_diagnosis(known, outcomes, r.test)
                r.diagnosis = f"probably {guess}" if guess else ""
            test = tests.get(r.test)
            if test is not None and test.hint_for and (match is not None or not any(
                    m.label in test.hint_for and _looks_like(m, theirs.get(r.test),
                                                             outcomes[r.test])
                    for m, theirs in known)):
                r.hint = ""
                gated.append(r)
        first = next((r for r in rows if r.status in _FAILED and not r.hidden and not r.cause
                      and not r.diagnosis), None)
        if first is not None and match is None and not (
                tests.get(first.test) and tests[first.test].hint_for and first.hint) and not (
                first.hint and _side_effect(_outcome(first))):  # its hint is about just that
            level_one = nudge(checkpoint.episode, ex)
            if level_one and first.hint:  # the row's own hint is about this test: keep it
                first.hint = f"{first.hint} Stuck on {ex}? {level_one}"
            elif level_one:
                first.hint = level_one
        for r in gated:  # never a failing row with nothing to go on
            if not (r.hint or r.diagnosis or r.cause):
                r.hint = (f'check() does not know this mistake: hint("{checkpoint.episode}", '
                          f'"{ex}") gives the hints for {ex}, a level at a time.')


def _no_credit_for_delegating(result: CheckResult) -> None:
    """An exercise that calls the library's (or NumPy's) own version in one test gets
    no credit in the others either: a test that its own code passes (checking the
    dtype before it hands the numbers to NumPy) is marked as delegating too."""
    said = {r.exercise: r.message for r in result.rows if r.status == "delegates"}
    for r in result.rows:
        if r.exercise in said and r.status == "pass":
            r.status, r.message, r.points = "delegates", said[r.exercise], 0


def _blame_shared_default(checkpoint: Checkpoint, fn: Any, grown: list[str], rows: list[Row],
                          timeout: float | None) -> bool:
    """Diagnose the failing rows of an exercise whose default argument grew during the
    tests (``def f(x, out=[])``: one object, made when ``def`` ran, that each call adds
    to), when it passes with that default new and empty at each call. Returns whether
    that explained any row: the shared default is then the root cause, and the other
    rows keep their own hints."""
    tests = {t.name: t for t in checkpoint.tests}
    values = _default_values(fn)
    empty = {list: "[]", dict: "{}", set: "set()"}.get(type(values[grown[0]]), "a new one")
    text = (f"the default value of {grown[0]} (def {fn.__name__}(..., {grown[0]}=...)) is one "
            f"object, made once when def ran and shared by every call: each call adds to what "
            f"the calls before it left there. Default to None and make a new one in each "
            f"call: if {grown[0]} is None: {grown[0]} = {empty}")

    argnames = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    positional = argnames[len(argnames) - len(fn.__defaults__ or ()):]

    def fresh() -> Callable:
        """``fn`` with each grown default a new, empty one of its type."""
        new = {name: type(values[name])() if isinstance(values[name], _GROWABLE)
               else copy.deepcopy(values[name]) for name in grown}
        clone = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, tuple(
            new.get(name, value) for name, value in zip(positional, fn.__defaults__ or ())),
            fn.__closure__)
        clone.__kwdefaults__ = {name: new.get(name, value)
                                for name, value in (fn.__kwdefaults__ or {}).items()} or None
        return clone

    @functools.wraps(fn)
    def each_call_fresh(*args, **kwargs):
        return fresh()(*args, **kwargs)

    explained = False
    for r in rows:
        if r.status not in _FAILED or r.test not in tests:
            continue
        try:
            passes = _run_one(tests[r.test], each_call_fresh, timeout, {}).passed
        except Exception:  # a default that cannot be copied
            passes = False
        if passes:
            r.diagnosis, r.hint = text, ""
            explained = True
    return explained


def _outcomes_with_reference(checkpoint: Checkpoint, namespace: Mapping[str, Any],
                             exercise: str, callee: str,
                             timeout: float | None) -> dict[str, tuple[bool, str]] | None:
    """The outcome of each test of ``exercise`` when its function calls the reference
    ``callee`` instead of the learner's (None when there is no reference to swap in)."""
    fn = namespace.get(exercise)
    reference = None
    for module in (checkpoint.reference, f"{SOLUTIONS}.ep{checkpoint.episode}"):
        try:
            reference = reference or (getattr(importlib.import_module(module), callee, None)
                                      if module else None)
        except Exception:
            pass
    if reference is None or not isinstance(fn, types.FunctionType):
        return None
    scope = dict(fn.__globals__)
    scope[callee] = reference
    clone = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__qualname__, clone.__module__ = fn.__qualname__, fn.__module__
    rows = run_checkpoint(checkpoint, {**namespace, exercise: clone}, exercise=exercise,
                          require_local=False, timeout=timeout, diagnose=False).rows
    return {r.test: _outcome(r) for r in rows}


def _failing_callee(checkpoint: Checkpoint, result: CheckResult, namespace: Mapping[str, Any],
                    exercise: str, timeout: float | None) -> str | None:
    """Another exercise that ``exercise``'s function calls and that fails its own tests."""
    called = _callees(namespace.get(exercise)) & set(checkpoint.exercises) - {exercise}
    for other in checkpoint.exercises:
        if other not in called:
            continue
        rows = [r for r in result.rows if r.exercise == other]
        if not rows:  # checked one exercise: run the other's tests too
            rows = run_checkpoint(checkpoint, namespace, exercise=other, require_local=False,
                                  timeout=timeout, diagnose=False).rows
        if any(not r.passed for r in rows):
            return other
    return None


# --------------------------------------------------------------------------- loading

def _episode_of(episode: int | str) -> str:
    text = str(episode).strip()
    head = text.split("_", 1)[0]
    if head.isdigit() and len(head) <= 2:
        return f"{int(head):02d}"
    raise ValueError(f"a lesson is a number like 1, '01' or a name like '01_flat_storage', got "
                     f"{episode!r}")


def load_checkpoint(episode: int | str) -> Checkpoint:
    """The checkpoint (the tests) of a lesson (``1``, ``"01"`` or ``"01_flat_storage"``)."""
    nn = _episode_of(episode)
    name = f"stridegrad.course.checkpoints.ep{nn}"
    if importlib.util.find_spec(name) is None:
        from stridegrad.course.checkpoints import available
        raise LookupError(f"lesson {nn} has no checkpoint; lessons with checkpoints: "
                          f"{', '.join(available()) or 'none'}")
    module = importlib.import_module(name)
    return module.checkpoint


def load_checkpoint_file(path: str | os.PathLike) -> Checkpoint:
    """A checkpoint from a file of the same format as the checkpoint modules
    (an instructor's extra tests): it must define ``checkpoint``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no tests file {path}")
    source = path.read_text(encoding="utf-8")
    try:
        ast.parse(source, str(path))
    except SyntaxError as exc:
        raise ValueError(f"{path}: syntax error on line {exc.lineno}: {exc.msg}") from None
    spec = importlib.util.spec_from_file_location(f"stridegrad_extra_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    checkpoint = getattr(module, "checkpoint", None)
    if not isinstance(checkpoint, Checkpoint):
        raise ValueError(f"{path} must define `checkpoint = Checkpoint(...)`, "
                         f"found {type(checkpoint).__name__}")
    return checkpoint


#: While grading (``STRIDEGRAD_GRADING`` set), each :func:`check` call appends the lesson
#: and what it would have tested, ``{exercise: the object its name held}``: the grader
#: tells the learner when a later cell replaced a definition that check() ran on.
GRADING_CALLS: list[tuple[str, dict]] = []
#: In the judge's worker: lesson number -> (lesson, its exercises' names).
GRADING_EXERCISES: dict[str, tuple[str, list[str]]] = {}


def check(lesson: int | str, exercise: str | None = None, *,
          namespace: Mapping[str, Any] | None = None, timeout: float | None = 10.0) -> CheckResult:
    """Run the checkpoint of ``lesson`` (its tests) on the functions you defined, and show
    a table.

    In a notebook, put ``check("01")`` (or ``check("01", "numel")`` for one
    exercise) in a cell: in IPython or Jupyter it shows the table itself
    (``display()``) and returns a :class:`ShownResult`, whose value as the cell's
    last expression is the points earned (``text/plain``: the bare number that
    nbgrader reads as the cell's partial credit) with a one-line summary
    (``text/html``, "lesson 01, numel: 7/7 points"); elsewhere it returns the :class:`CheckResult`, which prints
    as the table. The functions are looked up in the caller's globals unless
    ``namespace`` is given. It never raises for what your code does.

    A per-exercise check cell is an nbgrader grade cell worth the exercise's
    points, and nbgrader's autograder reads the cell's value as its partial credit,
    so nbgrader scores each exercise as ``stridegrad grade`` does. Under it
    (``NBGRADER_EXECUTION`` set) what the tested functions write to stderr goes to
    stdout (nbgrader gives a cell with stderr output no points). Inside
    ``stridegrad grade`` and ``stridegrad check`` (``STRIDEGRAD_GRADING`` set) it
    runs no tests: they run once, after the last cell.
    """
    if os.environ.get("STRIDEGRAD_GRADING"):  # the grader runs the tests once, after all cells
        # the judge's worker has no checkpoints: the grader told it the exercises' names
        known = GRADING_EXERCISES.get(_episode_of(lesson))
        if known is None:
            checkpoint = load_checkpoint(lesson)
            known = (checkpoint.lesson, checkpoint.exercises)
        names = [exercise] if exercise else known[1]
        if namespace is None:  # a check of other functions (namespace=) checks no definition
            seen = sys._getframe(1).f_globals
            GRADING_CALLS.append((known[0], {ex: seen.get(ex) for ex in names}))
        return CheckResult(known[0], "tests run by the grader after the last cell",
                           exercise=exercise)
    own = namespace is None
    if own:
        namespace = sys._getframe(1).f_globals
    quiet = contextlib.redirect_stderr(sys.stdout) if os.environ.get(
        "NBGRADER_EXECUTION") else contextlib.nullcontext()
    with quiet:
        result = run_checkpoint(load_checkpoint(lesson), namespace, exercise=exercise,
                                timeout=timeout)
    shell = _ipython()
    if shell is None:
        return result
    from IPython.display import display

    display(result)  # the table; the cell's value is then the points
    return ShownResult(**{f.name: getattr(result, f.name)
                          for f in dataclasses.fields(result)})


def _ipython() -> Any:
    """The running IPython shell (a Jupyter kernel, the terminal), or None."""
    module = sys.modules.get("IPython")
    get = getattr(module, "get_ipython", None)
    return get() if get is not None else None
