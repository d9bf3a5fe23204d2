"""Known-wrong implementations of the exercises of episode 04 (broadcasting):
checkpoint 04 must fail every one (tests/course/test_checks.py and
tests/course/test_ep04.py run them)."""

from __future__ import annotations

from stridegrad.course.misconceptions import Misconception

__all__ = ["MISCONCEPTIONS"]

# Known-wrong implementations a learner might write: (label, source) per exercise.
MISCONCEPTIONS = {
    "broadcast_shapes": [
        Misconception("aligns from the left",
          "lines the shapes up from the left: (3, 1) and (3,) compare the wrong axes; "
          "broadcasting aligns trailing axes",
          """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k, d in enumerate(s):
            if d != 1:
                if out[k] not in (1, d):
                    raise ValueError(f"shapes clash: {shapes}")
                out[k] = d
    return tuple(out)
"""),
        Misconception("takes the larger size (stretches a size 2)",
          "takes the larger of two sizes: sizes that differ, neither of them 1 (3 and 4, 2 and "
          "4), give the larger instead of a ValueError, and 1 against 0 gives 1, not 0; only "
          "size 1 stretches, to any size",
          """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    return tuple(max(col) for col in zip(*padded))
"""),
        Misconception("returns a list",
          "returns a list, not a tuple: the sizes are right but the type is not",
          """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k in range(1, len(s) + 1):
            if s[-k] != 1:
                if out[-k] not in (1, s[-k]):
                    raise ValueError(f"{shapes[0]} and {s}")
                out[-k] = s[-k]
    return out
"""),
        Misconception("two shapes only, missing dims ignored",
          "handles two shapes of equal length only: a shorter shape's missing leading axes are "
          "dropped, or a third shape is ignored",
          """
def broadcast_shapes(a=(), b=()):
    out = []
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and 1 not in (x, y):
            raise ValueError(f"{a} and {b}")
        out.insert(0, y if x == 1 else x)
    return tuple(out)
"""),
        Misconception("vague error message",
          "raises ValueError without naming the shapes: whoever reads it cannot tell which "
          "shapes clash",
          """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k in range(1, len(s) + 1):
            if s[-k] != 1:
                if out[-k] not in (1, s[-k]):
                    raise ValueError("shapes do not broadcast")
                out[-k] = s[-k]
    return tuple(out)
"""),
        Misconception("names the shape broadcast so far",
          "folds the shapes in one at a time and names the result so far when the next one "
          "clashes: with three shapes or more that is a shape the caller never passed, "
          "(4, 3, 1, 2) where (4, 1, 1, 2) was given, instead of the two that clash",
          """
def broadcast_shapes(*shapes):
    out = ()
    for s in shapes:
        n = max(len(out), len(s))
        a, b = (1,) * (n - len(out)) + tuple(out), (1,) * (n - len(s)) + tuple(s)
        merged = []
        for p, q in zip(a, b):
            if p != q and 1 not in (p, q):
                raise ValueError(f"shapes {out} and {s} do not broadcast")
            merged.append(q if p == 1 else p)
        out = tuple(merged)
    return out
"""),
    ],
    "broadcast_strides": [
        Misconception("keeps the stride of a stretched dim",
          "keeps the stride of a size-1 axis that is stretched: it must become 0, so every step "
          "along it reads past the data",
          """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    return (0,) * lead + tuple(strides)
"""),
        Misconception("keeps the stride of a size-1 dim that is not stretched",
          "gives a size-1 axis stride 0 only when it is stretched: where the target's size is 1 "
          "too it keeps its old stride, but the contract (and NumPy) give every size-1 axis "
          "stride 0",
          """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot broadcast {shape} to {target_shape}")
    out = [0] * lead
    for d, s, t in zip(shape, strides, target_shape[lead:]):
        if d == t:
            out.append(s)
        elif d == 1:
            out.append(0)
        else:
            raise ValueError(f"cannot broadcast {shape} to {target_shape}")
    return tuple(out)
"""),
        Misconception("stretches a size 2 (no check)",
          "stretches any size without checking it is 1: a size 2 read as 4 gives strides "
          "instead of a ValueError",
          """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    return (0,) * lead + tuple(0 if d == 1 else s for d, s in zip(shape, strides))
"""),
        Misconception("pads on the right",
          "adds the new axes on the right: the strides line up with the wrong axes",
          """
def broadcast_strides(shape, strides, target_shape):
    if len(target_shape) < len(shape):
        raise ValueError("too many dims")
    out = [0 if d == 1 else s for d, s in zip(shape, strides)]
    for d, t in zip(shape, target_shape):
        if d not in (1, t):
            raise ValueError(f"cannot broadcast {shape} to {target_shape}")
    return tuple(out + [0] * (len(target_shape) - len(shape)))
"""),
        Misconception("recomputes contiguous strides",
          "recomputes row-major strides for the target shape: a broadcast view must repeat its "
          "data with stride 0, not read new elements",
          """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    if lead < 0:
        raise ValueError("too many dims")
    own, step = [], 1
    for d in reversed(shape):
        own.insert(0, step)
        step *= max(d, 1)
    out = [0] * lead
    for d, s, t in zip(shape, own, target_shape[lead:]):
        if d not in (1, t):
            raise ValueError(f"cannot broadcast {shape} to {target_shape}")
        out.append(0 if d == 1 else s)
    return tuple(out)
"""),
    ],
    "broadcast_binary": [
        Misconception("ignores the strides",
          "reads the storages in row-major order of the result, ignoring the given strides: "
          "wrong for any transposed or broadcast operand",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    return [op(a, b) for a, b in zip(x, y)]
"""),
        Misconception("swaps the operands",
          "calls op(y, x) instead of op(x, y): right for + and *, wrong for - and /",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    out = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(y[j], x[i]))
    return out
"""),
        Misconception("repeats each storage in turn",
          "reads element k of the result at x[k % len(x)] and y[k % len(y)], ignoring the "
          "strides: right only when the repeated operand happens to line up, wrong for a "
          "column read as a matrix or any transposed operand",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    n = 1
    for d in shape:
        n *= d
    return [op(x[k % len(x)], y[k % len(y)]) for k in range(n)]
"""),
        Misconception("first index moves fastest",
          "walks the result with the first index fastest: the values come out in column-major "
          "order",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    out = []
    for rindex in itertools.product(*(range(d) for d in reversed(shape))):
        index = rindex[::-1]
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(x[i], y[j]))
    return out
"""),
        Misconception("scalar shape gives nothing",
          "returns nothing for two 0-d operands: a scalar result still has one element",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    if not shape:
        return []
    out = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(x[i], y[j]))
    return out
"""),
        Misconception("y read in turn",
          "reads x through its strides but y at y[k % len(y)], as if y were always the small "
          "operand repeated along the last axes: right for a scalar or a row, wrong for a y "
          "that is a column, transposed, or the larger of the two",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    out = []
    for k, index in enumerate(itertools.product(*(range(d) for d in shape))):
        i = sum(a * s for a, s in zip(index, x_strides))
        out.append(op(x[i], y[k % len(y)]))
    return out
"""),
        Misconception("writes into x",
          "writes the result into x's storage: the answer is right but the caller's data "
          "changes",
          """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    vals = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        vals.append(op(x[i], y[j]))
    x[:] = vals
    return x
"""),
    ],
}


