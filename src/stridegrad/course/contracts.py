"""Contracts: an exercise judged on every kind of input its docstring allows.

Hand-written tests teach: each shows one case and says what it is about. They
cannot prove: a wrong function that happens to agree on those few cases passes
them all (a height computed from the width, on square images only). A contract
closes the gap. It is, for one exercise,

* a generator of the **valid** inputs the docstring allows (a Hypothesis
  strategy of :class:`Call`), drawn toward what learners get wrong: ranks 0 to 4,
  sizes 0, 1 and unequal sizes, negative strides, offsets, ...;
* one generator of **invalid** inputs per ``Raises:`` clause (:class:`Invalid`),
  with the exception and the values its message must name;
* the **reference** function (the library's own, by dotted name) as the oracle.

:meth:`stridegrad.course.checks.Checkpoint.contract` registers a contract as one
more test of the exercise, after its hand-written ones. The cases are drawn once,
derandomized (the same on every machine, in every run and in ``stridegrad
grade``), ordered from the smallest, and the reference's outcome on each is
computed before the learner's function runs. Each case is then judged on plain
data (:func:`observe`): the learner's function must

* return what the reference returns, of the same type at every depth (a tuple
  is not a list, ``2.0`` is not ``2``, ``np.int64(2)`` is not ``2``), floats
  within a tolerance;
* leave every argument as the reference leaves it (no writing into the input;
  a function-valued argument that records its calls must see the same calls,
  in the same order);
* return nothing that aliases an argument, unless the contract allows it;
* raise where the reference raises, the same exception type, and for an invalid
  input a message naming the values the docstring says it names.

The first case that fails, the smallest, is the row's call, expected and got,
and what the misconception matcher compares.
"""

from __future__ import annotations

import copy
import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Contract", "Invalid", "Recorder", "draw_cases", "observe", "plain",
           "same_plain"]


class Call:
    """The arguments of one call: ``Call(args, kwargs)``, shown as the call."""

    __slots__ = ("args", "kwargs")

    def __init__(self, args: Sequence = (), kwargs: dict | None = None):
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})

    def __repr__(self) -> str:
        from stridegrad.course.checks import short_repr
        parts = [short_repr(a, 200) for a in self.args]
        parts += [f"{k}={short_repr(v, 200)}" for k, v in self.kwargs.items()]
        return f"Call({', '.join(parts)})"


class Recorder:
    """A function-valued argument that records what it is called with, so that the
    contract can compare how often, in which order and on what a learner's function
    calls it with how the reference does (``fn`` is called once per element, in
    row-major order). It returns ``fn(*args)``."""

    def __init__(self, fn: Callable, name: str, ordered: bool = True):
        self.fn = fn
        self.__name__ = name
        self.ordered = ordered  # False: the calls are compared as a multiset
        self.calls: list = []

    def __call__(self, *args):
        self.calls.append(list(args) if len(args) != 1 else args[0])
        return self.fn(*args)

    def __repr__(self) -> str:
        return self.__name__

    def __plain__(self) -> list:
        calls = [plain(c) for c in self.calls]
        if not self.ordered:
            calls.sort(key=repr)
        return ["function", self.__name__, calls]

    def __deepcopy__(self, memo):
        new = Recorder(self.fn, self.__name__, self.ordered)
        new.calls = copy.deepcopy(self.calls, memo)
        return new


@dataclass(frozen=True)
class Invalid:
    """Inputs one ``Raises:`` clause is about: they must raise ``raises`` with a
    message that names ``naming(*args, **kwargs)`` (each value as ``str`` or ``repr``;
    a tuple may be written as a list). ``what`` says in words what makes them invalid."""

    inputs: Any  # a Hypothesis strategy of Call
    raises: type
    what: str
    naming: Callable[..., tuple] = lambda *args, **kwargs: ()


