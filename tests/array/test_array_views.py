"""Chains of views against NumPy: values, strides, offsets and shared storage."""

from __future__ import annotations

import numpy as np
import pytest
from _array_helpers import assert_layout, np_root, pair, shapes
from hypothesis import given, settings
from hypothesis import strategies as st

import stridegrad.array as sa

bounds = st.one_of(st.none(), st.integers(-7, 7))
steps = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))


@st.composite
def basic_index(draw, shape):
    """A random basic index for ``shape``: ints, slices with any step, None, one ``...``."""
    key = []
    axis = 0
    ellipsis_used = False
    while axis < len(shape):
        kind = draw(st.sampled_from(["slice", "slice", "int", "none", "ellipsis", "stop"]))
        if kind == "stop":
            break
        if kind == "slice":
            key.append(slice(draw(bounds), draw(bounds), draw(steps)))
            axis += 1
        elif kind == "int" and shape[axis] > 0:
            d = shape[axis]
            key.append(draw(st.integers(-d, d - 1)))
            axis += 1
        elif kind == "none":
            key.append(None)
        elif kind == "ellipsis" and not ellipsis_used:
            key.append(Ellipsis)
            ellipsis_used = True
            # the ellipsis swallows the middle; a few slices may follow for the last axes
            tail = draw(st.integers(0, len(shape) - axis))
            for _ in range(tail):
                key.append(slice(draw(bounds), draw(bounds), draw(steps)))
            axis = len(shape)
    if draw(st.booleans()):
        key.append(None)
    return tuple(key)


def _reshape_candidates(shape):
    n = int(np.prod(shape, dtype=np.int64))
    out = [(n,), (-1,), shape + (1,), (1,) + shape]
    for k in range(len(shape) - 1):
        out.append(shape[:k] + (shape[k] * shape[k + 1],) + shape[k + 2 :])
    for k, d in enumerate(shape):
        for f in (2, 3):
            if d % f == 0 and d > f:
                out.append(shape[:k] + (f, d // f) + shape[k + 1 :])
        if d == 1:
            out.append(shape[:k] + shape[k + 1 :])
    if len(shape) >= 2:
        out.append(shape[:-2] + (-1, shape[-1]))
    if n == 0:  # -1 cannot be inferred next to a 0
        out = [c for c in out if -1 not in c]
    return out


@st.composite
def view_step(draw, shape):
    """One view operation applicable to an array of ``shape``: (name, argument)."""
    ndim = len(shape)
    ops = ["index", "expand_dims", "reshape", "flip"]
    if ndim >= 1:
        ops += ["permute", "broadcast_to"]
    if 1 in shape:
        ops.append("squeeze")
    if ndim >= 2:
        ops.append("mT")
    op = draw(st.sampled_from(ops))
    if op == "index":
        return op, draw(basic_index(shape))
    if op == "permute":
        return op, tuple(draw(st.permutations(range(ndim))))
    if op == "expand_dims":
        return op, draw(st.integers(-ndim - 1, ndim))
    if op == "squeeze":
        ones = [k for k, d in enumerate(shape) if d == 1]
        return op, tuple(draw(st.lists(st.sampled_from(ones), min_size=1, unique=True)))
    if op == "broadcast_to":
        lead = tuple(draw(st.lists(st.integers(0, 3), max_size=1)))
        target = tuple(draw(st.integers(0, 3)) if d == 1 else d for d in shape)
        return op, lead + target
    if op == "reshape":
        return op, draw(st.sampled_from(_reshape_candidates(shape)))
    if op == "flip":
        return op, draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1) if ndim else st.none()))
    return op, None


def apply_np(op, arg, a):
    r = _apply_np(op, arg, a)
    # NumPy returns a scalar for a few 0-d results (np.flip of a 0-d array); we return a view
    return r if isinstance(r, np.ndarray) else a[...]


def _apply_np(op, arg, a):
    if op == "index":
        # a trailing ... keeps NumPy from returning a scalar for a full integer index
        return a[arg if Ellipsis in arg else arg + (Ellipsis,)]
    if op == "permute":
        return np.transpose(a, arg)
    if op == "expand_dims":
        return np.expand_dims(a, arg)
    if op == "squeeze":
        return np.squeeze(a, arg)
    if op == "broadcast_to":
        return np.broadcast_to(a, arg)
    if op == "reshape":
        return np.reshape(a, arg)
    if op == "flip":
        return np.flip(a, arg)
    if op == "mT":
        return np.swapaxes(a, -1, -2)
    raise AssertionError(op)


