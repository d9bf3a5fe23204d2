"""Hint levels for checkpoint 03 (elementwise ops and reductions)."""

HINTS = {
    "iter_offsets": [
        "For a fixed shape you would write one nested for loop per dimension. How can you "
        "do that for any number of dimensions?",
        "Build the list one dimension at a time: start from [offset]; for each dimension "
        "(size d, stride s) replace every position p by the run p, p + s, ..., "
        "p + (d - 1) * s. The later dimension must vary fastest.",
        "In full:\n\n"
        "    positions = [offset]\n"
        "    for d, s in zip(shape, strides):\n"
        "        positions = [p + i * s for p in positions for i in range(d)]\n"
        "    return positions\n\n"
        "(range refuses a step of 0, so build the run from i * s, not range(p, p + d*s, s).)",
    ],
    "map_unary": [
        "iter_offsets gives every storage position of the view in row-major order.",
        "Unpack the view into (storage, shape, strides, offset) and call fn on "
        "storage[p] for each position p. Build a new list; never write into storage.",
        "In full:\n\n"
        "    storage, shape, strides, offset = x\n"
        "    return [fn(storage[p]) for p in iter_offsets(shape, strides, offset)]",
    ],
    "map_binary": [
        "Two views of one shape have the same indices in the same order, but their "
        "positions differ. How do you walk both at once?",
        "Check the shapes first (a ValueError naming both). Then zip the positions of x "
        "(iter_offsets of its layout) with those of y and call fn(x_value, y_value).",
        "In full:\n\n"
        "    if x_shape != y_shape: raise ValueError naming both shapes\n"
        "    return [fn(xs[p], ys[q]) for p, q in zip(iter_offsets(x_shape, x_strides, x_offset),\n"
        "                                             iter_offsets(y_shape, y_strides, y_offset))]",
    ],
    "sum_axis": [
        "Split the axes in two: the summed one, and all the others. Which of them gives "
        "the positions of the result?",
        "The other axes are a view too: the shape and strides with `axis` left out. For "
        "each of its positions (iter_offsets), add up shape[axis] elements that are "
        "strides[axis] apart. Normalise a negative axis and check its range first.",
        "In full:\n\n"
        "    check -ndim <= axis < ndim, then axis %= ndim\n"
        "    rest_shape, rest_strides = shape and strides without entry axis\n"
        "    for start in iter_offsets(rest_shape, rest_strides, offset):\n"
        "        values.append(sum(storage[start + j * strides[axis]] for j in range(shape[axis])))\n"
        "    shape out: rest_shape, or shape with shape[axis] replaced by 1 when keepdims",
    ],
    "reduce_axis": [
        "This is sum_axis with sum replaced by any function of a list.",
        "For each position of the other axes, collect the values along `axis` in index "
        "order into a list and give that list to fn.",
        "In full:\n\n"
        "    (axis checks and rest_shape / rest_strides as in sum_axis)\n"
        "    values = [fn([storage[start + j * strides[axis]] for j in range(shape[axis])])\n"
        "              for start in iter_offsets(rest_shape, rest_strides, offset)]",
    ],
    "argmax_axis": [
        "This is a reduction like reduce_axis, but what you keep for each lane is a "
        "position along the axis, not a value.",
        "For each position of the other axes, walk j = 0 .. shape[axis] - 1 and remember "
        "the j of the largest value seen; keep the first on a tie (a strict > test). The "
        "answer is j, the index along the axis, not a storage position.",
        "In full:\n\n"
        "    check -ndim <= axis < ndim (ValueError naming both), then axis %= ndim\n"
        "    if shape[axis] == 0: raise ValueError (no maximum of nothing)\n"
        "    for start in iter_offsets(rest_shape, rest_strides, offset):\n"
        "        best = 0\n"
        "        for j in range(1, shape[axis]):\n"
        "            if storage[start + j*step] > storage[start + best*step]: best = j\n"
        "        out.append(best)\n"
        "    return out, rest_shape",
    ],
}
