"""Layer 4 of :mod:`stridegrad.tensor`: the thin user-facing ``Tensor``.

Its ops build the layer-2 nodes and ``backward()`` runs the layer-3 engine; the
grad-mode flag is read from its one home, :mod:`stridegrad.tensor._base`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np

from stridegrad import backend
from stridegrad.tensor import _base, _nodes
from stridegrad.tensor._base import (
    DType,
    Shape,
    _DTYPES,
    _as_dtype,
    _axis_args,
    _bcast_error,
    _broadcast_shapes,
    _dtype_of,
    _kind,
    _norm_axes,
    _xp_dtype,
    bool_,
    float32,
    float64,
    int64,
)
from stridegrad.tensor._engine import _run_backward
from stridegrad.tensor._nodes import (
    AbsBackward,
    AccumulateGrad,
    AddBackward,
    CastBackward,
    DivBackward,
    ExpBackward,
    IndexBackward,
    LogBackward,
    MatMulBackward,
    MaxBackward,
    MeanBackward,
    MinBackward,
    MulBackward,
    NegBackward,
    Node,
    PermuteBackward,
    PowBackward,
    ReluBackward,
    ReshapeBackward,
    SigmoidBackward,
    SliceBackward,
    SqrtBackward,
    SubBackward,
    SumBackward,
    TanhBackward,
    ToDeviceBackward,
    _edge,
)

# --------------------------------------------------------------------------- Tensor helpers

_new = object.__new__


def _wrap(data: Any, device: str, xp: ModuleType, node: Node | None) -> Tensor:
    t = _new(Tensor)
    t._data = data
    t._device = device
    t._xp = xp
    t._requires_grad = node is not None
    t._grad = None
    t.grad_fn = node
    return t


_nodes._wrap = _wrap  # AccumulateGrad (layer 2) makes gradients with it


def _device_error(x: Tensor, y: Tensor) -> RuntimeError:
    return RuntimeError(
        "expected all tensors to be on the same device, but found at least two devices, "
        f"{x._device!r} and {y._device!r}; move one with .to({x._device!r})"
    )


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _promote_dtypes(dtypes: list[DType]) -> DType:
    """The dtype several tensors are promoted to: bool < int < float, then the wider
    (the first of equal rank wins)."""
    best = dtypes[0]
    kb = (_RANK[best.kind], best.itemsize)
    for d in dtypes[1:]:
        kd = (_RANK[d.kind], d.itemsize)
        if kd > kb:
            best, kb = d, kd
    return best


def _promote(x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """Cast the 'smaller' of two tensors to the other's dtype (bool < int < float)."""
    dx, dy = x.dtype, y.dtype
    if _promote_dtypes([dx, dy]) is dx:
        return x, y._cast(dx)
    return x._cast(dy), y


def _pair(x: Tensor, y: Any) -> tuple[Tensor, Any]:
    """Operands of a binary op: ``y`` becomes a same-device, same-dtype Tensor or a Python number."""
    if isinstance(y, Tensor):
        if y._device != x._device:
            raise _device_error(x, y)
        dx, dy = x._data.dtype, y._data.dtype
        if dx is not dy and dx != dy:
            return _promote(x, y)
        return x, y
    if isinstance(y, np.generic):  # NumPy scalars act as Python scalars (weak dtypes)
        y = y.item()
    if isinstance(y, (int, float)):
        k = _kind(x)
        if k != "f":
            if isinstance(y, float):
                x = x._cast(float32)
            elif k == "b" and y.__class__ is not bool:
                x = x._cast(int64)
        return x, y
    if isinstance(y, complex):
        raise TypeError("complex scalars are not supported")
    try:
        yt = Tensor(y, device=x._device)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"unsupported operand type {type(y).__name__} for a Tensor op") from exc
    return _pair(x, yt)


def _needs(x: Tensor, y: Any) -> bool:
    return _base._grad_enabled and (x._requires_grad or (isinstance(y, Tensor) and y._requires_grad))


def _binary(x: Tensor, y: Any, op, node_cls, swap: bool = False) -> Tensor:
    """Shared body of ``+ - * / **``: broadcasting errors, node creation, scalar operands.

    ``swap`` computes ``y op x`` for reflected operators with a Python-number ``y``.
    """
    x, y = _pair(x, y)
    a = x._data
    if isinstance(y, Tensor):
        b = y._data
        try:
            out = op(a, b)
        except ValueError as exc:
            raise _bcast_error(a.shape, b.shape, exc) from exc
        if _base._grad_enabled and (x._requires_grad or y._requires_grad):
            s = out.shape
            sa = a.shape
            sb = b.shape
            return _wrap(
                out,
                x._device,
                x._xp,
                _make_node(
                    node_cls,
                    (_edge(x), _edge(y)),
                    x._xp,
                    a,
                    b,
                    out,
                    sa if sa != s else None,
                    sb if sb != s else None,
                ),
            )
        return _wrap(out, x._device, x._xp, None)
    if swap:
        out = op(y, a)
        if _base._grad_enabled and x._requires_grad:
            return _wrap(
                out,
                x._device,
                x._xp,
                _make_node(node_cls, (None, _edge(x)), x._xp, y, a, out, None, None),
            )
    else:
        out = op(a, y)
        if _base._grad_enabled and x._requires_grad:
            return _wrap(
                out,
                x._device,
                x._xp,
                _make_node(node_cls, (_edge(x), None), x._xp, a, y, out, None, None),
            )
    return _wrap(out, x._device, x._xp, None)


def _make_node(cls, edges, xp, a, b, out, sa, sb):
    if cls is AddBackward or cls is SubBackward:
        return cls(edges, xp, sa, sb)
    if cls is PowBackward:
        return cls(edges, xp, a, b, out, sa, sb)
    return cls(edges, xp, a, b, sa, sb)


