"""Hypothesis strategies for the contracts of lessons 01-04: shapes, strides, views.

Drawn toward what learners get wrong: ranks 0 to 4, sizes 0 and 1 beside unequal
sizes, strides that are negative, zero (broadcast) or of a transpose, views that
start at a non-zero offset, and values exact in any order of summation (small
integers, and floats that are multiples of 1/8 of very different sizes per row).
"""

from __future__ import annotations

from hypothesis import strategies as st

from stridegrad.array import layout
from stridegrad.course.contracts import Call, Recorder

__all__ = ["axis_for", "binary_functions", "broadcastable", "call", "clashing", "factored",
           "index_in", "layouts", "numbers", "reducers", "shape_with_numel", "shapes",
           "targets", "unary_functions", "view_of", "views", "with_optional"]

SIDE = 4  # the largest size of one dimension: numel stays small, every size is covered


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 0,
           max_side: int = SIDE) -> st.SearchStrategy:
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


def index_in(shape: tuple) -> st.SearchStrategy:
    """An index inside ``shape`` (which has no size 0)."""
    return st.tuples(*(st.integers(0, d - 1) for d in shape))


@st.composite
def layouts(draw, shape_strategy=None) -> tuple:
    """``(shape, strides, offset)`` of a view that stays inside a storage list: the
    strides of a fresh array, of a transpose, of a stepped or reversed slice, or any
    (0 for a broadcast axis)."""
    shape = draw(shape_strategy if shape_strategy is not None else shapes())
    style = draw(st.sampled_from(["contiguous", "permuted", "sliced", "any"]))
    if style == "contiguous":
        strides = layout.contiguous_strides(shape)
    elif style == "sliced":
        # a[::k] of a row-major array along some axes, maybe reversed: gaps in the
        # storage, yet often still reshapeable without a copy
        strides = list(layout.contiguous_strides(shape))
        for k in range(len(strides)):
            if draw(st.booleans()):
                step = draw(st.sampled_from([2, 3, -1, -2]))
                for j in range(k + 1):
                    strides[j] *= abs(step) if j < k else step
        strides = tuple(strides)
    elif style == "permuted":
        perm = draw(st.permutations(range(len(shape))))
        base = layout.contiguous_strides(tuple(shape[p] for p in perm))
        strides = tuple(base[perm.index(k)] for k in range(len(shape)))
    else:
        strides = tuple(draw(st.integers(-7, 7)) for _ in shape)
    low = sum(min(0, (d - 1) * s) for d, s in zip(shape, strides) if d > 0)
    offset = -low + draw(st.integers(0, 2))
    return shape, strides, offset


def _numbers(n: int, draw) -> list:
    kind = draw(st.sampled_from(["int", "float"]))
    if kind == "int":
        return draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n))
    # multiples of 1/8, each row of its own scale: every order of summation is exact
    scale = draw(st.sampled_from([1.0, 1024.0, 1 / 64]))
    return [k / 8 * scale for k in draw(st.lists(st.integers(-64, 64), min_size=n,
                                                 max_size=n))]


@st.composite
def numbers(draw, n: int) -> list:
    """``n`` values: small ints, or floats exact in any order of summation (multiples of
    1/8 of one scale, 1/64 to 1024)."""
    return _numbers(n, draw)


@st.composite
def view_of(draw, shape: tuple, storage: list | None = None) -> tuple:
    """A view ``(storage, shape, strides, offset)`` of ``shape``: over ``storage`` if
    given (two views of one list), else over a new list just long enough, or longer."""
    _, strides, offset = draw(layouts(st.just(shape)))
    high = sum(max(0, (d - 1) * s) for d, s in zip(shape, strides) if d > 0)
    need = offset + high + 1
    if storage is None:
        storage = _numbers(need + draw(st.integers(0, 2)), draw)
    elif len(storage) < need:
        storage.extend(_numbers(need - len(storage), draw))
    return storage, shape, strides, offset


@st.composite
def views(draw, min_dims: int = 0, max_dims: int = 4) -> tuple:
    return draw(view_of(draw(shapes(min_dims, max_dims))))


def axis_for(ndim: int) -> st.SearchStrategy:
    return st.integers(-ndim, ndim - 1)


# --------------------------------------------------------------- functions as arguments

def _negate(v):
    return -v


def _twice_plus_one(v):
    return 2 * v + 1


def _minus(a, b):
    return a - b


def _times_plus(a, b):
    return a * 3 + b


def _mean(values):
    return sum(values) / len(values)


def _first_minus_last(values):
    return values[0] - values[-1]


