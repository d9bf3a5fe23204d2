"""The library's own checks, run on your library: ``stridegrad yours --test``.

The same ideas as the project's tests (``tests/array``, ``tests/tensor``,
``tests/test_train.py``): strided arrays against NumPy (shapes, strides, offsets and
values of views, reshapes, broadcasts, reductions, matmul), gradients against
central differences (``stridegrad.gradcheck``) on the ``python`` device, whose arrays
are the strided array, and a small training run that must learn. They use sizes and
ranks past the checkpoints' (a 5-d shape, sides of 6 to 10), where a function that
passed its own tests can still be wrong.

Each case runs on your library (:meth:`Library.install`) with a time limit per call
of one of your functions and one for the whole case. A case that fails is run again
with one of your functions at a time (those it called), the rest the library's own:
the functions that fail alone are the cause, named with the first of their calls
whose answer differs from the library's function ("your numel: numel((2, 3, 1, 2,
2)) returns 12, the library's returns 24"). When none fails alone, the ones the case
called are named together. Telling them apart takes at most one more case limit, so
a case costs at most about twice :data:`CASE_LIMIT` (unless a function of yours
catches the stop, ``except BaseException:``, and loops on: that one runs in your
process, and nothing in it can stop it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from stridegrad.course.yours import Library, YourTimeout, time_limit

__all__ = ["CASES", "Case", "Failure", "Outcome", "run_battery"]

#: Seconds one call of one of your functions may take (the outermost, when they nest).
CALL_LIMIT = 2.0
#: Seconds one case may take.
CASE_LIMIT = 30.0


class CaseTimeout(BaseException):
    """A case ran past its limit (in the library's code, not in one of yours)."""


@dataclass(frozen=True)
class Case:
    name: str  # "arrays: views" (what it checks, shown in the report)
    run: Callable[[], None]  # raises (AssertionError with a message) when it fails


@dataclass
class Failure:
    exercises: list[str]  # yours that cause it (all that the case called, if none alone)
    message: str


@dataclass
class Outcome:
    case: Case
    failures: list[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


# --------------------------------------------------------------------------- the cases

def _np_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _np_offset(view: np.ndarray, root: np.ndarray) -> int:
    return (view.__array_interface__["data"][0] - root.__array_interface__["data"][0]) \
        // view.itemsize


def _same(what: str, ours, ref: np.ndarray, root: np.ndarray | None = None) -> None:
    """``ours`` (a strided array) has NumPy's shape and values, and, for a view of
    ``root``, its strides and offset."""
    if tuple(ours.shape) != ref.shape:
        raise AssertionError(f"{what} has shape {tuple(ours.shape)}, NumPy's {ref.shape}")
    got = np.asarray(ours)
    if not np.allclose(got, ref, equal_nan=True):
        raise AssertionError(f"{what} is {got.tolist()}, NumPy's {ref.tolist()}")
    if root is not None and ref.size:
        if tuple(ours.strides) != _np_strides(ref):
            raise AssertionError(f"{what} has strides {ours.strides}, NumPy's "
                                 f"{_np_strides(ref)} (in elements)")
        if ours.offset != _np_offset(ref, root):
            raise AssertionError(f"{what} starts at offset {ours.offset}, NumPy's "
                                 f"{_np_offset(ref, root)}")


SHAPES = [(2, 3, 4), (5,), (), (3, 0, 2), (1, 1, 1), (2, 3, 1, 2, 2), (7, 6), (10, 1, 9)]


def _arange(shape: tuple):
    import stridegrad.array as sa

    n = int(np.prod(shape))
    return sa.reshape(sa.arange(n), shape), np.arange(n).reshape(shape)


def arrays_shapes() -> None:
    import stridegrad.array as sa

    for shape in SHAPES:
        ours, ref = _arange(shape)
        _same(f"arange({ref.size}).reshape({shape})", ours, ref, ref)
        zeros = sa.zeros(shape)
        if zeros.size != ref.size:
            raise AssertionError(f"zeros({shape}).size is {zeros.size}, NumPy's {ref.size}")


def arrays_views() -> None:
    import stridegrad.array as sa

    ours, ref = _arange((3, 4, 5))
    views = {
        "x.T": (sa.permute_dims(ours, (2, 1, 0)), ref.T),
        "permute_dims(x, (1, 2, 0))": (sa.permute_dims(ours, (1, 2, 0)), ref.transpose(1, 2, 0)),
        "x[1:, ::2, ::-1]": (ours[1:, ::2, ::-1], ref[1:, ::2, ::-1]),
        "x[:, 1, :]": (ours[:, 1, :], ref[:, 1, :]),
        "x[..., 2]": (ours[..., 2], ref[..., 2]),
        "x[::-1, -3:-1]": (ours[::-1, -3:-1], ref[::-1, -3:-1]),
    }
    for what, (a, b) in views.items():
        _same(f"{what} of a (3, 4, 5) array", a, np.asarray(b), ref)
    if ours[2, 3, 4].item() != ref[2, 3, 4]:
        raise AssertionError(f"x[2, 3, 4].item() is {ours[2, 3, 4].item()}, NumPy's "
                             f"{ref[2, 3, 4]}")


def arrays_reshape() -> None:
    import stridegrad.array as sa

    ours, ref = _arange((3, 4, 5))
    t, tref = sa.permute_dims(ours, (1, 0, 2)), ref.transpose(1, 0, 2)
    for what, a, b in [
            ("x.reshape((6, 10))", sa.reshape(ours, (6, 10)), ref.reshape(6, 10)),
            ("x.reshape((-1, 5, 2))", sa.reshape(ours, (-1, 5, 2)), ref.reshape(-1, 5, 2)),
            ("x.reshape((2, 3, 1, 2, 5))", sa.reshape(ours, (2, 3, 1, 2, 5)),
             ref.reshape(2, 3, 1, 2, 5)),
            ("x[:, ::2].reshape((3, 10))", sa.reshape(ours[:, ::2], (3, 10)),
             ref[:, ::2].reshape(3, 10)),
            ("x.transpose(1, 0, 2).reshape((4, 15))", sa.reshape(t, (4, 15)),
             tref.reshape(4, 15)),
            ("x.transpose(1, 0, 2).reshape((4, 3, 5, 1))", sa.reshape(t, (4, 3, 5, 1)),
             tref.reshape(4, 3, 5, 1))]:
        _same(what, a, b)


BROADCASTS = [((3, 1, 4), (2, 4)), ((5,), ()), ((2, 3), (3,)), ((4, 1), (1, 6)),
              ((2, 1, 3, 1, 2), (3, 1, 1)), ((1,), (7, 8))]


def arrays_broadcasting() -> None:
    import stridegrad.array as sa

    for sa_shape, sb_shape in BROADCASTS:
        (a, ra), (b, rb) = _arange(sa_shape), _arange(sb_shape)
        _same(f"add of {sa_shape} and {sb_shape}", sa.add(a, b), ra + rb)
        _same(f"multiply of {sb_shape} and {sa_shape}", sa.multiply(b, a), rb * ra)
    a, ra = _arange((3, 1))
    _same("broadcast_to((3, 1), (2, 3, 4))", sa.broadcast_to(a, (2, 3, 4)),
          np.broadcast_to(ra, (2, 3, 4)), ra)
    try:
        sa.add(sa.zeros((2, 3)), sa.zeros((4,)))
    except ValueError:
        pass
    else:
        raise AssertionError("add of shapes (2, 3) and (4,) gave an answer; NumPy raises "
                             "ValueError (they do not broadcast)")


def arrays_reductions() -> None:
    import stridegrad.array as sa

    ours, ref = _arange((3, 4, 5))
    t, tref = sa.permute_dims(ours, (2, 0, 1)), ref.transpose(2, 0, 1)
    for what, a, b in [
            ("sum(x)", sa.sum(ours), ref.sum()),
            ("sum(x, axis=1)", sa.sum(ours, axis=1), ref.sum(axis=1)),
            ("sum(x.transpose(2, 0, 1), axis=(0, 2), keepdims=True)", sa.sum(t, axis=(0, 2), keepdims=True),
             tref.sum(axis=(0, 2), keepdims=True)),
            ("max(x.transpose(2, 0, 1), axis=0)", sa.max(t, axis=0), tref.max(axis=0)),
            ("argmax(x[:, ::-1], axis=1)", sa.argmax(ours[:, ::-1], axis=1),
             ref[:, ::-1].argmax(axis=1)),
            ("mean(x[1:], axis=-1)", sa.mean(sa.astype(ours[1:], sa.float64), axis=-1),
             ref[1:].mean(axis=-1))]:
        _same(what, a, np.asarray(b))
    mask, rmask = _arange((3, 4))
    got = sa.nonzero(sa.remainder(mask, 3) == 0)
    want = np.nonzero(rmask % 3 == 0)
    for k, (g, w) in enumerate(zip(got, want)):
        _same(f"nonzero(x % 3 == 0)[{k}] of a (3, 4) array", g, w)


def arrays_matmul() -> None:
    import stridegrad.array as sa

    for sa_shape, sb_shape in [((3, 4), (4, 2)), ((2, 3, 4), (4, 5)), ((4,), (4, 3)),
                               ((2, 1, 3, 4), (5, 4, 2))]:
        (a, ra), (b, rb) = _arange(sa_shape), _arange(sb_shape)
        _same(f"matmul of {sa_shape} and {sb_shape}", sa.matmul(a, b), ra @ rb)
    a, ra = _arange((4, 3))
    _same("matmul of x.T and x, x of shape (4, 3)", sa.matmul(sa.permute_dims(a, (1, 0)), a),
          ra.T @ ra)


def _tensor(shape: tuple, seed: int):
    import stridegrad as sg

    values = np.random.default_rng(seed).normal(size=shape)
    return sg.tensor(values, requires_grad=True, device="python")


def _gradcheck(what: str, fn, *inputs) -> None:
    from stridegrad.gradcheck import GradcheckError, gradcheck

    try:
        gradcheck(fn, inputs)
    except GradcheckError as exc:
        raise AssertionError(f"{what}: the gradients differ from central differences:\n"
                             f"{exc}") from None


def gradients() -> None:
    import stridegrad as sg

    _gradcheck("(a * b + a).sum(), a (2, 3), b (3,)", lambda a, b: (a * b + a).sum(),
               _tensor((2, 3), 0), _tensor((3,), 1))
    _gradcheck("(a @ b).tanh().sum(), a (3, 4), b (4, 2)", lambda a, b: (a @ b).tanh().sum(),
               _tensor((3, 4), 2), _tensor((4, 2), 3))
    _gradcheck("(a.T * b).sum(axis=1).relu().sum(), a (4, 3), b (3, 1)",
               lambda a, b: (a.T * b).sum(axis=1).relu().sum(), _tensor((4, 3), 4),
               _tensor((3, 1), 5))
    targets = np.array([0, 2, 1, 2])
    _gradcheck("cross_entropy of (4, 3) logits",
               lambda x: sg.nn.functional.cross_entropy(x, targets), _tensor((4, 3), 6))
    F = sg.nn.functional
    _gradcheck("nll_loss(log_softmax(x, axis=0).T) of (3, 4) logits",
               lambda x: F.nll_loss(F.log_softmax(x, axis=0).T, targets), _tensor((3, 4), 7))


def training() -> None:
    import stridegrad as sg

    X, y = sg.data.make_moons(n=200, noise=0.1, seed=0)
    sg.manual_seed(0)
    net = sg.nn.MLP([2, 16, 2], activation="relu", device="python")
    opt = sg.optim.Adam(net.parameters(), lr=0.05)
    x = sg.tensor(X.astype(np.float32), device="python")
    for _ in range(60):
        loss = sg.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with sg.no_grad():
        acc = float((net(x).argmax(axis=1).numpy() == y).mean())
    if not acc >= 0.9:
        raise AssertionError(f"an MLP [2, 16, 2] trained on 200 moons for 60 Adam steps on "
                             f"the python device reaches {acc:.2f} accuracy; the library's "
                             "own reaches 1.00 (at least 0.90 expected)")


def sgd_steps() -> None:
    import stridegrad as sg

    p = sg.tensor([1.0, -2.0], dtype=sg.float64, requires_grad=True, device="python")
    opt = sg.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.1)
    for _ in range(2):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
    # by hand: g = 2.1 p; b1 = 2.1 p0, p1 = 0.79 p0; b2 = 0.9 b1 + 2.1 p1 = 3.549 p0
    expected = np.array([0.4351, -0.8702])
    got = p.numpy()
    if not np.allclose(got, expected, rtol=1e-9, atol=1e-12):
        raise AssertionError(f"SGD(lr=0.1, momentum=0.9, weight_decay=0.1): two steps on "
                             f"(p * p).sum() from p = [1, -2] give {got.tolist()}, "
                             f"expected {expected.tolist()}")


CASES: list[Case] = [
    Case("arrays against NumPy: shapes and strides", arrays_shapes),
    Case("arrays against NumPy: views", arrays_views),
    Case("arrays against NumPy: reshape", arrays_reshape),
    Case("arrays against NumPy: broadcasting", arrays_broadcasting),
    Case("arrays against NumPy: reductions", arrays_reductions),
    Case("arrays against NumPy: matmul", arrays_matmul),
    Case("gradients against finite differences (python device)", gradients),
    Case("training: an MLP learns the moons (python device)", training),
    Case("training: two SGD steps with momentum and weight decay (python device)", sgd_steps),
]


# --------------------------------------------------------------------------- running them

def _problem(exc: BaseException) -> str:
    if isinstance(exc, AssertionError):
        return str(exc)
    if isinstance(exc, CaseTimeout):
        return f"did not finish within {exc.args[0]:g} s"
    notes = [n for n in getattr(exc, "__notes__", []) if n.startswith("raised in your ")]
    return f"raised {type(exc).__name__}: {exc}" + (f" ({notes[0]})" if notes else "")


def _try(case: Case, library: Library, only, call_limit: float, case_limit: float,
         record: bool = False):
    """Run ``case`` on ``library`` (only ``only`` of yours); None, or what went wrong."""
    library.install(only=only, call_limit=call_limit)
    library._calls.counts.clear()
    library._calls.record = {} if record else None
    try:
        with time_limit(case_limit, lambda: CaseTimeout(case_limit)):
            case.run()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return exc
    finally:
        library.restore()
    return None


def _same_answer(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.shape == b.shape and bool(np.array_equal(a, b))
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _call_text(name: str, args: tuple, kwargs: dict) -> str:
    inside = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(inside)})"