@dataclass
class Contract:
    """The valid inputs of one exercise, its invalid ones, and its oracle."""

    exercise: str
    reference: str  # "package.module.function"
    valid: Any  # a Hypothesis strategy of Call
    invalid: tuple[Invalid, ...] = ()
    cases: int = 40  # valid cases drawn
    invalid_cases: int = 10  # per Invalid
    may_alias: bool = False  # the result may share a list or array with an argument
    #: For an exercise about live objects (a graph of Values, a Module, an IR): called as
    #: ``scenario(fn, *args, **kwargs)`` in place of ``fn(*args, **kwargs)``, it builds
    #: the objects from the case's plain arguments, runs ``fn`` on them and returns what
    #: it observed, as plain data (a dict of gradients, the nodes in the order visited,
    #: ...). The reference's scenario is judged against the learner's, as a result is.
    scenario: Callable[..., Any] | None = None
    _prepared: list | None = field(default=None, repr=False)

    def subject(self, fn: Callable) -> Callable:
        """What a case calls: ``fn`` itself, or ``fn`` run through the scenario."""
        if self.scenario is None:
            return fn
        scenario = self.scenario

        def run(*args, **kwargs):
            return scenario(fn, *args, **kwargs)

        run.__name__ = run.__qualname__ = getattr(fn, "__name__", self.exercise)
        return run

    def oracle(self) -> Callable:
        module, _, name = self.reference.rpartition(".")
        return getattr(importlib.import_module(module), name)

    def prepared(self) -> list[tuple[Call, Invalid | None, dict]]:
        """The cases, smallest first, each with its Invalid (None for a valid input)
        and the reference's observation; computed once, before any learner's code runs
        (and outside the watch that notices calls into the reference)."""
        if self._prepared is None:
            reference = self.subject(self.oracle())
            drawn: list[tuple[Call, Invalid | None]] = [
                (c, None) for c in draw_cases(self.valid, self.cases)]
            for bad in self.invalid:
                drawn += [(c, bad) for c in draw_cases(bad.inputs, self.invalid_cases)]
            drawn.sort(key=lambda pair: _size(pair[0]))
            out = []
            for case, bad in drawn:
                seen = observe(reference, case)
                if bad is not None and "raised" not in seen:
                    raise AssertionError(f"contract of {self.exercise}: the reference returned "
                                         f"for an input meant to be invalid ({bad.what}): "
                                         f"{case!r}")
                out.append((case, bad, seen))
            self._prepared = out
        return self._prepared

    def run(self, fn: Callable) -> None:
        """Judge ``fn`` on every case; raise the CheckFailure of the first (smallest)
        case it fails."""
        from stridegrad.course.checks import CheckFailure
        subject = self.subject(fn)
        for case, bad, want in self.prepared():
            got = observe(subject, case, passthrough=True)
            failure = judge(self.exercise, case, bad, want, got, may_alias=self.may_alias)
            if failure is not None:
                call, expected, shown, kind = failure
                raise CheckFailure(call, expected, shown, kind=kind)


def _size(case: Call) -> tuple:
    """Smaller first: a shorter plain form of the arguments, then that form's text
    (cheaper than the call's repr, which prints each array)."""
    text = _key(case)
    return (len(text), text)


def _key(case: Call) -> str:
    return str(plain([list(case.args), case.kwargs])) + _strides_of(case)


