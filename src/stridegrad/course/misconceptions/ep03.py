"""Known mistakes in the exercises of episode 03."""

from stridegrad.course.misconceptions import Misconception


_ITER = """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d)]
    return positions
"""

_AXIS_CHECK = """    if not -len(shape) <= axis < len(shape):
        raise ValueError(axis)
"""
_REDUCE = """
def {NAME}({FN}x, axis, keepdims=False):
    storage, shape, strides, offset = x
{CHECK}    axis {AXIS}
    rs, rt = shape[:axis] + shape[axis + 1:], strides[:axis] + strides[axis + 1:]
    out = [{COMBINE}
           for p in iter_offsets(rs, rt, offset)]
    return out, ({KEPT}) if keepdims else rs
"""


def _reduce(name="sum_axis", combine="sum({VALUES})", values="range(shape[axis])",
            axis="%= len(shape)", kept="shape[:axis] + (1,) + shape[axis + 1:]", check=True,
            head=""):
    """A sum_axis or reduce_axis as it should be but for the parts given: how the values
    along the axis are combined, which positions they come from, how the axis is
    normalised, the keepdims shape, and whether the axis is checked."""
    values = f"storage[p + j * strides[axis]] for j in {values}"
    return _ITER + head + (_REDUCE.replace("{NAME}", name)
                           .replace("{FN}", "" if name == "sum_axis" else "fn, ")
                           .replace("{CHECK}", _AXIS_CHECK if check else "")
                           .replace("{AXIS}", axis).replace("{COMBINE}", combine)
                           .replace("{VALUES}", values).replace("{KEPT}", kept))


MISCONCEPTIONS = {
    "iter_offsets": [
        Misconception("first axis fastest (column-major)",
          "moves the first axis fastest: the offsets of a 2x3 array come in column-major order",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for i in range(d) for p in positions]
    return positions
"""),
        Misconception("forgets the offset",
          "starts at 0 instead of the view's offset: every position is shifted by the offset",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [0]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d)]
    return positions
"""),
        Misconception("returns a generator",
          "returns a generator instead of a list: the positions are right but the type is not",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d)]
    return (p for p in positions)
