"""Checkpoint 03 (elementwise ops and reductions): ``iter_offsets``,
``map_unary``, ``map_binary``, ``sum_axis`` and ``reduce_axis``.

A view is a tuple ``(storage, shape, strides, offset)``. Each test needs only
the function it tests (the later exercises may call the learner's own
``iter_offsets``). The answers are written out by hand, not computed with the
library.
"""

from __future__ import annotations

from hypothesis import strategies as st

from stridegrad.course.checkpoints._layouts import (
    axis_for,
    binary_functions,
    call,
    layouts,
    reducers,
    shapes,
    unary_functions,
    view_of,
    views,
    with_optional,
)
from stridegrad.course.checks import Checkpoint, expect, fail
from stridegrad.course.contracts import Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("03_elementwise_and_reductions", "elementwise ops and reductions",
                        reference="stridegrad.array.layout")

# storage 0..5 seen as [[0, 1, 2], [3, 4, 5]] and as its transpose [[0, 3], [1, 4], [2, 5]]
SIX = [0, 1, 2, 3, 4, 5]
M = (SIX, (2, 3), (3, 1), 0)
MT = (SIX, (3, 2), (1, 3), 0)
# storage [1, 2, 3, 4] seen upside down: [[3, 4], [1, 2]]
FLIPPED = ([1, 2, 3, 4], (2, 2), (-2, 1), 2)

# ------------------------------------------------------------------ iter_offsets

@checkpoint.test("iter_offsets", hint="A contiguous (2, 3) array visits storage in order: "
                                      "0, 1, 2, 3, 4, 5.")
def offsets_of_a_contiguous_array(iter_offsets):
    expect(iter_offsets, (2, 3), (3, 1), returns=[0, 1, 2, 3, 4, 5])


@checkpoint.test("iter_offsets", hint="The LAST index moves fastest: (0,0), (0,1), (0,2), "
                                      "(1,0)... at 0*1+0*2, 0*1+1*2, ... = 0, 2, 4, 1, 3, 5.",
                 hint_for=("first axis fastest (column-major)",))
def offsets_of_a_transpose(iter_offsets):
    expect(iter_offsets, (2, 3), (1, 2), returns=[0, 2, 4, 1, 3, 5])


@checkpoint.test("iter_offsets", hint="Every position starts at `offset`.",
                 hint_for=("forgets the offset",))
def uses_the_offset(iter_offsets):
    expect(iter_offsets, (2,), (1,), 5, returns=[5, 6])


@checkpoint.test("iter_offsets", hint="A negative stride walks backwards from the offset: "
                                      "8, 4, 0.")
def negative_stride(iter_offsets):
    expect(iter_offsets, (3,), (-4,), 8, returns=[8, 4, 0])


@checkpoint.test("iter_offsets", hint="A 0-d array (shape ()) has one element, at the offset.")
def scalar(iter_offsets):
    expect(iter_offsets, (), (), 7, returns=[7])


@checkpoint.test("iter_offsets", hint="Any size-0 dimension means no elements: [].")
def empty(iter_offsets):
    expect(iter_offsets, (2, 0), (1, 1), returns=[])


@checkpoint.test("iter_offsets", hint="Three levels of loops: (2, 2, 3) with strides "
                                      "(1, 6, 2) is y.permute(2, 0, 1) from lesson 02's "
                                      "stride explorer.")
def permuted_3d(iter_offsets):
    expect(iter_offsets, (2, 2, 3), (1, 6, 2), returns=[0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11])


@checkpoint.test("iter_offsets", hint="Stride 0 reads the same element again and again "
                                      "(the trick behind broadcasting): range() refuses a "
                                      "step of 0, so make each run from p + i * s.",
                 hint_for=("range with the stride as its step",))
def stride_zero_repeats(iter_offsets):
    expect(iter_offsets, (2, 3), (0, 1), returns=[0, 1, 2, 0, 1, 2])