def _normalize_key(key: Any, shape: Shape) -> tuple:
    """Validate a basic index and make it a full tuple (ellipsis added, as the Array API wants)."""
    out, consumed, has_ellipsis = _parse_key(key, shape, advanced=False)
    if not has_ellipsis and consumed < len(shape):
        out.append(Ellipsis)
    return tuple(out)


def _parse_key(key: Any, shape: Shape, advanced: bool) -> tuple[list, int, bool]:
    """Check an index against ``shape``: its entries (ints made ints; with ``advanced``,
    integer and boolean arrays made NumPy arrays), how many dimensions they index,
    and whether there is an ellipsis. Out-of-bounds entries name index, dim and size.
    """
    if not isinstance(key, tuple):
        key = (key,)
    ndim = len(shape)
    out: list[Any] = []
    consumed = 0
    has_ellipsis = False
    for pos, k in enumerate(key):
        if k is None or isinstance(k, slice):
            consumed += k is not None
        elif k is Ellipsis:
            if has_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            has_ellipsis = True
        elif advanced and _is_array_index(k):
            k = _host_index(k, pos)
            consumed += k.ndim if k.dtype.kind == "b" else 1
        else:
            try:
                if isinstance(k, (bool, np.bool_)):
                    raise TypeError
                k = operator.index(k)
            except TypeError:
                raise IndexError(
                    "indices are ints, slices, None, ..., or integer/boolean arrays; "
                    f"entry {pos} is {type(k).__name__}"
                ) from None
            consumed += 1
        out.append(k)
    if consumed > ndim:
        raise IndexError(f"too many indices for a tensor of shape {shape}: {consumed} given")
    dim = 0
    for k in out:
        if k is None:
            continue
        if k is Ellipsis:
            dim += ndim - consumed
        elif isinstance(k, np.ndarray) and k.dtype.kind == "b":
            part = shape[dim : dim + k.ndim]
            if k.shape != part:
                raise IndexError(
                    f"boolean index of shape {k.shape} does not match the tensor's shape "
                    f"{part} at dimension {dim} (tensor shape {shape})"
                )
            dim += k.ndim
        else:
            if not isinstance(k, slice) and np.size(k):
                size = shape[dim]
                lo, hi = int(np.min(k)), int(np.max(k))
                if hi >= size or lo < -size:
                    raise IndexError(
                        f"index {hi if hi >= size else lo} is out of bounds for dimension "
                        f"{dim} with size {size}"
                    )
            dim += 1
    return out, consumed, has_ellipsis


# --------------------------------------------------------------------------- integer-array indexing


def _is_array_index(k: Any) -> bool:
    """Whether one entry of an index key makes the key advanced (NumPy's rules)."""
    if isinstance(k, (list, tuple, range, bool, np.bool_)):
        return True
    if isinstance(k, Tensor):
        return k._data.ndim > 0 or _kind(k) == "b"
    if isinstance(k, np.ndarray) or hasattr(k, "__array_namespace__"):
        return k.ndim > 0 or "bool" in str(k.dtype)
    return False


def _has_array_index(key: Any) -> bool:
    if isinstance(key, tuple):
        return any(_is_array_index(k) for k in key)
    return _is_array_index(key)


def _host_index(k: Any, pos: int) -> np.ndarray:
    """An array-like index entry as a NumPy int64 or bool array (indices are read on the host)."""
    if isinstance(k, Tensor):
        a = np.asarray(backend.to_numpy(k._data, k._device))
    elif hasattr(k, "__array_namespace__") and not isinstance(k, np.ndarray):
        a = np.asarray(backend._generic_to_host(k))
    else:
        try:
            a = np.asarray(k)
        except ValueError:
            raise IndexError(f"index entry {pos} is a ragged sequence: {k!r}") from None
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind in "iu" or a.size == 0:  # [] indexes nothing, as in NumPy
        return a.astype(np.int64, copy=False)
    raise IndexError(
        f"arrays used as indices must hold integers or booleans; index entry {pos} has "
        f"dtype {a.dtype}"
    )


def _advanced_positions(key: Any, shape: Shape) -> np.ndarray:
    """For ``x[key]`` with integer or boolean arrays in ``key``: the flat (row-major) position
    in ``x`` of every element of the result, as an int64 array of the result's shape.

    NumPy applies its own advanced-indexing rules (broadcasting of the index arrays,
    where their dimensions go, masks) to stride-0 views of ``arange(n) * stride`` for
    each dimension, so the work is proportional to the result, not to ``x``.
    Bounds are checked first, so errors name the index, its dimension and the size.
    """
    ndim = len(shape)
    host, _, _ = _parse_key(key, shape, advanced=True)
    hkey = tuple(host)
    if ndim == 0:
        return np.zeros((), dtype=np.int64)[hkey]
    pos_arr = None
    stride = 1
    for d in range(ndim - 1, -1, -1):
        size = shape[d]
        axis = np.arange(size, dtype=np.int64) * stride
        grid = np.broadcast_to(axis.reshape((1,) * d + (size,) + (1,) * (ndim - d - 1)), shape)
        part = grid[hkey]
        pos_arr = part if pos_arr is None else pos_arr + part
        stride *= size
    return pos_arr



