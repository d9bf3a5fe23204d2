"""Checkpoint 03 (elementwise ops and reductions): the reference passes, known-wrong
code fails, and the library kernels agree with NumPy on strided views."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stridegrad.array import layout
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.misconceptions import for_episode
from stridegrad.course.paths import find_lesson

from .conftest import ROOT, define
from .wrong import pairs

CP = load_checkpoint("03")
WRONG_03 = pairs("03")


def test_checkpoint_has_the_five_exercises_with_hinted_tests():
    assert CP.exercises == ["iter_offsets", "map_unary", "map_binary", "sum_axis", "reduce_axis",
                              "argmax_axis"]
    assert CP.stretch_exercises == ["argmax_axis"]
    for ex in CP.exercises:
        tests = [t for t in CP.tests if t.exercise == ex]
        assert len(tests) >= 5 and all(t.hint for t in tests), ex


def test_the_library_passes():
    result = run_checkpoint(CP, vars(layout), require_local=False)
    assert result.passed, [(r.test, r.message) for r in result.rows if not r.passed]


def test_the_lesson_reference_passes():
    ns = reference_namespace(find_lesson(ROOT, "03"))
    result = run_checkpoint(CP, ns, require_local=False)
    assert result.score == result.max_score == CP.max_points


def test_every_exercise_has_known_wrong_implementations():
    assert set(WRONG_03) == set(CP.exercises)


@pytest.mark.parametrize("exercise, label, source",
                         [(ex, label, src) for ex, cases in WRONG_03.items() for label, src in cases])
def test_checkpoint_fails_known_wrong_implementation(exercise, label, source):
    result = run_checkpoint(CP, define(source), exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert {r.status for r in result.rows} <= {"pass", "fail", "error"}, result


def test_the_learners_own_iter_offsets_is_used():
    """map_unary built on a stub iter_offsets says which function to finish."""
    ns = define("""
def iter_offsets(shape, strides, offset=0):
    raise NotImplementedError("write iter_offsets")

def map_unary(fn, x):
    storage, shape, strides, offset = x
    return [fn(storage[p]) for p in iter_offsets(shape, strides, offset)]
""")
    row = run_checkpoint(CP, ns, exercise="map_unary").rows[0]
    assert row.status == "stub" and "finish iter_offsets first" in row.message


# a right iter_offsets, the one the misconceptions of sum_axis build on
from stridegrad.course.misconceptions.ep03 import _ITER  # noqa: E402

# sum_axis as learners write it when they forget to normalise a negative axis: each is
# right for axes 0 and 1, and goes wrong with -1 in its own way on the (2, 3) view m
_RAW_NEGATIVE_AXIS = {
    # slices shape and strides with the raw axis: reads past the end of m's storage
    "slices": ("negative axis used as it is", _ITER + """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} out of range")
    rest_shape = shape[:axis] + shape[axis + 1:]
    rest_strides = strides[:axis] + strides[axis + 1:]
    out = []
    for start in iter_offsets(rest_shape, rest_strides, offset):
        lane = [storage[start + j * strides[axis]] for j in range(shape[axis])]
        out.append(sum(lane))
    return out, shape[:axis] + (1,) + shape[axis + 1:] if keepdims else rest_shape
"""),
    # adds each element into its place in the result, found by slicing the index: on m
    # it returns 12 wrong values, shape (2, 2, 3), and raises nothing
    "scatters": ("negative axis used as it is", """
import itertools

def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(axis)
    out_shape = shape[:axis] + shape[axis + 1:]
    out_strides, size = [], 1
    for d in reversed(out_shape):
        out_strides.insert(0, size)
        size *= d
    out = [0] * size
    for idx in itertools.product(*[range(d) for d in shape]):
        rest = idx[:axis] + idx[axis + 1:]
        p = offset + sum(i * s for i, s in zip(idx, strides))
        out[sum(i * s for i, s in zip(rest, out_strides))] += storage[p]
    return out, shape[:axis] + (1,) + shape[axis + 1:] if keepdims else out_shape
"""),
    # k != axis over range(ndim), then shape[axis]: reads past the end of m's storage
    "skips k != axis": ("negative axis never equals k", _ITER + """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if axis >= len(shape) or axis < -len(shape):
        raise ValueError("bad axis")
    rest_shape = tuple(shape[k] for k in range(len(shape)) if k != axis)
    rest_strides = tuple(strides[k] for k in range(len(shape)) if k != axis)
    values = []
    for p in iter_offsets(rest_shape, rest_strides, offset):
        total = 0
        for j in range(shape[axis]):
            total += storage[p + j * strides[axis]]
        values.append(total)
    if keepdims:
        return values, tuple(1 if k == axis else d for k, d in enumerate(shape))
    return values, rest_shape
"""),
    # picks the summed axis with k == axis: with -1 its size is never set (UnboundLocalError
    # on m, naming the learner's own variable)
    "picks k == axis": ("negative axis never equals k", _ITER + """
def sum_axis(x, axis, keepdims=False):
    storage, shape, strides, offset = x
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} out of range")
    rest_shape, rest_strides = [], []
    for k in range(len(shape)):
        if k == axis:
            n, step = shape[k], strides[k]
        else:
            rest_shape.append(shape[k])
            rest_strides.append(strides[k])
    values = [sum(storage[p + j * step] for j in range(n))
              for p in iter_offsets(rest_shape, rest_strides, offset)]
    if keepdims:
        return values, tuple(1 if k == axis else d for k, d in enumerate(shape))
    return values, tuple(rest_shape)