@st.composite
def _offset_calls(draw):
    """Any layout, and now and then one with a long axis (up to 16: a kernel may take
    another path for long runs)."""
    long = shapes(1, 2, max_side=16)
    shape, strides, offset = draw(layouts(st.one_of(shapes(), long)))
    return with_optional(draw, (shape, strides), "offset", offset)


checkpoint.contract("iter_offsets", valid=_offset_calls(), cases=80)


# ------------------------------------------------------------------ map_unary

@checkpoint.test("map_unary", hint="Apply fn to each value: [-1, -2, -3].")
def negate_a_vector(map_unary):
    expect(map_unary, lambda v: -v, ([1, 2, 3], (3,), (1,), 0), returns=[-1, -2, -3])


@checkpoint.test("map_unary", hint="Visit the VIEW's elements in row-major order (with "
                                   "iter_offsets), not the storage in its own order: the "
                                   "transpose reads 0, 3, 1, 4, 2, 5.")
def follows_the_view_order(map_unary):
    expect(map_unary, lambda v: 10 * v, MT, returns=[0, 30, 10, 40, 20, 50])


@checkpoint.test("map_unary", hint="A sliced view reads only its own elements, from the "
                                   "offset: storage[1] and storage[4].")
def reads_only_the_view(map_unary):
    expect(map_unary, str, (list(range(10)), (2,), (3,), 1), returns=["1", "4"])


@checkpoint.test("map_unary", hint="A 0-d view has one element: storage[offset].")
def scalar_view(map_unary):
    expect(map_unary, lambda v: v + 1, ([5, 6], (), (), 1), returns=[7])


@checkpoint.test("map_unary", hint="Build a new list; never write into the storage.",
                 hint_for=("writes into the storage",))
def leaves_the_storage_alone(map_unary):
    expect(map_unary, lambda v: v * v, ([1, 2, 3], (3,), (1,), 0), returns=[1, 4, 9],
           unchanged=True)


@checkpoint.test("map_unary", hint="Call fn once per element of the view: stride 0 repeats "
                                   "one stored value 3 times, so 3 calls.",
                 hint_for=("maps each stored value once",))
def calls_fn_once_per_element(map_unary):
    calls = []

    def double(v):
        calls.append(v)
        return 2 * v

    expect(map_unary, double, ([2], (3,), (0,), 0), returns=[4, 4, 4])
    if len(calls) != 3:
        fail("number of calls to fn", 3, len(calls))


@checkpoint.test("map_unary", hint="A view with no elements maps to [].")
def empty_view(map_unary):
    expect(map_unary, abs, ([1, 2], (0, 2), (2, 1), 0), returns=[])


checkpoint.contract("map_unary", valid=st.builds(call, unary_functions(), views()))


# ------------------------------------------------------------------ map_binary

@checkpoint.test("map_binary", hint="Pair the elements at the same index: 1+10, 2+20, 3+30.")
def add_two_vectors(map_binary):
    expect(map_binary, lambda a, b: a + b, ([1, 2, 3], (3,), (1,), 0),
           ([10, 20, 30], (3,), (1,), 0), returns=[11, 22, 33])


@checkpoint.test("map_binary", hint="Call fn(x_value, y_value) in that order: 5 - 1, 7 - 2.",
                 hint_for=("swaps the arguments",))
def keeps_the_argument_order(map_binary):
    expect(map_binary, lambda a, b: a - b, ([5, 7], (2,), (1,), 0), ([1, 2], (2,), (1,), 0),
           returns=[4, 5])


@checkpoint.test("map_binary", hint="x + x.T: walk each view with its OWN strides. "
                                    "[[1, 2], [3, 4]] + [[1, 3], [2, 4]] = [[2, 5], [5, 8]].")
def matrix_plus_its_transpose(map_binary):
    storage = [1, 2, 3, 4]
    expect(map_binary, lambda a, b: a + b, (storage, (2, 2), (2, 1), 0),
           (storage, (2, 2), (1, 2), 0), returns=[2, 5, 5, 8])


@checkpoint.test("map_binary", hint="Each view has its own offset and strides too: x reads "
                                    "storage[1], storage[4]; y reads storage[9], storage[8].")
