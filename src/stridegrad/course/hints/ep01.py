"""Hint levels for checkpoint 01 (flat storage)."""

HINTS = {
    "numel": [
        "How many numbers does a 2 x 3 grid hold, and how would you compute that for any "
        "number of sizes?",
        "Multiply all the sizes. Think about what the product of no sizes at all must be: "
        "the empty shape () is a scalar, one number.",
        "In full:\n\n"
        "    n = 1\n"
        "    for d in shape:\n"
        "        n *= d\n"
        "    return n",
    ],
    "contiguous_strides": [
        "Which axis moves fastest in row-major order, and how far apart are its "
        "neighbours in the flat list?",
        "Work from the right: the last stride is 1, and one step along an axis skips "
        "everything to its right (the product of the sizes to its right). A size 0 counts "
        "as 1 in that product.",
        "In full (right to left):\n\n"
        "    strides = [0] * len(shape)\n"
        "    step = 1\n"
        "    for k in reversed(range(len(shape))):\n"
        "        strides[k] = step\n"
        "        step *= max(shape[k], 1)\n"
        "    return tuple(strides)",
    ],
    "index_to_offset": [
        "Moving one step along axis k moves strides[k] positions in storage. Where does "
        "element (0, ..., 0) sit?",
        "Start at offset (element (0, ..., 0)) and add, for every axis, how many steps you "
        "take along it times the size of one step.",
        "In full:\n\n"
        "    position = offset\n"
        "    for i, s in zip(index, strides):\n"
        "        position += i * s\n"
        "    return position",
    ],
    "offset_to_index": [
        "Think of reading the digits of a number in a mixed base: which digit (axis) do "
        "you get from a remainder first?",
        "Peel off the last axis first: offset % shape[-1] is the last index, offset // "
        "shape[-1] carries on to the axis on its left. Check the range first with numel.",
        "In full:\n\n"
        "    if not 0 <= offset < numel(shape): raise ValueError naming offset and shape\n"
        "    index = [0] * len(shape)\n"
        "    for k in reversed(range(len(shape))):\n"
        "        index[k] = offset % shape[k]\n"
        "        offset //= shape[k]\n"
        "    return tuple(index)",
    ],
    "locate": [
        "index_to_offset goes from an index to a position for any strides. Which index "
        "lands on this position, when the strides may be negative, permuted or gapped?",
        "You do not need a formula: every index of the shape has a position "
        "(index_to_offset). Visit the indices in row-major order and stop at the first "
        "whose position matches; if none does, the position is not in the view.",
        "In full:\n\n"
        "    for k in range(numel(shape)):\n"
        "        index = offset_to_index(k, shape)         (row-major order)\n"
        "        if index_to_offset(index, strides, offset) == position:\n"
        "            return index\n"
        "    raise ValueError naming position, shape and strides",
    ],
}
