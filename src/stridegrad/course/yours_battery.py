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


def rule_gradients() -> None:
    """Lesson 08's rules (``stridegrad.tensor.rules``) inside the Tensor's backward on
    the cpu device, whose arrays are NumPy's, as the lesson's checks pass them: rank 3,
    axes negative and in tuples, keepdims, ``mean``, ``min``, batched matmul with a
    broadcast batch, against central differences; tied maxima against hand-worked
    values (central differences cannot split a three-way tie)."""
    import stridegrad as sg

    def cpu(shape: tuple, seed: int):
        values = np.random.default_rng(seed).normal(size=shape)
        return sg.tensor(values, requires_grad=True)

    w34, w3, w24 = (sg.tensor(np.random.default_rng(k).normal(size=s))
                    for k, s in ((20, (3, 4)), (21, (3,)), (22, (2, 4))))
    _gradcheck("((a + b * c) * w).sum(), a (2, 3, 4), b (3, 1), c (4,), w (3, 4) (cpu)",
               lambda a, b, c: ((a + b * c) * w34).sum(), cpu((2, 3, 4), 10), cpu((3, 1), 11),
               cpu((4,), 12))
    _gradcheck("(x.sum(axis=(0, -1)) * w).sum() + x.sum(axis=1, keepdims=True).tanh().sum() "
               "+ x.mean(axis=-1).exp().sum(), x (2, 3, 4) (cpu)",
               lambda x: ((x.sum(axis=(0, -1)) * w3).sum() + x.sum(axis=1, keepdims=True)
                          .tanh().sum() + x.mean(axis=-1).exp().sum()), cpu((2, 3, 4), 13))
    _gradcheck("(x.max(axis=1) * w).sum() + x.max(axis=-1, keepdims=True).tanh().sum() "
               "+ x.min(axis=0).exp().sum() + x.max(), x (2, 3, 4) (cpu)",
               lambda x: ((x.max(axis=1) * w24).sum() + x.max(axis=-1, keepdims=True)
                          .tanh().sum() + x.min(axis=0).exp().sum() + x.max()),
               cpu((2, 3, 4), 14))
    _gradcheck("((a @ b) * w).sum() + (a[0] @ b[0]).tanh().sum(), a (2, 3, 4), "
               "b (1, 4, 3), w (3, 3) (cpu)",
               lambda a, b: ((a @ b) * sg.tensor(np.eye(3) + 1.0)).sum()
               + (a[0] @ b[0]).tanh().sum(), cpu((2, 3, 4), 15), cpu((1, 4, 3), 16))
    x = sg.tensor([[1.0, 3.0, 3.0, 3.0], [2.0, 0.0, 2.0, -1.0]], requires_grad=True)
    (x.max(axis=1) * sg.tensor([30.0, 20.0])).sum().backward()
    want = [[0.0, 10.0, 10.0, 10.0], [10.0, 0.0, 10.0, 0.0]]
    if not np.allclose(x.grad.numpy(), want):
        raise AssertionError("(x.max(axis=1) * [30, 20]).sum() with x = [[1, 3, 3, 3], "
                             f"[2, 0, 2, -1]]: x.grad is {x.grad.numpy().tolist()}, expected "
                             f"{want} (tied maxima share their row's gradient)")


