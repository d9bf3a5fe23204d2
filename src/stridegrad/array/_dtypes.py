"""Data types of the strided array: labels over Python's own numbers.

Values are stored as Python ``bool``, ``int`` and ``float`` objects. A dtype is a
label that says which of these an array holds and how results promote:

* ``float32`` and ``float64`` both hold Python floats (IEEE double precision).
  ``float32`` is **not rounded** to single precision: it is a label that keeps
  the promotion rules of the other backends (``float32 + float32 -> float32``),
  so code written against the Array API behaves the same here.
* ``int8``, ``int16``, ``int32``, ``int64`` (kind ``"i"``) and ``uint8`` ...
  ``uint64`` (kind ``"u"``) hold Python ints, which do **not** wrap around at
  the dtype's bounds (``iinfo``): a result that overflows is exact, not wrapped.
* ``bool`` holds Python bools.

Promotion is the Array API's table within a kind (``int8 + int16 -> int16``,
``uint8 + int8 -> int16``, ``float32 + float64 -> float64``) and NumPy 2's where
the standard leaves it open: ``uint64`` with a signed int gives ``float64``; an
int with ``float32`` gives ``float32`` up to 16 bits and ``float64`` above; a
Python scalar adopts the array's dtype when it is of the same or a lower kind
(``float32 array + 0.5 -> float32``, ``int8 array + 1 -> int8``, ``int64 array +
0.5 -> float64``).
"""

from __future__ import annotations

import builtins
import sys

__all__ = [
    "DType",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool_",
    "INTEGER_DTYPES",
    "can_cast",
    "as_dtype",
    "result_type",
    "scalar_dtype",
    "default_dtype_of",
    "isdtype",
    "finfo",
    "iinfo",
    "finfo_object",
    "iinfo_object",
]


class DType:
    """A dtype label: ``name``, ``kind`` (``"b"``, ``"i"``, ``"u"`` or ``"f"``) and ``itemsize``."""

    __slots__ = ("name", "kind", "itemsize", "type")

    def __init__(self, name: str, kind: str, itemsize: int, type_: type):
        self.name = name
        self.kind = kind
        self.itemsize = itemsize
        self.type = type_  # the Python type the values are stored as

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> builtins.bool:
        if isinstance(other, DType):
            return self.name == other.name
        return NotImplemented

    def __hash__(self) -> int:
        return hash(("stridegrad.array.dtype", self.name))

    def __reduce__(self):
        return (as_dtype, (self.name,))


float32 = DType("float32", "f", 4, float)
float64 = DType("float64", "f", 8, float)
int8 = DType("int8", "i", 1, int)
int16 = DType("int16", "i", 2, int)
int32 = DType("int32", "i", 4, int)
int64 = DType("int64", "i", 8, int)
uint8 = DType("uint8", "u", 1, int)
uint16 = DType("uint16", "u", 2, int)
uint32 = DType("uint32", "u", 4, int)
uint64 = DType("uint64", "u", 8, int)
bool_ = DType("bool", "b", 1, builtins.bool)

INTEGER_DTYPES = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
_BY_NAME = {d.name: d for d in (float32, float64, *INTEGER_DTYPES, bool_)}
_BY_PYTYPE = {float: float64, int: int64, builtins.bool: bool_}
_SIGNED_BY_SIZE = {d.itemsize: d for d in (int8, int16, int32, int64)}


def as_dtype(dtype) -> DType:
    """A dtype-like (``DType``, its name, ``float``/``int``/``bool``, a NumPy dtype) -> DType."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        found = _BY_NAME.get(dtype)
    elif isinstance(dtype, type) and dtype in _BY_PYTYPE:
        found = _BY_PYTYPE[dtype]
    else:
        # NumPy dtypes and scalar types carry a name we may know
        name = getattr(dtype, "name", None) or getattr(getattr(dtype, "dtype", None), "name", None)
        if isinstance(dtype, type) and hasattr(dtype, "__name__") and name is None:
            name = dtype.__name__
        found = _BY_NAME.get(name) if isinstance(name, str) else None
    if found is None:
        raise TypeError(
            f"unsupported dtype {dtype!r}; stridegrad.array supports "
            f"{', '.join(_BY_NAME)}"
        )
    return found


def _promote(a: DType, b: DType) -> DType:
    if a == b:
        return a
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.kind == "f" or b.kind == "f":
        # an int with a float (NumPy's rule): a float that holds every value of the int
        f, i = (a, b) if a.kind == "f" else (b, a)
        return f if f.itemsize > i.itemsize else float64
    # a signed with an unsigned int: a signed int that holds both, float64 beyond int64
    s, u = (a, b) if a.kind == "i" else (b, a)
    if s.itemsize > u.itemsize:
        return s
    return _SIGNED_BY_SIZE.get(2 * u.itemsize, float64)


def default_dtype_of(value) -> DType:
    """The dtype NumPy gives a lone Python scalar: bool -> bool, int -> int64, float -> float64."""
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    raise TypeError(
        f"unsupported scalar {value!r} of type {type(value).__name__}; expected bool, int or float"
    )


def scalar_dtype(array_dtype: DType, scalar) -> DType:
    """Dtype of ``array OP scalar`` for a Python ``bool``/``int``/``float`` scalar (NEP 50)."""
    if isinstance(scalar, builtins.bool):
        return array_dtype
    if isinstance(scalar, int):
        return int64 if array_dtype.kind == "b" else array_dtype
    if isinstance(scalar, float):
        return array_dtype if array_dtype.kind == "f" else float64
    raise TypeError(
        f"unsupported scalar {scalar!r} of type {type(scalar).__name__}; "
        f"expected bool, int or float"
    )


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype that results from combining arrays, dtypes and Python scalars.

    Shape contract: none (dtypes only). Python scalars only matter when no array
    or dtype is given with them, as in the Array API.
    """
    dtypes = []
    scalars = []
    for a in arrays_and_dtypes:
        if isinstance(a, (builtins.bool, int, float)):
            scalars.append(a)
        elif isinstance(a, DType):
            dtypes.append(a)
        elif hasattr(a, "dtype") and isinstance(a.dtype, DType):
            dtypes.append(a.dtype)
        else:
            dtypes.append(as_dtype(a))
    if not dtypes:
        if not scalars:
            raise ValueError("at least one array or dtype is required")
        dtypes.append(default_dtype_of(scalars.pop(0)))
    out = dtypes[0]
    for d in dtypes[1:]:
        out = _promote(out, d)
    for s in scalars:
        out = scalar_dtype(out, s)
    return out


