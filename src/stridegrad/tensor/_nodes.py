"""Layer 2 of :mod:`stridegrad.tensor`: one ``Node`` subclass per differentiable op.

Each node holds the edges to its inputs' nodes (``next_functions``) and the raw
arrays its backward needs (never the output tensor itself: that would be a
reference cycle). ``AccumulateGrad`` is the sink that writes a leaf's ``.grad``.

The steps of lesson 08 are the functions of :mod:`stridegrad.tensor.rules`, called
through that module at each backward (``rules.unbroadcast(g, shape)``), so that
``stridegrad yours`` can swap a learner's in: every broadcasting node sums its
gradients back with ``rules.unbroadcast``; ``SumBackward``/``MeanBackward``,
``MaxBackward``/``MinBackward`` and ``MatMulBackward`` are the rules' own.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from stridegrad import backend
from stridegrad.tensor import rules

if TYPE_CHECKING:
    from stridegrad.tensor._tensor import Tensor

# --------------------------------------------------------------------------- graph nodes

VIEW = "view"  # Node._fresh: the gradient returned is a view of the incoming one


class Node:
    """A backward function: maps the gradient of an op's output to its inputs' gradients.

    ``next_functions`` (PyTorch's name) gives one ``(node, 0)`` pair per input: the
    node that produced that input, an ``AccumulateGrad`` for a leaf that requires
    grad, or ``None``. Subclasses set ``_saves`` when they hold arrays that
    ``backward`` frees, and ``_fresh = False`` when a gradient they return may be
    a view of (or the same array as) the incoming one, so it must not be mutated;
    ``_fresh = None`` says that each returned gradient is either the incoming array
    itself or a new one that nothing else holds (``+``: ``g``, or ``g`` summed back
    to a broadcast input's shape), so the engine may keep the new ones as they are;
    ``_fresh = VIEW`` that the one gradient returned is a view of the incoming one
    (reshape, permute), so it is the engine's alone exactly when ``g`` was. The
    engine then hands a gradient it owns to ``AccumulateGrad`` without a copy.
    """

    __slots__ = ("__weakref__", "_edges", "_released")
    _saves = False
    _fresh = True

    def __init__(self, edges: tuple[Node | None, ...]) -> None:
        self._edges = edges
        self._released = False

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((e, 0) for e in self._edges)

    def name(self) -> str:
        return type(self).__name__

    def apply(self, g: Any) -> tuple[Any, ...]:
        """Gradients for each input (``None`` where ``next_functions`` has ``None``)."""
        raise NotImplementedError

    def _release(self) -> None:
        """Drop saved arrays; subclasses with ``_saves`` override."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


# How an array becomes a Tensor (``_tensor._wrap``): the Tensor layer above sets it when
# it is imported, so that a gradient is wrapped without an import statement per call.
_wrap: Any = None


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient to ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        self._edges = ()
        self._released = False
        self.variable = variable

    def accumulate(self, g: Any, owned: bool) -> None:
        var = self.variable
        old = var._grad
        if old is None:
            # a gradient that may be a view of another gradient gets its own copy
            data = g if owned else var._xp.asarray(g, copy=True)
        else:
            data = old._data + g  # out of place: whoever holds the old grad keeps it
        var._grad = _wrap(data, var._device, var._xp, None)


def _edge(t: Tensor) -> Node | None:
    if not t._requires_grad:
        return None
    fn = t.grad_fn
    return fn if fn is not None else AccumulateGrad(t)


_LIBRARY_UNBROADCAST = rules.unbroadcast


def _summed(g, shape: tuple):
    """``g`` summed back to ``shape`` by ``rules.unbroadcast``: a new array, or ``g``
    itself. The library's own never returns a view of ``g``; a learner's (installed by
    ``stridegrad yours``) may (``g.reshape(shape)`` for a dropped size-1 axis), and the
    engine adds into a new array in place, so such a result is copied first."""
    out = rules.unbroadcast(g, shape)
    if rules.unbroadcast is not _LIBRARY_UNBROADCAST and out is not g:
        out = backend.array_namespace(out).asarray(out, copy=True)
    return out


class AddBackward(Node):
    __slots__ = ("sa", "sb", "xp")
    _fresh = None  # g itself, or g summed to the input's shape (new)

    def __init__(self, edges, xp, sa, sb):
        self._edges = edges
        self._released = False
        self.xp, self.sa, self.sb = xp, sa, sb

    def apply(self, g):
        ea, eb = self._edges
        ga = gb = None
        if ea is not None:
            ga = g if self.sa is None else _summed(g, self.sa)
        if eb is not None:
            gb = g if self.sb is None else _summed(g, self.sb)
        return ga, gb


class SubBackward(AddBackward):
    __slots__ = ()

    def apply(self, g):
        ga, gb = AddBackward.apply(self, g)
        return ga, (None if gb is None else -gb)


class NegBackward(Node):
    __slots__ = ()

    def apply(self, g):
        return (-g,)


class MulBackward(Node):
    """``out = a * b``; saves ``b`` for ``grad_a`` and ``a`` for ``grad_b`` (only as needed)."""

    __slots__ = ("a", "b", "sa", "sb", "xp")
    _saves = True

    def __init__(self, edges, xp, a, b, sa, sb):
        self._edges = edges
        self._released = False
        self.xp, self.sa, self.sb = xp, sa, sb
        self.a = a if edges[1] is not None else None
        self.b = b if edges[0] is not None else None

    def apply(self, g):
        ea, eb = self._edges
        ga = gb = None
        if ea is not None:
            ga = g * self.b
            if self.sa is not None:
                ga = rules.unbroadcast(ga, self.sa)
        if eb is not None:
            gb = g * self.a
            if self.sb is not None:
                gb = rules.unbroadcast(gb, self.sb)
        return ga, gb

    def _release(self):
        self.a = self.b = None


class DivBackward(Node):
    """``out = a / b`` (either side may be a Python number)."""

    __slots__ = ("a", "b", "sa", "sb", "xp")
    _saves = True

    def __init__(self, edges, xp, a, b, sa, sb):
        self._edges = edges
        self._released = False
        self.xp, self.a, self.b, self.sa, self.sb = xp, a, b, sa, sb

    def apply(self, g):
        ea, eb = self._edges
        ga = gb = None
        if ea is not None:
            ga = g / self.b
            if self.sa is not None:
                ga = rules.unbroadcast(ga, self.sa)
        if eb is not None:
            b = self.b
            gb = -(g * self.a) / (b * b)
            if self.sb is not None:
                gb = rules.unbroadcast(gb, self.sb)
        return ga, gb

    def _release(self):
        self.a = self.b = None


class PowBackward(Node):
    """``out = a ** b`` (either side may be a Python number)."""

    __slots__ = ("a", "b", "out", "sa", "sb", "xp")
    _saves = True

    def __init__(self, edges, xp, a, b, out, sa, sb):
        self._edges = edges
        self._released = False
        self.xp, self.a, self.b, self.sa, self.sb = xp, a, b, sa, sb
        self.out = out if edges[1] is not None else None

    def apply(self, g):
        ea, eb = self._edges
        a, b = self.a, self.b
        ga = gb = None
        if ea is not None:
            if isinstance(b, (int, float)):
                ga = g * (b * a ** (b - 1)) if b != 2 else g * (2 * a)
            else:
                ga = g * (b * a ** (b - 1))
            if self.sa is not None:
                ga = rules.unbroadcast(ga, self.sa)
        if eb is not None:
            log_a = math.log(a) if isinstance(a, (int, float)) else self.xp.log(a)
            gb = g * self.out * log_a
            if self.sb is not None:
                gb = rules.unbroadcast(gb, self.sb)
        return ga, gb

    def _release(self):
        self.a = self.b = self.out = None


class MatMulBackward(Node):
    """``out = a @ b``: ``rules.matmul_backward`` (``g @ b.mT``, ``a.mT @ g``), batch
    dims un-broadcast. Saves ``b`` for ``grad_a`` and ``a`` for ``grad_b``, only as needed.

    When one side needs no gradient (``x @ W`` with data ``x``) only the other
    product is computed, with the rule's formula: asking the rule for both would
    cost one more matmul per step for the gradient nobody wants.
    """

    __slots__ = ("a", "b", "sa", "sb", "xp")
    _saves = True

    def __init__(self, edges, xp, a, b, sa, sb):
        self._edges = edges
        self._released = False
        self.xp, self.sa, self.sb = xp, sa, sb
        self.a = a if edges[1] is not None else None
        self.b = b if edges[0] is not None else None

    def apply(self, g):
        ea, eb = self._edges
        if ea is not None and eb is not None:
            ga, gb = rules.matmul_backward(self.a, self.b, g)
        else:  # one side only: the rule's formula for it (see the class docstring)
            ga = g @ self.b.mT if ea is not None else None
            gb = self.a.mT @ g if eb is not None else None
        if ga is not None and self.sa is not None:
            ga = rules.unbroadcast(ga, self.sa)
        if gb is not None and self.sb is not None:
            gb = rules.unbroadcast(gb, self.sb)
        return ga, gb

    def _release(self):
        self.a = self.b = None


class _Saved1(Node):
    """Base for unary nodes that save one array ``s``."""

    __slots__ = ("s", "xp")
    _saves = True

    def __init__(self, edges, xp, s):
        self._edges = edges
        self._released = False
        self.xp, self.s = xp, s

    def _release(self):
        self.s = None


class ExpBackward(_Saved1):
    """Saves the output: ``d exp(x) = exp(x)``."""

    __slots__ = ()

    def apply(self, g):
        return (g * self.s,)


class LogBackward(_Saved1):
    """Saves the input."""

    __slots__ = ()

    def apply(self, g):
        return (g / self.s,)


class SqrtBackward(_Saved1):
    """Saves the output: ``d sqrt(x) = 1 / (2 sqrt(x))``."""

    __slots__ = ()

    def apply(self, g):
        return (g / (2 * self.s),)


class AbsBackward(_Saved1):
    """Saves the input; gradient ``sign(x)`` (0 at 0)."""

    __slots__ = ()

    def apply(self, g):
        return (g * self.xp.sign(self.s),)


class TanhBackward(_Saved1):
    """Saves the output: ``1 - tanh(x)**2``."""

    __slots__ = ()

    def apply(self, g):
        s = self.s
        return (g * (1 - s * s),)


class SigmoidBackward(_Saved1):
    """Saves the output: ``s (1 - s)``."""

    __slots__ = ()

    def apply(self, g):
        s = self.s
        return (g * (s * (1 - s)),)


class ReluBackward(_Saved1):
    """Saves the output (alive anyway as the next op's input); ``grad = g * (out > 0)``.

    A float mask and a multiply: NumPy's ``where`` with a scalar is ~20x slower.
    The product is written into the mask, a fresh array of ``g``'s shape, so the
    backward allocates one gradient-sized array, as ``g * (out > 0)`` does.
    """

    __slots__ = ()

    def apply(self, g):
        mask = self.xp.astype(self.s > 0, g.dtype)
        mask *= g
        return (mask,)


class CastBackward(Node):
    """Dtype cast: the gradient is cast back to the input dtype."""

    __slots__ = ("dtype", "xp")

    def __init__(self, edges, xp, dtype):
        self._edges = edges
        self._released = False
        self.xp, self.dtype = xp, dtype

    def apply(self, g):
        return (self.xp.astype(g, self.dtype),)


class ToDeviceBackward(Node):
    """Device move: the gradient moves back to the source device."""

    __slots__ = ("dst", "src")
    _fresh = False

    def __init__(self, edges, src, dst):
        self._edges = edges
        self._released = False
        self.src, self.dst = src, dst

    def apply(self, g):
        return (backend.from_numpy(backend.to_numpy(g, self.dst), self.src),)


class SumBackward(Node):
    """``rules.sum_backward``: the gradient broadcast back over the reduced axes (a
    read-only view). ``axes`` is the forward's, normalised (None: all of them)."""

    __slots__ = ("axes", "keepdims", "shape")
    _fresh = False

    def __init__(self, edges, shape, axes, keepdims):
        self._edges = edges
        self._released = False
        self.shape, self.axes, self.keepdims = shape, axes, keepdims

    def apply(self, g):
        return (rules.sum_backward(g, self.shape, self.axes, self.keepdims),)


class MeanBackward(SumBackward):
    """``sum``'s rule for ``g / n``, ``n`` the number of entries averaged."""

    __slots__ = ("n",)

    def __init__(self, edges, shape, axes, keepdims, n):
        SumBackward.__init__(self, edges, shape, axes, keepdims)
        self.n = n

    def apply(self, g):
        return (rules.sum_backward(g / self.n, self.shape, self.axes, self.keepdims),)


class MaxBackward(Node):
    """``rules.max_backward``: the gradient split evenly between tied maxima. Saves the input."""

    __slots__ = ("axes", "keepdims", "x")
    _saves = True

    def __init__(self, edges, x, axes, keepdims):
        self._edges = edges
        self._released = False
        self.x, self.axes, self.keepdims = x, axes, keepdims

    def apply(self, g):
        return (rules.max_backward(self.x, g, self.axes, self.keepdims),)

    def _release(self):
        self.x = None


class MinBackward(MaxBackward):
    """The minima of ``x`` are the maxima of ``-x``: ``rules.max_backward(-x, ...)``."""

    __slots__ = ()

    def apply(self, g):
        return (rules.max_backward(-self.x, g, self.axes, self.keepdims),)


class ReshapeBackward(Node):
    __slots__ = ("shape", "xp")
    _fresh = VIEW

    def __init__(self, edges, xp, shape):
        self._edges = edges
        self._released = False
        self.xp, self.shape = xp, shape

    def apply(self, g):
        return (self.xp.reshape(g, self.shape),)


class PermuteBackward(Node):
    __slots__ = ("inverse", "xp")
    _fresh = VIEW

    def __init__(self, edges, xp, inverse):
        self._edges = edges
        self._released = False
        self.xp, self.inverse = xp, inverse

    def apply(self, g):
        return (self.xp.permute_dims(g, self.inverse),)


class SliceBackward(Node):
    """Basic indexing: scatter the gradient into zeros of the input's shape.

    ``None`` (new axes) is not allowed in a standard ``__setitem__``, so the key is
    stored without it and the gradient reshaped to drop those size-1 axes.
    """

    __slots__ = ("g_shape", "key", "shape", "xp")

    def __init__(self, edges, xp, shape, key, g_shape):
        self._edges = edges
        self._released = False
        self.xp, self.shape, self.key, self.g_shape = xp, shape, key, g_shape

    def apply(self, g):
        xp = self.xp
        if self.g_shape is not None:
            g = xp.reshape(g, self.g_shape)
        z = xp.zeros(self.shape, dtype=g.dtype)
        z[self.key] = g
        return (z,)


def _segment_plan(pos: np.ndarray, n: int, device: str) -> tuple[list, Any]:
    """Gathers that add up the gradient entries landing on one position, for namespaces
    without a scatter-add (standard ``take``, ``reshape`` and ``sum`` only, exact sums).

    Positions are grouped by how often they occur, rounded up to a power of two ``w``;
    each group is one ``(positions, w)`` matrix of gathered entries (padded with a
    zero slot), summed along its rows, so the work stays below ``2 * pos.size + n``.
    Returns ``[(device index, rows, w), ...]`` and the device index that places each
    row sum (or the zero slot) at its position in the result.
    """
    m = pos.size
    order = np.argsort(pos, kind="stable")
    uniq, start, counts = np.unique(pos[order], return_index=True, return_counts=True)
    width = np.ones_like(counts)
    while np.any(width < counts):
        width = np.where(width < counts, width * 2, width)
    groups = []
    row_of = np.empty(len(uniq), dtype=np.int64)
    rows = 0
    for w in np.unique(width):
        sel = np.nonzero(width == w)[0]
        j = np.arange(w)
        cols = start[sel][:, None] + j[None, :]
        src = np.where(j[None, :] < counts[sel][:, None], order[np.minimum(cols, m - 1)], m)
        groups.append((backend.from_numpy(src.reshape(-1), device), len(sel), int(w)))
        row_of[sel] = rows + np.arange(len(sel))
        rows += len(sel)
    final = np.full(n, rows, dtype=np.int64)  # 'rows' is the zero slot after all row sums
    final[uniq] = row_of
    return groups, backend.from_numpy(final, device)


def _scatter_add(xp: ModuleType, g: Any, node: IndexBackward) -> Any:
    """``z = zeros(n); z[pos] += g`` with repeated positions adding up (1-D ``g``)."""
    n = node.n
    if isinstance(g, np.ndarray):
        z = np.zeros(n, dtype=g.dtype)
        np.add.at(z, node.pos, g)
        return z
    if type(g).__module__.startswith("cupy"):
        import cupy
        import cupyx

        z = cupy.zeros(n, dtype=g.dtype)
        cupyx.scatter_add(z, node.index, g)
        return z
    if node.plan is None:
        node.plan = _segment_plan(node.pos, n, node.device)
    groups, final = node.plan
    zero = xp.zeros((1,), dtype=g.dtype)
    ext = xp.concat([g, zero])
    sums = [xp.sum(xp.reshape(xp.take(ext, src), (rows, w)), axis=1) for src, rows, w in groups]
    return xp.take(xp.concat([*sums, zero]), final)


class IndexBackward(Node):
    """Integer-array indexing: the gradient is scattered back, repeated indices adding up."""

    __slots__ = ("device", "index", "n", "plan", "pos", "shape", "xp")

    def __init__(self, edges, xp, shape, pos, index, device):
        self._edges = edges
        self._released = False
        self.xp, self.shape, self.pos, self.index, self.device = xp, shape, pos, index, device
        self.n = math.prod(shape)
        self.plan = None

    def apply(self, g):
        xp = self.xp
        z = _scatter_add(xp, xp.reshape(g, (-1,)), self)
        return (xp.reshape(z, self.shape),)



class CatBackward(Node):
    """``cat`` and ``stack``: each input's gradient is its part of the incoming one.

    ``keys`` holds one index per input (a full tuple of slices for ``cat``, with an
    int in the stacked dim for ``stack``); the parts are views of ``g``.
    """

    __slots__ = ("keys",)
    _fresh = False

    def __init__(self, edges, keys):
        self._edges = edges
        self._released = False
        self.keys = keys

    def apply(self, g):
        return tuple(None if e is None else g[k] for e, k in zip(self._edges, self.keys))


class StackBackward(CatBackward):
    __slots__ = ()


class WhereBackward(Node):
    """``where(c, x, y)``: the gradient goes to ``x`` where ``c`` holds and to ``y``
    elsewhere (zeros in the other places, even where ``g`` is inf or nan), each
    un-broadcast to its shape; the condition gets none. Saves the condition."""

    __slots__ = ("cond", "sx", "sy", "xp")
    _saves = True

    def __init__(self, edges, xp, cond, sx, sy):
        self._edges = edges
        self._released = False
        self.xp, self.cond, self.sx, self.sy = xp, cond, sx, sy

    def apply(self, g):
        xp = self.xp
        ex, ey = self._edges
        zero = xp.zeros((), dtype=g.dtype)
        gx = gy = None
        if ex is not None:
            gx = xp.where(self.cond, g, zero)
            if self.sx is not None:
                gx = rules.unbroadcast(gx, self.sx)
        if ey is not None:
            gy = xp.where(self.cond, zero, g)
            if self.sy is not None:
                gy = rules.unbroadcast(gy, self.sy)
        return gx, gy

    def _release(self):
        self.cond = None
