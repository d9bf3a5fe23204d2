"""The StridedArray object, creation functions, interop, in-place updates and error messages."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from _array_helpers import assert_same, pair

import stridegrad.array as sa

# ------------------------------------------------------------------------ object


def test_repr_shows_values_and_layout():
    x = sa.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=sa.float32)
    assert repr(x) == (
        "StridedArray([[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), strides=(2, 1), offset=0, "
        "dtype=float32)"
    )
    assert repr(x.T[1]) == (
        "StridedArray([2.0, 4.0], shape=(2,), strides=(2,), offset=1, dtype=float32)"
    )
    assert "1200 elements" in repr(sa.zeros(1200))


def test_attributes():
    x = sa.reshape(sa.arange(24.0), (2, 3, 4))
    assert (x.ndim, x.size, x.shape, x.strides, x.offset) == (3, 24, (2, 3, 4), (12, 4, 1), 0)
    assert x.device == "python" and x.dtype == sa.float64
    assert isinstance(x.storage, list) and len(x.storage) == 24
    assert x.to_device("python") is x
    assert x.mT.shape == (2, 4, 3) and x.mT.strides == (12, 1, 4)
    assert x[0].T.shape == (4, 3)
    assert x.is_contiguous() and not x.mT.is_contiguous()


def test_constructor_over_a_storage_list():
    storage = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    x = sa.StridedArray(storage, (3, 2), (1, 3))
    assert x.storage is storage and x.dtype == sa.float64
    assert x.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert sa.StridedArray([1, 2, 3], (3,)).strides == (1,)
    assert sa.StridedArray([True], ()).dtype == sa.bool
    rev = sa.StridedArray(storage, (3,), (-2,), offset=4)
    assert rev.tolist() == [4.0, 2.0, 0.0]


def test_constructor_errors():
    with pytest.raises(TypeError, match="storage must be a list, got tuple"):
        sa.StridedArray((1.0, 2.0), (2,), (1,))
    with pytest.raises(ValueError, match=r"strides \(1,\) do not match shape \(2, 2\)"):
        sa.StridedArray([1.0] * 4, (2, 2), (1,))
    with pytest.raises(ValueError, match=r"positions 0 to 7, but storage has 6 elements"):
        sa.StridedArray([1.0] * 6, (2, 3), (3, 2))
    with pytest.raises(ValueError, match=r"positions -2 to 0"):
        sa.StridedArray([1.0] * 6, (3,), (-1,))
    with pytest.raises(ValueError, match=r"negative dimensions .*\(-1, 2\)"):
        sa.StridedArray([1.0] * 6, (-1, 2), (2, 1))
    with pytest.raises(TypeError, match="storage holds int 1 but dtype float32"):
        sa.StridedArray([1, 2], (2,), (1,), dtype=sa.float32)
    with pytest.raises(TypeError, match="unsupported element 'a'"):
        sa.StridedArray(["a"], (1,), (1,))


def test_scalar_conversions():
    x = sa.asarray([[2.5]])
    assert x.item() == 2.5 and float(x) == 2.5 and int(x) == 2 and bool(x) is True
    assert sa.asarray(3).__index__() == 3
    assert [0, 1, 2, 3][sa.asarray(2)] == 2
    with pytest.raises(ValueError, match=r"size 1 .* got shape \(2,\)"):
        sa.asarray([1.0, 2.0]).item()
    with pytest.raises(ValueError, match=r"truth value of an array with 2 elements .*\(2,\)"):
        bool(sa.asarray([1.0, 2.0]))
    with pytest.raises(TypeError, match="0-d integer arrays"):
        [1, 2][sa.asarray(1.0)]


def test_len_iter_and_tolist():
    x = sa.reshape(sa.arange(6), (2, 3))
    assert len(x) == 2
    assert [row.tolist() for row in x] == [[0, 1, 2], [3, 4, 5]]
    assert sa.zeros((2, 0, 3)).tolist() == [[], []]
    assert sa.zeros((0, 2)).tolist() == []
    assert sa.asarray(1.5).tolist() == 1.5
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d array"):
        len(sa.asarray(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(sa.asarray(1.0)).__next__()


def test_transpose_rules():
    assert sa.ones((2, 3)).T.shape == (3, 2)
    with pytest.raises(ValueError, match=r"2-D array, got 3-D shape \(2, 3, 4\).*permute_dims"):
        sa.ones((2, 3, 4)).T
    with pytest.raises(ValueError, match=r"at least 2 dimensions, got shape \(3,\)"):
        sa.ones((3,)).mT
    with pytest.raises(ValueError, match=r"at least 2 dimensions"):
        sa.matrix_transpose(sa.ones((3,)))


# ------------------------------------------------------------------------- dtypes


def test_dtype_objects():
    assert repr(sa.float32) == "float32" and str(sa.bool) == "bool"
    assert sa.float32 == sa.float32 and sa.float32 != sa.float64
    assert {sa.int64: 1}[sa.int64] == 1
    assert sa.bool.name == "bool" and isinstance(sa.bool, sa.DType)
    assert pickle.loads(pickle.dumps(sa.float32)) is sa.float32
    assert sa.asarray([1, 2], dtype="float32").dtype == sa.float32
    with pytest.raises(TypeError, match="unsupported dtype 'complex64'"):
        sa.zeros(2, dtype="complex64")


def test_astype():
    x = sa.asarray([1.7, -1.7, 0.0])
    assert sa.astype(x, sa.int64).tolist() == [1, -1, 0]
    assert sa.astype(x, sa.bool).tolist() == [True, True, False]
    assert sa.astype(sa.asarray([1, 0]), sa.float32).tolist() == [1.0, 0.0]
    assert sa.astype(x, sa.float64, copy=False) is x
    assert sa.astype(x, sa.float64).storage is not x.storage


# ----------------------------------------------------------------------- creation


def test_creation_matches_numpy():
    assert_same(sa.zeros((2, 3)), np.zeros((2, 3)))
    assert_same(sa.ones(3, dtype=sa.int64), np.ones(3, np.int64))
    assert_same(sa.empty((0, 2)), np.empty((0, 2)))
    assert_same(sa.full((2, 2), 7), np.full((2, 2), 7))
    assert_same(sa.full((2,), 0.5, dtype=sa.float32), np.full((2,), 0.5, np.float32))
    assert_same(sa.full((2,), True), np.full((2,), True))
    for args in [(5,), (2, 7), (1, 10, 3), (5, 1, -2), (0.0, 1.0, 0.25), (3, 0), (0.5, 3)]:
        assert_same(sa.arange(*args), np.arange(*args))
    assert_same(sa.arange(4, dtype=sa.float32), np.arange(4, dtype=np.float32))
    assert_same(sa.linspace(0.0, 1.0, 5), np.linspace(0.0, 1.0, 5))
    assert_same(sa.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    assert_same(sa.eye(3), np.eye(3))
    assert_same(sa.eye(2, 4, k=1, dtype=sa.int64), np.eye(2, 4, k=1, dtype=np.int64))
    x = sa.ones((2, 3), dtype=sa.float32)
    assert_same(sa.zeros_like(x), np.zeros((2, 3), np.float32))
    assert_same(sa.ones_like(x, dtype=sa.int64), np.ones((2, 3), np.int64))
    assert_same(sa.full_like(x, 2), np.full((2, 3), 2, np.float32))
    assert_same(sa.empty_like(x), np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="step must not be zero"):
        sa.arange(0, 5, 0)


def test_device_keyword_is_checked():
    assert sa.zeros(2, device="python").device == "python"
    assert sa.asarray([1.0], device=None).device == "python"
    with pytest.raises(ValueError, match="unsupported device 'cuda'"):
        sa.zeros(2, device="cuda")
    with pytest.raises(ValueError, match="unsupported device 'cpu'"):
        sa.ones(2).to_device("cpu")


def test_asarray_from_python_objects():
    assert_same(sa.asarray([[1, 2], [3, 4]]), np.asarray([[1, 2], [3, 4]]))
    assert_same(sa.asarray([1, 2.5]), np.asarray([1, 2.5]))
    assert_same(sa.asarray([True, False]), np.asarray([True, False]))
    assert_same(sa.asarray([True, 2]), np.asarray([True, 2]))
    assert_same(sa.asarray(((1.0,), (2.0,))), np.asarray(((1.0,), (2.0,))))
    assert_same(sa.asarray(3.0), np.asarray(3.0))
    assert_same(sa.asarray([]), np.asarray([]))
    assert_same(sa.asarray([[], []]), np.asarray([[], []]))
    assert_same(sa.asarray([1, 2], dtype=sa.float32), np.asarray([1, 2], np.float32))
    assert_same(sa.asarray([sa.asarray(1.0), sa.asarray(2.0)]), np.asarray([1.0, 2.0]))
    assert_same(sa.asarray([sa.ones(2), sa.zeros(2)]), np.asarray([np.ones(2), np.zeros(2)]))
    assert all(type(v) is float for v in sa.asarray([1, 2.5]).storage)


def test_asarray_ragged_names_the_dimension():
    with pytest.raises(ValueError, match="ragged nested sequence: at dimension 1 expected "
                                         "length 2, got length 1"):
        sa.asarray([[1, 2], [3]])
    with pytest.raises(ValueError, match="ragged nested sequence: dimension 1 mixes"):
        sa.asarray([[1, 2], 3])
    with pytest.raises(TypeError, match="unsupported element 'a'"):
        sa.asarray(["a"])
    with pytest.raises(TypeError, match="complex"):
        sa.asarray([1j])


def test_asarray_copy_semantics():
    x = sa.ones(3)
    assert sa.asarray(x) is x
    assert sa.asarray(x, copy=False) is x
    assert sa.asarray(x, copy=True).storage is not x.storage
    assert sa.asarray(x, dtype=sa.int64).dtype == sa.int64
    with pytest.raises(ValueError, match="float64 to int64 needs a copy, but copy=False"):
        sa.asarray(x, dtype=sa.int64, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        sa.asarray([1.0], copy=False)


# ------------------------------------------------------------------------ interop


def test_numpy_round_trip():
    for ref in [np.arange(6.0).reshape(2, 3), np.arange(6, dtype=np.float32).reshape(3, 2).T,
                np.array([True, False]), np.arange(4, dtype=np.int32), np.float64(2.5),
                np.zeros((2, 0)), np.array([0, 255], dtype=np.uint8),
                np.array([-128, 127], dtype=np.int8)]:
        x = sa.asarray(ref)
        assert x.shape == ref.shape
        assert x.dtype.name == ref.dtype.name
        back = np.asarray(x)
        np.testing.assert_array_equal(back, ref)
        assert back.dtype == ref.dtype
    view = sa.reshape(sa.arange(12.0), (3, 4))[::-1, 1::2]
    np.testing.assert_array_equal(np.asarray(view), np.arange(12.0).reshape(3, 4)[::-1, 1::2])
    assert np.asarray(view, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="without a copy"):
        np.asarray(view, copy=False)


def test_numpy_operands_are_not_silently_mixed():
    with pytest.raises(TypeError):
        sa.ones(2) + np.ones(2)
    with pytest.raises(TypeError):
        np.ones(2) + sa.ones(2)


def test_array_api_namespace():
    import array_api_compat

    x = sa.ones((2, 2))
    assert x.__array_namespace__() is sa
    assert x.__array_namespace__(api_version="2023.12") is sa
    assert array_api_compat.array_namespace(x) is sa
    with pytest.raises(ValueError, match="unsupported Array API version '1999.01'"):
        x.__array_namespace__(api_version="1999.01")
    assert sa.__array_api_version__ == "2023.12"
    assert set(sa.__all__) <= set(dir(sa))
    assert math.isnan(sa.nan) and sa.inf == math.inf and sa.newaxis is None


def test_namespace_code_runs_the_same_on_numpy():
    """A log-softmax written against the namespace of its input, as the Tensor layer does."""

    def log_softmax(x):
        xp = x.__array_namespace__()
        m = xp.max(x, axis=-1, keepdims=True)
        z = x - m
        return z - xp.log(xp.sum(xp.exp(z), axis=-1, keepdims=True))

    data = [[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]]
    assert_same(log_softmax(sa.asarray(data)), log_softmax(np.asarray(data)))


# -------------------------------------------------------------- in-place updates


def test_setitem_forms():
    x, r = pair((3, 4))
    for key, value in [
        ((0, 0), 9.0), ((slice(None), 1), sa.asarray([1.0, 2.0, 3.0])),
        ((Ellipsis, slice(None, None, -2)), sa.asarray([[5.0, 6.0]])),
        ((1,), 7), ((slice(None, None, -1), None, 2), -1.0),
    ]:
        x[key] = value
        r[key] = np.asarray(value)
        assert x.tolist() == r.tolist()
    x[...] = [[1, 2, 3, 4]] * 3
    assert x.tolist() == [[1.0, 2.0, 3.0, 4.0]] * 3
    assert all(type(v) is float for v in x.storage)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(2,\) "
                                         r"into shape \(3,\)"):
        x[:, 0] = sa.asarray([1.0, 2.0])


def test_setitem_reads_before_it_writes():
    x = sa.arange(5.0)
    x[1:] = x[:-1]
    assert x.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]


def test_inplace_operators_update_views_and_their_base():
    x = sa.reshape(sa.arange(6.0), (2, 3))
    col = x[:, 1]
    col *= 10
    col += sa.asarray([1.0, 2.0])
    assert x.tolist() == [[0.0, 11.0, 2.0], [3.0, 42.0, 5.0]]
    t = x.T
    t -= 1
    assert x.tolist() == [[-1.0, 10.0, 1.0], [2.0, 41.0, 4.0]]
    i = sa.arange(3)
    with pytest.raises(TypeError, match="float64 result of in-place divide in a int64 array"):
        i /= 2
    with pytest.raises(ValueError, match=r"output operand with shape \(3,\).*\(2, 3\)"):
        i += sa.ones((2, 3), dtype=sa.int64)


# ------------------------------------------------------------------ indexing errors


def test_indexing_errors():
    x = sa.ones((3, 4))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        x[0, -5]
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, "
                                         "but 3 were indexed"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(IndexError, match="only integers, slices.*float"):
        x[1.0]
    with pytest.raises(IndexError, match="only integers, slices.*bool"):
        x[True]
    with pytest.raises(IndexError, match=r"array of shape \(2,\)"):
        x[sa.asarray([0, 1])]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    assert x[np.int64(1)].shape == (4,)
    assert x[sa.asarray(2)].shape == (4,)


# ------------------------------------------------------------------ shape errors


def test_shape_errors_name_the_values():
    x = sa.ones((2, 3))
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with "
                                         r"shapes \(2, 3\) and \(4, 3\)"):
        x + sa.ones((4, 3))
    with pytest.raises(ValueError, match=r"cannot reshape array of shape \(2, 3\) \(size 6\) "
                                         r"into shape \(4,\)"):
        sa.reshape(x, (4,))
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*\(4, -1\)"):
        sa.reshape(x, (4, -1))
    with pytest.raises(ValueError, match=r"cannot broadcast shape \(2, 3\) to \(3, 3\)"):
        sa.broadcast_to(x, (3, 3))
    with pytest.raises(ValueError, match=r"cannot squeeze axis 1 of an array of shape "
                                         r"\(2, 3\): its size is 3, not 1"):
        sa.squeeze(x, axis=1)
    with pytest.raises(ValueError, match=r"axes \(0, 0\) is not a permutation of range\(2\)"):
        sa.permute_dims(x, (0, 0))
    with pytest.raises(sa.AxisError, match="axis 3 is out of bounds for array of dimension 3"):
        sa.expand_dims(x, axis=3)
    with pytest.raises(IndexError):  # AxisError is an IndexError too, as in NumPy
        sa.squeeze(x, axis=-3)
    assert sa.permute_dims(x, (-1, 0)).shape == (3, 2)
    assert sa.expand_dims(x, axis=(0, -1)).shape == (1, 2, 3, 1)
    assert sa.squeeze(sa.ones((1, 2, 1))).shape == (2,)


def test_wrong_kinds_are_type_errors():
    x = sa.ones(2)
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError, match="operands must be StridedArrays or Python scalars, "
                                        "got list"):
        sa.add(x, [1.0, 2.0])
    with pytest.raises(TypeError, match="at least one operand must be a StridedArray"):
        sa.add(1.0, 2.0)
    with pytest.raises(TypeError, match="expected a StridedArray, got list"):
        sa.exp([1.0])
    with pytest.raises(TypeError, match="expected a StridedArray, got list"):
        sa.sum([1.0])
    with pytest.raises(TypeError, match="axis must be an int, got float"):
        sa.sum(x, axis=0.0)
    with pytest.raises(TypeError, match="shape must be an int or a tuple of ints"):
        sa.zeros("abc")
    with pytest.raises(TypeError, match="boolean negative"):
        -sa.asarray([True])
    assert (x == "a") is False  # no elementwise comparison with strings, as Python defaults
