"""``StridedArray``: a flat Python list seen through ``(shape, strides, offset)``.

Every view (indexing, transpose, reshape, broadcast) is a new ``StridedArray``
over the *same* storage list; only operations that compute new values allocate
a new list, always contiguous and row-major.
"""

from __future__ import annotations

import operator
import sys

from . import layout
from ._dtypes import DType, as_dtype, bool_, float64, int64

__all__ = ["StridedArray", "AxisError", "normalize_axis", "normalize_axes"]

_SCALARS = (bool, int, float)
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2}
_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
_REPR_MAX = 1000


class AxisError(ValueError, IndexError):
    """An axis out of range for the array (a ValueError and an IndexError, as in NumPy)."""


def normalize_axis(axis, ndim: int) -> int:
    """Map an axis in ``[-ndim, ndim)`` to ``[0, ndim)``; AxisError names axis and ndim."""
    if isinstance(axis, bool) or not hasattr(axis, "__index__"):
        raise TypeError(f"axis must be an int, got {type(axis).__name__} {axis!r}")
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise AxisError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """``None`` -> all axes; an int or tuple of ints -> non-negative unique axes, in given order."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"duplicate value in 'axis': {tuple(axis)}")
        return axes
    return (normalize_axis(axis, ndim),)


def check_device(device) -> None:
    """Accept ``None`` or ``"python"``; anything else is a ValueError naming it."""
    if device is not None and device != "python":
        raise ValueError(
            f"unsupported device {device!r}: stridegrad.array arrays live on device 'python'"
        )


def as_shape(shape) -> tuple[int, ...]:
    """An int or a sequence of ints -> a shape tuple; negative sizes are a ValueError."""
    if hasattr(shape, "__index__") and not isinstance(shape, bool):
        shape = (operator.index(shape),)
    try:
        out = tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"negative dimensions are not allowed, got shape {out}")
    return out


class StridedArray:
    """An N-d array: ``storage[offset + sum(i*s for i, s in zip(index, strides))]``.

    Shape contract: ``len(shape) == len(strides) == ndim``; strides and offset
    count elements of ``storage``, a flat Python list shared by all views.

    Args:
        storage: the flat list of Python numbers (used as is, not copied).
        shape: sizes of the dimensions.
        strides: element strides; default row-major contiguous.
        offset: position of element ``(0, ..., 0)`` in ``storage``.
        dtype: a dtype; default inferred from the values in ``storage``. Values are
            Python numbers: ``float32`` is a label, not rounded to single precision.
    """

    __slots__ = ("_storage", "_shape", "_strides", "_offset", "_dtype", "_size", "_readonly",
                 "__weakref__")

    # NumPy: don't convert us inside ufuncs / operators, let our reflected methods run
    __array_ufunc__ = None
    __hash__ = None  # mutable, compares elementwise

    def __init__(self, storage, shape, strides=None, offset=0, dtype=None):
        if not isinstance(storage, list):
            raise TypeError(f"storage must be a list, got {type(storage).__name__}")
        shape = as_shape(shape)
        strides = layout.contiguous_strides(shape) if strides is None else tuple(
            operator.index(s) for s in strides
        )
        if len(strides) != len(shape):
            raise ValueError(
                f"strides {strides} do not match shape {shape}: "
                f"{len(strides)} strides for {len(shape)} dimensions"
            )
        offset = operator.index(offset)
        size = layout.numel(shape)
        if size:
            lo = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s < 0)
            hi = offset + sum((d - 1) * s for d, s in zip(shape, strides) if s > 0)
            if lo < 0 or hi >= len(storage):
                raise ValueError(
                    f"shape={shape}, strides={strides}, offset={offset} reach storage "
                    f"positions {lo} to {hi}, but storage has {len(storage)} elements"
                )
        if dtype is None:
            dtype = _infer_dtype(storage)
        else:
            dtype = as_dtype(dtype)
            for v in storage:
                if type(v) is not dtype.type:
                    raise TypeError(
                        f"storage holds {type(v).__name__} {v!r} but dtype {dtype} stores "
                        f"Python {dtype.type.__name__} values; convert the storage first"
                    )
        self._storage = storage
        self._shape = shape
        self._strides = strides
        self._offset = offset
        self._dtype = dtype
        self._size = size
        self._readonly = False

    # ----------------------------------------------------------------- attributes
    @property
    def storage(self) -> list:
        """The flat list shared by every view of this array."""
        return self._storage

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in elements (NumPy's ``strides // itemsize``)."""
        return self._strides

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> DType:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return self._size

    @property
    def device(self) -> str:
        return "python"

    @property
    def readonly(self) -> bool:
        """True for broadcast views (several indices share one element), as in NumPy."""
        return self._readonly

    @property
    def T(self) -> StridedArray:
        """Transpose of a 2-D array (a view). ``(M, N) -> (N, M)``."""
        if self.ndim != 2:
            raise ValueError(
                f"x.T needs a 2-D array, got {self.ndim}-D shape {self._shape}; "
                f"use permute_dims(x, axes) or matrix_transpose(x)"
            )
        return view(self, self._shape[::-1], self._strides[::-1], self._offset)

    @property
    def mT(self) -> StridedArray:
        """Transpose of the last two axes (a view). ``(..., M, N) -> (..., N, M)``."""
        if self.ndim < 2:
            raise ValueError(f"x.mT needs at least 2 dimensions, got shape {self._shape}")
        shape, strides = self._shape, self._strides
        return view(self, shape[:-2] + (shape[-1], shape[-2]),
                     strides[:-2] + (strides[-1], strides[-2]), self._offset)

    # ------------------------------------------------------------------- methods
    def is_contiguous(self) -> bool:
        """Whether the elements are ``storage[offset : offset + size]`` in row-major order."""
        return layout.is_contiguous(self._shape, self._strides)

    def contiguous(self) -> StridedArray:
        """This array if it is contiguous, else a row-major copy. Same shape."""
        if self.is_contiguous():
            return self
        return from_values(values(self), self._shape, self._dtype)

    def copy(self) -> StridedArray:
        """A contiguous copy with its own storage. Same shape and dtype."""
        return from_values(values(self), self._shape, self._dtype)

    def tolist(self):
        """Nested Python lists (a Python scalar for a 0-d array)."""
        return nest(values(self), self._shape)

    def item(self):
        """The single element as a Python scalar; the array must have size 1."""
        if self._size != 1:
            raise ValueError(
                f"can only convert an array of size 1 to a Python scalar, got shape {self._shape}"
            )
        return self._storage[layout.index_to_offset((0,) * self.ndim, self._strides, self._offset)]

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __bool__(self) -> bool:
        if self._size != 1:
            raise ValueError(
                f"the truth value of an array with {self._size} elements (shape {self._shape}) "
                f"is ambiguous; use any() or all()"
            )
        return bool(self.item())

    def __index__(self) -> int:
        if self.ndim != 0 or self._dtype.kind not in "iu":
            raise TypeError(
                f"only 0-d integer arrays can be used as an index, got shape {self._shape} "
                f"dtype {self._dtype}"
            )
        return self.item()

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        for i in range(self._shape[0]):
            yield self[i]

    def __array_namespace__(self, /, *, api_version=None):
        if api_version is not None and api_version not in _API_VERSIONS:
            raise ValueError(
                f"unsupported Array API version {api_version!r}; supported: {_API_VERSIONS}"
            )
        return sys.modules["stridegrad.array"]

    def to_device(self, device, /, *, stream=None) -> StridedArray:
        check_device(device)
        return self

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Not supported (a named deviation): the storage is a list of Python objects."""
        raise BufferError(
            "a StridedArray cannot be exported through DLPack: its storage is a Python list "
            "of numbers, not a buffer; convert with numpy.asarray(x) (a copy) instead"
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        """``(1, 0)``: DLPack's CPU device, where the Python list lives."""
        return (1, 0)

    def __array__(self, dtype=None, copy=None):
        import numpy as np  # only when NumPy asks for us

        if copy is False:
            raise ValueError(
                "a StridedArray cannot be shared with NumPy without a copy (copy=False)"
            )
        vals = values(self)
        if self._dtype.kind in "iu":
            vals = wrap_ints(vals, self._dtype)  # what a fixed-width array would hold
        out = np.array(vals, dtype=np.dtype(self._dtype.name))
        out = out.reshape(self._shape)
        return out if dtype is None else out.astype(dtype, copy=False)

    def __repr__(self) -> str:
        data = (
            repr(self.tolist()) if self._size <= _REPR_MAX else f"<{self._size} elements>"
        )
        return (
            f"StridedArray({data}, shape={self._shape}, strides={self._strides}, "
            f"offset={self._offset}, dtype={self._dtype})"
        )

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key) -> StridedArray:
        """Basic indexing (ints, slices, ``...``, ``None``) is a view, never a copy.

        A boolean array in the key (a mask over as many axes as it has) selects the
        positions where it is true, along one new axis: that result is a copy.
        """
        masked = mask_offsets(self, key) if _may_mask(key) else None
        if masked is not None:
            shape, offsets = masked
            return from_values(list(map(self._storage.__getitem__, offsets)), shape,
                               self._dtype)
        shape, strides, offset = index_layout(self, key)
        return view(self, shape, strides, offset)

    def __setitem__(self, key, value) -> None:
        """Write ``value`` (broadcast to the selection) into the storage, in place."""
        masked = mask_offsets(self, key) if _may_mask(key) else None
        if masked is not None:
            shape, offsets = masked
            target = from_values([self._dtype.type(0)] * len(offsets), shape, self._dtype)
            target._readonly = self._readonly
            write(target, value)
            storage = self._storage
            for o, v in zip(offsets, target._storage):
                storage[o] = v
            return
        shape, strides, offset = index_layout(self, key)
        target = view(self, shape, strides, offset)
        write(target, value)

    # ----------------------------------------------------------------- operators
    # bodies live in the function modules; they are bound at the end of this module
    def __neg__(self):
        return _ew.negative(self)

    def __pos__(self):
        return _ew.positive(self)

    def __abs__(self):
        return _ew.abs(self)

    def __invert__(self):
        return _ew.logical_not(self) if self._dtype == bool_ else _ew.bitwise_invert(self)