def _first_difference(library: Library, name: str) -> str | None:
    """The first recorded call of your ``name`` whose answer is not the library's."""
    piece = next(p for p in library.mine if p.name == name)
    reference = library.reference(piece)
    for args, kwargs, got in (library._calls.record or {}).get(name, []):
        try:
            want = reference(*args, **kwargs)
        except Exception as exc:
            return (f"{_call_text(name, args, kwargs)} returns {got!r}; the library's "
                    f"{name} raises {type(exc).__name__}: {exc}")
        if not _same_answer(got, want):
            return (f"{_call_text(name, args, kwargs)} returns {got!r}, the library's "
                    f"{name} returns {want!r}")
    return None


def _blame(case: Case, library: Library, error: BaseException, called: list[str],
           call_limit: float, case_limit: float) -> list[Failure]:
    if isinstance(error, YourTimeout):
        return [Failure([error.piece.name], f"your {error.piece.name}: {error} (in: "
                                            f"{case.name})")]
    found = []
    # telling them apart takes at most one more case's time in all: a slow library
    # (each call of yours quick, the case past its limit) is not run once per function
    deadline = time.monotonic() + case_limit
    for k, name in enumerate(called):
        left = deadline - time.monotonic()
        if k and left < 0.5:  # the first always runs
            if not found:
                return [Failure(called[k:], f"your {', '.join(called[k:])}: {case.name}: "
                                            f"{_problem(error)} (no time was left to tell "
                                            "which of them causes it)")]
            break
        alone = _try(case, library, [name], call_limit, max(0.5, min(case_limit, left)),
                     record=True)
        if alone is None:
            continue
        if isinstance(alone, YourTimeout):
            found.append(Failure([name], f"your {name}: {alone} (in: {case.name})"))
            continue
        wrong = _first_difference(library, name)
        found.append(Failure([name], f"your {name}: {wrong or _problem(alone)} (in: "
                                     f"{case.name}{': ' + _problem(alone) if wrong else ''})"))
    if found:
        return found
    if not called:
        return [Failure([], f"the library itself: {case.name}: {_problem(error)} (none of "
                            "your functions was called: please report this)")]
    return [Failure(called, f"your {', '.join(called)} together: {case.name}: "
                            f"{_problem(error)}")]


def run_battery(library: Library, *, cases: list[Case] | None = None,
                call_limit: float = CALL_LIMIT, case_limit: float = CASE_LIMIT,
                log: Callable[[str], None] | None = None) -> list[Outcome]:
    """Run ``cases`` (default :data:`CASES`) on your library; an outcome per case,
    each failure named on the functions of yours that cause it."""
    outcomes = []
    for case in cases if cases is not None else CASES:
        outcome = Outcome(case)
        error = _try(case, library, None, call_limit, case_limit)
        if error is not None:
            called = [p.name for p in library.mine if library.calls.get(p.name)]
            outcome.failures = _blame(case, library, error, called, call_limit, case_limit)
        outcomes.append(outcome)
        if log is not None:
            log(f"{'ok  ' if outcome.passed else 'FAIL'}  {case.name}")
            for f in outcome.failures:
                log(f"      {f.message}")
    return outcomes