def draw_cases(strategy: Any, n: int) -> list[Call]:
    """``n`` examples of ``strategy`` (fewer if it has fewer distinct ones), the same on
    every machine and in every run: Hypothesis derandomized, without its database."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings

    found: list = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet)
    @given(strategy)
    def collect(case):
        found.append(case)

    collect()
    seen: set = set()
    unique = []
    for case in found:
        key = _key(case)  # an array's repr does not show its layout: its plain form + strides
        if key not in seen:
            seen.add(key)
            unique.append(case)
    return unique


def _strides_of(obj: Any) -> str:
    """The strides of the NumPy arrays in ``obj`` (a Call or its arguments), as text."""
    if isinstance(obj, Call):
        return _strides_of((obj.args, obj.kwargs))
    if isinstance(obj, (list, tuple)):
        return "".join(_strides_of(x) for x in obj)
    if isinstance(obj, dict):
        return "".join(_strides_of(v) for v in obj.values())
    return str(obj.strides) if type(obj).__name__ == "ndarray" else ""


# --------------------------------------------------------------------------- plain data

def plain(value: Any, _depth: int = 0) -> Any:
    """``value`` as plain data that says its type at every depth: ``["int", 3]``,
    ``["tuple", [["int", 3], ["int", 1]]]``, ``["ndarray", "<f8", [2], [...]]``. Two
    values are the same answer exactly when their plain forms are
    (:func:`same_plain`): an object with an ``__eq__`` that says True to everything
    is ``["object", "mymodule.Anything", ...]``, equal to nothing but itself."""
    if _depth > 40:
        return ["deep"]
    kind = type(value)
    if value is None:
        return ["None"]
    if kind in (bool, int, str):
        return [kind.__name__, value]
    if kind is float:
        return ["float", value]
    if kind in (bytes, bytearray):
        return [kind.__name__, bytes(value).hex()]
    if kind in (list, tuple):
        return [kind.__name__, [plain(x, _depth + 1) for x in value]]
    if kind is dict:  # in key order: two dicts that differ only in insertion order are equal
        items = [[plain(k, _depth + 1), plain(v, _depth + 1)] for k, v in value.items()]
        return ["dict", sorted(items, key=lambda kv: repr(kv[0]))]
    if kind is slice:
        return ["slice", plain(value.start), plain(value.stop), plain(value.step)]
    if hasattr(value, "__plain__"):
        return value.__plain__()
    module = kind.__module__ or ""
    if module == "numpy" or module.startswith("numpy."):
        import numpy as np
        if isinstance(value, np.ndarray):
            return ["ndarray", value.dtype.str, list(value.shape), plain(value.tolist())]
        if isinstance(value, np.generic):
            # a NumPy scalar is a 0-d array: NumPy's own arithmetic on 0-d arrays
            # gives either, and a docstring that says "an array" allows both
            return ["ndarray", value.dtype.str, [], plain(value.item())]
    if callable(value) and hasattr(value, "__qualname__"):
        return ["function", value.__qualname__]
    from stridegrad.course.checks import short_repr
    return ["object", f"{module}.{kind.__qualname__}", short_repr(value)]


def same_plain(a: Any, b: Any) -> bool:
    """Whether two plain forms are the same answer: equal, but floats within a relative
    1e-9 (absolute 1e-12), and NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (
            math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_plain(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _kind_of(form: Any) -> str:
    return form[0] if isinstance(form, list) and form and isinstance(form[0], str) else "?"


# --------------------------------------------------------------------------- observe

def observe(fn: Callable, case: Call, *, passthrough: bool = False) -> dict:
    """Call ``fn`` on a fresh copy of ``case`` and say what happened, as plain data:
    ``returned`` (the result's plain form) or ``raised`` (the exception's class and its
    bases by name, and ``message``), ``after`` (the arguments' plain forms after the
    call), ``aliases`` (whether the result holds a list, dict or array that is one of
    the arguments'), and ``shown``, the row's text for it.

    ``passthrough``: let NotImplementedError, KeyboardInterrupt and the test's time
    limit through (a learner's stub is reported as such, not as a wrong answer)."""
    from stridegrad.course.checks import _TestTimeout, _mutable_parts, raised
    args, kwargs = fresh(case.args), fresh(case.kwargs)
    try:
        result = fn(*args, **kwargs)
    except (KeyboardInterrupt, _TestTimeout):
        raise
    except NotImplementedError:
        if passthrough:
            raise
        raise AssertionError(f"the reference {fn!r} is not implemented") from None
    except BaseException as exc:  # noqa: B036 - a learner's SystemExit is an answer too
        return {"raised": [k.__name__ for k in type(exc).__mro__], "message": str(exc),
                "after": plain([list(args), kwargs]), "shown": raised(exc),
                "shared": _shared_between(args, kwargs)}
    inputs = _mutable_parts((args, kwargs), {})
    outputs = _mutable_parts(result, {})
    aliases = any(i in inputs for i in outputs) or _shares_memory(outputs, inputs)
    return {"returned": plain(result), "after": plain([list(args), kwargs]),
            "aliases": aliases, "value": _Shown(result),
            "shared": _shared_between(args, kwargs)}


class _Shown:
    """A returned value, shown (``short_repr``) only when a row needs its text: printing
    every array of every passing case would cost more than the calls."""

    __slots__ = ("value", "_text")

    def __init__(self, value: Any):
        self.value, self._text = value, None

    def __str__(self) -> str:
        if self._text is None:
            from stridegrad.course.checks import short_repr
            self._text = short_repr(self.value)
        return self._text


def _shown(seen: dict) -> str:
    return seen["shown"] if "shown" in seen else str(seen["value"])


def fresh(obj: Any, _memo: dict | None = None) -> Any:
    """A deep copy in which every NumPy array keeps its layout: a transposed, stepped
    or reversed view stays one (``copy.deepcopy`` would make it contiguous, and the
    function would never meet the strides the case was drawn with). An object that
    appears twice (one storage list under two views) is copied once, and shared as
    in the case."""
    memo = {} if _memo is None else _memo
    if id(obj) in memo:
        return memo[id(obj)]
    if isinstance(obj, list):
        out: Any = []
        memo[id(obj)] = out
        out.extend(fresh(x, memo) for x in obj)
        return out
    if type(obj) is tuple:
        return tuple(fresh(x, memo) for x in obj)
    if isinstance(obj, dict):
        out = {}
        memo[id(obj)] = out
        out.update((k, fresh(v, memo)) for k, v in obj.items())
        return out
    module = type(obj).__module__ or ""
    if module == "numpy" and type(obj).__name__ == "ndarray":
        out = _same_layout_copy(obj)
    else:
        out = copy.deepcopy(obj)
    memo[id(obj)] = out
    return out


def _shared_between(args: tuple, kwargs: dict) -> list:
    """The pairs of arguments (by position, keywords by name) that hold one and the
    same list, dict or array, or arrays that share memory."""
    from stridegrad.course.checks import _mutable_parts
    named = [(str(k + 1), a) for k, a in enumerate(args)] + list(kwargs.items())
    parts = [(name, _mutable_parts(a, {})) for name, a in named]
    pairs = []
    for i, (n1, p1) in enumerate(parts):
        for n2, p2 in parts[i + 1:]:
            if set(p1) & set(p2) or _shares_memory(p1, p2):
                pairs.append([n1, n2])
    return pairs


def _same_layout_copy(a: Any) -> Any:
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
    if a.size == 0 or any(s % a.itemsize for s in a.strides) or a.flags.c_contiguous:
        return a.copy()
    steps = [s // a.itemsize for s in a.strides]
    low = sum(min(0, (d - 1) * s) for d, s in zip(a.shape, steps))
    high = sum(max(0, (d - 1) * s) for d, s in zip(a.shape, steps))
    buffer = np.zeros(high - low + 1, dtype=a.dtype)
    view = as_strided(buffer[-low:], a.shape, a.strides)
    view[...] = a
    return view


def _shares_memory(outputs: dict, inputs: dict) -> bool:
    """Whether an array in the result is a view of an array among the arguments."""
    arrays_out = [v for v in outputs.values() if type(v).__name__ == "ndarray"]
    arrays_in = [v for v in inputs.values() if type(v).__name__ == "ndarray"]
    if not arrays_out or not arrays_in:
        return False
    import numpy as np
    return any(np.shares_memory(a, b) for a in arrays_out for b in arrays_in)


def _call_text(exercise: str, case: Call) -> str:
    from stridegrad.course.checks import _format_call
    return _format_call(exercise, case.args, case.kwargs)


def judge(exercise: str, case: Call, bad: Invalid | None, want: dict, got: dict, *,
          may_alias: bool) -> tuple[str, str, str, str] | None:
    """None when ``got`` (the learner's observation) is the answer ``want`` (the
    reference's) is; else ``(call, expected, got, kind)`` for the row."""
    from stridegrad.course.checks import _names, short_repr

    def call() -> str:  # the call's text, made only for a failing row (arrays are slow)
        return _call_text(exercise, case)

    if "raised" in want:
        kind = want["raised"][0]
        expected = f"raises {kind}"
        named: tuple = ()
        if bad is not None:
            named = bad.naming(*case.args, **case.kwargs)
            if named:
                expected += " naming " + " and ".join(short_repr(v) for v in named)
        if "raised" not in got:
            return call(), expected, f"returned {_shown(got)}", "fail"
        if kind not in got["raised"]:
            return call(), expected, _shown(got), "error"
        if not all(_names(got["message"], v) for v in named):
            return call(), expected, _shown(got) if got["message"] else (
                _shown(got) + " (no message)"), "fail"
        return None
    if "raised" in got:
        return call(), _shown(want), _shown(got), "error"
    if not same_plain(got["returned"], want["returned"]):
        note = ""
        theirs, ours = _kind_of(got["returned"]), _kind_of(want["returned"])
        if theirs != ours and "None" not in (theirs, ours):
            note = f" ({_a(theirs)}, not {_a(ours)})"
        return call(), _shown(want), _shown(got) + note, "fail"
    for k, (mine, ref) in enumerate(zip(got["after"][1][0][1], want["after"][1][0][1])):
        if same_plain(mine, ref):
            continue
        if _kind_of(ref) == "function" and len(ref) == 3:  # a Recorder: its calls differ
            return (f"the calls of {ref[1]} during {call()}", _calls_text(ref),
                    _calls_text(mine), "fail")
        if same_plain(ref, plain(case.args[k])):  # the reference leaves it alone
            return (f"argument {k + 1} after {call()}", "unchanged",
                    "changed in place to " + _unplain_text(mine), "fail")
        return (f"argument {k + 1} after {call()}", _unplain_text(ref), _unplain_text(mine),
                "fail")
    if not same_plain(got["after"][1][1], want["after"][1][1]):
        return f"the keyword arguments after {call()}", "unchanged", "changed in place", "fail"
    if got["shared"] != want["shared"]:
        new = [p for p in got["shared"] if p not in want["shared"]]
        if new:
            a, b = new[0]
            return (f"arguments {a} and {b} after {call()}", "nothing in common",
                    "they now hold one and the same list or array (or views of one): a "
                    "later change to one changes the other", "fail")
    if got["aliases"] and not may_alias:
        return (f"what {call()} returned", "a new object, sharing nothing with the inputs",
                f"{_shown(got)}, which holds one of the inputs' own lists or arrays, or "
                "a view of one", "fail")
    return None


def _calls_text(form: list) -> str:
    from stridegrad.course.checks import cut_between_items
    calls = [_unplain_text(c) for c in form[2]] if len(form) == 3 else []
    text = f"{len(calls)} call{'s' if len(calls) != 1 else ''}"
    return cut_between_items(f"{text}, on {', '.join(calls)}" if calls else text, 200)


def _unplain_text(form: Any) -> str:
    kind = _kind_of(form)
    if kind in ("int", "bool", "str", "float"):
        return repr(form[1])
    if kind == "None":
        return "None"
    if kind in ("list", "tuple"):
        items = [_unplain_text(x) for x in form[1]]
        if kind == "tuple":
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return "[" + ", ".join(items) + "]"
    if kind == "function":
        return form[1]
    if kind == "dict":
        return "{" + ", ".join(f"{_unplain_text(k)}: {_unplain_text(v)}" for k, v in form[1]) + "}"
    if kind == "ndarray":
        return f"array({_unplain_values(form[3])})"
    if kind == "slice":
        return f"slice({', '.join(_unplain_text(x) for x in form[1:])})"
    return str(form[-1])


def _unplain_values(form: Any) -> str:
    """An array's values (the plain form of its ``tolist()``) as nested brackets."""
    if _kind_of(form) == "list":
        return "[" + ", ".join(_unplain_values(x) for x in form[1]) + "]"
    return _unplain_text(form)


def _a(noun: str) -> str:
    noun = {"ndarray": "NumPy array"}.get(noun, noun)
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
