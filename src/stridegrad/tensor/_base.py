"""Layer 1 of :mod:`stridegrad.tensor`: dtypes, grad mode and the shape rules.

The one home of the grad-mode flag ``_grad_enabled``: every layer above reads it
here (``_base._grad_enabled``), so ``no_grad`` switches all of them at once.
"""

from __future__ import annotations

import contextlib
import operator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from stridegrad.tensor._tensor import Tensor

Shape = tuple[int, ...]


# --------------------------------------------------------------------------- dtypes


class DType:
    """A device-independent dtype (``sg.float32``); mapped to each namespace by name."""

    __slots__ = ("itemsize", "kind", "name")

    def __init__(self, name: str, kind: str, itemsize: int) -> None:
        self.name = name
        self.kind = kind  # "b" bool, "i" signed int, "u" unsigned, "f" float, "c" complex
        self.itemsize = itemsize

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    def __repr__(self) -> str:
        return f"stridegrad.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)


_DTYPES: dict[str, DType] = {}
for _name, _kind, _size in [
    ("bool", "b", 1),
    ("int8", "i", 1),
    ("int16", "i", 2),
    ("int32", "i", 4),
    ("int64", "i", 8),
    ("uint8", "u", 1),
    ("uint16", "u", 2),
    ("uint32", "u", 4),
    ("uint64", "u", 8),
    ("float16", "f", 2),
    ("float32", "f", 4),
    ("float64", "f", 8),
    ("complex64", "c", 8),
    ("complex128", "c", 16),
]:
    _DTYPES[_name] = DType(_name, _kind, _size)

float32 = _DTYPES["float32"]
float64 = _DTYPES["float64"]
int64 = _DTYPES["int64"]
bool_ = _DTYPES["bool"]

_dtype_cache: dict[tuple[int, Any], DType] = {}


def _as_dtype(obj: Any) -> DType:
    """A DType from a DType, a name (``"float32"``) or a NumPy dtype-like."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, str) and obj in _DTYPES:
        return _DTYPES[obj]
    try:
        name = np.dtype(obj).name
    except TypeError:
        name = None
    if name in _DTYPES:
        return _DTYPES[name]
    raise TypeError(f"unsupported dtype {obj!r}; use one of {sorted(_DTYPES)}")


def _dtype_of(xp: ModuleType, array_dtype: Any) -> DType:
    """The DType of an array dtype of namespace ``xp`` (cached)."""
    try:
        key = (id(xp), array_dtype)
        cached = _dtype_cache.get(key)
    except TypeError:  # unhashable dtype object
        key, cached = None, None
    if cached is not None:
        return cached
    found = None
    for name, dt in _DTYPES.items():
        candidate = getattr(xp, name, None)
        if candidate is not None and array_dtype == candidate:
            found = dt
            break
    if found is None:
        tail = str(array_dtype).rsplit(".", 1)[-1]
        if tail not in _DTYPES:
            raise TypeError(f"unsupported array dtype {array_dtype!r}")
        found = _DTYPES[tail]
    if key is not None:
        _dtype_cache[key] = found
    return found


def _xp_dtype(xp: ModuleType, dtype: DType, device: str) -> Any:
    try:
        return getattr(xp, dtype.name)
    except AttributeError:
        raise TypeError(f"dtype {dtype.name} is not supported on device {device!r}") from None


_kind_cache: dict[tuple[int, Any], str] = {}


def _kind(t: Tensor) -> str:
    """Dtype kind letter of a tensor, cached by array dtype (hot path of scalar ops)."""
    key = (id(t._xp), t._data.dtype)  # namespaced: dtypes of different libraries never meet
    try:
        return _kind_cache[key]
    except KeyError:
        kind = _dtype_of(t._xp, key[1]).kind
        _kind_cache[key] = kind
        return kind
    except TypeError:
        return _dtype_of(t._xp, key[1]).kind


# --------------------------------------------------------------------------- grad mode

_grad_enabled = True


def is_grad_enabled() -> bool:
    """Whether ops currently record a graph."""
    return _grad_enabled


class _GradMode(contextlib.ContextDecorator):
    _mode = True

    def __enter__(self) -> None:
        global _grad_enabled
        self._prev = _grad_enabled
        _grad_enabled = self._mode

    def __exit__(self, *exc: object) -> None:
        global _grad_enabled
        _grad_enabled = self._prev


class no_grad(_GradMode):
    """Context manager and decorator: ops inside record no graph (results do not require grad).

    >>> with no_grad():
    ...     y = x * 2          # y.requires_grad is False
    """

    _mode = False


class enable_grad(_GradMode):
    """Context manager and decorator that turns graph recording back on inside ``no_grad``."""

    _mode = True


# --------------------------------------------------------------------------- shapes


def _broadcast_shapes(sa: Shape, sb: Shape) -> Shape:
    """NumPy broadcasting of two shapes; ValueError naming both when they do not broadcast."""
    n = max(len(sa), len(sb))
    pa = (1,) * (n - len(sa)) + tuple(sa)
    pb = (1,) * (n - len(sb)) + tuple(sb)
    out = []
    for da, db in zip(pa, pb):
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ValueError(f"shapes {tuple(sa)} and {tuple(sb)} cannot be broadcast together")
    return tuple(out)


def _bcast_error(sa: Shape, sb: Shape, exc: Exception) -> Exception:
    """Turn a backend's broadcasting ValueError into ours (naming both shapes)."""
    try:
        _broadcast_shapes(sa, sb)
    except ValueError as ours:
        ours.__cause__ = exc
        return ours
    return exc


def _norm_axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    """Normalise an axis argument (int, tuple, None) to a sorted tuple of non-negative ints."""
    if axis is None:
        return None
    items = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = []
    for a in items:
        try:
            a = operator.index(a)
        except TypeError:
            raise TypeError(f"an axis is an int, got {type(a).__name__}: {a!r}") from None
        if not -ndim <= a < ndim:
            raise IndexError(
                f"axis {a} is out of range for a tensor with {ndim} dimension(s) "
                f"(expected {-ndim}..{ndim - 1})"
            )
        a %= ndim
        if a in out:
            raise ValueError(f"axis {a} repeated in {axis!r}")
        out.append(a)
    return tuple(sorted(out))


def _axis_args(axis: Any, keepdims: Any, dim: Any, keepdim: Any) -> tuple[Any, bool]:
    """Merge the NumPy (axis, keepdims) and PyTorch (dim, keepdim) spellings."""
    if dim is not None:
        if axis is not None:
            raise TypeError("pass either axis= or dim=, not both")
        axis = dim
    if keepdim is not None:
        keepdims = keepdim
    return axis, bool(keepdims)


def _size_args(size: tuple[Any, ...], fn: str) -> Shape:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape ``(2, 3)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"{fn}: sizes are ints, got {size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{fn}: negative dimension in shape {shape}")
    return shape