def apply_sa(op, arg, x):
    if op == "index":
        return x[arg]
    if op == "permute":
        return sa.permute_dims(x, arg)
    if op == "expand_dims":
        return sa.expand_dims(x, axis=arg)
    if op == "squeeze":
        return sa.squeeze(x, axis=arg)
    if op == "broadcast_to":
        return sa.broadcast_to(x, arg)
    if op == "reshape":
        return sa.reshape(x, arg)
    if op == "flip":
        return sa.flip(x, axis=arg)
    if op == "mT":
        return x.mT
    raise AssertionError(op)


@settings(max_examples=150, deadline=None)
@given(st.data(), shapes)
def test_view_chains_match_numpy(data, shape):
    ours, ref = pair(shape)
    root, storage = np_root(ref), ours.storage
    for _ in range(data.draw(st.integers(1, 5), label="length")):
        op, arg = data.draw(view_step(ours.shape), label="step")
        new_ref = apply_np(op, arg, ref)
        new_ours = apply_sa(op, arg, ours)
        if op == "reshape":
            # a view exactly when NumPy's reshape is one
            is_view = np_root(new_ref) is root
            assert (new_ours.storage is storage) == is_view, (ours.shape, ours.strides, arg)
            if not is_view:
                root, storage = np_root(new_ref), new_ours.storage
        else:
            assert new_ours.storage is storage
        assert_layout(new_ours, new_ref, root)
        ours, ref = new_ours, new_ref


@settings(max_examples=100, deadline=None)
@given(st.data(), shapes)
def test_reshape_of_any_view_is_a_view_iff_numpy_is(data, shape):
    ours, ref = pair(shape)
    key = data.draw(basic_index(shape))
    ours, ref = ours[key], ref[key if Ellipsis in key else key + (Ellipsis,)]
    new_shape = data.draw(st.sampled_from(_reshape_candidates(ref.shape)))
    new_ref = np.reshape(ref, new_shape)
    new_ours = sa.reshape(ours, new_shape)
    assert (new_ours.storage is ours.storage) == (np_root(new_ref) is np_root(ref))
    assert new_ours.tolist() == new_ref.tolist()
    if new_ref.size and new_ours.storage is ours.storage:
        assert new_ours.strides == tuple(s // 8 for s in new_ref.strides)


@settings(max_examples=100, deadline=None)
@given(st.data(), shapes)
def test_setitem_through_views_writes_the_shared_storage(data, shape):
    ours, ref = pair(shape)
    key = data.draw(basic_index(shape))
    view, ref_view = ours[key], ref[key if Ellipsis in key else key + (Ellipsis,)]
    value = data.draw(st.floats(-5, 5, allow_nan=False))
    ours[key] = value
    ref[key] = value
    assert ours.tolist() == ref.tolist()
    assert view.tolist() == ref_view.tolist()


def test_views_of_views_never_copy():
    x = sa.reshape(sa.arange(24.0), (2, 3, 4))
    v = x[1, ::-1, 1::2][None, ..., ::-1].mT
    assert v.storage is x.storage
    ref = np.arange(24.0).reshape(2, 3, 4)[1, ::-1, 1::2][None, ..., ::-1]
    ref = np.swapaxes(ref, -1, -2)
    assert v.tolist() == ref.tolist()
    assert v.strides == tuple(s // 8 for s in ref.strides)


def test_copies_do_not_share_storage():
    x = sa.reshape(sa.arange(6.0), (2, 3))
    for y in (x.copy(), x.T.contiguous(), sa.reshape(x.T, (6,)), sa.asarray(x, copy=True),
              sa.reshape(x, (3, 2), copy=True), x + 0):
        assert y.storage is not x.storage
    assert x.contiguous() is x
    assert sa.asarray(x) is x


def test_reshape_copy_false_refuses_to_copy():
    x = sa.reshape(sa.arange(6.0), (2, 3)).T
    with pytest.raises(ValueError, match=r"\(3, 2\).*\(6,\).*copy=False"):
        sa.reshape(x, (6,), copy=False)
    assert sa.reshape(x, (3, 2, 1), copy=False).storage is x.storage


def test_broadcast_views_are_read_only():
    x = sa.arange(3.0)
    b = sa.broadcast_to(x, (2, 3))
    assert b.strides == (0, 1) and b.storage is x.storage and b.readonly
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        b[0][1] = 1.0  # views of a broadcast view stay read-only
    x[0] = 5.0  # the original stays writable
    assert b.tolist() == [[5.0, 1.0, 2.0]] * 2
