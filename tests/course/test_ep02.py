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
from .wrong import pairs

CP = load_checkpoint("02")
WRONG_02 = pairs("02")


def test_checkpoint_has_the_four_exercises_with_hinted_tests():
    assert CP.exercises == ["permute_layout", "slice_layout", "is_contiguous", "reshape_strides",
                              "getitem_layout"]
    assert CP.stretch_exercises == ["getitem_layout"]
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
    # its diagnosis names the mistake; the hint about it (hint_for) gives way to it
    assert "instead of the last" in row.diagnosis and row.hint == ""


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


def _contract_row(exercise: str, source: str):
    """The row of ``exercise``'s contract alone (no hand-written test) for ``source``."""
    from stridegrad.course.checks import Checkpoint, is_contract_test
    sub = Checkpoint(CP.lesson, reference=CP.reference)
    sub.tests = [t for t in CP.tests if t.exercise == exercise and is_contract_test(t.name)]
    return run_checkpoint(sub, define(source)).rows[0]


def test_a_reshape_found_another_way_passes_whatever_its_size_one_strides():
    """The lesson lets new size-1 axes take any stride: a reshape_strides that solves
    each axis from the elements' positions, and gives size-1 axes a stride of its own
    choice, passes the contract; a wrong stride on any other axis does not."""
    source = """
        import itertools, math

        def reshape_strides(shape, strides, new_shape):
            if math.prod(shape) != math.prod(new_shape):
                raise ValueError(f"{shape} and {new_shape} differ in size")
            if math.prod(shape) == 0:
                out, step = [], 1
                for d in reversed(new_shape):
                    out.insert(0, step)
                    step *= max(d, 1)
                return tuple(out)
            pos = [sum(i * s for i, s in zip(idx, strides))
                   for idx in itertools.product(*map(range, shape))]
            out = [{SIZE_ONE} if d == 1 else pos[math.prod(new_shape[k + 1:])] - pos[0]
                   for k, d in enumerate(new_shape)]
            for n, idx in enumerate(itertools.product(*map(range, new_shape))):
                if sum(i * s for i, s in zip(idx, out)) != pos[n] - pos[0]:
                    return None
            return tuple(out)
    """
    assert _contract_row("reshape_strides", source.replace("{SIZE_ONE}", "12345")).passed
    wrong = source.replace("{SIZE_ONE}", "12345").replace("- pos[0]\n", "- pos[0] + (k == 0)\n")
    assert _contract_row("reshape_strides", wrong).status == "fail"


def test_getitem_layout_written_otherwise_passes():
    """With range(d)[item] for a slice and its own wording of each error."""
    assert _contract_row("getitem_layout", """
        def getitem_layout(shape, strides, offset, key):
            key = key if type(key) is tuple else (key,)
            if len(key) > len(shape):
                raise IndexError(f"{len(key)} indices for {len(shape)} dimensions")
            key = key + (slice(None),) * (len(shape) - len(key))
            out_shape, out_strides = (), ()
            for item, d, s in zip(key, shape, strides):
                if type(item) is slice:
                    if item.step == 0:
                        raise ValueError("slice step cannot be zero")
                    r = range(d)[item]
                    offset += r.start * s if len(r) else 0
                    out_shape += (len(r),)
                    out_strides += (r.step * s if len(r) else s,)
                elif not -d <= item < d:
                    raise IndexError(f"index {item} out of range for size {d}")
                else:
                    offset += (item % d) * s
            return out_shape, out_strides, offset
    """).passed
