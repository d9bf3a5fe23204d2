"""Checkpoint 04 (broadcasting): ``broadcast_shapes``, ``broadcast_strides`` and
``broadcast_binary``.

Each test needs only the function it tests (``check("04", "broadcast_binary")``
works before the other two are done: its inputs are given as strides). The
answers are written out by hand, never computed with the library.
"""

from __future__ import annotations

import operator

from hypothesis import strategies as st

from stridegrad.array import layout
from stridegrad.course.checkpoints._layouts import (
    binary_functions,
    broadcastable,
    call,
    clashing,
    layouts,
    numbers,
    targets,
)
from stridegrad.course.checks import Checkpoint, CheckFailure, expect, fail, raised
from stridegrad.course.contracts import Invalid

__all__ = ["checkpoint"]

checkpoint = Checkpoint("04_broadcasting", "broadcasting", reference="stridegrad.array.layout")

# ------------------------------------------------------------------ broadcast_shapes

@checkpoint.test("broadcast_shapes", hint="Compare (3, 1) and (3, 4) column by column from the "
                                          "right: 1 and 4 give 4, 3 and 3 give 3.")
def column_and_matrix(broadcast_shapes):
    expect(broadcast_shapes, (3, 1), (3, 4), returns=(3, 4))


@checkpoint.test("broadcast_shapes", hint="Align from the RIGHT: (3,) lines up with the last "
                                          "size of (2, 3); the missing leading size counts as 1.",
                 hint_for=("aligns from the left",))
def missing_dims_count_as_one(broadcast_shapes):
    expect(broadcast_shapes, (3,), (2, 3), returns=(2, 3))


@checkpoint.test("broadcast_shapes", hint="(4, 1, 3) and (5, 1) aligned on the right: 3|1 -> 3, "
                                          "1|5 -> 5, 4|missing -> 4.")
def stretch_in_both_directions(broadcast_shapes):
    expect(broadcast_shapes, (4, 1, 3), (5, 1), returns=(4, 5, 3))


@checkpoint.test("broadcast_shapes", hint="A scalar has shape (): every one of its (missing) "
                                          "dims counts as 1.")
def scalar_and_matrix(broadcast_shapes):
    expect(broadcast_shapes, (), (2, 3), returns=(2, 3))


@checkpoint.test("broadcast_shapes", hint="Only size 1 stretches: 3 and 4 clash, so raise "
                                          "ValueError.")
def clash_raises(broadcast_shapes):
    expect(broadcast_shapes, (3,), (4,), raises=ValueError)


@checkpoint.test("broadcast_shapes", hint="A size of 2 does not stretch to 4 (taking the larger "
                                          "size is not the rule): raise ValueError.",
                 hint_for=("takes the larger size (stretches a size 2)",))
def size_two_does_not_stretch(broadcast_shapes):
    expect(broadcast_shapes, (2, 3), (4, 3), raises=ValueError)


@checkpoint.test("broadcast_shapes", hint="Size 1 stretches to any size, 0 included: (2, 1) "
                                          "and (1, 0) give (2, 0). Do not take the maximum.",
                 hint_for=("takes the larger size (stretches a size 2)",))
def one_stretches_to_zero(broadcast_shapes):
    expect(broadcast_shapes, (2, 1), (1, 0), returns=(2, 0))


@checkpoint.test("broadcast_shapes", hint="Any number of shapes: fold them in one at a time; "
                                          "no shapes at all give ().")
def three_shapes_and_none(broadcast_shapes):
    expect(broadcast_shapes, (1, 3), (2, 1), (1,), returns=(2, 3))
    expect(broadcast_shapes, returns=())


@checkpoint.test("broadcast_shapes", hint="The ValueError message should name both shapes, "
                                          "e.g. f'... shapes {a} and {b}'.",
                 hint_for=("vague error message",))
def error_names_both_shapes(broadcast_shapes):
    try:
        got = broadcast_shapes((2, 3), (3, 2))
    except ValueError as exc:
        message = str(exc)
        if "(2, 3)" not in message or "(3, 2)" not in message:
            fail("str(error of broadcast_shapes((2, 3), (3, 2)))",
                 "a message naming (2, 3) and (3, 2)", message)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure("broadcast_shapes((2, 3), (3, 2))", "raises ValueError",
                           raised(exc), kind="error") from exc
    else:
        fail("broadcast_shapes((2, 3), (3, 2))", "raises ValueError", got)


@st.composite
def _shapes_that_broadcast(draw):
    found, _ = draw(broadcastable(draw(st.integers(0, 4))))
    return call(*found)


