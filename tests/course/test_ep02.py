"""Checkpoint 02 (strides and views): the reference passes, known-wrong code fails,
and the hand-written answers agree with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from stridegrad.array import layout
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define

CP = load_checkpoint("02")

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

# Known-wrong implementations, in tests/course/wrong.py's format (exercise -> [(label, source)]).
WRONG_02 = {
    "permute_layout": [
        ("permutes the shape only", """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    return tuple(shape[a] for a in axes), tuple(strides)
"""),
        ("inverse permutation", """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    new_shape, new_strides = [0] * len(shape), [0] * len(shape)
    for k, a in enumerate(axes):
        new_shape[a], new_strides[a] = shape[k], strides[k]
    return tuple(new_shape), tuple(new_strides)
"""),
        ("recomputes row-major strides", _CONTIGUOUS_STRIDES + """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    new_shape = tuple(shape[a] for a in axes)
    return new_shape, contiguous_strides(new_shape)
"""),
        ("reversed strides whatever the axes", """
def permute_layout(shape, strides, axes):
    if sorted(axes) != list(range(len(shape))):
        raise ValueError(axes)
    return tuple(shape[a] for a in axes), tuple(reversed(strides))
"""),
        ("no check of the axes", """
def permute_layout(shape, strides, axes):
    return tuple(shape[a] for a in axes), tuple(strides[a] for a in axes)
"""),
    ],
    "slice_layout": [
        ("negative step starts at 0", """
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
        ("forgets to multiply the offset by the stride", """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start, n, stride * step
"""),
        ("keeps the old stride", """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = len(range(start, stop, step))
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride
"""),
        ("rounds the count down", """
def slice_layout(size, stride, sl):
    start, stop, step = sl.indices(size)
    n = max(0, (stop - start) // step)
    if n == 0:
        return 0, 0, stride
    return start * stride, n, stride * step
"""),
        ("no clipping of the bounds", """
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
    ],
    "is_contiguous": [
        ("compares with row-major strides exactly", _CONTIGUOUS_STRIDES + """
def is_contiguous(shape, strides):
    return tuple(strides) == contiguous_strides(shape)
"""),
        ("checks only the last stride", """
def is_contiguous(shape, strides):
    return not shape or strides[-1] == 1
"""),
        ("checks that strides decrease", """
def is_contiguous(shape, strides):
    return all(a > b for a, b in zip(strides, strides[1:])) and (not strides or strides[-1] == 1)
"""),
        ("column-major check", """
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
        ("always row-major strides", _CONTIGUOUS_STRIDES + """
def reshape_strides(shape, strides, new_shape):
    if numel(shape) != numel(new_shape):
        raise ValueError((shape, new_shape))
    return contiguous_strides(new_shape)
"""),
        ("a copy whenever not contiguous", _CONTIGUOUS_STRIDES + """
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
        ("no element-count check", _CONTIGUOUS_STRIDES + """
def reshape_strides(shape, strides, new_shape):
    if tuple(strides) == contiguous_strides(shape):
        return contiguous_strides(new_shape)
    return None
"""),
        ("scales strides by the last old stride", _CONTIGUOUS_STRIDES + """
def reshape_strides(shape, strides, new_shape):
    if numel(shape) != numel(new_shape):
        raise ValueError((shape, new_shape))
    base = strides[-1] if strides else 1
    return tuple(s * base for s in contiguous_strides(new_shape))
"""),
    ],
}


def test_checkpoint_has_the_four_exercises_with_hinted_tests():
    assert CP.exercises == ["permute_layout", "slice_layout", "is_contiguous", "reshape_strides"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_the_library_passes():
    result = run_checkpoint(CP, vars(layout), require_local=False)
    assert result.passed, [(r.test, r.message) for r in result.rows if not r.passed]


def test_the_lesson_reference_passes():
    ns = reference_namespace(find_lesson(ROOT, "02"))
    result = run_checkpoint(CP, ns, require_local=False)
    assert result.score == result.max_score == CP.max_points


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG_02) == set(CP.exercises)


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_02.items() for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_negative_step_from_zero_names_the_reverse_slice():
    ns = define(WRONG_02["slice_layout"][0][1])
    row = run_checkpoint(CP, ns, exercise="slice_layout").row("reverse_slice")
    assert row.status == "fail" and row.expected == "(3, 4, -1)"
    assert "LAST element" in row.hint


def test_reshape_stub_reports_the_unfinished_is_contiguous():
    ns = define("""
def is_contiguous(shape, strides):
    raise NotImplementedError("write is_contiguous")

def reshape_strides(shape, strides, new_shape):
    if is_contiguous(shape, strides):
        return None
    return None
""")
    row = run_checkpoint(CP, ns, exercise="reshape_strides").rows[0]
    assert row.status == "stub" and "finish is_contiguous first" in row.message


# ------------------------------------------------------- the answers agree with NumPy

def _np_view(shape, strides, offset=0, storage=24):
    base = np.arange(storage, dtype=np.int64)
    return np.lib.stride_tricks.as_strided(base[offset:], shape=shape,
                                           strides=[s * 8 for s in strides])


@pytest.mark.parametrize("shape, strides, axes", [((2, 3), (3, 1), (1, 0)),
                                                   ((2, 3, 4), (12, 4, 1), (2, 0, 1))])
def test_permute_answers_match_numpy(shape, strides, axes):
    a = _np_view(shape, strides).transpose(axes)
    assert layout.permute_layout(shape, strides, axes) == \
        (a.shape, tuple(s // 8 for s in a.strides))


@pytest.mark.parametrize("size, stride, sl", [(10, 1, slice(1, 4)), (5, 3, slice(None, None, 2)),
                                              (4, 1, slice(None, None, -1)),
                                              (10, 1, slice(None, None, -3)),
                                              (5, 4, slice(None, None, -2)), (5, 2, slice(-2, None)),
                                              (5, 1, slice(2, 100))])
def test_slice_answers_match_numpy(size, stride, sl):
    a = np.arange(40)[::stride][:size]
    view = a[sl]
    delta = (view.__array_interface__["data"][0] - a.__array_interface__["data"][0]) // 8
    assert layout.slice_layout(size, stride, sl) == (delta, view.shape[0], view.strides[0] // 8)


@pytest.mark.parametrize("shape, strides, new_shape, strides_or_copy", [
    ((6, 2), (1, 6), (2, 3, 2), (3, 1, 6)),
    ((3, 2), (4, 2), (6,), (2,)),
    ((3, 2), (4, 1), (6,), None),
    ((3, 2), (1, 3), (6,), None),
])
def test_reshape_answers_match_numpy(shape, strides, new_shape, strides_or_copy):
    a = _np_view(shape, strides)
    b = a.reshape(new_shape)
    view = np.shares_memory(a, b)
    assert view == (strides_or_copy is not None)
    if view:
        assert tuple(s // 8 for s in b.strides) == strides_or_copy
    assert layout.reshape_strides(shape, strides, new_shape) == strides_or_copy