def _namespace():
    return sys.modules["stridegrad.array"]


def _binary_method(name: str, reflected: bool = False):
    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        fn = getattr(_namespace(), name)
        return fn(other, self) if reflected else fn(self, other)

    method.__name__ = name
    return method


def _inplace_method(name: str):
    def method(self, other):
        if not is_operand(other):
            return NotImplemented
        result = getattr(_namespace(), name)(self, other)
        if result.shape != self._shape:
            raise ValueError(
                f"non-broadcastable output operand with shape {self._shape} doesn't match "
                f"the broadcast shape {result.shape}"
            )
        if _KIND_RANK[result.dtype.kind] > _KIND_RANK[self._dtype.kind]:
            raise TypeError(
                f"cannot store the {result.dtype} result of in-place {name} in a "
                f"{self._dtype} array"
            )
        write(self, result)
        return self

    method.__name__ = f"i{name}"
    return method


for _dunder, _fn in [
    ("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"),
    ("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow"), ("matmul", "matmul"),
    ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
    ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift"),
]:
    setattr(StridedArray, f"__{_dunder}__", _binary_method(_fn))
    setattr(StridedArray, f"__r{_dunder}__", _binary_method(_fn, reflected=True))
    if _dunder != "matmul":
        setattr(StridedArray, f"__i{_dunder}__", _inplace_method(_fn))
