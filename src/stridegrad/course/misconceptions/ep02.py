"""Known mistakes in the exercises of episode 02."""

from stridegrad.course.misconceptions import Misconception


_CONTIGUOUS_STRIDES = """
def contiguous_strides(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= max(d, 1)
    return tuple(strides)

def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
"""


# reshape_strides by matching groups of old and new axes (the library's algorithm, as a
# learner writes it), with one part swapped for a mistake
_RESHAPE_BY_GROUPS = """
from stridegrad.array.layout import contiguous_strides, is_contiguous, numel


def reshape_strides(shape, strides, new_shape):
{CHECK}    if is_contiguous(shape, strides):
        return contiguous_strides(new_shape)
    old_dims = [d for d in shape if d != 1]
    old_strides = [s for d, s in zip(shape, strides) if d != 1]
    new_strides = [0] * len(new_shape)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new_shape) and oi < len(old_dims):
        np_, op = new_shape[ni], old_dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new_shape[nj]
                nj += 1
            else:
                op *= old_dims[oj]
                oj += 1
{LINKS}        new_strides[nj - 1] = old_strides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            new_strides[nk - 1] = new_strides[nk] * new_shape[nk]
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
{TAIL}"""
_COUNT_CHECK = ("    if numel(shape) != numel(new_shape):\n"
                "        raise ValueError(f\"cannot reshape {shape} into {new_shape}\")\n")
_TRAILING_ONES = ("    last = new_strides[ni - 1] if ni >= 1 else 1\n"
                  "    for nk in range(ni, len(new_shape)):\n"
                  "        new_strides[nk] = last\n"
                  "    return tuple(new_strides)\n")


_EVERY_LINK = ("        for ok in range(oi, oj - 1):\n"
               "            if old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1]:\n"
               "                return None\n")
# the group merged when its first stride spans the rest, its inner links unchecked
_SPAN_ONLY = ("        if old_strides[oi] != numel(old_dims[oi + 1:oj]) * old_strides[oj - 1]:\n"
              "            return None\n")


def _reshape_by_groups(check: str = _COUNT_CHECK, tail: str = _TRAILING_ONES,
                       links: str = _EVERY_LINK) -> str:
    return (_RESHAPE_BY_GROUPS.replace("{CHECK}", check).replace("{TAIL}", tail)
            .replace("{LINKS}", links))

