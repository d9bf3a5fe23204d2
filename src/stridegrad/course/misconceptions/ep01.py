"""Known mistakes in the exercises of checkpoint 01 (flat storage)."""

from stridegrad.course.misconceptions import Misconception

_NUMEL = """
def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
"""

# offset_to_index as it should be, but for its range check ({RANGE}, {MESSAGE})
_OFFSET_TO_INDEX = _NUMEL + """
def offset_to_index(offset, shape):
    if not {RANGE}:
        raise ValueError({MESSAGE})
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return tuple(index)
"""

MISCONCEPTIONS = {
    "numel": [
        Misconception("adds the sizes",
          "adds the sizes instead of multiplying them: (2, 3) gives 5, not 6",
          "def numel(shape):\n    return sum(shape)\n"),
        Misconception("product starts at 0",
          "starts the product at 0: every shape comes out with 0 elements",
          """
def numel(shape):
    n = 0
    for d in shape:
        n *= d
    return n
"""),
        Misconception("counts dimensions",
          "counts the dimensions (len(shape)), not the elements: (2, 3, 4) gives 3",
          "def numel(shape):\n    return len(shape)\n"),
        Misconception("scalar has none",
          "treats the empty shape () as no elements: a scalar gets 0, but it holds one number",
          """
def numel(shape):
    if not shape:
        return 0
    n = 1
    for d in shape:
        n *= d
    return n
"""),
        Misconception("forgets the last size",
          "multiplies all sizes but the last (shape[:-1]): (2, 3, 4) gives 6, a vector 1",
          """
def numel(shape):
    n = 1
    for d in shape[:-1]:
        n *= d
    return n
"""),
    ],
    "contiguous_strides": [
        Misconception("reversed strides",
          "builds the strides from the right but never reverses them: (2, 3, 4) gives (1, 4, "
          "12), the last axis gets the largest stride",
          """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(strides)
"""),
        Misconception("includes own size",
          "multiplies before storing: every stride is one axis too far left, (2, 3, 4) gives "
          "(24, 12, 4)",
          """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        step *= d
        strides.insert(0, step)
    return tuple(strides)
"""),
        Misconception("returns a list",
          "returns a list, not a tuple: the numbers are right but the type is not",
          """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return strides
"""),
        Misconception("zero size makes zero strides",
          "multiplies by a size 0 as it is: every stride left of a size-0 axis becomes 0 "
          "instead of counting that size as 1",
          """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return tuple(strides)
"""),
        Misconception("column-major strides",
          "walks the axes from the left, so the first axis moves fastest: (2, 3, 4) gives "
          "column-major (1, 2, 6) instead of (12, 4, 1)",
          """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in shape:
        strides.append(step)
        step *= max(d, 1)
    return tuple(strides)
"""),
    ],
    "index_to_offset": [
        Misconception("last stride taken as 1",
          "uses the last index as it is, as if the last stride were 1: right for a fresh "
          "row-major array, wrong for a view whose last axis is transposed, flipped or has "
          "gaps",
          """
def index_to_offset(index, strides, offset=0):
    if not index:
        return offset
    return offset + sum(i * s for i, s in zip(index[:-1], strides[:-1])) + index[-1]
"""),
        Misconception("ignores the offset",
          "starts the sum at 0 instead of at offset: every element of a view that does not "
          "start at 0 is read from the wrong place",
          """
def index_to_offset(index, strides, offset=0):
    return sum(i * s for i, s in zip(index, strides))
"""),
        Misconception("adds instead of multiplies",
          "adds each index to its stride instead of multiplying: (1, 2) with strides (3, 1) "
          "gives 7, not 5",
          """
def index_to_offset(index, strides, offset=0):
    return offset + sum(i + s for i, s in zip(index, strides))
"""),
        Misconception("pairs index with reversed strides",
          "pairs index[k] with the strides read from the other end: right only when the strides "
          "are symmetric",
          """
def index_to_offset(index, strides, offset=0):
    return offset + sum(i * s for i, s in zip(index, reversed(strides)))
"""),
        Misconception("skips the last axis",
          "stops one axis early (range(len(index) - 1)): the last index is never added, so "
          "every element of a row is read at the row's start",
          """
def index_to_offset(index, strides, offset=0):
    for k in range(len(index) - 1):
        offset += index[k] * strides[k]
    return offset
"""),
    ],
    "offset_to_index": [
        Misconception("peels from the wrong end",
          "peels the first axis off first (offset % shape[0]): on a non-square shape the "
          "indices come out scrambled, and only offset 0 is right",
          """
def offset_to_index(offset, shape):
    if not 0 <= offset < numel(shape):
        raise ValueError(f"offset {offset} is out of range for shape {shape}")
    index = []
    for d in shape:
        index.append(offset % d)
        offset //= d
    return tuple(index)
""" + _NUMEL),
        Misconception("no range check",
          "never checks 0 <= offset < numel(shape): an offset past the end or a negative one "
          "gives an index instead of a ValueError",
          """
def offset_to_index(offset, shape):
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return tuple(index)
"""),
        Misconception("returns a list",
          "returns a list, not a tuple: the numbers are right but the type is not",
          """
def offset_to_index(offset, shape):
    n = 1
    for d in shape:
        n *= d
    if not 0 <= offset < n:
        raise ValueError(f"offset {offset} is out of range for shape {shape}")
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        offset, index[k] = divmod(offset, shape[k])
    return index
"""),
        Misconception("vague error message",
          "raises ValueError without naming the offset and the shape: the reader cannot tell "
          "which offset was out of range for which shape",
          _OFFSET_TO_INDEX.replace("{RANGE}", "0 <= offset < numel(shape)")
          .replace("{MESSAGE}", '"bad"')),
        Misconception("accepts offset == numel (off by one)",
          "checks offset <= numel(shape) instead of <: the offset one past the end gives an "
          "index (which wraps to the start) instead of a ValueError",
          _OFFSET_TO_INDEX.replace("{RANGE}", "0 <= offset <= numel(shape)")
          .replace("{MESSAGE}", 'f"offset {offset} is out of range for shape {shape}"')),
        Misconception("peeled index not reversed",
          "peels the last axis first but appends its index first too: the index comes out "
          "reversed, (2, 0) for offset 2 in (2, 3) instead of (0, 2)",
          _NUMEL + """
def offset_to_index(offset, shape):
    if not 0 <= offset < numel(shape):
        raise ValueError(f"offset {offset} is out of range for shape {shape}")
    index = []
    for d in reversed(shape):
        index.append(offset % d)
        offset //= d
    return tuple(index)
"""),
    ],
}


