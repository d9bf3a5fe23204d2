"""Hint levels for checkpoint 04 (broadcasting)."""

HINTS = {
    "broadcast_shapes": [
        "Write the shapes under each other, aligned on the right. What must be true of "
        "each column?",
        "Missing leading sizes count as 1. In each column every size must be 1 or one "
        "common size, and that size (or 1) is the result's. A clash is a ValueError "
        "naming the two shapes.",
        "In full:\n\n"
        "    out = [1] * max(len(s) for s in shapes)        (() for no shapes)\n"
        "    for s in shapes:\n"
        "        for k in 1 .. len(s):                       (from the right)\n"
        "            if s[-k] != 1:\n"
        "                if out[-k] not in (1, s[-k]): raise ValueError naming both shapes\n"
        "                out[-k] = s[-k]\n"
        "    return tuple(out)",
    ],
    "broadcast_strides": [
        "A stride of 0 reads the same element again and again. Which axes of the target "
        "should do that?",
        "New leading axes (the target has more dimensions) and size-1 axes get stride 0; "
        "an axis whose size equals the target's keeps its stride; any other size is a "
        "ValueError.",
        "In full:\n\n"
        "    lead = len(target_shape) - len(shape)      (< 0: ValueError)\n"
        "    out = [0] * lead\n"
        "    for d, s, t in zip(shape, strides, target_shape[lead:]):\n"
        "        if d == 1:\n"
        "            out.append(0)          (stretched or not)\n"
        "        elif d == t:\n"
        "            out.append(s)\n"
        "        else:\n"
        "            raise ValueError naming shape and target_shape\n"
        "    return tuple(out)",
    ],
    "broadcast_binary": [
        "Every element of the result has an index; the same index, read through each "
        "operand's strides, finds that operand's value.",
        "For k in range(numel(shape)): turn k into an index (offset_to_index), turn the "
        "index into a position in x with x_strides and one in y with y_strides "
        "(index_to_offset), and apply op.",
        "In full:\n\n"
        "    out = []\n"
        "    for k in range(numel(shape)):\n"
        "        index = offset_to_index(k, shape)\n"
        "        out.append(op(x[index_to_offset(index, x_strides)],\n"
        "                      y[index_to_offset(index, y_strides)]))\n"
        "    return out",
    ],
    "broadcast_where": [
        "Three operands, one rule: what shape does the result have, and how does each "
        "operand read its element at an index of that shape?",
        "The result's shape is broadcast_shapes of the three. Each operand is contiguous "
        "in its own shape: give it contiguous_strides, then broadcast_strides to the "
        "result's shape. Then read all three at every index, as broadcast_binary does.",
        "In full:\n\n"
        "    shape = broadcast_shapes(c_shape, x_shape, y_shape)\n"
        "    cs, xs, ys = (broadcast_strides(s, contiguous_strides(s), shape) for each operand)\n"
        "    for k in range(numel(shape)):\n"
        "        index = offset_to_index(k, shape)\n"
        "        pick x[...] if cond[...] is true, else y[...]\n"
        "    return values, shape",
    ],
}
