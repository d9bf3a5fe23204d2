"""Hint levels for checkpoint 02 (strides and views)."""

HINTS = {
    "permute_layout": [
        "A transpose moves no data. What happens to the size and the stride of each axis "
        "when the axes are put in a new order?",
        "Output axis k is input axis axes[k]: it takes that axis's size and its stride. "
        "Check first that axes lists every axis exactly once.",
        "In full:\n\n"
        "    if sorted(axes) != list(range(len(shape))): raise ValueError naming axes and shape\n"
        "    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)",
    ],
    "slice_layout": [
        "Python already knows how to turn a slice and a size into concrete start, stop "
        "and step: look at slice.indices.",
        "With start, stop, step = sl.indices(size): the first selected element is start "
        "steps of `stride` away, the count is len(range(start, stop, step)), and "
        "neighbours are step * stride apart. A step of 0 is an error; an empty selection "
        "gives (0, 0, stride).",
        "In full:\n\n"
        "    if sl.step == 0: raise ValueError naming the slice\n"
        "    start, stop, step = sl.indices(size)\n"
        "    n = len(range(start, stop, step))\n"
        "    if n == 0: return (0, 0, stride)\n"
        "    return (start * stride, n, step * stride)",
    ],
    "is_contiguous": [
        "Compare with the strides a freshly allocated array of this shape would have. "
        "Which axes can you ignore?",
        "Walk from the last axis to the first with the stride a fresh array would have "
        "there (1, then times each size). Axes of size 1 are never stepped over: skip "
        "them. An array with no elements is contiguous.",
        "In full:\n\n"
        "    if 0 in shape: return True\n"
        "    expected = 1\n"
        "    for d, s in reversed(list(zip(shape, strides))):\n"
        "        if d != 1:\n"
        "            if s != expected: return False\n"
        "            expected *= d\n"
        "    return True",
    ],
    "reshape_strides": [
        "Easy case first: a contiguous array can take any shape with the same number of "
        "elements. What can still be done when it is not contiguous?",
        "Drop the old size-1 axes. Then match groups of old axes with groups of new axes "
        "whose products are equal. A group can be viewed without a copy only when its old "
        "axes are evenly spaced: s[k] == d[k+1] * s[k+1] inside the group.",
        "Within a matched group, the last new axis takes the last old axis's stride and "
        "each earlier new axis is the next stride times the next size. Trailing new "
        "size-1 axes can take any stride.",
        "In full:\n\n"
        "    if numel(shape) != numel(new_shape): raise ValueError naming both shapes\n"
        "    if is_contiguous(shape, strides): return contiguous_strides(new_shape)\n"
        "    old = the (size, stride) pairs with size != 1\n"
        "    while old and new axes are left:\n"
        "        grow a group of old axes and a group of new axes until their products match\n"
        "        if the old group is not evenly spaced: return None\n"
        "        last new axis of the group = stride of the last old axis;\n"
        "        each earlier one = next stride * next size\n"
        "    leftover new axes (size 1) take the last stride",
    ],
    "getitem_layout": [
        "Go axis by axis: an int and a slice each do something different to one axis. "
        "Which of your functions already handles a slice?",
        "An int i picks one position: it adds i * stride to the offset and drops the "
        "axis (wrap a negative i once, check the bound). A slice goes through "
        "slice_layout: offset += delta, the axis keeps its new size and stride. Axes the "
        "key does not mention are kept whole.",
        "In full:\n\n"
        "    if len(key) > len(shape): raise IndexError naming both counts, len(key) and len(shape)\n"
        "    new_shape, new_strides = [], []\n"
        "    for k, (d, s) in enumerate(zip(shape, strides)):\n"
        "        item = key[k] if k < len(key) else slice(None)\n"
        "        if item is a slice:\n"
        "            delta, n, step = slice_layout(d, s, item)\n"
        "            offset += delta; keep (n, step)\n"
        "        else:\n"
        "            i = item + d if item < 0 else item\n"
        "            if not 0 <= i < d: raise IndexError naming item and d\n"
        "            offset += i * s          (the axis is dropped)\n"
        "    return tuple(new_shape), tuple(new_strides), offset",
    ],
}