def own_offsets_and_strides(map_binary):
    storage = list(range(10))
    expect(map_binary, lambda a, b: (a, b), (storage, (2,), (3,), 1), (storage, (2,), (-1,), 9),
           returns=[(1, 9), (4, 8)])


@checkpoint.test("map_binary", hint="Two 0-d views make one result, each value read at its "
                                    "own view's offset: x gives storage[0] = 3, y gives "
                                    "storage[1] = 4, so 3 * 4 = 12.")
def two_scalars(map_binary):
    expect(map_binary, lambda a, b: a * b, ([3], (), (), 0), ([0, 4], (), (), 1), returns=[12])


@checkpoint.test("map_binary", hint="Compare the shapes, not just the element counts: (2, 3) "
                                    "and (3, 2) both hold 6 but do not match. Raise ValueError.",
                 hint_for=("compares element counts, not shapes",))
def rejects_different_shapes(map_binary):
    expect(map_binary, lambda a, b: a + b, M, MT, raises=ValueError)


@checkpoint.test("map_binary", hint="The error must say what went wrong: name both shapes, "
                                    "as in 'shapes (2, 3) and (3, 2) differ'.",
                 hint_for=("error names no shape",))
def the_error_names_both_shapes(map_binary):
    expect(map_binary, lambda a, b: a + b, M, MT, raises=ValueError, naming=((2, 3), (3, 2)))
    expect(map_binary, lambda a, b: a + b, ([1, 2, 3], (3,), (1,), 0),
           ([1, 2, 3, 4], (2, 2), (2, 1), 0), raises=ValueError, naming=((3,), (2, 2)))


@checkpoint.test("map_binary", hint="Different lengths must raise ValueError, not stop at "
                                    "the shorter one.")
def rejects_different_lengths(map_binary):
    expect(map_binary, lambda a, b: a + b, ([1, 2, 3], (3,), (1,), 0), ([1, 2], (2,), (1,), 0),
           raises=ValueError)


@st.composite
def _view_pairs(draw, same_shape=True):
    """Two views of one shape (their own storage, or one shared list), or of two."""
    shape = draw(shapes())
    x = draw(view_of(shape))
    other = shape if same_shape else draw(shapes().filter(lambda s: s != shape))
    y = draw(view_of(other, storage=x[0] if draw(st.booleans()) else None))
    return call(draw(binary_functions()), x, y)


checkpoint.contract("map_binary", valid=_view_pairs(), invalid=[
    Invalid(_view_pairs(same_shape=False), ValueError, "views of two shapes",
            naming=lambda fn, x, y: (x[1], y[1]))])


def _reduction(reducer=None):
    @st.composite
    def calls(draw, bad_axis=False):
        x = draw(views(min_dims=0 if bad_axis else 1))
        ndim = len(x[1])
        if bad_axis:
            axis = draw(st.one_of(st.integers(ndim, ndim + 2), st.integers(-ndim - 3, -ndim - 1)))
        else:
            axis = draw(axis_for(ndim))
        head = (draw(reducer),) if reducer is not None else ()
        return with_optional(draw, (*head, x, axis), "keepdims", draw(st.booleans()))
    return calls


def _no_empty_float_lane(case) -> bool:
    """An empty lane sums to the int 0; over float storage 0.0 is as right, so those
    cases are left to the hand-written tests."""
    storage, shape = next(a for a in case.args if isinstance(a, tuple))[:2]
    return not (0 in shape and any(isinstance(v, float) for v in storage))


# ------------------------------------------------------------------ sum_axis

@checkpoint.test("sum_axis", hint="Axis 0 sums DOWN the columns of [[0, 1, 2], [3, 4, 5]]: "
                                  "[3, 5, 7], shape (3,).")
def sums_down_the_columns(sum_axis):
    expect(sum_axis, M, 0, returns=([3, 5, 7], (3,)))


@checkpoint.test("sum_axis", hint="Axis 1 sums ALONG each row: [0+1+2, 3+4+5] = [3, 12], "
                                  "shape (2,).")