"""),
        Misconception("sorted positions",
          "sorts the positions: a transposed or flipped view is read in storage order, not in "
          "index order",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d)]
    return sorted(positions)
"""),
        Misconception("scalar has no element",
          "gives no position for a 0-d view: a scalar has one element, at the offset",
          """
def iter_offsets(shape, strides, offset=0):
    if not shape:
        return []
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d)]
    return positions
"""),
        Misconception("range with the stride as its step",
          "makes each run with range(p, p + d * s, s): right for every stride but 0, where "
          "range() raises, though stride 0 is a legal view (one value read again and again)",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [q for p in positions for q in range(p, p + d * s, s)]
    return positions
"""),
        Misconception("one short on each axis",
          "walks range(d - 1) on each axis: the last row, column... of every axis is missing",
          """
def iter_offsets(shape, strides, offset=0):
    positions = [offset]
    for d, s in zip(shape, strides):
        positions = [p + i * s for p in positions for i in range(d - 1)]
    return positions
"""),
    ],
    "map_unary": [
        Misconception("walks the whole storage",
          "maps every stored value instead of the view's elements: extra values come back when "
          "the view is a part of the storage",
          """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    return [fn(v) for v in storage]
"""),
        Misconception("ignores the strides",
          "reads the storage from the offset one by one, ignoring the strides: a transposed or "
          "strided view reads the wrong values",
          """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    n = 1
    for d in shape:
        n *= d
    return [fn(v) for v in storage[offset:offset + n]]
"""),
        Misconception("forgets the offset",
          "starts reading at 0 instead of the view's offset: a view that starts later reads the "
          "wrong values",
          _ITER + """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    return [fn(storage[p]) for p in iter_offsets(shape, strides)]
"""),
        Misconception("writes into the storage",
          "writes the results back into the storage: the answer is right but the caller's data "
          "changes",
          _ITER + """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    for p in iter_offsets(shape, strides, offset):
        storage[p] = fn(storage[p])
    return [storage[p] for p in iter_offsets(shape, strides, offset)]
"""),
        Misconception("maps each stored value once",
          "calls fn once per stored value and reuses it: with stride 0 a value that appears "
          "several times is computed once, so fn runs fewer times than there are elements",
          _ITER + """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    done = {p: fn(storage[p]) for p in dict.fromkeys(iter_offsets(shape, strides, offset))}
    return [done[p] for p in iter_offsets(shape, strides, offset)]
"""),
        Misconception("skips the last element",
          "stops one element early: the view's last value is missing from the result",
          _ITER + """
def map_unary(fn, x):
    storage, shape, strides, offset = x
    return [fn(storage[p]) for p in iter_offsets(shape, strides, offset)[:-1]]
"""),
    ],
    "map_binary": [
        Misconception("zips the storages",
          "pairs the storages value by value, ignoring offsets and strides: wrong as soon as "
          "one operand is a view",
          """
def map_binary(fn, x, y):
    if x[1] != y[1]:
        raise ValueError((x[1], y[1]))
    return [fn(a, b) for a, b in zip(x[0], y[0])]
"""),
        Misconception("uses x's layout for y",
          "reads y with x's offset and strides: wrong whenever the two are laid out differently "
          "(x + x.T)",
          _ITER + """
def map_binary(fn, x, y):
    if x[1] != y[1]:
        raise ValueError((x[1], y[1]))
    return [fn(x[0][p], y[0][p]) for p in iter_offsets(x[1], x[2], x[3])]
"""),
        Misconception("swaps the arguments",
          "calls fn(y, x) instead of fn(x, y): right for + and *, wrong for - and /",
          _ITER + """
def map_binary(fn, x, y):
    if x[1] != y[1]:
        raise ValueError((x[1], y[1]))
    return [fn(y[0][q], x[0][p]) for p, q in zip(iter_offsets(*x[1:]), iter_offsets(*y[1:]))]
"""),
        Misconception("compares element counts, not shapes",
          "compares element counts instead of shapes: (2, 3) and (3, 2) are combined instead of "
          "raising ValueError",
          _ITER + """
def map_binary(fn, x, y):
    px, py = iter_offsets(*x[1:]), iter_offsets(*y[1:])
    if len(px) != len(py):
        raise ValueError((x[1], y[1]))
    return [fn(x[0][p], y[0][q]) for p, q in zip(px, py)]
"""),
        Misconception("error names no shape",
          "raises ValueError for different shapes, but its message names neither shape: whoever "
          "reads it cannot tell which operands did not match",
          _ITER + """
def map_binary(fn, x, y):
    if tuple(x[1]) != tuple(y[1]):
        raise ValueError("shapes differ")
    return [fn(x[0][p], y[0][q]) for p, q in zip(iter_offsets(*x[1:]), iter_offsets(*y[1:]))]
"""),
        Misconception("no shape check",
          "never compares the shapes: operands that do not match give a list (or an IndexError) "
          "instead of a ValueError",
          _ITER + """
def map_binary(fn, x, y):
    return [fn(x[0][p], y[0][q]) for p, q in zip(iter_offsets(*x[1:]), iter_offsets(*y[1:]))]
"""),
    ],
    "sum_axis": [
        Misconception("checks only the upper bound of axis",
          "raises for an axis past the last but lets one below -ndim through: axis % ndim then "
          "wraps it round, so sum_axis(m, -3) on a 2-D view sums some other axis instead of "
          "raising ValueError",
          _reduce().replace("if not -len(shape) <= axis < len(shape):",
                            "if axis >= len(shape):")),
        Misconception("sums over the wrong axis",
          "sums over the other axis (axis counted from the wrong end): the result has the shape "
          "of the wrong reduction",
          _ITER + """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(axis)
    axis = len(shape) - 1 - axis % len(shape)
    rest = [(d, s) for k, (d, s) in enumerate(zip(shape, strides)) if k != axis]
    out = [sum(storage[p + j * strides[axis]] for j in range(shape[axis]))
           for p in iter_offsets([d for d, _ in rest], [s for _, s in rest], offset)]
    new = tuple(1 if k == axis else d for k, d in enumerate(shape))
    return out, new if keepdims else tuple(d for d, _ in rest)
"""),
        Misconception("loses keepdims",
          "drops the reduced axis even with keepdims=True: the shape is missing its size-1 axis",
          _reduce(kept="rs")),
        Misconception("assumes row-major storage",
          "computes positions with row-major strides instead of the given ones: a transposed or "
          "flipped view sums the wrong values",
          """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(axis)
    axis %= len(shape)
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    positions = [offset]
    rs = shape[:axis] + shape[axis + 1:]
    for d, s in zip(rs, strides[:axis] + strides[axis + 1:]):
        positions = [p + i * s for p in positions for i in range(d)]
    out = [sum(storage[p + j * strides[axis]] for j in range(shape[axis])) for p in positions]
    return out, shape[:axis] + (1,) + shape[axis + 1:] if keepdims else rs
"""),
        Misconception("keepdims appends the 1 at the end",
          "with keepdims puts the size-1 axis last instead of where the reduced axis was: "
          "summing axis 0 of (2, 3) gives shape (3, 1), not (1, 3)",
          _reduce(kept="rs + (1,)")),
        Misconception("negative axis used as it is",
          "slices with a negative axis as it is, without turning it into its place from the "
          "front: with axis=-1, shape[:axis] + shape[axis + 1:] is shape[:-1] + shape, not "
          "the shape without the last axis, so a (0, 3) view summed over -1 gets shape "
          "(0, 0, 3) instead of (0,), and a view with elements reads past the end of its "
          "storage; do axis %= ndim first",
          _reduce(axis="= axis")),
        Misconception("negative axis never equals k",
          "compares a negative axis with the axis numbers k = 0, 1, ...: no k equals -1, so "
          "no axis is left out of the result (a (0, 3) view summed over -1 keeps its whole "
          "shape (0, 3)) and no axis is picked to sum along; do axis %= ndim before the loop",
          _ITER + """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(axis)
    rs = tuple(d for k, d in enumerate(shape) if k != axis)
    rt = tuple(s for k, s in enumerate(strides) if k != axis)
    out = [sum(storage[p + j * strides[axis]] for j in range(shape[axis]))
           for p in iter_offsets(rs, rt, offset)]
    kept = tuple(1 if k == axis else d for k, d in enumerate(shape))
    return out, kept if keepdims else rs
"""),
        Misconception("no axis check",
          "never checks the axis: an axis out of range gives an answer or an IndexError instead "
          "of a ValueError",
          _reduce(check=False)),
        Misconception("one short along the axis",
          "adds range(shape[axis] - 1) values: the last value along the summed axis is left out "
          "of every total",
          _reduce(values="range(shape[axis] - 1)")),
    ],
    "reduce_axis": [
        Misconception("values in storage order",
          "hands fn the values in storage order instead of index order: on a flipped or "
          "transposed view the list reaches fn reversed or scrambled",
          _reduce("reduce_axis", combine="fn(sorted({VALUES}))")),
        Misconception("folds fn pairwise",
          "applies fn to two values at a time and folds, instead of calling it once with the "
          "whole list: mean and anything not associative come out wrong",
          _reduce("reduce_axis", head="import functools\n",
                  combine="functools.reduce(lambda a, b: fn([a, b]), [{VALUES}])")),
        Misconception("functools.reduce(fn, values)",
          "calls fn with two arguments at a time (functools.reduce(fn, values)): fn takes ONE "
          "list, so sum(a, b) raises and a mean cannot see how many values there are; call "
          "fn once per output with the whole list",
          _reduce("reduce_axis", head="import functools\n",
                  combine="functools.reduce(fn, [{VALUES}])")),
        Misconception("reduces the wrong axis",
          "reduces over the other axis: the result has the shape of the wrong reduction",
          _reduce("reduce_axis", combine="fn([{VALUES}])",
                  axis="= len(shape) - 1 - axis % len(shape)")),
        Misconception("loses keepdims",
          "drops the reduced axis even with keepdims=True: the shape is missing its size-1 axis",
          _reduce("reduce_axis", combine="fn([{VALUES}])", kept="rs")),
    ],
}


# ------------------------------------------------------------------ stretch: argmax_axis

_ARGMAX = _ITER + """
def argmax_axis(x, axis):
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)
    size, step = shape[axis], strides[axis]
    if size == 0:
        raise ValueError("argmax of an empty axis")
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    out = []
    for start in iter_offsets(rest_shape, rest_strides, {OFFSET}):
        best = 0
        for j in range(1, size):
            if storage[start + j * step] {CMP} storage[start + best * step]:
                best = j
        out.append({ANSWER})
    return out, {SHAPE}