# ------------------------------------------------------------------ stretch: locate

_LOCATE = _NUMEL + """
def _index(k, shape):
    index = [0] * len(shape)
    for a in range(len(shape) - 1, -1, -1):
        k, index[a] = divmod(k, shape[a])
    return tuple(index)


def locate(position, shape, strides, offset=0):
    found = None
    for k in range(numel(shape)):
        index = _index(k, shape)
        if {BASE} + sum(i * s for i, s in zip(index, strides)) == position:
            found = index
            {STOP}
    if found is None:
        {MISSING}
    return found
"""
_NOT_FOUND = ('raise ValueError(f"no element of the view with shape {shape}, strides {strides} '
              'sits at position {position}")')


def _locate(base="offset", stop="break", missing=_NOT_FOUND):
    return (_LOCATE.replace("{BASE}", base).replace("{STOP}", stop)
            .replace("{MISSING}", missing))


MISCONCEPTIONS["locate"] = [
    Misconception("assumes row-major strides",
      "inverts the row-major layout (offset_to_index of position - offset) whatever the "
      "strides: right for a fresh array, wrong for transposed, flipped or gapped views",
      _NUMEL + """
def locate(position, shape, strides, offset=0):
    rel = position - offset
    if not 0 <= rel < numel(shape):
        raise ValueError(f"position {position} is not in the view of shape {shape} with "
                         f"strides {strides}")
    index = [0] * len(shape)
    for k in range(len(shape) - 1, -1, -1):
        rel, index[k] = divmod(rel, shape[k])
    return tuple(index)
"""),
    Misconception("ignores the offset",
      "compares position with sum(index * strides), forgetting that the view starts at "
      "offset: every view that does not start at 0 is searched in the wrong place",
      _locate(base="0")),
    Misconception("last match wins",
      "keeps searching after a match and returns the last index at the position: with a "
      "stride of 0 the answer is the last of the repeated indices, not the first",
      _locate(stop="pass")),
    Misconception("returns None when nothing is there",
      "returns None for a position no element sits at, instead of raising ValueError: the "
      "caller gets no index and no reason",
      _locate(missing="return None")),
    Misconception("vague error message",
      "raises ValueError without naming the position, the shape and the strides: the reader "
      "cannot tell what was looked for where",
      _locate(missing='raise ValueError("not found")')),
    Misconception("divides by the strides, largest first",
      "peels the index off with divisions, axis by axis from the largest stride to the "
      "smallest, as offset_to_index does for row-major strides: right when each stride is "
      "a multiple of the smaller ones' span, wrong for strides that interleave or have "
      "opposite signs, where a position is found by no division",
      """
def locate(position, shape, strides, offset=0):
    rest = position - offset
    index = [0] * len(shape)
    for k in sorted(range(len(shape)), key=lambda k: -abs(strides[k])):
        if strides[k] == 0 or shape[k] == 1:
            continue
        index[k] = rest // strides[k]
        rest -= index[k] * strides[k]
    if rest != 0 or not all(0 <= i < d for i, d in zip(index, shape)) or 0 in shape:
        raise ValueError(f"no element of the view with shape {shape}, strides {strides} "
                         f"sits at position {position}")
    return tuple(index)
"""),
    Misconception("0-d view has no element",
      "loops over the axes and raises when there are none: the 0-d view (shape ()) has "
      "one element, at the offset, whose index is ()",
      """
def locate(position, shape, strides, offset=0):
    if not shape:
        raise ValueError(f"no element of the view with shape {shape}, strides {strides} "
                         f"sits at position {position}")
    n = 1
    for d in shape:
        n *= d
    for k in range(n):
        index, rest = [0] * len(shape), k
        for a in range(len(shape) - 1, -1, -1):
            rest, index[a] = divmod(rest, shape[a])
        if offset + sum(i * s for i, s in zip(index, strides)) == position:
            return tuple(index)
    raise ValueError(f"no element of the view with shape {shape}, strides {strides} "
                     f"sits at position {position}")
"""),
]