MISCONCEPTIONS = {
    "permute_layout": [
        Misconception("permutes the shape only",
          "reorders the shape but leaves the strides in the old order: the view reads the wrong "
          "elements",
          """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    return tuple(shape[a] for a in axes), tuple(strides)
"""),
        Misconception("returns lists, not tuples",
          "returns the shape and the strides as lists: the numbers are right, but a layout is "
          "a pair of tuples, like every shape and strides in these lessons (and NumPy's)",
          """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(f"axes {axes} are not a permutation of the axes of shape {shape}")
    return [shape[a] for a in axes], [strides[a] for a in axes]
"""),
        Misconception("inverse permutation",
          "puts axis k where axes[k] says instead of taking axis axes[k]: the inverse "
          "permutation, right only when it is its own inverse (2-D, swaps)",
          """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    new_shape, new_strides = [0] * len(shape), [0] * len(shape)
    for k, a in enumerate(axes):
        new_shape[a], new_strides[a] = shape[k], strides[k]
    return tuple(new_shape), tuple(new_strides)
"""),
        Misconception("recomputes row-major strides",
          "recomputes row-major strides for the new shape: a permuted view is not row-major, so "
          "it reads the elements in storage order",
          _CONTIGUOUS_STRIDES + """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    new_shape = tuple(shape[a] for a in axes)
    return new_shape, contiguous_strides(new_shape)
"""),
        Misconception("reversed strides whatever the axes",
          "reverses the strides whatever axes says: right for a 2-D transpose only",
          """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    return tuple(shape[a] for a in axes), tuple(reversed(strides))
"""),
        Misconception("no check of the axes",
          "never checks that axes is a permutation of range(ndim): repeated or missing axes "
          "give a layout instead of a ValueError",
          """
def permute_layout(shape, strides, axes):
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)
"""),
    ],
    "slice_layout": [
        Misconception("negative step starts at 0",
          "lets a missing start take its positive-step default, 0, when the step is negative: "
          "a reversed slice starts at the first element instead of the last, and keeps one "
          "element or none (the same goes for a missing stop taken as the size)",
          """
def slice_layout(size, stride, sl):
    step = 1 if sl.step is None else sl.step
    if step == 0:
        raise ValueError(sl)
    start = 0 if sl.start is None else sl.start
    stop = (size if step > 0 else -1) if sl.stop is None else sl.stop
    start, stop, _ = slice(start, stop, step).indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride * step
"""),
        Misconception("forgets to multiply the offset by the stride",
          "adds the start index to the offset without multiplying by the stride: right only for "
          "stride 1",
          """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start, n, stride * step
"""),
        Misconception("keeps the old stride",
          "keeps the old stride instead of multiplying it by the step: a step of 2 or -1 reads "
          "neighbours",
          """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride
"""),
        Misconception("rounds the count down",
          "counts the elements as (stop - start) // step, rounding down: a range that does not "
          "divide evenly loses its last element",
          """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = max(0, (stop - start) // step)
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride * step
"""),
        Misconception("no clipping of the bounds",
          "uses start and stop as given, without clipping them to the size: a stop past the end "
          "or a negative start gives the wrong length",
          """
def slice_layout(size, stride, sl):
    step = sl.step or 1
    start = sl.start or 0
    stop = size if sl.stop is None else sl.stop
    if start < 0:
        start += size
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride * step
"""),
        Misconception("counts the stop too (off by one)",
          "counts the element at stop as well: every slice is one element too long, and an "
          "empty one gets an element",
          """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step)) + 1
    return start * stride, n, stride * step
"""),
    ],
    "is_contiguous": [
        Misconception("compares with row-major strides exactly",
          "compares with the row-major strides exactly: a size-1 or size-0 axis, whose stride "
          "does not matter, makes a contiguous layout look non-contiguous",
          _CONTIGUOUS_STRIDES + """
def is_contiguous(shape, strides):
    return tuple(strides) == contiguous_strides(shape)
"""),
        Misconception("checks only the last stride",
          "checks only that the last stride is 1: a layout with a gap between rows counts as "
          "contiguous",
          """
def is_contiguous(shape, strides):
    return not shape or strides[-1] == 1
"""),
        Misconception("checks that strides decrease",
          "checks only that the strides decrease: strides with gaps such as (6, 2) count as "
          "contiguous",
          """
def is_contiguous(shape, strides):
    return all(a > b for a, b in zip(strides, strides[1:])) and (not strides or strides[-1] == 1)
"""),
        Misconception("column-major check",
          "checks column-major order (first stride 1): row-major layouts, the ones asked for, "
          "come out False",
          """
def is_contiguous(shape, strides):
    if 0 in shape:
        return True
    expected = 1
    for d, s in zip(shape, strides):
        if d != 1:
            if s != expected:
                return False
            expected *= d
    return True
"""),
    ],
    "reshape_strides": [
        Misconception("always row-major strides",
          "returns row-major strides whatever the layout: a reshape of a transposed or strided "
          "view claims to be a view but reads the wrong elements",
          _CONTIGUOUS_STRIDES + """
def reshape_strides(shape, strides, new_shape):
    if numel(shape) != numel(new_shape):
        raise ValueError((shape, new_shape))
    return contiguous_strides(new_shape)
"""),
        Misconception("a copy whenever not contiguous",
          "gives up (None) whenever the layout is not contiguous: reshapes that only split or "
          "merge axes of a strided view, which need no copy, are refused",
          _CONTIGUOUS_STRIDES + """
def is_contiguous(shape, strides):
    return tuple(s for d, s in zip(shape, strides) if d != 1) == \\
        tuple(s for d, s in zip(shape, contiguous_strides(shape)) if d != 1)

def reshape_strides(shape, strides, new_shape):
    if numel(shape) != numel(new_shape):
        raise ValueError((shape, new_shape))
    if is_contiguous(shape, strides):
        return contiguous_strides(new_shape)
    return None
"""),
        Misconception("no element-count check",
          "never checks that the new shape has as many elements: (2, 3) to (4, 2) gives strides "
          "instead of a ValueError",
          _reshape_by_groups(check="")),
        Misconception("drops new size-1 axes at the end",
          "stops when the old axes run out: new size-1 axes after the last group get no "
          "stride, so (3, 2) to (3, 2, 1) comes back with two strides for three axes",
          _reshape_by_groups(tail="    return tuple(new_strides[:ni])\n")),
        Misconception("checks only the span of a merged group",
          "merges a group of axes when its first stride is the product of the others' sizes "
          "times the last stride, without checking each link s[k] == d[k+1] * s[k+1]: a group "
          "of three with a gap in the middle, its ends spaced as if there were none, comes back "
          "as a view where it needs a copy",
          _reshape_by_groups(links=_SPAN_ONLY)),
        Misconception("scales strides by the last old stride",
          "scales row-major strides by the last old stride: right for a uniformly strided view, "
          "wrong when the axes have other gaps",
          _CONTIGUOUS_STRIDES + """
def reshape_strides(shape, strides, new_shape):
    if numel(shape) != numel(new_shape):
        raise ValueError((shape, new_shape))
    base = strides[-1] if strides else 1
    return tuple(s * base for s in contiguous_strides(new_shape))
"""),
    ],
}