def _index_advanced(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` with integer or boolean arrays: one ``take`` from the flattened data."""
    shape = x.shape
    pos = _advanced_positions(key, shape)
    xp = x._xp
    flat_pos = pos.reshape(-1)
    index = backend.from_numpy(flat_pos, x._device)
    flat = xp.reshape(x._data, (math.prod(shape),))
    out = xp.reshape(xp.take(flat, index, axis=0), pos.shape)
    node = None
    if _base._grad_enabled and x._requires_grad:
        node = IndexBackward((_edge(x),), xp, shape, flat_pos, index, x._device)
    return _wrap(out, x._device, xp, node)


# --------------------------------------------------------------------------- Tensor


class Tensor:
    """An n-d array on a device, with an optional autograd history.

    ``Tensor(data, requires_grad=False, device=None, dtype=None)`` is the same as
    :func:`tensor` (see ``help(sg.tensor)`` for devices and dtypes). Gradients land
    in ``.grad`` after ``backward()``.
    """

    __slots__ = {  # a dict: values are the slots' docstrings (help() shows grad_fn's)
        "__weakref__": None,
        "_data": None,
        "_device": None,
        "_grad": None,
        "_requires_grad": None,
        "_xp": None,
        "grad_fn": "The Node that made this tensor (its backward function), or None for a leaf.",
    }
    __array_ufunc__ = None  # NumPy defers to our reflected operators: ndarray * Tensor -> Tensor
    __hash__ = object.__hash__

    def __init__(
        self,
        data: Any,
        requires_grad: bool = False,
        device: str | None = None,
        dtype: Any = None,
    ) -> None:
        """Make a tensor from ``data`` (copied); the arguments are :func:`tensor`'s."""
        arr, dev, xp = _to_array(data, device, dtype)
        self._data = arr
        self._device = dev
        self._xp = xp
        self._requires_grad = False
        self._grad = None
        self.grad_fn = None
        if requires_grad:
            self.requires_grad = True

    # ---- attributes
    @property
    def shape(self) -> Shape:
        """Tuple of dimension sizes."""
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        """Number of dimensions (``len(t.shape)``)."""
        return self._data.ndim

    @property
    def dtype(self) -> DType:
        """The element type, a device-independent :class:`DType` (``sg.float32``, ...)."""
        return _dtype_of(self._xp, self._data.dtype)

    @property
    def device(self) -> str:
        """The device string (``"cpu"``, ``"python"``, ``"cuda:0"``, ...)."""
        return self._device

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (user-made, or not requiring grad)."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """Whether ops on this tensor record a graph and ``backward()`` reaches it.

        Settable on leaves only, and only ``True`` for floating point dtypes.
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        value = bool(value)
        if self.grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf tensors; "
                "use .detach() to get a tensor without history"
            )
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                f"only tensors of floating point dtype can require gradients, got {self.dtype.name}"
            )
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only) and return ``self``."""
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """Accumulated gradient (same shape and device), or None."""
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad must be a Tensor or None, got {type(value).__name__}")
            if value._device != self._device:
                raise RuntimeError(
                    f"assigned grad is on device {value._device!r}, tensor is on {self._device!r}"
                )
            if value.shape != self.shape:
                raise ValueError(
                    f"assigned grad has shape {value.shape}, tensor has shape {self.shape}"
                )
        self._grad = value

    @property
    def data(self) -> Tensor:
        """A tensor sharing this tensor's array, detached from the graph (for optimizers)."""
        return _wrap(self._data, self._device, self._xp, None)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        if value._device != self._device:
            raise RuntimeError(
                f"cannot assign data on device {value._device!r} to a tensor on {self._device!r}"
            )
        self._data = value._data

    def size(self, dim: int | None = None) -> Shape | int:
        """The shape, or the size of one dimension."""
        if dim is None:
            return self.shape
        (d,) = _norm_axes(dim, self.ndim)
        return self.shape[d]

    def dim(self) -> int:
        """Number of dimensions (PyTorch's name for ``ndim``)."""
        return self._data.ndim

    def numel(self) -> int:
        """Number of elements (the product of the shape)."""
        return math.prod(self._data.shape)

    def __len__(self) -> int:
        """Size of the first dimension (a TypeError for 0-d tensors)."""
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The sub-tensors along the first dimension, ``t[0], t[1], ...``."""
        return (self[i] for i in range(len(self)))

    # ---- conversion
    def numpy(self) -> np.ndarray:
        """The data as a NumPy array (shares memory on cpu; a copy from other devices)."""
        return backend.to_numpy(self._data, self._device)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy's conversion protocol: ``np.asarray(t)`` (optionally cast to ``dtype``)."""
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def item(self) -> float | int | bool:
        """The single value as a Python number."""
        n = self.numel()
        if n != 1:
            raise ValueError(
                f"item() needs a tensor with one element; this one has shape {self.shape} ({n} elements)"
            )
        return self.numpy().reshape(()).item()

    def tolist(self) -> Any:
        """The data as (nested) Python lists of numbers; a number for a 0-d tensor."""
        return self.numpy().tolist()

    def __float__(self) -> float:
        """``float(t)`` for a tensor with one element."""
        return float(self.item())

    def __int__(self) -> int:
        """``int(t)`` for a tensor with one element (truncates floats)."""
        return int(self.item())

    def __index__(self) -> int:
        """Use a one-element integer tensor as an index (``xs[t]``, ``range(t)``)."""
        if _kind(self) not in "iu" or self.numel() != 1:
            raise TypeError(
                f"only integer tensors with one element can be used as an index "
                f"(dtype {self.dtype.name}, shape {self.shape})"
            )
        return int(self.item())

    def __bool__(self) -> bool:
        """``bool(t)`` (``if t:``) for a tensor with one element; more are ambiguous."""
        if self.numel() != 1:
            raise ValueError(
                f"the truth value of a tensor with shape {self.shape} is ambiguous; "
                "use t.any() or t.all()"
            )
        return bool(self.item())

    def cpu(self) -> Tensor:
        """This tensor on the ``"cpu"`` device (NumPy), as PyTorch's ``t.cpu()``.

        A tensor already on ``"cpu"`` is returned itself, not copied; from any other
        device (``"python"``, ``"cuda"``) the result is a copy on ``"cpu"``, and
        gradients flow back to the source device (``t.to("cpu")``).
        """
        return self.to("cpu")

    def to(self, device: Any = None, dtype: Any = None) -> Tensor:
        """Move to ``device`` and/or cast to ``dtype`` (differentiable). ``t.to("float64")`` works too."""
        if (
            dtype is None
            and device is not None
            and (isinstance(device, DType) or (isinstance(device, str) and device in _DTYPES))
        ):
            device, dtype = None, device
        out = self
        if device is not None:
            dst = backend.canonical_device(device)
            if dst != self._device:
                xp_dst = backend.get_namespace(dst)
                data = backend.from_numpy(backend.to_numpy(self._data, self._device), dst)
                node = None
                if _base._grad_enabled and self._requires_grad:
                    node = ToDeviceBackward((_edge(self),), self._device, dst)
                out = _wrap(data, dst, xp_dst, node)
        if dtype is not None:
            out = out._cast(_as_dtype(dtype))
        return out

    def _cast(self, dtype: DType) -> Tensor:
        """Cast to ``dtype``; differentiable between float dtypes, detached otherwise."""
        xp = self._xp
        target = _xp_dtype(xp, dtype, self._device)
        src = self._data.dtype
        if src == target:
            return self
        data = xp.astype(self._data, target)
        node = None
        if _base._grad_enabled and self._requires_grad and dtype.kind == "f":
            node = CastBackward((_edge(self),), xp, src)
        return _wrap(data, self._device, xp, node)

    def float(self) -> Tensor:
        """Cast to float32."""
        return self._cast(float32)

    def double(self) -> Tensor:
        """Cast to float64."""
        return self._cast(float64)

    def long(self) -> Tensor:
        """Cast to int64 (not differentiable)."""
        return self._cast(int64)

    def detach(self) -> Tensor:
        """A tensor sharing the data, cut from the graph (``requires_grad=False``)."""
        return _wrap(self._data, self._device, self._xp, None)

    def clone(self) -> Tensor:
        """A copy of the data (gradients flow back to ``self``)."""
        node = None
        if _base._grad_enabled and self._requires_grad:
            node = ReshapeBackward((_edge(self),), self._xp, self.shape)  # identity gradient
        return _wrap(self._xp.asarray(self._data, copy=True), self._device, self._xp, node)

    # ---- pickling and copy.deepcopy: the data travels as a NumPy array; the graph does not
    def __reduce_ex__(self, protocol: int) -> tuple:
        """Pickling and ``copy.deepcopy``: the data (as a NumPy array), the device and
        ``requires_grad`` travel, the graph does not (the copy is a leaf)."""
        state = getattr(self, "__dict__", None)  # subclasses (e.g. nn.Parameter) may add attributes
        return (
            _rebuild,
            (type(self), np.array(self.numpy()), self._device, self._requires_grad, state),
        )

    # ---- repr
    def __repr__(self) -> str:
        """PyTorch's form: ``tensor([1., 2.], device='python', requires_grad=True)``."""
        arr = self.numpy()
        opts = {}
        if arr.dtype.kind == "f" and arr.size:
            finite = arr[np.isfinite(arr)]
            if finite.size and not np.all(finite == np.round(finite)):
                opts = {"precision": 4, "floatmode": "fixed"}  # PyTorch's: 0.4771, [1.0000, 2.5000]
        body = np.array2string(arr, separator=", ", prefix="tensor(", threshold=1000, **opts)
        extras = []
        if self._device != "cpu":
            extras.append(f"device={self._device!r}")
        dt = self.dtype
        if dt not in (float32, int64, bool_) or arr.size == 0:
            extras.append(f"dtype={dt.name}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn={self.grad_fn!r}")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        return "tensor(" + ", ".join([body, *extras]) + ")"

    # ---- backward
    def backward(self, gradient: Any = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``.

        ``gradient`` (same shape as ``self``) is required unless ``self`` has one
        element. Saved arrays are freed afterwards unless ``retain_graph=True``.
        """
        if not self._requires_grad:
            msg = "element 0 of tensors does not require grad and does not have a grad_fn"
            if not _base._grad_enabled:
                msg += (
                    "; no_grad is active (grad mode is off, so ops record no graph): "
                    "compute the output outside `with sg.no_grad():`"
                )
            raise RuntimeError(msg)
        xp = self._xp
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs; this output has "
                    f"shape {self.shape}: pass backward(gradient=...) of that shape"
                )
            g, owned = xp.ones_like(self._data), True
        else:
            if not isinstance(gradient, Tensor):
                gradient = Tensor(gradient, device=self._device)
            if gradient._device != self._device:
                raise _device_error(self, gradient)
            if gradient.shape != self.shape:
                raise ValueError(
                    f"gradient has shape {gradient.shape} but the output has shape {self.shape}"
                )
            g, owned = gradient._cast(self.dtype)._data, False
        node = self.grad_fn
        if node is None:
            AccumulateGrad(self).accumulate(g, owned)
        else:
            _run_backward(node, g, owned, retain_graph)

    # ---- arithmetic
    def __add__(self, other: Any) -> Tensor:
        """``self + other``, broadcasting; ``other`` is a tensor or a Python number."""
        return _binary(self, other, operator.add, AddBackward)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Tensor:
        """``self - other``, broadcasting."""
        return _binary(self, other, operator.sub, SubBackward)

    def __rsub__(self, other: Any) -> Tensor:
        """``other - self`` for a Python number (or array-like) ``other``."""
        return (-self) + other

    def __mul__(self, other: Any) -> Tensor:
        """``self * other``, broadcasting (elementwise, not matrix product)."""
        return _binary(self, other, operator.mul, MulBackward)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Tensor:
        """``self / other``, broadcasting; ints divide to float, as in PyTorch."""
        return _binary(self, other, operator.truediv, DivBackward)

    def __rtruediv__(self, other: Any) -> Tensor:
        """``other / self`` for a Python number ``other``."""
        return _binary(self, other, operator.truediv, DivBackward, swap=True)

    def __pow__(self, other: Any) -> Tensor:
        """``self ** other``, broadcasting; ``other`` may be a tensor."""
        return _binary(self, other, operator.pow, PowBackward)

    def __rpow__(self, other: Any) -> Tensor:
        """``other ** self`` for a Python number ``other``."""
        return _binary(self, other, operator.pow, PowBackward, swap=True)

    def __neg__(self) -> Tensor:
        """``-self``."""
        out = -self._data
        node = NegBackward((_edge(self),)) if _base._grad_enabled and self._requires_grad else None
        return _wrap(out, self._device, self._xp, node)

    def __pos__(self) -> Tensor:
        """``+self``: the tensor itself."""
        return self

    def __matmul__(self, other: Any) -> Tensor:
        """``self @ other``: matrix product, see :meth:`matmul`."""
        if not isinstance(other, Tensor):
            if isinstance(other, (int, float)):
                raise TypeError("matmul with a Python number; use * for scaling")
            other = Tensor(other, device=self._device)
        return _matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        """``other @ self`` for an array-like ``other``."""
        return _matmul(Tensor(other, device=self._device), self)

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product ``self @ other``: ``(…, n, k) @ (…, k, m) -> (…, n, m)``.

        Batch dimensions broadcast; a 1-D operand is a vector (its dimension is
        dropped from the result), as in NumPy and PyTorch. Shapes that do not
        multiply raise a ValueError naming both.
        """
        return self @ other

    # in-place operators: only outside autograd (e.g. optimizer steps under no_grad);
    # with autograd involved they fall back to the out-of-place op
    def _inplace(self, other: Any, op) -> Any:
        if _base._grad_enabled and (self._requires_grad or getattr(other, "_requires_grad", False)):
            if self.grad_fn is None and self._requires_grad:
                raise RuntimeError(
                    "a leaf tensor that requires grad is being used in an in-place operation; "
                    "wrap it in `with sg.no_grad():` or update `.data`"
                )
            return NotImplemented
        x, y = _pair(self, other)
        if x is not self:
            return NotImplemented  # the result dtype differs: not an in-place op
        b = y._data if isinstance(y, Tensor) else y
        a = self._data
        try:
            res = op(a, b)
        except ValueError as exc:
            raise _bcast_error(a.shape, getattr(b, "shape", ()), exc) from exc
        if res is not a:
            if res.shape != a.shape or res.dtype != a.dtype:
                raise ValueError(
                    f"in-place result of shape {tuple(res.shape)} does not fit a tensor of shape {self.shape}"
                )
            self._data = res  # namespaces without in-place operators
        return self

    def __iadd__(self, other: Any) -> Tensor:  # noqa: PYI034 - may return NotImplemented
        """``self += other``: in place outside autograd, else the out-of-place op."""
        return self._inplace(other, operator.iadd)

    def __isub__(self, other: Any) -> Tensor:  # noqa: PYI034 - may return NotImplemented
        """``self -= other``: in place outside autograd, else the out-of-place op."""
        return self._inplace(other, operator.isub)

    def __imul__(self, other: Any) -> Tensor:  # noqa: PYI034 - may return NotImplemented
        """``self *= other``: in place outside autograd, else the out-of-place op."""
        return self._inplace(other, operator.imul)

    def __itruediv__(self, other: Any) -> Tensor:  # noqa: PYI034 - may return NotImplemented
        """``self /= other``: in place outside autograd, else the out-of-place op."""
        return self._inplace(other, operator.itruediv)

    def add_(self, other: Any, alpha: float = 1.0) -> Tensor:
        """In place ``self += alpha * other`` (outside autograd)."""
        r = self._inplace(other * alpha if alpha != 1.0 else other, operator.iadd)
        if r is NotImplemented:
            raise RuntimeError("add_ is only allowed on tensors outside autograd (use no_grad)")
        return r

    def mul_(self, other: Any) -> Tensor:
        """In place ``self *= other`` (outside autograd)."""
        r = self._inplace(other, operator.imul)
        if r is NotImplemented:
            raise RuntimeError("mul_ is only allowed on tensors outside autograd (use no_grad)")
        return r

    def zero_(self) -> Tensor:
        """Fill with zeros in place (outside autograd)."""
        return self.mul_(0)

    def copy_(self, src: Tensor) -> Tensor:
        """Copy ``src``'s values into this tensor (shapes must match; devices may differ)."""
        if not isinstance(src, Tensor):
            src = Tensor(src, device=self._device)
        if src.shape != self.shape:
            raise ValueError(f"copy_: source shape {src.shape} does not match {self.shape}")
        if _base._grad_enabled and self._requires_grad:
            raise RuntimeError("copy_ into a tensor that requires grad; use no_grad()")
        src = src.to(self._device)._cast(self.dtype)
        self._data = self._xp.asarray(src._data, copy=True)
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        """``t[key] = value`` in place, with basic indexing (not on tensors that require grad)."""
        if _base._grad_enabled and self._requires_grad:
            raise RuntimeError(
                "in-place assignment into a tensor that requires grad is not supported; "
                "use no_grad() or build a new tensor"
            )
        if _has_array_index(key):
            raise IndexError(
                "assignment supports basic indexing only (ints, slices, None and ...), "
                "not integer or boolean arrays; build a new tensor instead"
            )
        key = _normalize_key(key, self.shape)
        if isinstance(value, Tensor):
            if value._device != self._device:
                raise _device_error(self, value)
            v = value._cast(self.dtype)._data
        else:
            v = (
                value
                if isinstance(value, (int, float, bool))
                else Tensor(value, device=self._device, dtype=self.dtype)._data
            )
        self._data[key] = v

    # ---- comparisons (not differentiable; bool results)
    def _compare(self, other: Any, op) -> Tensor:
        x, y = _pair(self, other)
        a = x._data
        b = y._data if isinstance(y, Tensor) else y
        try:
            out = op(a, b)
        except ValueError as exc:
            raise _bcast_error(a.shape, getattr(b, "shape", ()), exc) from exc
        return _wrap(out, x._device, x._xp, None)

    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        """``self == other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.eq)

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        """``self != other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.ne)

    def __lt__(self, other: Any) -> Tensor:
        """``self < other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> Tensor:
        """``self <= other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> Tensor:
        """``self > other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> Tensor:
        """``self >= other`` elementwise, broadcasting: a bool tensor (not differentiable)."""
        return self._compare(other, operator.ge)

    # ---- elementwise functions
    def _unary(self, out: Any, node_cls, saved: Any) -> Tensor:
        node = None
        if _base._grad_enabled and self._requires_grad:
            node = node_cls((_edge(self),), self._xp, saved)
        return _wrap(out, self._device, self._xp, node)

    def _float_only(self, fn: str) -> None:
        if _kind(self) != "f":
            raise TypeError(
                f"{fn}() needs a floating point tensor, got {self.dtype.name}; use .float()"
            )

    def exp(self) -> Tensor:
        """``e ** x`` elementwise (floating tensors)."""
        self._float_only("exp")
        out = self._xp.exp(self._data)
        return self._unary(out, ExpBackward, out)

    def log(self) -> Tensor:
        """Natural logarithm elementwise (floating tensors; ``-inf`` at 0, nan below)."""
        self._float_only("log")
        return self._unary(self._xp.log(self._data), LogBackward, self._data)

    def sqrt(self) -> Tensor:
        """Square root elementwise (floating tensors; nan below 0)."""
        self._float_only("sqrt")
        out = self._xp.sqrt(self._data)
        return self._unary(out, SqrtBackward, out)

    def abs(self) -> Tensor:
        """``|x|`` elementwise; the gradient at 0 is 0."""
        return self._unary(self._xp.abs(self._data), AbsBackward, self._data)

    def tanh(self) -> Tensor:
        """Hyperbolic tangent elementwise (floating tensors)."""
        self._float_only("tanh")
        out = self._xp.tanh(self._data)
        return self._unary(out, TanhBackward, out)

    def sigmoid(self) -> Tensor:
        """``1 / (1 + exp(-x))``, computed without overflow for large ``|x|``."""
        self._float_only("sigmoid")
        xp = self._xp
        x = self._data
        e = xp.exp(-xp.abs(x))  # in (0, 1]: never overflows
        r = 1 / (1 + e)
        # x >= 0: r;  x < 0: e * r.  A float mask instead of where(): NumPy's where is slow
        neg = xp.astype(x < 0, x.dtype)
        out = (neg * e + (1 - neg)) * r
        return self._unary(out, SigmoidBackward, out)

    def relu(self) -> Tensor:
        """``max(x, 0)`` (a 0-d zero keeps NumPy on its fast same-dtype loop)."""
        xp = self._xp
        x = self._data
        out = xp.maximum(x, xp.zeros((), dtype=x.dtype))
        return self._unary(out, ReluBackward, out)

    # ---- reductions
    def _reduce_prep(self, axis, keepdims, dim, keepdim):
        axis, keepdims = _axis_args(axis, keepdims, dim, keepdim)
        return _norm_axes(axis, self._data.ndim), keepdims, self.shape

    def sum(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Sum over ``axis`` (int, tuple or None for all); ``(…)`` -> reduced shape."""
        axes, keepdims, shape = self._reduce_prep(axis, keepdims, dim, keepdim)
        xp = self._xp
        out = xp.sum(self._data, axis=axes, keepdims=keepdims)
        node = None
        if _base._grad_enabled and self._requires_grad:
            node = SumBackward((_edge(self),), shape, axes, keepdims)
        return _wrap(out, self._device, xp, node)

    def mean(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Mean over ``axis`` (floating tensors only)."""
        self._float_only("mean")
        axes, keepdims, shape = self._reduce_prep(axis, keepdims, dim, keepdim)
        xp = self._xp
        out = xp.mean(self._data, axis=axes, keepdims=keepdims)
        node = None
        if _base._grad_enabled and self._requires_grad:
            n = math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)
            node = MeanBackward((_edge(self),), shape, axes, keepdims, n)
        return _wrap(out, self._device, xp, node)

    def _extremum(self, fn: str, axis, keepdims, dim, keepdim) -> Tensor:
        axes, keepdims, shape = self._reduce_prep(axis, keepdims, dim, keepdim)
        if 0 in shape:
            raise ValueError(f"{fn}() of an empty tensor of shape {shape}")
        xp = self._xp
        all_axes = axes if axes is not None else tuple(range(len(shape)))
        out_kd = getattr(xp, fn)(self._data, axis=axes, keepdims=True)
        if keepdims:
            out = out_kd
        else:
            out = xp.reshape(out_kd, tuple(n for i, n in enumerate(shape) if i not in all_axes))
        node = None
        if _base._grad_enabled and self._requires_grad:
            cls = MaxBackward if fn == "max" else MinBackward
            node = cls((_edge(self),), self._data, axes, keepdims)
        return _wrap(out, self._device, xp, node)

    def max(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Maximum over ``axis``; returns values only (PyTorch's ``max(dim)`` also returns indices)."""
        return self._extremum("max", axis, keepdims, dim, keepdim)

    def min(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Minimum over ``axis``; values only."""
        return self._extremum("min", axis, keepdims, dim, keepdim)

    def argmax(
        self,
        axis: int | None = None,
        keepdims: bool = False,
        *,
        dim: Any = None,
        keepdim: Any = None,
    ) -> Tensor:
        """Index of the maximum (int64), over one axis or the flattened tensor."""
        axis, keepdims = _axis_args(axis, keepdims, dim, keepdim)
        if axis is not None:
            if isinstance(axis, (tuple, list)):
                raise TypeError(f"argmax takes a single int axis, got {axis!r}")
            (axis,) = _norm_axes(axis, self._data.ndim)
        out = self._xp.argmax(self._data, axis=axis, keepdims=keepdims)
        return _wrap(out, self._device, self._xp, None)

    def any(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Whether any element is true (non-zero), over ``axis``/``dim`` (int, tuple or
        None for all): a bool tensor, not differentiable. ``if (t > 0).any():`` works."""
        return self._logical("any", axis, keepdims, dim, keepdim)

    def all(
        self, axis: Any = None, keepdims: bool = False, *, dim: Any = None, keepdim: Any = None
    ) -> Tensor:
        """Whether every element is true (non-zero), over ``axis``/``dim``: a bool tensor,
        not differentiable (``all()`` of an empty tensor is True)."""
        return self._logical("all", axis, keepdims, dim, keepdim)

    def _logical(self, fn: str, axis, keepdims, dim, keepdim) -> Tensor:
        axis, keepdims = _axis_args(axis, keepdims, dim, keepdim)
        axes = _norm_axes(axis, self._data.ndim)
        xp = self._xp
        data = self._data
        if _kind(self) != "b":
            data = data != xp.zeros((), dtype=data.dtype)
        out = getattr(xp, fn)(data, axis=axes, keepdims=keepdims)
        return _wrap(out, self._device, xp, None)

    def softmax(self, axis: int = -1, *, dim: int | None = None) -> Tensor:
        """Softmax along ``axis``/``dim`` (default the last): :func:`stridegrad.nn.functional.softmax`."""
        from stridegrad.nn import functional

        return functional.softmax(self, axis, dim=dim)

    def log_softmax(self, axis: int = -1, *, dim: int | None = None) -> Tensor:
        """Log-softmax along ``axis``/``dim`` (default the last):
        :func:`stridegrad.nn.functional.log_softmax`."""
        from stridegrad.nn import functional

        return functional.log_softmax(self, axis, dim=dim)

    # ---- shape ops
    def reshape(self, *shape: Any) -> Tensor:
        """``t.reshape(2, 3)`` or ``t.reshape((2, 3))``; one dimension may be ``-1``."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        try:
            shape = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise TypeError(f"reshape takes ints, got {shape!r}") from None
        old = self.shape
        n = math.prod(old)
        unknown = [i for i, s in enumerate(shape) if s == -1]
        known = math.prod(s for s in shape if s != -1)
        bad = len(unknown) > 1 or any(s < -1 for s in shape)
        if not bad:
            if unknown:
                bad = known == 0 or n % known != 0
                if not bad:
                    shape = tuple(n // known if s == -1 else s for s in shape)
            else:
                bad = known != n
        if bad:
            raise ValueError(
                f"cannot reshape a tensor of shape {old} ({n} elements) into shape {shape}"
            )
        xp = self._xp
        out = xp.reshape(self._data, shape)
        node = None
        if _base._grad_enabled and self._requires_grad:
            node = ReshapeBackward((_edge(self),), xp, old)
        return _wrap(out, self._device, xp, node)

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Merge dimensions ``start_dim..end_dim`` into one."""
        shape = self.shape
        if not shape:
            return self.reshape(1)
        s, e = _norm_axes(start_dim, len(shape))[0], _norm_axes(end_dim, len(shape))[0]
        if s > e:
            raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim}")
        return self.reshape(shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])

    def unsqueeze(self, dim: int) -> Tensor:
        """Insert a dimension of size 1 at ``dim``."""
        shape = self.shape
        (d,) = _norm_axes(dim, len(shape) + 1)
        return self.reshape(shape[:d] + (1,) + shape[d:])

    def squeeze(self, dim: int | None = None) -> Tensor:
        """Drop dimensions of size 1 (all of them, or ``dim`` if it has size 1)."""
        shape = self.shape
        if dim is None:
            return self.reshape(tuple(n for n in shape if n != 1))
        (d,) = _norm_axes(dim, len(shape))
        return self if shape[d] != 1 else self.reshape(shape[:d] + shape[d + 1 :])

    def permute(self, *dims: Any) -> Tensor:
        """Reorder dimensions: ``t.permute(2, 0, 1)`` (or a tuple)."""
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        ndim = self._data.ndim
        if len(dims) != ndim:
            raise ValueError(f"permute: {dims} has {len(dims)} entries, the tensor has {ndim} dims")
        norm = []
        for d in dims:
            d = operator.index(d)
            if not -ndim <= d < ndim:
                raise IndexError(f"permute: dim {d} out of range for {ndim} dims")
            norm.append(d % ndim)
        if sorted(norm) != list(range(ndim)):
            raise ValueError(f"permute: {dims} is not a permutation of the {ndim} dims")
        inverse = [0] * ndim
        for i, d in enumerate(norm):
            inverse[d] = i
        xp = self._xp
        out = xp.permute_dims(self._data, tuple(norm))
        node = None
        if _base._grad_enabled and self._requires_grad:
            node = PermuteBackward((_edge(self),), xp, tuple(inverse))
        return _wrap(out, self._device, xp, node)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions."""
        ndim = self._data.ndim
        if ndim == 0:
            return self
        (d0,) = _norm_axes(dim0, ndim)
        (d1,) = _norm_axes(dim1, ndim) if dim1 % ndim != d0 else (d0,)
        dims = list(range(ndim))
        dims[d0], dims[d1] = dims[d1], dims[d0]
        return self.permute(dims)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (the matrix transpose for 2-D)."""
        return self.permute(tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped."""
        if self._data.ndim < 2:
            raise ValueError(f"mT needs at least 2 dimensions, got shape {self.shape}")
        return self.transpose(-2, -1)

    def __getitem__(self, key: Any) -> Tensor:
        """NumPy indexing: ints, slices with steps, None, ``...``, and integer or boolean
        arrays (lists, Tensors, NumPy arrays) by NumPy's advanced-indexing rules.

        Basic indexing returns a view; integer arrays gather a copy, and their backward
        adds up the gradient of repeated indices (a scatter-add).
        """
        if _has_array_index(key):
            return _index_advanced(self, key)
        shape = self.shape
        key = _normalize_key(key, shape)
        out = self._data[key]
        node = None
        if _base._grad_enabled and self._requires_grad:
            g_shape = None
            if None in key:
                key = tuple(k for k in key if k is not None)
                g_shape = tuple(self._data[key].shape)
            node = SliceBackward((_edge(self),), self._xp, shape, key, g_shape)
        return _wrap(out, self._device, self._xp, node)


def _rebuild(cls: type, data: np.ndarray, device: str, requires_grad: bool, state: Any) -> Tensor:
    """Unpickle a tensor (or subclass) as a leaf on ``device``."""
    t = _new(cls)
    Tensor.__init__(t, data, requires_grad=requires_grad, device=device)
    if state:
        t.__dict__.update(state)
    return t


# --------------------------------------------------------------------------- matmul


def _matmul(x: Tensor, y: Tensor) -> Tensor:
    """``(…, n, k) @ (…, k, m) -> (…, n, m)``, batch dims broadcast; 1-D operands as in NumPy."""
    x, y = _pair(x, y)
    a, b = x._data, y._data
    sa, sb = a.shape, b.shape
    if len(sa) == 0 or len(sb) == 0:
        raise ValueError(
            f"matmul needs at least 1-D operands, got shapes {tuple(sa)} and {tuple(sb)}"
        )
    if len(sa) == 1 or len(sb) == 1:
        # promote to matrices, multiply, drop the added dims (gradients flow through reshape)
        xa = x.reshape((1,) + sa) if len(sa) == 1 else x
        yb = y.reshape(sb + (1,)) if len(sb) == 1 else y
        out = _matmul(xa, yb)
        shp = out.shape
        if len(sa) == 1:
            shp = shp[:-2] + shp[-1:]
        if len(sb) == 1:
            shp = shp[:-1]
        return out.reshape(shp)
    if sa[-1] != sb[-2]:
        raise ValueError(
            f"matmul: shapes {tuple(sa)} and {tuple(sb)} do not match "
            f"({sa[-1]} columns vs {sb[-2]} rows)"
        )
    try:
        out = a @ b
    except ValueError as exc:
        try:
            _broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise ValueError(
                f"matmul: batch dimensions of shapes {tuple(sa)} and {tuple(sb)} cannot be broadcast"
            ) from exc
        raise
    if _base._grad_enabled and (x._requires_grad or y._requires_grad):
        nd = out.ndim
        node = MatMulBackward(
            (_edge(x), _edge(y)),
            x._xp,
            a,
            b,
            sa if nd > 2 and sa[:-2] != out.shape[:-2] else None,
            sb if nd > 2 and sb[:-2] != out.shape[:-2] else None,
        )
        return _wrap(out, x._device, x._xp, node)
    return _wrap(out, x._device, x._xp, None)



# --------------------------------------------------------------------------- construction


def _infer_host(data: Any, dtype: DType | None) -> np.ndarray:
    """Python data -> NumPy array with PyTorch's default dtypes."""
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError(f"cannot make a tensor from ragged or malformed data: {exc}") from None
    if arr.dtype == object:
        raise TypeError(f"cannot make a tensor from {type(data).__name__} holding non-numbers")
    if dtype is None:
        k = arr.dtype.kind
        if k == "f":
            arr = arr.astype(np.float32)
        elif k in "iu":
            arr = arr.astype(np.int64)
        elif k not in "b":
            raise TypeError(f"unsupported data of dtype {arr.dtype}")
    return arr


def _to_array(data: Any, device: Any, dtype: Any) -> tuple[Any, str, ModuleType]:
    """Make ``(array, device, xp)`` from any data (always a fresh copy)."""
    dt = None if dtype is None else _as_dtype(dtype)
    if isinstance(data, Tensor):
        dev = data._device if device is None else backend.canonical_device(device)
        t = data.detach().to(dev)
        if dt is not None:
            t = t._cast(dt)
        return t._xp.asarray(t._data, copy=True), dev, t._xp
    dev = backend.canonical_device(device if device is not None else backend.get_default_device())
    xp = backend.get_namespace(dev)
    if isinstance(data, (np.ndarray, np.generic)):
        host = np.array(data)  # keeps its dtype
    elif hasattr(data, "__array_namespace__") or hasattr(data, "__dlpack__"):
        host = np.array(backend._generic_to_host(data))
    else:
        host = _infer_host(data, dt)
    if dt is not None:
        try:
            host = host.astype(dt.name)
        except TypeError:
            raise TypeError(f"cannot convert data to dtype {dt.name}") from None
    return backend.from_numpy(host, dev), dev, xp