for _dunder, _fn in [
    ("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
    ("gt", "greater"), ("ge", "greater_equal"),
]:
    setattr(StridedArray, f"__{_dunder}__", _binary_method(_fn))
del _dunder, _fn


# ---------------------------------------------------------------- helpers


def is_operand(x) -> bool:
    """Whether ``x`` can take part in arithmetic with a StridedArray."""
    return isinstance(x, (StridedArray, bool, int, float))


def _infer_dtype(vals) -> DType:
    types = set(map(type, vals))
    if not types:
        return float64
    if types <= {bool}:
        return bool_
    if types <= {bool, int}:
        return int64
    if types <= {bool, int, float}:
        return float64
    bad = next(v for v in vals if type(v) not in _SCALARS)
    raise TypeError(f"unsupported element {bad!r} of type {type(bad).__name__}")


def new(storage: list, shape, strides, offset: int, dtype: DType, readonly: bool = False):
    """Make a StridedArray without validation (internal: the caller guarantees the layout)."""
    a = object.__new__(StridedArray)
    a._storage = storage
    a._shape = shape
    a._strides = strides
    a._offset = offset
    a._dtype = dtype
    a._size = layout.numel(shape)
    a._readonly = readonly
    return a


def view(x: StridedArray, shape, strides, offset, readonly=None) -> StridedArray:
    """A view of ``x``'s storage with another layout (inherits read-only unless told)."""
    ro = x._readonly if readonly is None else readonly
    return new(x._storage, tuple(shape), tuple(strides), offset, x._dtype, ro)


def from_values(vals: list, shape, dtype: DType) -> StridedArray:
    """A contiguous array that owns ``vals`` (a fresh list in row-major order)."""
    shape = tuple(shape)
    return new(vals, shape, layout.contiguous_strides(shape), 0, dtype)


def from_zero(x: StridedArray) -> tuple[list, tuple]:
    """``x`` as lessons 04 and 05's kernels read an operand (``broadcast_binary``,
    ``matmul_2d``): a storage list whose position 0 is ``x``'s first element, and
    ``x``'s strides into it, all >= 0. Its own storage and strides when its view starts
    at position 0 with no negative stride, else a row-major copy of its values."""
    if x._offset == 0 and min(x._strides, default=0) >= 0:
        return x._storage, x._strides
    return values(x), layout.contiguous_strides(x._shape)


def values(x: StridedArray) -> list:
    """The elements of ``x`` in row-major order, as a new list."""
    if layout.is_contiguous(x._shape, x._strides):
        o = x._offset
        return x._storage[o : o + x._size]
    return list(map(x._storage.__getitem__, layout.iter_offsets(x._shape, x._strides, x._offset)))


def gather(x: StridedArray, shape: tuple) -> list:
    """The elements of ``x`` broadcast to ``shape``, in row-major order, as a new list."""
    if x._shape == shape:
        return values(x)
    n = layout.numel(shape)
    if x._size == 1:
        return [x.item()] * n
    lead = len(shape) - len(x._shape)
    if shape[lead:] == x._shape:
        # broadcasting over new leading axes only: repeat the whole block
        return values(x) * layout.numel(shape[:lead])
    strides = layout.broadcast_strides(x._shape, x._strides, shape)
    return list(map(x._storage.__getitem__, layout.iter_offsets(shape, strides, x._offset)))


def nest(vals: list, shape: tuple):
    """Flat row-major values -> nested lists of ``shape`` (a scalar for ``()``)."""
    if not shape:
        return vals[0]
    if 0 in shape:
        def empty(s):
            return [] if s[0] == 0 else [empty(s[1:]) for _ in range(s[0])]
        return empty(shape)
    for d in reversed(shape[1:]):
        vals = [vals[i : i + d] for i in range(0, len(vals), d)]
    return vals


def wrap_ints(vals: list, dtype: DType) -> list:
    """Python ints wrapped into ``dtype``'s range modulo ``2**bits``, as fixed-width ints wrap."""
    bits = 8 * dtype.itemsize
    lo = -(1 << (bits - 1)) if dtype.kind == "i" else 0
    hi = lo + (1 << bits)
    if all(lo <= v < hi for v in vals):
        return vals
    return [(v - lo) % (1 << bits) + lo for v in vals]


def cast_values(vals: list, dtype: DType) -> list:
    """Convert Python numbers to the type ``dtype`` stores (float, int or bool)."""
    return list(map(dtype.type, vals))


def write(target: StridedArray, value) -> None:
    """Store ``value`` (array or scalar, broadcast to ``target.shape``) in ``target``'s storage."""
    if target._readonly:
        raise ValueError(
            "assignment destination is read-only (a broadcast view: several indices share "
            "one element); copy it first"
        )
    if isinstance(value, StridedArray):
        if value._shape != target._shape:
            try:
                layout.broadcast_strides(value._shape, value._strides, target._shape)
            except ValueError:
                raise ValueError(
                    f"could not broadcast input array from shape {value._shape} "
                    f"into shape {target._shape}"
                ) from None
        vals = gather(value, target._shape)
        if value._dtype.kind != target._dtype.kind:
            vals = cast_values(vals, target._dtype)
    elif isinstance(value, _SCALARS):
        vals = [target._dtype.type(value)] * target._size
    else:
        # nested lists, NumPy arrays, ...
        from ._creation import asarray

        write(target, asarray(value))
        return
    storage = target._storage
    if layout.is_contiguous(target._shape, target._strides):
        storage[target._offset : target._offset + target._size] = vals
    else:
        offsets = layout.iter_offsets(target._shape, target._strides, target._offset)
        for o, v in zip(offsets, vals):
            storage[o] = v


_BAD_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`) and None are valid indices "
    "(no advanced indexing)"
)


def _may_mask(key) -> bool:
    """Cheap pre-check (indexing is a hot path): does the key hold any array at all?"""
    if type(key) is tuple:
        for k in key:
            if type(k) is StridedArray:
                return True
        return False
    return type(key) is StridedArray


def _is_mask(k) -> bool:
    return isinstance(k, StridedArray) and k._dtype == bool_


def mask_offsets(x: StridedArray, key):
    """For a key holding one boolean array: (result shape, storage offsets), else None.

    The mask covers ``mask.ndim`` axes of ``x`` starting where it stands in the
    key; they become one axis of length ``count_nonzero(mask)``, the other
    entries of the key index as usual. ``(2, 3, 4)[:, mask(3, 4)] -> (2, k)``.
    """
    parts = key if isinstance(key, tuple) else (key,)
    at = [i for i, k in enumerate(parts) if _is_mask(k)]
    if not at:
        return None
    if len(at) > 1:
        raise IndexError(f"{_BAD_INDEX}; only one boolean array may appear in an index")
    i = at[0]
    mask = parts[i]
    basic = parts[:i] + (slice(None),) * mask.ndim + parts[i + 1 :]
    shape, strides, offset = index_layout(x, basic)
    # result axes made by the entries before the mask
    before = 0
    consumed = sum(mask.ndim if _is_mask(k) else 1 for k in parts
                   if k is not None and k is not Ellipsis)
    for k in parts[:i]:
        if k is None or isinstance(k, slice):
            before += 1
        elif k is Ellipsis:
            before += len(x._shape) - consumed
    span = shape[before : before + mask.ndim]
    # a mask axis of length 0 selects nothing, whatever the size of the axis (as NumPy)
    if any(m not in (d, 0) for m, d in zip(mask._shape, span)):
        raise IndexError(
            f"boolean index of shape {mask._shape} does not match the indexed dimensions "
            f"{span} of the array of shape {x._shape}"
        )
    mstrides = strides[before : before + mask.ndim]
    picked = [p for p, m in zip(layout.iter_offsets(mask._shape, mstrides, 0), values(mask)) if m]
    outer = layout.iter_offsets(shape[:before], strides[:before], offset)
    inner = layout.iter_offsets(shape[before + mask.ndim :], strides[before + mask.ndim :], 0)
    offsets = [o + p + q for o in outer for p in picked for q in inner]
    return shape[:before] + (len(picked),) + shape[before + mask.ndim :], offsets


def index_layout(x: StridedArray, key) -> tuple[tuple, tuple, int]:
    """Layout ``(shape, strides, offset)`` selected by a basic index ``key``."""
    if not isinstance(key, tuple):
        key = (key,)
    consumed = 0
    ellipses = 0
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            ellipses += 1
        elif isinstance(k, slice):
            consumed += 1
        elif isinstance(k, bool) or not hasattr(k, "__index__"):
            raise IndexError(f"{_BAD_INDEX}, got {type(k).__name__} {k!r}")
        elif isinstance(k, StridedArray) and k.ndim != 0:
            raise IndexError(f"{_BAD_INDEX}, got an array of shape {k.shape}")
        else:
            consumed += 1
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    ndim = len(x._shape)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    if ellipses:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (ndim - consumed) + key[at + 1 :]
    else:
        key = key + (slice(None),) * (ndim - consumed)

    shape, strides = [], []
    offset = x._offset
    axis = 0
    for k in key:
        if k is None:
            shape.append(1)
            strides.append(0)
        elif isinstance(k, slice):
            delta, n, s = layout.slice_layout(x._shape[axis], x._strides[axis], k)
            offset += delta
            shape.append(n)
            strides.append(s)
            axis += 1
        else:
            i = operator.index(k)
            d = x._shape[axis]
            j = i + d if i < 0 else i
            if not 0 <= j < d:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {d}")
            offset += j * x._strides[axis]
            axis += 1
    return tuple(shape), tuple(strides), offset


# The operator bodies live here; imported last because they import this module.
from . import _elementwise as _ew  # noqa: E402