# ------------------------------------------------------------------ stretch: getitem_layout

_GETITEM = """
def _slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    return (0, 0, stride) if n == 0 else (start * stride, n, stride * step)


def getitem_layout(shape, strides, offset, key):
    if not isinstance(key, tuple):
        key = (key,)
    if len(key) > len(shape):
        raise IndexError(f"too many indices: {len(key)} for an array with {len(shape)} axes")
    new_shape, new_strides = [], []
    for k, (d, s) in enumerate(zip(shape, strides)):
        item = key[k] if k < len(key) else slice(None)
        if isinstance(item, slice):
            delta, n, step = _slice_layout(d, s, item)
            offset += {DELTA}
            new_shape.append(n)
            new_strides.append(step)
        else:
            i = {WRAP}
            if not {BOUND}:
                raise IndexError(f"index {item} is out of bounds for axis {k} with size {d}")
            offset += {INT_STEP}
            {KEEP}
    return tuple(new_shape), tuple(new_strides), offset
"""


def _getitem(delta="delta", wrap="item + d if item < 0 else item", bound="0 <= i < d",
             int_step="i * s", keep="pass"):
    return (_GETITEM.replace("{DELTA}", delta).replace("{WRAP}", wrap)
            .replace("{BOUND}", bound).replace("{INT_STEP}", int_step).replace("{KEEP}", keep))


MISCONCEPTIONS["getitem_layout"] = [
    Misconception("an int keeps its axis",
      "keeps an axis picked by an int as size 1: a[1] of a (2, 3) array comes out (1, 3) "
      "instead of (3,), as if the key had been a[1:2]",
      _getitem(keep="new_shape.append(1); new_strides.append(s)")),
    Misconception("negative ints not wrapped",
      "uses a negative int as it is: -1 steps backwards from the axis's start instead of "
      "picking its last element, so a[:, -1] reads before the view",
      _getitem(wrap="item", bound="-d <= i < d")),
    Misconception("ints forget the offset",
      "drops an int's axis without adding its steps to the offset: a[1] reads row 0",
      _getitem(int_step="0")),
    Misconception("slices forget the offset",
      "takes a slice's new size and stride but not how far its first element is: a[1:3] and "
      "a[::-1] start at the old first element",
      _getitem(delta="0")),
    Misconception("no bounds check",
      "never checks that an int is inside its axis: a[0, 7] of a (2, 5) array reads past the "
      "row instead of raising IndexError",
      _getitem(bound="True")),
    Misconception("a bare slice is not wrapped",
      "wraps a bare int key into a tuple but not a bare slice: a[1:3] (key slice(1, 3)) "
      "is taken for a sequence of items, and len() of a slice raises TypeError",
      _getitem().replace("if not isinstance(key, tuple):", "if isinstance(key, int):")),
    Misconception("wraps ints with % before the bounds check",
      "turns every int into its place with item % d before checking the bounds: right for "
      "any axis with elements, but an int on a size-0 axis raises ZeroDivisionError, not "
      "the IndexError that names the int and the size",
      _getitem(wrap="item % d", bound="-d <= item < d")),
]
