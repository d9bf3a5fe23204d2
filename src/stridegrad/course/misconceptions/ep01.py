"""Known-wrong implementations for checkpoint 01 (flat storage)."""

WRONG = {
    "numel": [
        ("adds the sizes", "def numel(shape):\n    return sum(shape)\n"),
        ("product starts at 0", """
def numel(shape):
    n = 0
    for d in shape:
        n *= d
    return n
"""),
        ("counts dimensions", "def numel(shape):\n    return len(shape)\n"),
        ("scalar has none", """
def numel(shape):
    if not shape:
        return 0
    n = 1
    for d in shape:
        n *= d
    return n
"""),
    ],
    "contiguous_strides": [
        ("reversed strides", """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(strides)
"""),
        ("includes own size", """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        step *= d
        strides.insert(0, step)
    return tuple(strides)
"""),
        ("returns a list", """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return strides
"""),
        ("zero size makes zero strides", """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return tuple(strides)
"""),
    ],
    "index_to_offset": [
        ("ignores the offset", """
def index_to_offset(index, strides, offset=0):
    return sum(i * s for i, s in zip(index, strides))
"""),
        ("adds instead of multiplies", """
def index_to_offset(index, strides, offset=0):
    return offset + sum(i + s for i, s in zip(index, strides))
"""),
        ("pairs index with reversed strides", """
def index_to_offset(index, strides, offset=0):
    return offset + sum(i * s for i, s in zip(index, reversed(strides)))
"""),
    ],
    "offset_to_index": [
        ("peels from the wrong end", """
def offset_to_index(offset, shape):
    if not 0 <= offset < numel(shape):
        raise ValueError(offset)
    index = []
    for d in shape:
        index.append(offset % d)
        offset //= d
    return tuple(index)

def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
"""),
        ("no range check", """
def offset_to_index(offset, shape):
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return tuple(index)
"""),
        ("returns a list", """
def offset_to_index(offset, shape):
    n = 1
    for d in shape:
        n *= d
    if not 0 <= offset < n:
        raise ValueError(offset)
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return index
"""),
    ],
}