def sums_along_the_rows(sum_axis):
    expect(sum_axis, M, 1, returns=([3, 12], (2,)))


@checkpoint.test("sum_axis", hint="keepdims=True puts a 1 where the summed axis was: "
                                  "(2, 1) for axis 1, (1, 3) for axis 0.")
def keepdims(sum_axis):
    expect(sum_axis, M, 1, keepdims=True, returns=([3, 12], (2, 1)))
    expect(sum_axis, M, 0, keepdims=True, returns=([3, 5, 7], (1, 3)))


@checkpoint.test("sum_axis", hint="Use the view's strides, not row-major ones: the transpose "
                                  "[[0, 3], [1, 4], [2, 5]] sums over axis 0 to [3, 12].",
                 hint_for=("assumes row-major storage",))
def sum_a_transpose(sum_axis):
    expect(sum_axis, MT, 0, returns=([3, 12], (2,)))
    expect(sum_axis, MT, 1, returns=([3, 5, 7], (3,)))


@checkpoint.test("sum_axis", hint="Start from the view's offset and follow negative strides: "
                                  "[[3, 4], [1, 2]] sums to [4, 6] over axis 0, [7, 3] over 1.")
def sum_a_flipped_view(sum_axis):
    expect(sum_axis, FLIPPED, 0, returns=([4, 6], (2,)))
    expect(sum_axis, FLIPPED, 1, returns=([7, 3], (2,)))


@checkpoint.test("sum_axis", hint="Summing the middle axis of (2, 3, 4) leaves (2, 4): "
                                  "k + (k + 4) + (k + 8) for the first block.")
def sum_the_middle_axis(sum_axis):
    expect(sum_axis, (list(range(24)), (2, 3, 4), (12, 4, 1), 0), 1,
           returns=([12, 15, 18, 21, 48, 51, 54, 57], (2, 4)))


@checkpoint.test("sum_axis", hint="axis=-1 means the last axis: turn a negative axis into "
                                  "its place from the front (axis % ndim) before you use it "
                                  "to split shape and strides. A (0, 3) view summed over -1 "
                                  "has shape (0,); m gives [3, 12], shape (2,).",
                 hint_for=("negative axis used as it is", "negative axis never equals k"))
def negative_axis(sum_axis):
    # An empty view first: it has nothing to add up, so a raw -1 (sliced with, or compared
    # with each k) shows only in the shape it leaves, the same for every way of writing that
    # mistake, and check() can name it. On m each way fails differently.
    expect(sum_axis, ([], (0, 3), (3, 1), 0), -1, returns=([], (0,)))
    expect(sum_axis, M, -1, returns=([3, 12], (2,)))


@checkpoint.test("sum_axis", hint="Summing a vector leaves a 0-d result, shape (); with "
                                  "keepdims, shape (1,).")
def sum_a_vector(sum_axis):
    expect(sum_axis, ([1, 2, 3], (3,), (1,), 0), 0, returns=([6], ()))
    expect(sum_axis, ([1, 2, 3], (3,), (1,), 0), 0, keepdims=True, returns=([6], (1,)))


@checkpoint.test("sum_axis", hint="The sum of no numbers is 0: start each total at 0.")
def sum_an_empty_axis(sum_axis):
    expect(sum_axis, ([], (2, 0), (1, 1), 0), 1, returns=([0, 0], (2,)))


@checkpoint.test("sum_axis", hint="A 2-D view has axes 0 and 1 (or -2 and -1): 2 and -3 do not "
                                  "exist; raise ValueError for both.")
def rejects_a_missing_axis(sum_axis):
    expect(sum_axis, M, 2, raises=ValueError)
    expect(sum_axis, M, -3, raises=ValueError)


checkpoint.contract("sum_axis", valid=_reduction()().filter(_no_empty_float_lane), invalid=[
    Invalid(_reduction()(bad_axis=True), ValueError, "axes out of range")])


# ------------------------------------------------------------------ reduce_axis