_KINDS = {
    "bool": ("b",),
    "signed integer": ("i",),
    "unsigned integer": ("u",),
    "integral": ("i", "u"),
    "real floating": ("f",),
    "complex floating": (),
    "numeric": ("i", "u", "f"),
}


def can_cast(from_, to, /) -> builtins.bool:
    """Whether ``from_`` (a dtype or array) promotes to ``to`` without changing kind or losing range.

    The Array API's rule: ``result_type(from_, to) == to``, where bool casts to
    nothing else and ints do not cast to floats (mixed kinds are not defined).
    """
    f, t = _dtype_of(from_), as_dtype(to)
    if f == t:
        return True
    if f.kind == "b" or t.kind == "b":
        return False
    if f.kind in "iu" and t.kind == "f":
        return False
    if f.kind == "f" and t.kind != "f":
        return False
    return _promote(f, t) == t


def isdtype(dtype, kind) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name like ``"integral"``, or a tuple."""
    dtype = as_dtype(dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        try:
            return dtype.kind in _KINDS[kind]
        except KeyError:
            raise ValueError(
                f"unknown dtype kind {kind!r}; expected one of {', '.join(map(repr, _KINDS))}"
            ) from None
    return dtype == as_dtype(kind)


class finfo_object:
    """Machine limits of a floating dtype (the values are those of the label's precision)."""

    def __init__(self, dtype: DType):
        self.dtype = dtype
        if dtype == float32:
            self.bits = 32
            self.eps = 2.0**-23
            self.max = 3.4028234663852886e38
            self.min = -self.max
            self.smallest_normal = 2.0**-126
        else:
            self.bits = 64
            self.eps = sys.float_info.epsilon
            self.max = sys.float_info.max
            self.min = -self.max
            self.smallest_normal = sys.float_info.min
        self.tiny = self.smallest_normal

    def __repr__(self) -> str:
        return f"finfo(dtype={self.dtype}, bits={self.bits}, eps={self.eps}, max={self.max})"


class iinfo_object:
    """Limits of an integer dtype."""

    def __init__(self, dtype: DType):
        self.dtype = dtype
        self.bits = 8 * dtype.itemsize
        if dtype.kind == "u":
            self.min, self.max = 0, 2**self.bits - 1
        else:
            self.min, self.max = -(2 ** (self.bits - 1)), 2 ** (self.bits - 1) - 1

    def __repr__(self) -> str:
        return f"iinfo(dtype={self.dtype}, bits={self.bits}, min={self.min}, max={self.max})"


def _dtype_of(type_or_array) -> DType:
    d = getattr(type_or_array, "dtype", None)
    return d if isinstance(d, DType) else as_dtype(type_or_array)


def finfo(type_or_array) -> finfo_object:
    """Limits of a floating dtype (``eps``, ``max``, ``min``, ``smallest_normal``, ``bits``)."""
    dtype = _dtype_of(type_or_array)
    if dtype.kind != "f":
        raise TypeError(f"finfo needs a floating dtype, got {dtype}")
    return finfo_object(dtype)


def iinfo(type_or_array) -> iinfo_object:
    """Limits of an integer dtype (``min``, ``max``, ``bits``)."""
    dtype = _dtype_of(type_or_array)
    if dtype.kind not in "iu":
        raise TypeError(f"iinfo needs an integer dtype, got {dtype}")
    return iinfo_object(dtype)