@st.composite
def _shapes_that_clash(draw):
    """Two to four shapes, two of which have sizes of 2 or more that differ in one
    column (counted from the right), the others 1 there (or no axis there): the
    message must name those two, as they were given."""
    shapes, _ = draw(clashing(draw(st.integers(2, 4))))
    return call(*shapes)


def _broadcast(a: tuple, b: tuple) -> bool:
    return all(p == q or 1 in (p, q) for p, q in zip(reversed(a), reversed(b)))


def _clashing_pair(*shapes) -> tuple:
    """The first two of ``shapes`` that do not broadcast with each other."""
    return next((a, b) for k, a in enumerate(shapes) for b in shapes[k + 1:]
                if not _broadcast(a, b))


checkpoint.contract("broadcast_shapes", valid=_shapes_that_broadcast(), invalid=[
    Invalid(_shapes_that_clash(), ValueError, "shapes of which two clash",
            naming=_clashing_pair)])


# ------------------------------------------------------------------ broadcast_strides

@checkpoint.test("broadcast_strides", hint="The stretched size-1 dim gets stride 0: every column "
                                           "reads the same element.")
def column_read_as_matrix(broadcast_strides):
    expect(broadcast_strides, (3, 1), (1, 1), (3, 4), returns=(1, 0))


@checkpoint.test("broadcast_strides", hint="New dims are added on the LEFT, each with stride 0; "
                                           "the old dims keep their strides.",
                 hint_for=("pads on the right",))
def new_leading_dims(broadcast_strides):
    expect(broadcast_strides, (4,), (1,), (2, 3, 4), returns=(0, 0, 1))


@checkpoint.test("broadcast_strides", hint="(3, 1) -> (2, 3, 4): one new dim (stride 0), the 3 "
                                           "keeps stride 1, the 1 stretches (stride 0).")
def new_and_stretched_dims(broadcast_strides):
    expect(broadcast_strides, (3, 1), (1, 1), (2, 3, 4), returns=(0, 1, 0))


@checkpoint.test("broadcast_strides", hint="Keep the strides you were given (here a transposed "
                                           "view, (1, 3)); do not recompute contiguous ones.",
                 hint_for=("recomputes contiguous strides",))
def keeps_transposed_strides(broadcast_strides):
    expect(broadcast_strides, (3, 4), (1, 3), (2, 3, 4), returns=(0, 1, 3))


@checkpoint.test("broadcast_strides", hint="A scalar () read as any shape: all strides are 0.")
def scalar_everywhere(broadcast_strides):
    expect(broadcast_strides, (), (), (2, 2), returns=(0, 0))


@checkpoint.test("broadcast_strides", hint="A size-1 axis gets stride 0 even where the target's "
                                           "size is 1 too, as in NumPy: (3, 1) read as (3, 1) "
                                           "has strides (1, 0).",
                 hint_for=("keeps the stride of a size-1 dim that is not stretched",))
def size_one_gets_stride_zero_even_unstretched(broadcast_strides):
    expect(broadcast_strides, (3, 1), (1, 1), (3, 1), returns=(1, 0))
    expect(broadcast_strides, (1, 4), (4, 1), (2, 1, 4), returns=(0, 0, 1))


@checkpoint.test("broadcast_strides", hint="A size of 2 cannot be read as 4: raise ValueError.")
def size_two_does_not_stretch_to_four(broadcast_strides):
    expect(broadcast_strides, (2,), (1,), (4,), raises=ValueError)


@checkpoint.test("broadcast_strides", hint="Broadcasting never removes dims: (2, 3) cannot be "
                                           "read as (3,); raise ValueError.")
def cannot_drop_dims(broadcast_strides):
    expect(broadcast_strides, (2, 3), (3, 1), (3,), raises=ValueError)


@st.composite
def _broadcast_layouts(draw, valid=True):
    (shape,), target = draw(broadcastable(1))
    if not valid:
        how = draw(st.sampled_from(["more axes", "clash"]))
        if how == "more axes" or not [d for d in target if d >= 1]:
            shape = (draw(st.integers(1, 3)),) + target
        else:
            k = draw(st.sampled_from([k for k, d in enumerate(target) if d >= 1]))
            target_list = list(target)
            shape = tuple(target)
            size = target_list[k] + draw(st.integers(1, 2))
            shape = shape[:k] + (size,) + shape[k + 1:]
            shape = shape[draw(st.integers(0, k)):]
    _, strides, _ = draw(layouts(st.just(shape)))
    return call(shape, strides, target)