"""),
}


@pytest.mark.parametrize("variant", sorted(_RAW_NEGATIVE_AXIS))
def test_a_raw_negative_axis_is_named_however_it_is_written(variant):
    """Forgetting axis %= ndim goes wrong differently on m for each way of writing
    sum_axis (IndexError, UnboundLocalError, wrong values); the empty view that
    negative_axis tries first shows only the shape, so each gets its diagnosis."""
    label, source = _RAW_NEGATIVE_AXIS[variant]
    ns = define(source)
    for axis in (0, 1):  # right for the axes counted from the front
        assert ns["sum_axis"](([0, 1, 2, 3, 4, 5], (2, 3), (3, 1), 0), axis) == (
            layout.sum_axis(([0, 1, 2, 3, 4, 5], (2, 3), (3, 1), 0), axis))
    result = run_checkpoint(CP, ns, exercise="sum_axis")
    # of the hand-written tests only negative_axis; the contract finds it too
    assert [r.test for r in result.rows if not r.passed] == [
        "negative_axis", "sum_axis_on_generated_inputs"]
    diagnosis = next(m.diagnosis for m in for_episode("03")["sum_axis"] if m.label == label)
    row = result.row("negative_axis")
    assert row.diagnosis == diagnosis and "hint(" not in row.hint
    assert result.row("sum_axis_on_generated_inputs").diagnosis == diagnosis
    assert " ".join(diagnosis.split()) in " ".join(str(result).split())


# ------------------------------------------------------- the kernels agree with NumPy

@st.composite
def views(draw):
    """A random strided view (permuted, sliced with steps, maybe reversed) of a storage."""
    ndim = draw(st.integers(1, 3))
    base_shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    storage = list(range(1, layout.numel(base_shape) + 1))
    shape, strides, offset = base_shape, layout.contiguous_strides(base_shape), 0
    axes = tuple(draw(st.permutations(range(ndim))))
    shape, strides = layout.permute_layout(shape, strides, axes)
    new_shape, new_strides = [], []
    for d, s in zip(shape, strides):
        sl = slice(draw(st.one_of(st.none(), st.integers(-d, d))), None,
                   draw(st.sampled_from([1, 2, -1, -2])))
        delta, n, stride = layout.slice_layout(d, s, sl)
        offset += delta
        new_shape.append(n)
        new_strides.append(stride)
    return storage, tuple(new_shape), tuple(new_strides), offset


def _as_numpy(x):
    storage, shape, strides, offset = x
    return np.array([storage[p] for p in layout.iter_offsets(shape, strides, offset)],
                    dtype=np.int64).reshape(shape)


@settings(max_examples=60, deadline=None)
@given(views(), views())
def test_maps_match_numpy(x, y):
    a = _as_numpy(x)
    assert layout.map_unary(lambda v: 3 * v - 1, x) == (3 * a - 1).ravel().tolist()
    if x[1] == y[1]:
        assert layout.map_binary(lambda u, v: u * 10 + v, x, y) == \
            (a * 10 + _as_numpy(y)).ravel().tolist()
    else:
        with pytest.raises(ValueError, match="differ"):
            layout.map_binary(lambda u, v: u, x, y)


@settings(max_examples=60, deadline=None)
@given(views(), st.data())
def test_reductions_match_numpy(x, data):
    a = _as_numpy(x)
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    keepdims = data.draw(st.booleans())
    want = a.sum(axis=axis, keepdims=keepdims)
    assert layout.sum_axis(x, axis, keepdims) == (want.ravel().tolist(), want.shape)
    if a.shape[axis] > 0:
        want = a.max(axis=axis, keepdims=keepdims)
        assert layout.reduce_axis(max, x, axis, keepdims) == (want.ravel().tolist(), want.shape)


def test_reduction_axis_errors_name_the_axis():
    x = ([0, 1, 2, 3], (2, 2), (2, 1), 0)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for an array of dimension 2"):
        layout.sum_axis(x, 2)
    with pytest.raises(ValueError, match="axis -3"):
        layout.reduce_axis(sum, x, -3)
    with pytest.raises(ValueError, match="dimension 0"):
        layout.sum_axis(([5], (), (), 0), 0)


def test_argmax_written_otherwise_passes_its_contract():
    """max(range(n), key=...) (the first of the largest), its own error wording."""
    from stridegrad.course.checks import Checkpoint, is_contract_test
    sub = Checkpoint(CP.lesson, reference=CP.reference)
    sub.tests = [t for t in CP.tests if t.exercise == "argmax_axis" and is_contract_test(t.name)]
    ns = define("""
        import itertools

        def argmax_axis(x, axis):
            storage, shape, strides, offset = x
            n = len(shape)
            if axis >= n or axis < -n:
                raise ValueError(f"axis {axis} does not exist in a {n}-d view")
            axis = axis % n
            if shape[axis] == 0:
                raise ValueError("argmax of an empty axis")
            rest = [k for k in range(n) if k != axis]
            out = []
            for idx in itertools.product(*(range(shape[k]) for k in rest)):
                base = offset + sum(i * strides[k] for i, k in zip(idx, rest))
                lane = [storage[base + j * strides[axis]] for j in range(shape[axis])]
                out.append(max(range(len(lane)), key=lane.__getitem__))
            return out, tuple(shape[k] for k in rest)
    """)
    row = run_checkpoint(sub, ns).rows[0]
    assert row.passed, (row.call, row.expected, row.got)