@checkpoint.test("reduce_axis", hint="fn gets the list of values along the axis: max([0, 1, "
                                     "2]) and max([3, 4, 5]).")
def max_along_rows(reduce_axis):
    expect(reduce_axis, max, M, 1, returns=([2, 5], (2,)))


@checkpoint.test("reduce_axis", hint="Pass fn the values in index order (index 0 first): "
                                     "down column j of [[0, 1, 2], [3, 4, 5]] that is "
                                     "[j, j + 3].")
def values_come_in_index_order(reduce_axis):
    expect(reduce_axis, tuple, M, 0, returns=([(0, 3), (1, 4), (2, 5)], (3,)))


@checkpoint.test("reduce_axis", hint="Index order, not storage order: the flipped view "
                                     "[[3, 4], [1, 2]] gives column lists [3, 1] and [4, 2].",
                 hint_for=("values in storage order",))
def index_order_of_a_flipped_view(reduce_axis):
    expect(reduce_axis, tuple, FLIPPED, 0, returns=([(3, 1), (4, 2)], (2,)))


@checkpoint.test("reduce_axis", hint="Call fn ONCE per output element with the whole list "
                                     "(a mean needs len(v)); keepdims gives (1, 3).")
def mean_with_keepdims(reduce_axis):
    expect(reduce_axis, lambda v: sum(v) / len(v), M, 0, keepdims=True,
           returns=([1.5, 2.5, 3.5], (1, 3)))


@checkpoint.test("reduce_axis", hint="Each list holds shape[axis] values: len gives 4 for "
                                     "each of the 2 * 3 outputs.")
def lists_are_as_long_as_the_axis(reduce_axis):
    expect(reduce_axis, len, (list(range(24)), (2, 3, 4), (12, 4, 1), 0), 2,
           returns=([4, 4, 4, 4, 4, 4], (2, 3)))


@checkpoint.test("reduce_axis", hint="Use the view's strides: the transpose [[0, 3], [1, 4], "
                                     "[2, 5]] has row minimums [0, 1, 2].")
def min_of_a_transpose(reduce_axis):
    expect(reduce_axis, min, MT, 1, returns=([0, 1, 2], (3,)))


@checkpoint.test("reduce_axis", hint="axis=-2 is the first axis of a 2-D view.")
def negative_axis_reduce(reduce_axis):
    expect(reduce_axis, sum, M, -2, returns=([3, 5, 7], (3,)))


@checkpoint.test("reduce_axis", hint="Axis -3 does not exist in a 2-D view: raise ValueError.")
def rejects_a_missing_axis_reduce(reduce_axis):
    expect(reduce_axis, sum, M, -3, raises=ValueError)


checkpoint.contract("reduce_axis", valid=_reduction(reducers())(), invalid=[
    Invalid(_reduction(reducers())(bad_axis=True), ValueError, "axes out of range")])


# ------------------------------------------------------------------ stretch: argmax_axis

_GRID = [3, 9, 2, 7, 1, 8]  # a (2, 3) grid: rows [3, 9, 2] and [7, 1, 8]


@checkpoint.test("argmax_axis", hint="Along axis 1 each row gives the column of its largest "
                                     "number: row [3, 9, 2] gives 1.", stretch=True)
def argmax_along_rows(argmax_axis):
    expect(argmax_axis, (_GRID, (2, 3), (3, 1), 0), 1, returns=([1, 2], (2,)))
    expect(argmax_axis, (_GRID, (2, 3), (3, 1), 0), -1, returns=([1, 2], (2,)))


@checkpoint.test("argmax_axis", hint="Along axis 0 each column gives the row of its largest "
                                     "number, an index in range(2).", stretch=True)
def argmax_along_columns(argmax_axis):
    expect(argmax_axis, (_GRID, (2, 3), (3, 1), 0), 0, returns=([1, 0, 1], (3,)))


@checkpoint.test("argmax_axis", hint="Read through the view's strides: the transpose of the grid "
                                     "has rows (3, 7), (9, 1), (2, 8).", stretch=True)
