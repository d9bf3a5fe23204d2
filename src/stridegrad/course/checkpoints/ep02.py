"""Checkpoint 02 (strides and views): ``permute_layout``, ``slice_layout``,
``is_contiguous`` and ``reshape_strides``.

Each test needs only the function it tests (``reshape_strides`` may call the
learner's own ``is_contiguous``). The answers are written out by hand, not
computed with the library; the storage pictures in the lesson show where they
come from.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from stridegrad.array.layout import contiguous_strides, numel
from stridegrad.course.checkpoints._layouts import (
    call,
    factored,
    layouts,
    shape_with_numel,
    shapes,
)
from stridegrad.course.checks import CheckFailure, Checkpoint, expect, short_repr
from stridegrad.course.contracts import Invalid, plain

__all__ = ["checkpoint"]

checkpoint = Checkpoint("02_strides_and_views", "strides and views",
                        reference="stridegrad.array.layout")

# ------------------------------------------------------------------ permute_layout

@checkpoint.test("permute_layout", hint="A transpose swaps the sizes AND the strides: "
                                        "(2, 3) with (3, 1) becomes (3, 2) with (1, 3).")
def transpose_a_matrix(permute_layout):
    expect(permute_layout, (2, 3), (3, 1), (1, 0), returns=((3, 2), (1, 3)))


@checkpoint.test("permute_layout", hint="Output dimension k is input dimension axes[k]: "
                                        "new_shape[k] = shape[axes[k]] (not the inverse "
                                        "permutation).")
def permute_a_3d_array(permute_layout):
    expect(permute_layout, (2, 3, 4), (12, 4, 1), (2, 0, 1), returns=((4, 2, 3), (1, 12, 4)))


@checkpoint.test("permute_layout", hint="Permuting with (0, 1, 2) changes nothing.")
def identity_permutation(permute_layout):
    expect(permute_layout, (2, 3, 4), (12, 4, 1), (0, 1, 2), returns=((2, 3, 4), (12, 4, 1)))


@checkpoint.test("permute_layout", hint="Transposing a transpose gives the original layout "
                                        "back: (3, 2) with strides (1, 3) becomes (2, 3) "
                                        "with (3, 1).")
def transpose_back(permute_layout):
    expect(permute_layout, (3, 2), (1, 3), (1, 0), returns=((2, 3), (3, 1)))


@checkpoint.test("permute_layout", hint="Strides keep their sign: a reversed axis stays "
                                        "reversed after a transpose.")
def negative_stride_moves_along(permute_layout):
    expect(permute_layout, (3, 4), (-4, 1), (1, 0), returns=((4, 3), (1, -4)))


@checkpoint.test("permute_layout", hint="Return a pair of tuples: (tuple(new_shape), "
                                        "tuple(new_strides)).")
def returns_tuples(permute_layout):
    expect(permute_layout, (5,), (1,), (0,), returns=((5,), (1,)))


@checkpoint.test("permute_layout", hint="axes must be a permutation of range(ndim): check "
                                        "sorted(axes) == list(range(len(shape))) and raise "
                                        "ValueError otherwise.")
def rejects_repeated_axes(permute_layout):
    expect(permute_layout, (2, 3), (3, 1), (0, 0), raises=ValueError)


@checkpoint.test("permute_layout", hint="One axis per dimension: (0, 1, 2) is not a "
                                        "permutation for a 2-D array, raise ValueError.")
def rejects_too_many_axes(permute_layout):
    expect(permute_layout, (2, 3), (3, 1), (0, 1, 2), raises=ValueError)


@st.composite
def _permutations(draw):
    shape, strides, _ = draw(layouts())
    return call(shape, strides, tuple(draw(st.permutations(range(len(shape))))))


@st.composite
def _not_permutations(draw):
    """Axes repeated, missing, one too many, out of range or negative."""
    shape, strides, _ = draw(layouts())
    ndim = len(shape)
    axes = list(draw(st.permutations(range(ndim))))
    how = draw(st.sampled_from(["repeat", "short", "long", "too big", "negative"]
                               if ndim >= 2 else ["long", "too big", "negative"]))
    if how == "repeat":
        axes[draw(st.integers(1, ndim - 1))] = axes[0]
    elif how == "short":
        axes.pop(draw(st.integers(0, ndim - 1)))
    elif how == "long":
        axes.append(draw(st.integers(0, ndim)))
    elif how == "too big" and ndim:
        axes[draw(st.integers(0, ndim - 1))] = ndim + draw(st.integers(0, 2))
    elif how == "too big":
        axes = [0]
    else:
        axes = axes or [0]
        axes[draw(st.integers(0, len(axes) - 1))] = -1
    return call(shape, strides, tuple(axes))


checkpoint.contract("permute_layout", valid=_permutations(), invalid=[
    Invalid(_not_permutations(), ValueError, "axes that are not a permutation")])


# ------------------------------------------------------------------ slice_layout

@checkpoint.test("slice_layout", hint="a[1:4] starts 1 element in (1 * stride) and keeps 3.")
def simple_slice(slice_layout):
    expect(slice_layout, 10, 1, slice(1, 4), returns=(1, 3, 1))


@checkpoint.test("slice_layout", hint="With a step, the new stride is stride * step, and "
                                      "positions 0, 2, 4 of 5 make 3 elements (round up).")
def slice_with_a_step(slice_layout):
    expect(slice_layout, 5, 3, slice(None, None, 2), returns=(0, 3, 6))


@checkpoint.test("slice_layout", hint="a[::-1] starts at the LAST element (index size - 1), "
                                      "not at 0; sl.indices(size) gives the right start.",
                 hint_for=("negative step starts at 0",))
def reverse_slice(slice_layout):
    expect(slice_layout, 4, 1, slice(None, None, -1), returns=(3, 4, -1))


@checkpoint.test("slice_layout", hint="a[::-3] of 10 elements visits 9, 6, 3, 0: offset "
                                      "9 * stride, 4 elements, stride * -3.")
def reverse_slice_with_a_step(slice_layout):
    expect(slice_layout, 10, 1, slice(None, None, -3), returns=(9, 4, -3))


@checkpoint.test("slice_layout", hint="::-2 on 5 elements keeps indices 4, 2, 0: the offset "
                                      "moves by start * stride, in storage elements, so index "
                                      "4 with stride 4 is 16 away, and the new stride is "
                                      "4 * -2 = -8.")
def reverse_slice_of_a_strided_axis(slice_layout):
    expect(slice_layout, 5, 4, slice(None, None, -2), returns=(16, 3, -8))


@checkpoint.test("slice_layout", hint="A negative start counts from the end: -2 of 5 is "
                                      "index 3, which is 3 * 2 = 6 storage elements away.")
def negative_start(slice_layout):
    expect(slice_layout, 5, 2, slice(-2, None), returns=(6, 2, 2))


@checkpoint.test("slice_layout", hint="Bounds past the end are clipped, as in Python: "
                                      "a[2:100] of 5 elements keeps 3.")
def clipped_stop(slice_layout):
    expect(slice_layout, 5, 1, slice(2, 100), returns=(2, 3, 1))


@checkpoint.test("slice_layout", hint="An empty selection is (0, 0, stride): no elements, "
                                      "no offset, the stride unchanged.")
def empty_slice(slice_layout):
    expect(slice_layout, 5, 4, slice(3, 1), returns=(0, 0, 4))


@checkpoint.test("slice_layout", hint="A step of 0 would never move: raise ValueError.")
def rejects_step_zero(slice_layout):
    expect(slice_layout, 5, 1, slice(None, None, 0), raises=ValueError)


_BOUND = st.one_of(st.none(), st.integers(-9, 9))


@st.composite
def _slices(draw, zero_step=False):
    step = 0 if zero_step else draw(st.one_of(st.none(), st.integers(-3, 3).filter(bool)))
    sl = slice(draw(_BOUND), draw(_BOUND), step)
    return call(draw(st.integers(0, 7)), draw(st.integers(-5, 6)), sl)


checkpoint.contract("slice_layout", valid=_slices(), invalid=[
    Invalid(_slices(zero_step=True), ValueError, "slices with step 0")])


# ------------------------------------------------------------------ is_contiguous

@checkpoint.test("is_contiguous", hint="A fresh (2, 3) array has strides (3, 1): contiguous.")
def fresh_array_is_contiguous(is_contiguous):
    expect(is_contiguous, (2, 3), (3, 1), returns=True)


@checkpoint.test("is_contiguous", hint="A transpose reads storage out of order: (3, 2) with "
                                       "strides (1, 3) is not contiguous.")
def transpose_is_not(is_contiguous):
    expect(is_contiguous, (3, 2), (1, 3), returns=False)


@checkpoint.test("is_contiguous", hint="x[:, ::2] skips elements: the last stride is 2, not 1.")
def stepped_slice_is_not(is_contiguous):
    expect(is_contiguous, (3, 2), (4, 2), returns=False)


@checkpoint.test("is_contiguous", hint="x[1:, 1:3] has rows 4 apart but only 2 wide: a gap. "
                                       "Checking only the last stride is not enough.",
                 hint_for=("checks only the last stride",))
def gap_between_rows_is_not(is_contiguous):
    expect(is_contiguous, (2, 2), (4, 1), returns=False)


@checkpoint.test("is_contiguous", hint="A reversed axis (negative stride) walks storage "
                                       "backwards: not contiguous.")
def reversed_is_not(is_contiguous):
    expect(is_contiguous, (3, 4), (-4, 1), returns=False)


@checkpoint.test("is_contiguous", hint="A size-1 dimension is never stepped over, so its "
                                       "stride can be anything: skip it.")
def size_one_dims_may_have_any_stride(is_contiguous):
    expect(is_contiguous, (2, 1, 3), (3, 99, 1), returns=True)


@checkpoint.test("is_contiguous", hint="A scalar (shape ()) and a 1-D array with stride 1 "
                                       "are contiguous; stride 2 is not.")
def scalars_and_vectors(is_contiguous):
    expect(is_contiguous, (), (), returns=True)
    expect(is_contiguous, (4,), (1,), returns=True)
    expect(is_contiguous, (4,), (2,), returns=False)


@checkpoint.test("is_contiguous", hint="An array with no elements is contiguous, whatever "
                                       "its strides (nothing is out of order).")
def empty_array_is_contiguous(is_contiguous):
    expect(is_contiguous, (0, 3), (5, 7), returns=True)


@st.composite
def _layouts_for_contiguity(draw):
    """Fresh, transposed and any strides, and fresh strides with any stride on the
    size-1 axes (contiguous all the same)."""
    shape, strides, _ = draw(layouts())
    if draw(st.booleans()):
        strides = tuple(draw(st.integers(-5, 9)) if d == 1 else s
                        for d, s in zip(shape, contiguous_strides(shape)))
    return call(shape, strides)


checkpoint.contract("is_contiguous", valid=_layouts_for_contiguity())


# ------------------------------------------------------------------ reshape_strides

@checkpoint.test("reshape_strides", hint="A contiguous array can take any shape: return the "
                                         "row-major strides of the new shape.")
def contiguous_reshape(reshape_strides):
    expect(reshape_strides, (2, 3), (3, 1), (3, 2), returns=(2, 1))


@checkpoint.test("reshape_strides", hint="Contiguous into more dimensions: (4, 6) -> (2, 2, 6) "
                                         "has strides (12, 6, 1).")
def contiguous_split(reshape_strides):
    expect(reshape_strides, (4, 6), (6, 1), (2, 2, 6), returns=(12, 6, 1))


@checkpoint.test("reshape_strides", hint="Flattening a transpose would read storage out of "
                                         "order with one stride: no view exists, return None.")
def flattening_a_transpose_needs_a_copy(reshape_strides):
    expect(reshape_strides, (3, 2), (1, 3), (6,), returns=None)


@checkpoint.test("reshape_strides", hint="Splitting one axis never needs a copy: 6 -> (2, 3) "
                                         "with stride 1 gives strides (3, 1); the other axis "
                                         "keeps its stride 6.")
def splitting_an_axis_of_a_transpose_is_a_view(reshape_strides):
    expect(reshape_strides, (6, 2), (1, 6), (2, 3, 2), returns=(3, 1, 6))


@checkpoint.test("reshape_strides", hint="Not contiguous, yet mergeable: rows 4 apart, 2 "
                                         "elements 2 apart (2 * 2 == 4), so (6,) is a view "
                                         "with stride 2. Merge axes when s[k] == d[k+1] * s[k+1].")
def merging_an_evenly_spaced_slice_is_a_view(reshape_strides):
    expect(reshape_strides, (3, 2), (4, 2), (6,), returns=(2,))


@checkpoint.test("reshape_strides", hint="x[:, :2] of a (3, 4) array leaves a gap after each "
                                         "row (4 != 2 * 1): flattening it needs a copy, None.")
def merging_across_a_gap_needs_a_copy(reshape_strides):
    expect(reshape_strides, (3, 2), (4, 1), (6,), returns=None)


@checkpoint.test("reshape_strides", hint="Drop size-1 axes of the old shape first: their "
                                         "strides do not matter.")
def old_size_one_axes_are_ignored(reshape_strides):
    expect(reshape_strides, (2, 1, 3), (1, 7, 2), (2, 3), returns=(1, 2))


@checkpoint.test("reshape_strides", hint="Inserting a size-1 axis into a transpose is a view, "
                                         "in the middle or at the end: the other axes keep "
                                         "strides 1 and 3, and the new axis needs a stride too.")
def inserting_a_size_one_axis_is_a_view(reshape_strides):
    for new_shape, keep in (((3, 1, 2), (0, 2)), ((3, 2, 1), (0, 1))):
        got = reshape_strides((3, 2), (1, 3), new_shape)
        call = f"reshape_strides((3, 2), (1, 3), {new_shape})"
        want = ["any stride"] * 3
        want[keep[0]], want[keep[1]] = "1", "3"
        if not isinstance(got, tuple) or len(got) != 3 or (got[keep[0]], got[keep[1]]) != (1, 3):
            raise CheckFailure(call, f"({', '.join(want)})", short_repr(got))


@checkpoint.test("reshape_strides", hint="Check the element counts first: 6 elements cannot "
                                         "become 8; raise ValueError naming both shapes.",
                 hint_for=("no element-count check",))
def rejects_a_different_element_count(reshape_strides):
    expect(reshape_strides, (2, 3), (3, 1), (4, 2), raises=ValueError)


@st.composite
def _reshapes(draw, same_size=True):
    shape, strides, _ = draw(layouts())
    n = numel(shape)
    if same_size:
        new_shape = draw(shape_with_numel(n))
    else:
        new_shape = draw(shapes().filter(lambda s: numel(s) != n))
    return call(shape, strides, new_shape)


def _insert_ones(draw, sizes: list, strides: list | None = None) -> None:
    """Up to two size-1 axes put anywhere in ``sizes`` (with any stride in ``strides``)."""
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, len(sizes)))
        sizes.insert(k, 1)
        if strides is not None:
            strides.insert(k, draw(st.integers(-5, 9)))


@st.composite
def _regrouped(draw):
    """A view whose axes fall into 1 to 3 groups, each of which the new shape merges,
    splits or both ((2, 3) -> (6,), (6,) -> (3, 2), (2, 3) -> (3, 2)), with size-1
    axes in between, old and new. Within a group the strides are evenly spaced (a
    view), or have a gap at one link (a copy: None), or, in a group of three merged
    into one axis, a gap in the middle with the first stride the group's span all
    the same (two links broken, still a copy). A group's last stride is the span of
    the groups to its right (no gap), a multiple of it (a gap), flipped, or 0 (a
    broadcast)."""
    old, old_strides, new = [], [], []
    span = 1  # how far the groups to the right reach in storage, in elements
    for _ in range(draw(st.integers(1, 3))):  # from the last group to the first
        sizes = [draw(st.integers(2, 4)) for _ in range(draw(st.integers(1, 3)))]
        kind = draw(st.sampled_from(["next", "gap", "flipped", "zero"]))
        step = {"next": span, "gap": span * draw(st.integers(2, 3)), "flipped": -span,
                "zero": 0}[kind]
        inside = draw(st.sampled_from(["view", "view", "gap", "hidden gap"]))
        broken = None  # the link k (between axes k and k + 1) with a gap
        if len(sizes) > 1 and inside == "gap":
            broken = draw(st.integers(0, len(sizes) - 2))
        elif len(sizes) > 2 and inside == "hidden gap":
            broken = 1
        group = [step]
        for k in range(len(sizes) - 2, -1, -1):
            group.insert(0, group[0] * sizes[k + 1] + (
                draw(st.sampled_from([1, -1, span])) if k == broken else 0))
        if broken == 1 and inside == "hidden gap":
            group[0] = math.prod(sizes[1:]) * step
        old[:0], old_strides[:0] = sizes, group
        # a hidden gap shows only when the whole group merges into one axis
        new[:0] = (math.prod(sizes),) if broken == 1 and inside == "hidden gap" else \
            draw(factored(math.prod(sizes)))
        span += sum(abs(s) * (d - 1) for d, s in zip(sizes, group))
    _insert_ones(draw, old, old_strides)
    _insert_ones(draw, new)
    return call(tuple(old), tuple(old_strides), tuple(new))


class _AnyStrideOnSizeOne:
    """What reshape_strides returned, compared with the strides of the new size-1 axes
    left out (the lesson: "new size-1 axes can take any stride"), shown as it is."""

    def __init__(self, value, new_shape):
        self.value, self.new_shape = value, tuple(new_shape)

    def __plain__(self):
        v = self.value
        if type(v) is tuple and len(v) == len(self.new_shape) and all(
                type(s) is int for s in v):
            v = tuple("any" if d == 1 else s for d, s in zip(self.new_shape, v))
        return plain(v)

    def __repr__(self):
        return repr(self.value)


def _any_stride_on_size_one(reshape_strides, shape, strides, new_shape):
    return _AnyStrideOnSizeOne(reshape_strides(shape, strides, new_shape), new_shape)


checkpoint.contract("reshape_strides", valid=st.one_of(_reshapes(), _regrouped()), cases=80,
                    scenario=_any_stride_on_size_one, invalid=[
    Invalid(_reshapes(same_size=False), ValueError, "new shapes of another size")])


# ------------------------------------------------------------------ stretch: getitem_layout

@checkpoint.test("getitem_layout", hint="An int picks one position and removes its axis: a[1] "
                                        "of a (2, 3) array is a (3,) view starting at 3.",
                 stretch=True)
def an_int_removes_its_axis(getitem_layout):
    expect(getitem_layout, (2, 3), (3, 1), 0, (1,), returns=((3,), (1,), 3))
    expect(getitem_layout, (2, 3), (3, 1), 0, 1, returns=((3,), (1,), 3))


@checkpoint.test("getitem_layout", hint="Every int adds its steps to the offset, on every axis: "
                                        "a[1, 2] of a (2, 3) array is the scalar at 5.",
                 stretch=True)
def ints_on_every_axis_give_a_scalar(getitem_layout):
    expect(getitem_layout, (2, 3), (3, 1), 0, (1, 2), returns=((), (), 5))
    expect(getitem_layout, (2, 3), (1, 2), 4, (1, 2), returns=((), (), 9))


@checkpoint.test("getitem_layout", hint="A negative int counts from the end of its axis: -1 is "
                                        "the last column.", stretch=True,
                 hint_for=("negative ints not wrapped",))
def a_negative_int_counts_from_the_end(getitem_layout):
    expect(getitem_layout, (2, 3), (3, 1), 0, (slice(None), -1), returns=((2,), (3,), 2))


@checkpoint.test("getitem_layout", hint="Ints and slices mix: a[1, ::2] of (2, 3, 4) is row 1 "
                                        "(offset 12), every other row of it, all 4 columns.",
                 stretch=True)
def ints_and_slices_mix(getitem_layout):
    expect(getitem_layout, (2, 3, 4), (12, 4, 1), 0, (1, slice(None, None, 2)),
           returns=((2, 4), (8, 1), 12))
    expect(getitem_layout, (2, 3, 4), (12, 4, 1), 0, (slice(1, None), 2),
           returns=((1, 4), (12, 1), 20))


@checkpoint.test("getitem_layout", hint="A slice moves the offset to its first element: "
                                        "a[::-1] of a view starting at 1 starts at 1 + 4 * 2.",
                 stretch=True,
                 hint_for=("slices forget the offset",))
def a_slice_moves_the_offset(getitem_layout):
    expect(getitem_layout, (5,), (2,), 1, (slice(None, None, -1),), returns=((5,), (-2,), 9))
    expect(getitem_layout, (4, 3), (3, 1), 0, (slice(1, 3),), returns=((2, 3), (3, 1), 3))


@checkpoint.test("getitem_layout", hint="An int outside its axis is an IndexError naming the int "
                                        "and the axis's size (7 and 5 here).", stretch=True)
def rejects_an_int_out_of_range(getitem_layout):
    expect(getitem_layout, (2, 5), (5, 1), 0, (0, 7), raises=IndexError, naming=(7, 5))
    expect(getitem_layout, (2, 5), (5, 1), 0, (-3,), raises=IndexError, naming=(-3, 2))


@checkpoint.test("getitem_layout", hint="More key items than axes is an IndexError naming both "
                                        "counts.", stretch=True)
def rejects_too_many_indices(getitem_layout):
    expect(getitem_layout, (4,), (1,), 0, (0, 1, 2), raises=IndexError, naming=(3, 1))


_STEP = st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -3]))


def _key_item(draw, size: int):
    """An int inside an axis of ``size`` (negative or not), or any slice of it."""
    if size > 0 and draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    return slice(draw(_BOUND), draw(_BOUND), draw(_STEP))


@st.composite
def _getitems(draw, problem: str = ""):
    """Any layout (offset included) and a key of ints and slices for some of its axes
    from the left: a bare int or slice, or a tuple (empty, short or one per axis). With
    ``problem``: one int out of its axis's range (on a size-0 axis too), one item too
    many (or more), or one slice with step 0, the rest of the key valid."""
    shape, strides, offset = draw(layouts(shapes(min_dims=1 if problem in ("int", "step 0")
                                                 else 0)))
    ndim = len(shape)
    n = ndim if problem == "too many" else draw(st.integers(0, ndim))
    items = [_key_item(draw, d) for d in shape[:n]]
    if problem == "int":
        k = draw(st.integers(0, ndim - 1))
        items += [_key_item(draw, d) for d in shape[len(items):k + 1]]
        d = shape[k]
        items[k] = draw(st.one_of(st.integers(d, d + 2), st.integers(-d - 3, -d - 1)))
    elif problem == "too many":
        items += [draw(st.sampled_from([0, slice(None)]))
                  for _ in range(draw(st.integers(1, 2)))]
    elif problem == "step 0":
        k = draw(st.integers(0, ndim - 1))
        items += [slice(None)] * (k + 1 - len(items))
        items[k] = slice(draw(_BOUND), draw(_BOUND), 0)
    bare = len(items) == 1 and draw(st.booleans())
    return call(shape, strides, offset, items[0] if bare else tuple(items))


def _out_of_range(shape, strides, offset, key):
    """The int that is out of its axis's range, and that axis's size."""
    key = key if isinstance(key, tuple) else (key,)
    return next((item, d) for item, d in zip(key, shape)
                if not isinstance(item, slice) and not -d <= item < d)


def _too_many(shape, strides, offset, key):
    return (len(key) if isinstance(key, tuple) else 1, len(shape))


checkpoint.contract("getitem_layout", valid=_getitems(), cases=60, stretch=True, invalid=[
    Invalid(_getitems("int"), IndexError, "ints out of their axis's range",
            naming=_out_of_range),
    Invalid(_getitems("too many"), IndexError, "keys with more items than axes",
            naming=_too_many),
    Invalid(_getitems("step 0"), ValueError, "slices with step 0")])