checkpoint.contract("broadcast_strides", valid=_broadcast_layouts(), invalid=[
    Invalid(_broadcast_layouts(valid=False), ValueError,
            "shapes that do not broadcast to the target")])


# ------------------------------------------------------------------ broadcast_binary

@checkpoint.test("broadcast_binary", hint="For each index of shape, read x at "
                                          "index_to_offset(index, x_strides) and y likewise.")
def column_plus_row(broadcast_binary):
    expect(broadcast_binary, operator.add, [0, 10, 20], (1, 0), [1, 2, 3, 4], (0, 1), (3, 4),
           returns=[1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24])


@checkpoint.test("broadcast_binary", hint="Call op(x_value, y_value) in that order: 10 - 1, "
                                          "not 1 - 10.",
                 hint_for=("swaps the operands",))
def keeps_the_operand_order(broadcast_binary):
    expect(broadcast_binary, operator.sub, [10, 20], (1,), [1], (0,), (2,), returns=[9, 19])


@checkpoint.test("broadcast_binary", hint="A scalar shape () still has one element: "
                                          "numel(()) == 1, at index ().")
def scalar_shape(broadcast_binary):
    expect(broadcast_binary, operator.add, [5], (), [7], (), (), returns=[12])


@checkpoint.test("broadcast_binary", hint="A shape with a 0 in it has no elements: return [].")
def empty_shape(broadcast_binary):
    expect(broadcast_binary, operator.add, [1, 2, 3], (0, 1), [4], (0, 0), (0, 3), returns=[])


@checkpoint.test("broadcast_binary", hint="Read x through its strides, not in storage order: "
                                          "with strides (1, 2) the first row is x[0], x[2], x[4].",
                 hint_for=("ignores the strides", "repeats each storage in turn"))
def reads_through_transposed_strides(broadcast_binary):
    expect(broadcast_binary, operator.mul, [1, 2, 3, 4, 5, 6], (1, 2), [10], (0, 0), (2, 3),
           returns=[10, 30, 50, 20, 40, 60])


@checkpoint.test("broadcast_binary", hint="Produce the output in row-major order: the LAST "
                                          "index moves fastest (offset_to_index does that).",
                 hint_for=("first index moves fastest",))
def output_is_row_major(broadcast_binary):
    expect(broadcast_binary, operator.add, list(range(8)), (4, 2, 1), [0], (0, 0, 0), (2, 2, 2),
           returns=[0, 1, 2, 3, 4, 5, 6, 7])


@checkpoint.test("broadcast_binary", hint="Return a new list and leave x and y as they were.",
                 hint_for=("writes into x",))
def leaves_inputs_alone(broadcast_binary):
    expect(broadcast_binary, operator.add, [1, 2], (1,), [3], (0,), (2,), returns=[4, 5],
           unchanged=True)


@st.composite
def _operand(draw, own_shape: tuple, shape: tuple) -> tuple:
    """A storage list and its strides read as ``shape``: the strides of a fresh,
    transposed or stepped array of ``own_shape`` (or any strides of 0 or more),
    broadcast to ``shape`` (stride 0 on new leading axes and size-1 axes); the list
    just long enough, or longer."""
    style = draw(st.sampled_from(["contiguous", "permuted", "stepped", "any"]))
    own = layout.contiguous_strides(own_shape)
    if style == "permuted":
        perm = draw(st.permutations(range(len(own_shape))))
        base = layout.contiguous_strides(tuple(own_shape[p] for p in perm))
        own = tuple(base[perm.index(k)] for k in range(len(own_shape)))
    elif style == "stepped":  # every other or third element along some axes
        own = tuple(s * draw(st.sampled_from([1, 2, 3])) for s in own)
    elif style == "any":
        own = tuple(draw(st.integers(0, 6)) for _ in own_shape)
    strides = layout.broadcast_strides(own_shape, own, shape)
    if 0 in shape:
        size = draw(st.integers(0, 3))
    else:
        size = 1 + sum((d - 1) * s for d, s in zip(shape, strides)) + draw(st.integers(0, 2))
    return draw(numbers(size)), strides