def argmax_of_a_transposed_view(argmax_axis):
    expect(argmax_axis, (_GRID, (3, 2), (1, 3), 0), 1, returns=([1, 0, 1], (3,)))


@checkpoint.test("argmax_axis", hint="The answer is the position along the axis, counted from "
                                     "the view's start, not a position in storage.", stretch=True,
                 hint_for=("storage position, not index",))
def argmax_of_a_view_with_an_offset(argmax_axis):
    expect(argmax_axis, ([0, 0, 4, 6, 5], (3,), (1,), 2), 0, returns=([1], ()))
    expect(argmax_axis, ([9, 1, 9, 2, 9, 3], (3,), (2,), 1), 0, returns=([2], ()))


@checkpoint.test("argmax_axis", hint="On a tie the first index wins, as in NumPy: use a strict "
                                     "> when you compare.", stretch=True,
                 hint_for=("last index on a tie",))
def a_tie_gives_the_first_index(argmax_axis):
    expect(argmax_axis, ([5, 5, 1], (3,), (1,), 0), 0, returns=([0], ()))
    expect(argmax_axis, ([2, 4, 4, 4, 4, 1], (2, 3), (3, 1), 0), 1, returns=([1, 0], (2,)))


@checkpoint.test("argmax_axis", hint="An axis out of range is a ValueError naming the axis and "
                                     "the number of dimensions: axis 5 (or -3) of a 2-d view.",
                 stretch=True)
def rejects_an_axis_out_of_range(argmax_axis):
    expect(argmax_axis, (_GRID, (2, 3), (3, 1), 0), 5, raises=ValueError, naming=(5, 2))
    expect(argmax_axis, (_GRID, (2, 3), (3, 1), 0), -3, raises=ValueError, naming=(-3, 2))


@checkpoint.test("argmax_axis", hint="An axis of size 0 has no maximum, so no position of one: "
                                     "a ValueError, for axis 1 of a (2, 0) view (two empty "
                                     "lanes) and also when no lane is left, a (0, 0) view.",
                 stretch=True)
def rejects_an_empty_axis(argmax_axis):
    expect(argmax_axis, ([], (2, 0), (1, 1), 0), 1, raises=ValueError)
    expect(argmax_axis, ([], (0, 0), (1, 1), 0), 0, raises=ValueError)


_TIES = st.sampled_from([[0, 1, 2], [0.0, -0.0, 2.5], [-1, 0]])


@st.composite
def _argmax_calls(draw, problem: str = ""):
    """A view of any layout (a flipped axis: its lane read in storage order comes out
    backwards), half the time of a few repeated values (ties, 0.0 and -0.0 among
    them), and an axis, negative or not, given by position or by name. With
    ``problem``: an axis out of range (any axis of a 0-d view), or one of size 0 (with
    or without lanes left)."""
    shape = list(draw(shapes(min_dims=0 if problem == "axis" else 1)))
    ndim = len(shape)
    if problem == "axis":
        axis = draw(st.one_of(st.integers(ndim, ndim + 2), st.integers(-ndim - 3, -ndim - 1)))
    else:
        axis = draw(axis_for(ndim))
        if problem == "empty":
            shape[axis] = 0
            if ndim > 1 and draw(st.booleans()):  # and no lane left to read
                shape[(axis + draw(st.integers(1, ndim - 1))) % ndim] = 0
        elif shape[axis] == 0:
            shape[axis] = draw(st.integers(1, 4))
    storage, shape, strides, offset = draw(view_of(tuple(shape)))
    if draw(st.booleans()):
        values = draw(_TIES)
        storage = [draw(st.sampled_from(values)) for _ in storage]
    x = (storage, shape, strides, offset)
    return call(x, axis) if draw(st.booleans()) else call(x, axis=axis)


checkpoint.contract("argmax_axis", valid=_argmax_calls(), cases=60, stretch=True, invalid=[
    Invalid(_argmax_calls("axis"), ValueError, "axes out of range",
            naming=lambda x, axis: (axis, len(x[1]))),
    Invalid(_argmax_calls("empty"), ValueError, "axes of size 0")])