def convolution() -> None:
    """conv2d (stride 2, padding 1) then max_pool2d on the numpy device, whose NumPy path
    runs lesson 12's functions: values against NumPy's own window view, gradients
    against central differences."""
    import stridegrad as sg
    from numpy.lib.stride_tricks import sliding_window_view

    F = sg.nn.functional
    rng = np.random.default_rng(12)
    xs, ws = (2, 3, 7, 6), (4, 3, 3, 3)
    a, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0])
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = sliding_window_view(padded, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    want = np.einsum("nchwij,ocij->nohw", win, w) + b[:, None, None]
    x, wt, bt = (sg.tensor(v, requires_grad=True) for v in (a, w, b))
    got = F.conv2d(x, wt, bt, stride=2, padding=1).numpy()
    if got.shape != want.shape or not np.allclose(got, want, rtol=1e-10, atol=1e-10):
        raise AssertionError(f"conv2d of a {xs} batch with a {ws} weight, stride 2, padding 1, "
                             f"gives shape {got.shape}, values off by up to "
                             f"{np.abs(got - want).max() if got.shape == want.shape else '-'}; "
                             f"NumPy's window view gives {want.shape}")
    pooled = F.max_pool2d(sg.tensor(want), 2).numpy()
    want_pool = sliding_window_view(want, (2, 2), axis=(2, 3))[:, :, ::2, ::2].max(axis=(-2, -1))
    if pooled.shape != want_pool.shape or not np.allclose(pooled, want_pool):
        raise AssertionError(f"max_pool2d(kernel 2) of a {want.shape} batch gives shape "
                             f"{pooled.shape}; NumPy's window view gives {want_pool.shape}")
    _gradcheck("max_pool2d(conv2d(x, w, b, stride=2, padding=1), 2).sum(), x (2, 3, 7, 6), "
               "w (4, 3, 3, 3) (numpy device)",
               lambda x, w, b: F.max_pool2d(F.conv2d(x, w, b, stride=2, padding=1), 2).sum(),
               x, wt, bt)


def default_device() -> None:
    """``sg.set_default_device`` with a tuple of names: the first that works here
    becomes the default (lesson 10's ``pick_device``); unknown names are asked about
    and skipped (no GPU, nor CuPy's import, is needed), and none that works is a
    RuntimeError naming each one."""
    import stridegrad as sg

    before = sg.get_default_device()
    try:
        sg.set_default_device(("tpu", "python", "cpu"))
        got = sg.get_default_device()
        if got != "python":
            raise AssertionError("set_default_device(('tpu', 'python', 'cpu')) makes "
                                 f"{got!r} the default, expected 'python' (the first that works)")
        if sg.zeros(2).device != "python":
            raise AssertionError("after set_default_device(('tpu', 'python', 'cpu')), "
                                 f"sg.zeros(2) is on {sg.zeros(2).device!r}, expected 'python'")
        try:
            sg.set_default_device(["tpu", "gpu"])
        except RuntimeError as exc:
            if "tpu" not in str(exc) or "gpu" not in str(exc):
                raise AssertionError("set_default_device(['tpu', 'gpu']) raises RuntimeError "
                                     f"{str(exc)!r}, which does not name both devices") from None
        else:
            raise AssertionError("set_default_device(['tpu', 'gpu']) returns, expected a "
                                 f"RuntimeError (neither works); the default is now "
                                 f"{sg.get_default_device()!r}")
    finally:
        sg.set_default_device(before)


def compiled() -> None:
    """``sg.compile`` against eager mode (lesson 11's passes, and its ``run_graph``
    replaying each call): a function with a repeated expression, a dead value,
    constants to fold, ``y - x`` beside ``x - y``, outputs that other ops read, and
    elementwise chains around a matmul and a sum, on the cpu and python devices, called
    twice (the second call replays the cached graph)."""
    import warnings

    import stridegrad as sg
    from stridegrad.compile import CompileWarning

    def fn(x, y, w):
        a = x * 2.0 + 1.0
        b = x * 2.0 + 1.0  # a repeat of a
        unused = (y * 3.0).exp()  # noqa: F841 - dead code
        k = sg.tensor(2.0, device=x.device) * sg.tensor(0.25, device=x.device)  # constants
        h = ((a * b) @ w).relu()
        e = (y - x).exp()  # an output that an elementwise op reads too
        return (h * k).tanh().sum(axis=0), e, e * (x - y), b  # b: an output CSE renames

    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (3, 4), (4, 5))]
    for device in ("cpu", "python"):
        args = [sg.tensor(a, device=device) for a in arrays]
        fast = sg.compile(fn)
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileWarning)  # an eager fallback is a failure
            got = [fast(*args) for _ in range(2)]
        want = fn(*args)
        for call, outs in enumerate(got, 1):
            for k, (g, e) in enumerate(zip(outs, want)):
                if g.shape != e.shape or not np.allclose(g.numpy(), e.numpy(), rtol=1e-5,
                                                         atol=1e-6):
                    raise AssertionError(
                        f"sg.compile(fn) on {device}, call {call}: output {k} is "
                        f"{np.round(g.numpy(), 4).tolist()}, eager mode gives "
                        f"{np.round(e.numpy(), 4).tolist()}")
        kernels = fast.graph(*args).cost()["kernels"]
        traced = fast.graph(*args, optimized=False).cost()["kernels"]
        if not kernels < traced:
            raise AssertionError(f"sg.compile(fn) on {device} leaves {kernels} kernels of the "
                                 f"{traced} traced: the passes removed nothing")