def unary_functions() -> st.SearchStrategy:
    """A function of one value, recording its calls: once per element, in row-major
    order, as map_unary's docstring says."""
    return st.sampled_from([(_negate, "negate"), (_twice_plus_one, "twice_plus_one"),
                            (abs, "abs")]).map(lambda p: Recorder(*p))


def binary_functions() -> st.SearchStrategy:
    """A function of two values, recording its calls: once per pair of elements, in
    any order (map_binary's docstring promises no order)."""
    return st.sampled_from([(_minus, "minus"), (_times_plus, "times_3_plus")]).map(
        lambda p: Recorder(*p, ordered=False))


def reducers() -> st.SearchStrategy:
    """A function of the list of values along an axis (sum, max, a mean, one that tells
    index 0 from the last), recording the lists it gets: each lane once, its values in
    index order, the lanes in any order."""
    return st.sampled_from([(sum, "sum"), (max, "max"), (_mean, "mean"),
                            (_first_minus_last, "first_minus_last")]).map(
        lambda p: Recorder(*p, ordered=False))


def call(*args, **kwargs) -> Call:
    return Call(args, kwargs)


def with_optional(draw, args: tuple, name: str, value) -> Call:
    """The call of ``args`` with an optional parameter left out (its default), given by
    position, or by name: a learner's function must take all three."""
    how = draw(st.sampled_from(["default", "positional", "keyword"]))
    if how == "default":
        return Call(args)
    return Call(args + (value,)) if how == "positional" else Call(args, {name: value})


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


@st.composite
def factored(draw, n: int, most: int = 3) -> tuple:
    """``n`` (2 or more) as a product of 1 to ``most`` sizes of 2 or more, its prime
    factors grouped and ordered at random: 12 as (12,), (3, 4), (2, 6), (2, 3, 2), ..."""
    primes = list(draw(st.permutations(_primes(n))))
    k = draw(st.integers(1, min(most, len(primes))))
    sizes = [1] * k
    for j, p in enumerate(primes):
        sizes[j if j < k else draw(st.integers(0, k - 1))] *= p
    return tuple(sizes)


@st.composite
def shape_with_numel(draw, n: int) -> tuple:
    """A shape of ``n`` elements: ``n``'s factors spread over up to 4 axes, with 1s
    between them (and a 0 somewhere, for ``n == 0``)."""
    rank = draw(st.integers(0 if n == 1 else 1, 4))
    if n == 0:
        dims = [draw(st.integers(0, 3)) for _ in range(rank)]
        dims[draw(st.integers(0, rank - 1))] = 0
        return tuple(dims)
    dims = [1] * rank
    for p in _primes(n):
        dims[draw(st.integers(0, rank - 1))] *= p
    return tuple(dims)


def targets() -> st.SearchStrategy:
    """Shapes to broadcast to: any (ranks 0 to 4, sizes 0 to 4), or of 1 to 4 axes none
    of size 0, or of 2 or 3 axes of 2 or 3 (every axis stretched or not, elements in
    every lane)."""
    return st.one_of(shapes(0, 4), shapes(1, 4, min_side=1), shapes(2, 3, 2, 3))


@st.composite
def broadcastable(draw, count: int, out: st.SearchStrategy | None = None) -> tuple:
    """``count`` shapes that broadcast together, and the shape they broadcast to (drawn
    from ``out``, default any shape of rank 0 to 4)."""
    out = draw(out if out is not None else shapes(0, 4))
    found = []
    for _ in range(count):
        rank = draw(st.integers(0, len(out)))
        tail = out[len(out) - rank:]
        # one size in three made 1: most axes keep their size, as in real broadcasts
        found.append(tuple(1 if draw(st.integers(0, 2)) == 0 else d for d in tail))
    return tuple(found), out


@st.composite
def clashing(draw, count: int) -> tuple:
    """``count`` (2 or more) shapes that do not broadcast together, and the two that
    clash: in one column (counted from the right) those two have sizes of 2 or more
    that differ, the others 1 there (or no axis there), and every other column
    broadcasts. Returns ``(shapes, (first, second))``, in the order given."""
    found, out = draw(broadcastable(count, targets()))
    found = [list(s) for s in found]
    i = draw(st.integers(0, count - 1))
    j = draw(st.integers(0, count - 2))
    i, j = sorted((i, j + (j >= i)))
    k = draw(st.integers(1, max(len(out), 1)))  # the column, from the right
    for s in (found[i], found[j]):
        s[:0] = [1] * (k - len(s))
    found[i][-k] = draw(st.integers(2, 4))
    found[j][-k] = draw(st.integers(2, 4).filter(lambda d: d != found[i][-k]))
    for m, s in enumerate(found):
        if m not in (i, j) and len(s) >= k:
            s[-k] = 1
    shapes = tuple(tuple(s) for s in found)
    return shapes, (shapes[i], shapes[j])
