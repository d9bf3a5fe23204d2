"""Checkpoint 01 (flat storage): ``numel``, ``contiguous_strides``,
``index_to_offset`` and ``offset_to_index``.

Each test needs only the function it tests, so every exercise can be checked
on its own (``check("01", "numel")``). The answers are written out by hand, not
computed with the library, so a test can never agree with a wrong library.

After each exercise's tests, its contract (``checkpoint.contract``) judges it on
generated inputs against the library's own function (``stridegrad.course.contracts``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from stridegrad.array.layout import index_to_offset, iter_offsets, numel
from stridegrad.course.checkpoints._layouts import (
    call,
    index_in,
    layouts,
    shapes,
    with_optional,
)
from stridegrad.course.checks import Checkpoint, expect, fail
from stridegrad.course.contracts import Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("01_flat_storage", "flat storage", reference="stridegrad.array.layout")

# ------------------------------------------------------------------ numel

@checkpoint.test("numel", hint="Multiply all the sizes together: 2 * 3 * 4.")
def numel_of_a_3d_shape(numel):
    expect(numel, (2, 3, 4), returns=24)


@checkpoint.test("numel", hint="A 1-D shape (5,) holds 5 elements.")
def numel_of_a_vector(numel):
    expect(numel, (5,), returns=5)


@checkpoint.test("numel", hint="Start the product at 1, not 0: the empty shape () is a scalar, "
                               "one element.",
                 hint_for=("product starts at 0", "scalar has none"))
def numel_of_a_scalar(numel):
    expect(numel, (), returns=1)


@checkpoint.test("numel", hint="A dimension of size 0 means no elements at all.")
def numel_with_a_zero_size(numel):
    expect(numel, (3, 0, 2), returns=0)


@checkpoint.test("numel", hint="Sizes of 1 add a dimension but no elements.")
def numel_of_ones(numel):
    expect(numel, (1, 1, 1), returns=1)


@checkpoint.test("numel", hint="Multiply the sizes; adding them gives 2 + 3 = 5, not 6.",
                 hint_for=("adds the sizes",))
def numel_multiplies_not_adds(numel):
    expect(numel, (2, 3), returns=6)


checkpoint.contract("numel", valid=shapes().map(call))


# ------------------------------------------------------------------ contiguous_strides

@checkpoint.test("contiguous_strides", hint="The last axis moves fastest: its stride is 1; "
                                            "each stride to its left is the next stride times "
                                            "the next size.",
                 hint_for=("reversed strides", "includes own size", "column-major strides"))
def strides_of_a_3d_shape(contiguous_strides):
    expect(contiguous_strides, (2, 3, 4), returns=(12, 4, 1))


@checkpoint.test("contiguous_strides", hint="Row-major: going down one row skips a whole row "
                                            "(3 elements); (1, 2) is column-major.",
                 hint_for=("column-major strides", "reversed strides"))
def strides_of_a_matrix(contiguous_strides):
    expect(contiguous_strides, (2, 3), returns=(3, 1))


@checkpoint.test("contiguous_strides", hint="One dimension: neighbours are 1 apart.")
def strides_of_a_vector(contiguous_strides):
    expect(contiguous_strides, (5,), returns=(1,))


@checkpoint.test("contiguous_strides", hint="A scalar has no dimensions, so no strides: ().")
def strides_of_a_scalar(contiguous_strides):
    expect(contiguous_strides, (), returns=())


@checkpoint.test("contiguous_strides", hint="Return a tuple (tuple(strides)), one stride per "
                                            "dimension, ints counting elements.",
                 hint_for=("returns a list",))
def strides_are_a_tuple(contiguous_strides):
    expect(contiguous_strides, (4, 5), returns=(5, 1))


@checkpoint.test("contiguous_strides", hint="Read the docstring: a size-0 dimension counts as "
                                            "size 1 when you multiply, so no stride becomes 0.",
                 hint_for=("zero size makes zero strides",))
def strides_with_a_zero_size(contiguous_strides):
    expect(contiguous_strides, (2, 0, 3), returns=(3, 3, 1))


checkpoint.contract("contiguous_strides", valid=shapes().map(call))


# ------------------------------------------------------------------ index_to_offset

@checkpoint.test("index_to_offset", hint="Sum index[k] * strides[k]: 1 * 3 + 2 * 1.")
def offset_in_a_matrix(index_to_offset):
    expect(index_to_offset, (1, 2), (3, 1), returns=5)


@checkpoint.test("index_to_offset", hint="Multiply each index by its stride (not add them).",
                 hint_for=("adds instead of multiplies",))
def offset_in_a_3d_array(index_to_offset):
    expect(index_to_offset, (1, 2, 3), (12, 4, 1), returns=23)


@checkpoint.test("index_to_offset", hint="The first element sits at the offset itself.")
def first_element(index_to_offset):
    expect(index_to_offset, (0, 0, 0), (12, 4, 1), returns=0)


@checkpoint.test("index_to_offset", hint="Start the sum at `offset`, not at 0.",
                 hint_for=("ignores the offset",))
def uses_the_offset(index_to_offset):
    expect(index_to_offset, (1, 2), (3, 1), offset=10, returns=15)


@checkpoint.test("index_to_offset", hint="Pair index[k] with strides[k] for the same k; the "
                                         "strides need not be row-major ones.",
                 hint_for=("pairs index with reversed strides",))
def transposed_strides(index_to_offset):
    expect(index_to_offset, (2, 1), (1, 3), returns=5)


@checkpoint.test("index_to_offset", hint="A scalar (index ()) lives at the offset.")
def scalar_index(index_to_offset):
    expect(index_to_offset, (), (), offset=7, returns=7)


@checkpoint.test("index_to_offset", hint="Every axis steps by its own stride, the last one "
                                         "too, negative or not: 4 + 1 * (-1) = 3.")
def negative_stride(index_to_offset):
    expect(index_to_offset, (1,), (-1,), offset=4, returns=3)


@st.composite
def _index_to_offset_calls(draw):
    """An index inside a shape, any strides (negative, 0, not row-major), the offset
    left out, given by position or by name."""
    shape = draw(shapes(min_side=1))
    index = draw(index_in(shape))
    strides = tuple(draw(st.integers(-7, 13)) for _ in shape)
    return with_optional(draw, (index, strides), "offset", draw(st.integers(0, 40)))


checkpoint.contract("index_to_offset", valid=_index_to_offset_calls())


# ------------------------------------------------------------------ offset_to_index

@checkpoint.test("offset_to_index", hint="Peel off the last axis first: 2 % 3 = 2, then 2 // 3 = 0.",
                 hint_for=("peels from the wrong end", "peeled index not reversed"))
def index_in_a_matrix(offset_to_index):
    expect(offset_to_index, 2, (2, 3), returns=(0, 2))


@checkpoint.test("offset_to_index", hint="For each axis from the right: index = offset % size, "
                                         "offset = offset // size.",
                 hint_for=("peels from the wrong end", "peeled index not reversed"))
def index_in_a_3d_array(offset_to_index):
    expect(offset_to_index, 14, (2, 3, 4), returns=(1, 0, 2))


@checkpoint.test("offset_to_index", hint="A tall matrix: 3 rows of 2. Offset 3 is row 3 // 2 = 1, "
                                         "column 3 % 2 = 1.")
def index_in_a_tall_matrix(offset_to_index):
    expect(offset_to_index, 3, (3, 2), returns=(1, 1))


@checkpoint.test("offset_to_index", hint="Offset 0 is the first element, all zeros.")
def first_index(offset_to_index):
    expect(offset_to_index, 0, (2, 3, 4), returns=(0, 0, 0))


@checkpoint.test("offset_to_index", hint="A scalar's only element has the empty index ().")
def scalar_offset(offset_to_index):
    expect(offset_to_index, 0, (), returns=())


@checkpoint.test("offset_to_index", hint="Every offset in range(numel(shape)) must come back "
                                         "from index_to_offset(index, row-major strides).")
def inverts_index_to_offset(offset_to_index):
    shape, strides = (2, 3, 4), (12, 4, 1)
    for offset in range(24):
        index = expect(offset_to_index, offset, shape,
                       returns=(offset // 12, offset // 4 % 3, offset % 4))
        back = sum(i * s for i, s in zip(index, strides))
        if back != offset:
            fail(f"index_to_offset(offset_to_index({offset}, {shape}), {strides})", offset, back)


@checkpoint.test("offset_to_index", hint="Check 0 <= offset < numel(shape) first and raise "
                                         "ValueError naming the offset and the shape.")
def rejects_an_offset_past_the_end(offset_to_index):
    expect(offset_to_index, 6, (2, 3), raises=ValueError, naming=(6, (2, 3)))


@checkpoint.test("offset_to_index", hint="Negative offsets are out of range too: raise ValueError "
                                         "naming the offset and the shape.")
def rejects_a_negative_offset(offset_to_index):
    expect(offset_to_index, -1, (3, 4), raises=ValueError, naming=(-1, (3, 4)))


@st.composite
def _offsets_in(draw):
    shape = draw(shapes(min_side=1))
    return call(draw(st.integers(0, numel(shape) - 1)), shape)


@st.composite
def _offsets_outside(draw):
    """Before the start, at or past the end, or any offset of an empty shape."""
    shape = draw(shapes())
    n = numel(shape)
    return call(draw(st.one_of(st.integers(-5, -1), st.integers(n, n + 5))), shape)


checkpoint.contract("offset_to_index", valid=_offsets_in(), invalid=[
    Invalid(_offsets_outside(), ValueError, "offsets outside range(numel(shape))",
            naming=lambda offset, shape: (offset, shape))])


# ------------------------------------------------------------------ stretch: locate

@checkpoint.test("locate", hint="Row-major strides first: position 5 of a (2, 3) array is "
                                "row 1, column 2.", stretch=True)
def locates_in_a_row_major_array(locate):
    expect(locate, 5, (2, 3), (3, 1), returns=(1, 2))
    expect(locate, 3, (3, 2), (2, 1), returns=(1, 1))


@checkpoint.test("locate", hint="Transposed strides (1, 3): position = i + 3 * j, so 5 is "
                                "(2, 1) and 1 is (1, 0), not what offset_to_index says.",
                 stretch=True)
def locates_in_a_transposed_view(locate):
    expect(locate, 5, (3, 2), (1, 3), returns=(2, 1))
    expect(locate, 1, (3, 2), (1, 3), returns=(1, 0))


@checkpoint.test("locate", hint="The view starts at offset: position 15 with offset 10 is 5 "
                                "steps in.", stretch=True)
def locates_after_a_starting_offset(locate):
    expect(locate, 15, (2, 3), (3, 1), offset=10, returns=(1, 2))
    expect(locate, 10, (2, 3), (3, 1), offset=10, returns=(0, 0))


@checkpoint.test("locate", hint="Negative strides walk backwards from the offset: a flipped "
                                "vector of 4 starting at 3 has position 0 at index 3.",
                 stretch=True)
def locates_with_negative_strides(locate):
    expect(locate, 0, (4,), (-1,), offset=3, returns=(3,))
    expect(locate, 1, (2, 3), (-3, -1), offset=5, returns=(1, 1))


@checkpoint.test("locate", hint="A stride of 0 repeats one element: several indices share the "
                                "position, and the first in row-major order is the answer.",
                 stretch=True)
def a_zero_stride_gives_the_first_index(locate):
    expect(locate, 7, (3, 2), (0, 1), offset=7, returns=(0, 0))
    expect(locate, 8, (3, 2), (0, 1), offset=7, returns=(0, 1))


@checkpoint.test("locate", hint="A view with gaps (stride 2 from offset 1) holds positions 1, "
                                "3 and 5: 5 is index (2,) and 3 is (1,).", stretch=True)
def locates_in_a_view_with_gaps(locate):
    expect(locate, 5, (3,), (2,), offset=1, returns=(2,))
    expect(locate, 3, (3,), (2,), offset=1, returns=(1,))


@checkpoint.test("locate", hint="A view with gaps (stride 2 from offset 1) holds positions 1, "
                                "3 and 5 only: 4 is in no element, a ValueError naming the "
                                "position, shape and strides.",
                 stretch=True)
def rejects_a_position_in_a_gap(locate):
    expect(locate, 4, (3,), (2,), offset=1, raises=ValueError, naming=(4, (3,), (2,)))


@checkpoint.test("locate", hint="Positions before the offset or past the last element are in "
                                "no index: ValueError naming the position, shape and strides.",
                 stretch=True)
def rejects_a_position_outside_the_view(locate):
    expect(locate, 2, (2, 3), (3, 1), offset=4, raises=ValueError,
           naming=(2, (2, 3), (3, 1)))
    expect(locate, 6, (2, 3), (3, 1), raises=ValueError, naming=(6, (2, 3), (3, 1)))


def _some_strides_zero(draw, strides: tuple) -> tuple:
    """``strides`` with, now and then, some made 0: indices that share a position."""
    if not strides or not draw(st.booleans()):
        return strides
    return tuple(0 if draw(st.booleans()) else s for s in strides)


@st.composite
def _located(draw, inside=True):
    """A view of any layout (transposed, stepped, flipped, overlapping, 0 strides) and a
    position one of its elements sits at (``inside``: the answer is the first index in
    row-major order there), or one where none does: before the view, past it, in a
    gap, or anywhere in an empty view. The offset left out (0), given by position or
    by name."""
    shape, strides, offset = draw(layouts(shapes(min_side=1) if inside else shapes()))
    strides = _some_strides_zero(draw, strides)
    low = sum(min(0, (d - 1) * s) for d, s in zip(shape, strides) if d > 0)
    how = draw(st.sampled_from(["default", "positional", "keyword"]))
    if how == "default" and low < 0:  # a view that starts at 0 cannot walk backwards
        how = "keyword"
    offset = 0 if how == "default" else max(offset, -low) + draw(st.sampled_from([0, 0, 9]))
    if inside:
        position = index_to_offset(draw(index_in(shape)), strides, offset)
    else:
        taken = set(iter_offsets(shape, strides, offset))
        first, last = min(taken, default=offset), max(taken, default=offset)
        position = draw(st.integers(max(0, first - 3), last + 3).filter(
            lambda p: p not in taken))
    args = (position, shape, strides)
    if how == "default":
        return call(*args)
    return call(*args, offset) if how == "positional" else call(*args, offset=offset)


checkpoint.contract("locate", valid=_located(), stretch=True, invalid=[
    Invalid(_located(inside=False), ValueError, "positions no element sits at",
            naming=lambda position, shape, strides, offset=0: (position, shape, strides))])