@st.composite
def _binary_calls(draw):
    """Two operands broadcast to one shape (ranks 0 to 4, sizes 0 to 4), each laid out
    its own way, now and then the same list for both; ``op`` records its calls (once
    per element, in any order) and tells its operands apart."""
    (xs, ys), shape = draw(broadcastable(2, targets()))
    x, x_strides = draw(_operand(xs, shape))
    y, y_strides = draw(_operand(ys, shape))
    if draw(st.integers(0, 4)) == 0 and len(x) >= len(y):
        y = x  # one storage read two ways, as in x + x.T
    return call(draw(binary_functions()), x, x_strides, y, y_strides, shape)


checkpoint.contract("broadcast_binary", valid=_binary_calls(), cases=50)


# ------------------------------------------------------------------ stretch: broadcast_where

@checkpoint.test("broadcast_where", hint="Scalars x and y (shape ()) spread over cond's shape.",
                 stretch=True)
def scalar_branches(broadcast_where):
    expect(broadcast_where, [True, False, True], (3,), [1], (), [0], (),
           returns=([1, 0, 1], (3,)))


@checkpoint.test("broadcast_where", hint="A column of conditions (2, 1) picks whole rows: row 0 "
                                         "from x, row 1 from y.", stretch=True)
def a_column_of_conditions_picks_rows(broadcast_where):
    expect(broadcast_where, [True, False], (2, 1), [1, 2, 3], (3,),
           [10, 20, 30, 40, 50, 60], (2, 3), returns=([1, 2, 3, 40, 50, 60], (2, 3)))


@checkpoint.test("broadcast_where", hint="A row of conditions (3,) aligns on the right: it picks "
                                         "columns, in every row.", stretch=True)
def a_row_of_conditions_picks_columns(broadcast_where):
    expect(broadcast_where, [True, False, True], (3,), [1, 2, 3, 4, 5, 6], (2, 3), [0], (1,),
           returns=([1, 0, 3, 4, 0, 6], (2, 3)))


@checkpoint.test("broadcast_where", hint="All three broadcast together to (2, 3, 2), cond "
                                         "included: its (2, 1, 1) takes the whole first block "
                                         "from y ([7, 8] in every row) and the second from x "
                                         "(1, 2, 3, each twice).", stretch=True)
def all_three_operands_broadcast(broadcast_where):
    expect(broadcast_where, [False, True], (2, 1, 1), [1, 2, 3], (3, 1), [7, 8], (1, 2),
           returns=([7, 8, 7, 8, 7, 8, 1, 1, 2, 2, 3, 3], (2, 3, 2)))


@checkpoint.test("broadcast_where", hint="The largest shape need not be cond's: here y's (2, 2) "
                                         "is, and cond is a scalar.", stretch=True)
def the_largest_operand_can_be_any(broadcast_where):
    expect(broadcast_where, [False], (), [5], (1,), [1, 2, 3, 4], (2, 2),
           returns=([1, 2, 3, 4], (2, 2)))


@checkpoint.test("broadcast_where", hint="Shapes (2,) and (3,) do not broadcast: ValueError "
                                         "naming both.", stretch=True)
def rejects_shapes_that_clash(broadcast_where):
    expect(broadcast_where, [True, False], (2,), [1, 2, 3], (3,), [0], (),
           raises=ValueError, naming=((2,), (3,)))


def _where_operands(draw, shapes: tuple):
    c_shape, x_shape, y_shape = shapes
    cond = draw(st.lists(st.booleans(), min_size=layout.numel(c_shape),
                         max_size=layout.numel(c_shape)))
    return call(cond, c_shape, draw(numbers(layout.numel(x_shape))), x_shape,
                draw(numbers(layout.numel(y_shape))), y_shape)


@st.composite
def _wheres(draw):
    """Three shapes that broadcast together, each the last axes of one shape with half
    of them made 1 (a row, a column, a scalar, the whole: any of the three may be the
    largest), and lists of their own numel: bools for cond, numbers for x and y."""
    shape = draw(targets())
    shapes = []
    for _ in range(3):
        tail = shape[len(shape) - draw(st.integers(0, len(shape))):]
        shapes.append(tuple(1 if draw(st.booleans()) else d for d in tail))
    return _where_operands(draw, shapes)


@st.composite
def _wheres_that_clash(draw):
    """Two of the three shapes clash in one column, the third is 1 there (or has no
    axis there): the message must name those two."""
    shapes, _ = draw(clashing(3))
    return _where_operands(draw, shapes)


checkpoint.contract("broadcast_where", valid=_wheres(), cases=60, stretch=True, invalid=[
    Invalid(_wheres_that_clash(), ValueError, "shapes that clash",
            naming=lambda cond, c_shape, x, x_shape, y, y_shape: _clashing_pair(
                c_shape, x_shape, y_shape))])