"""


def _argmax(offset="offset", cmp=">", answer="best", shape="rest_shape"):
    return (_ARGMAX.replace("{OFFSET}", offset).replace("{CMP}", cmp)
            .replace("{ANSWER}", answer).replace("{SHAPE}", shape))


# argmax_axis reading each lane into a list, {EMPTY} its size-0 check, {POSITIONS} the
# lane's positions
_LANES = _ITER + """
def argmax_axis(x, axis):
    storage, shape, strides, offset = x
    shape, strides = tuple(shape), tuple(strides)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of bounds for an array of dimension {len(shape)}")
    axis %= len(shape)
    size, step = shape[axis], strides[axis]
{EMPTY}    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    out = []
    for start in iter_offsets(rest_shape, rest_strides, offset):
        lane = [storage[p] for p in {POSITIONS}]
        out.append(lane.index(max(lane)))
    return out, rest_shape
"""
_EMPTY = """    if size == 0:
        raise ValueError(f"argmax of an empty axis (axis {axis} of shape {shape})")
"""


MISCONCEPTIONS["argmax_axis"] = [
    Misconception("storage position, not index",
      "returns where the largest element sits in storage (start + j * stride) instead of j, "
      "its position along the axis: right only for the very first lane of a view at 0",
      _argmax(answer="start + best * step")),
    Misconception("last index on a tie",
      "compares with >=, so a later equal element replaces the first: on a tie the last "
      "index comes back, where NumPy gives the first",
      _argmax(cmp=">=")),
    Misconception("returns the maximum",
      "returns the largest value of each lane instead of its index: a max reduction, not an "
      "argmax",
      _argmax(answer="storage[start + best * step]")),
    Misconception("ignores the view's offset",
      "walks the lanes from storage position 0 instead of the view's offset: a view that "
      "does not start at 0 is read from the wrong place",
      _argmax(offset="0")),
    Misconception("keeps the axis",
      "returns the shape with the reduced axis kept as size 1 (keepdims): (2, 3) along axis "
      "1 gives (2, 1) instead of (2,)",
      _argmax(shape="shape[:axis] + (1,) + shape[axis + 1:]")),
    Misconception("reads the lane in storage order",
      "reads each lane's values in storage order (its positions sorted) instead of index "
      "order: on a flipped axis (a negative stride) the lane comes backwards, so the index "
      "counts from its other end, and a tie goes to the last",
      _LANES.replace("{EMPTY}", _EMPTY).replace(
          "{POSITIONS}", "sorted(start + j * step for j in range(size))")),
    Misconception("an empty axis is found only by reading a lane",
      "leaves the size-0 check to max(), which raises for an empty lane: right while there "
      "are lanes, but with none left (shape (0, 0) along axis 1) nothing is read, and an "
      "empty result comes back instead of a ValueError",
      _LANES.replace("{EMPTY}", "").replace(
          "{POSITIONS}", "[start + j * step for j in range(size)]")),
]