def _scalar_loss(xs: list):
    """A graph of ``sg.Value`` over every operation, ``a`` shared by many nodes, a 1,500-step
    chain on top (deeper than Python's recursion limit allows a recursive sort): its three
    leaves and its root."""
    import stridegrad as sg

    a, b, c = (sg.Value(x) for x in xs)
    d = a * b + c.tanh()
    e = (d * d + a).exp() / (b * b + 1.0)
    y = e.log() + (a - c).relu() * d + d.sigmoid() * 0.5 + a**3 - 2.0 / (c * c + 1.0)
    for _ in range(1500):
        y = y * 0.999 + a * 0.001
    return [a, b, c], y


def scalar_gradients() -> None:
    xs, h = [0.7, -1.3, 0.4], 1e-6
    leaves, loss = _scalar_loss(xs)
    loss.backward()
    for i, leaf in enumerate(leaves):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        want = (_scalar_loss(up)[1].data - _scalar_loss(down)[1].data) / (2 * h)
        if not np.isclose(leaf.grad, want, rtol=1e-5, atol=1e-7):
            raise AssertionError(f"sg.Value: loss.backward() gives d loss/d x{i} = "
                                 f"{leaf.grad!r}, central differences {want!r}")
    first = [leaf.grad for leaf in leaves]
    inner = loss._prev[0]
    kept = inner.grad
    loss.backward()  # again: leaves add this call's gradient, interior nodes start again
    if not np.allclose([leaf.grad for leaf in leaves], [2 * g for g in first], rtol=1e-12):
        raise AssertionError("sg.Value: a second loss.backward() must add the same gradient "
                             f"to the leaves again: {first} became "
                             f"{[leaf.grad for leaf in leaves]}")
    if not np.isclose(inner.grad, kept, rtol=1e-12):
        raise AssertionError(f"sg.Value: an interior node holds {inner.grad!r} after a second "
                             f"loss.backward(), {kept!r} after the first (it must start again "
                             "from 0)")


CASES: list[Case] = [
    Case("arrays against NumPy: shapes and strides", arrays_shapes),
    Case("arrays against NumPy: views", arrays_views),
    Case("arrays against NumPy: reshape", arrays_reshape),
    Case("arrays against NumPy: broadcasting", arrays_broadcasting),
    Case("arrays against NumPy: reductions", arrays_reductions),
    Case("arrays against NumPy: matmul", arrays_matmul),
    Case("gradients against finite differences (python device)", gradients),
    Case("gradients of lesson 08's rules against finite differences (cpu device)",
         rule_gradients),
    Case("training: an MLP learns the moons (python device)", training),
    Case("training: two SGD steps with momentum and weight decay (python device)", sgd_steps),
    Case("devices: set_default_device picks the first that works", default_device),
    Case("convolution and pooling against NumPy and finite differences (numpy device)",
         convolution),
    Case("compiled functions against eager mode (cpu and python devices)", compiled),
    Case("scalar autograd: sg.Value against finite differences", scalar_gradients),
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