# ------------------------------------------------------------------ stretch: broadcast_where

_WHERE = """
from stridegrad.array.layout import (broadcast_shapes, broadcast_strides, contiguous_strides,
                                     index_to_offset, numel, offset_to_index)


def broadcast_where(cond, c_shape, x, x_shape, y, y_shape):
    shape = {SHAPE}
    c_str, x_str, y_str = ({STRIDES} for s in (c_shape, x_shape, y_shape))
    values = []
    for k in range(numel(shape)):
        index = offset_to_index(k, shape)
        if cond[{COND}]:
            values.append({TRUE}[index_to_offset(index, {TRUE}_str)])
        else:
            values.append({FALSE}[index_to_offset(index, {FALSE}_str)])
    return values, shape
"""


def _where(shape="broadcast_shapes(c_shape, x_shape, y_shape)",
           strides="broadcast_strides(s, contiguous_strides(s), shape)",
           true="x", false="y", cond="index_to_offset(index, c_str)"):
    return (_WHERE.replace("{SHAPE}", shape).replace("{STRIDES}", strides).replace("{COND}", cond)
            .replace("{TRUE}", true).replace("{FALSE}", false))


MISCONCEPTIONS["broadcast_where"] = [
    Misconception("branches swapped",
      "takes y where cond is true and x where it is false: every element comes from the "
      "other operand",
      _where(true="y", false="x")),
    Misconception("cond read in turn",
      "reads cond at cond[k % len(cond)] instead of through its broadcast strides: right when "
      "cond is a scalar or lines up with the result's last axes, wrong for a column of "
      "conditions or any cond stretched along a later axis",
      _where(cond="k % len(cond)")),
    Misconception("cond left out of the shape",
      "broadcasts x and y only and reads cond as if it had their shape: a cond larger than "
      "both, or of another shape, is read at the wrong places or past its end",
      _where(shape="broadcast_shapes(x_shape, y_shape)")),
    Misconception("strides not broadcast",
      "reads each operand with its own contiguous strides, padded with 0 on the left but "
      "never zeroed on its size-1 axes: a (2, 1) or (1, 2) operand steps through "
      "elements it does not have",
      _where(strides="(0,) * (len(shape) - len(s)) + contiguous_strides(s)")),
    Misconception("sizes taken by maximum, no clash check",
      "takes the largest size in each column without checking the others are 1 or equal: "
      "shapes that clash give a result instead of a ValueError",
      _where(shape="tuple(max(sizes) for sizes in zip(*[(1,) * (3 - len(s)) + tuple(s) "
                   "for s in (c_shape, x_shape, y_shape)])) if max(len(c_shape), "
                   "len(x_shape), len(y_shape)) <= 3 else ()",
             strides="tuple(0 if d == 1 else st for d, st in zip((1,) * (len(shape) - "
                     "len(s)) + tuple(s), (0,) * (len(shape) - len(s)) + "
                     "contiguous_strides(s)))")),
    Misconception("broadcasts x with y first, then cond",
      "finds the shape as broadcast_shapes(c_shape, broadcast_shapes(x_shape, y_shape)): "
      "the values are right, but when cond clashes with x or y the error names the "
      "broadcast of x and y, a shape the caller never passed, instead of the one that "
      "clashes",
      _where(shape="broadcast_shapes(c_shape, broadcast_shapes(x_shape, y_shape))")),
]
