"""Devices: a device string names an Array API namespace that holds the data.

=========================  ====================================================
device                     array namespace
=========================  ====================================================
``"python"``               :mod:`stridegrad.array` (pure Python, transparent)
``"cpu"``                  :mod:`numpy` itself (NumPy 2 is Array API compliant)
``"cuda"``, ``"cuda:N"``   CuPy through ``array_api_compat.cupy``
=========================  ====================================================

Tensor code asks this module for a namespace ``xp`` once, when a tensor is
made, and from then on calls only standard Array API functions on it, so the
same autograd code runs on every device. CuPy is imported the first time a
cuda tensor is made, never at import time.

Every device's arrays come back to the host through :func:`to_host` (lesson 10's
exercise), called through this module's global each time, so that ``stridegrad
yours`` can run the library with a learner's version; a device registered
without its own ``to_host`` falls back to DLPack when :func:`to_host` fails.
A tuple of devices, best first, given to :func:`set_default_device` is chosen
from with :func:`pick_device` (lesson 10's too), looked up the same way.

Tests may register another namespace as a device (``register_device("strict",
array_api_strict)``) to run the whole tensor suite against a strict
implementation of the standard.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

__all__ = [
    "Device",
    "array_namespace",
    "available_devices",
    "canonical_device",
    "device_available",
    "from_numpy",
    "get_default_device",
    "get_namespace",
    "pick_device",
    "register_device",
    "set_default_device",
    "to_host",
    "to_numpy",
    "unregister_device",
]

_BUILTIN = ("python", "cpu", "cuda")
_CUDA_RE = re.compile(r"cuda(?::(\d+))?\Z")
GPU_HINT = "pip install 'stridegrad[gpu]'"


@dataclass(frozen=True)
class Device:
    """A registered device: its namespace and how to move arrays to and from the host.

    ``to_host(array) -> numpy.ndarray`` and ``from_host(ndarray) -> array``.
    """

    name: str
    xp: ModuleType
    to_host: Callable[[Any], np.ndarray]
    from_host: Callable[[np.ndarray], Any]


_devices: dict[str, Device] = {}  # canonical name -> Device, filled lazily
_extra: dict[str, Device] = {}  # devices registered with register_device
_default = "cpu"


def to_host(x: object) -> np.ndarray:
    """``x`` as a NumPy array on the host, with ``x``'s shape and dtype: a NumPy
    array as it is (``x`` itself, whatever its strides), a CuPy-like array (one
    with ``.get()``) copied with one ``.get()``, others with ``np.asarray``.

    Example:
        >>> to_host(sa.asarray([1.0, 2.0]))
        array([1., 2.])
    """
    if isinstance(x, np.ndarray):
        return x
    get = getattr(x, "get", None)
    if callable(get):
        return get()
    return np.asarray(x)


_namespaces: dict[type, ModuleType] = {np.ndarray: np}  # array type -> its namespace


def array_namespace(x: Any) -> ModuleType:
    """The Array API namespace of one array ``x``, as the devices hold it: NumPy for a
    NumPy array or scalar (``numpy`` itself, not a wrapper), ``x.__array_namespace__()``
    for ``stridegrad.array`` and other standard arrays, ``array_api_compat``'s wrapper
    for the arrays it wraps (CuPy's, which have no ``__array_namespace__`` before
    CuPy 14). Cached by type, so that the gradient rules of :mod:`stridegrad.tensor.rules`
    can ask it at every call: one dict look-up.

    Example:
        >>> array_namespace(np.ones(2)) is np
        True
    """
    kind = type(x)
    xp = _namespaces.get(kind)
    if xp is None:
        if isinstance(x, (np.ndarray, np.generic)):
            xp = np
        elif hasattr(x, "__array_namespace__") and not kind.__module__.startswith("cupy"):
            xp = x.__array_namespace__()
        else:
            import array_api_compat

            xp = array_api_compat.array_namespace(x)  # TypeError for a non-array
        _namespaces[kind] = xp
    return xp


def _to_host(array: Any) -> np.ndarray:
    """The built-in devices' way home: :func:`to_host`, looked up when called."""
    return to_host(array)


def _generic_to_host(array: Any) -> np.ndarray:
    """A registered device's (and a foreign array's) way home: :func:`to_host`, or DLPack
    when that fails (an array that refuses ``np.asarray`` and has no ``.get()``)."""
    try:
        return to_host(array)
    except Exception:  # noqa: BLE001 - fall back to the standard interchange protocol
        return np.from_dlpack(array)


def _generic_from_host(xp: ModuleType) -> Callable[[np.ndarray], Any]:
    asarray = xp.asarray
    return lambda a: asarray(a)


def register_device(
    name: str,
    namespace: ModuleType,
    *,
    to_host: Callable[[Any], np.ndarray] | None = None,
    from_host: Callable[[np.ndarray], Any] | None = None,
) -> None:
    """Register an Array API ``namespace`` as device ``name`` (for tests and experiments).

    By default data moves to the host with :func:`to_host` (or DLPack) and
    back with ``namespace.asarray``.
    """
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"a device name is a non-empty string without ':', got {name!r}")
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in device and cannot be re-registered")
    if not hasattr(namespace, "asarray"):
        raise TypeError(f"namespace for device {name!r} has no 'asarray'; got {namespace!r}")
    dev = Device(
        name,
        namespace,
        to_host or _generic_to_host,
        from_host or _generic_from_host(namespace),
    )
    _extra[name] = dev
    _devices[name] = dev


def unregister_device(name: str) -> None:
    """Remove a device added with :func:`register_device` (unknown names raise ValueError)."""
    if name not in _extra:
        raise ValueError(f"no registered device {name!r}; registered: {sorted(_extra)}")
    del _extra[name]
    _devices.pop(name, None)
    global _default
    if _default == name:
        _default = "cpu"


def available_devices() -> list[str]:
    """Device names accepted by :func:`canonical_device` (``"cuda:N"`` is also accepted)."""
    return [*_BUILTIN, *sorted(_extra)]


def canonical_device(device: Any) -> str:
    """Validate ``device`` and return its canonical string (``"cuda"`` -> ``"cuda:0"``).

    Raises ValueError naming the bad string and the valid ones; TypeError for non-strings.
    Accepts objects with a ``.device`` attribute that is itself a device string, e.g. a Tensor.
    """
    if device.__class__ is str:
        if device in _devices or device in _BUILTIN or device in _extra:
            return "cuda:0" if device == "cuda" else device
        m = _CUDA_RE.match(device)
        if m:
            return f"cuda:{int(m.group(1) or 0)}"
        raise ValueError(
            f"unknown device {device!r}; valid devices are "
            f"{', '.join(repr(d) for d in available_devices())} and 'cuda:N'"
        )
    inner = getattr(device, "device", None)
    if isinstance(inner, str):
        return canonical_device(inner)
    raise TypeError(f"a device is a string such as 'cpu', got {type(device).__name__}: {device!r}")


def _cuda_unavailable_reason(index: int) -> str | None:
    try:
        import cupy
    except ImportError:
        return f"CuPy is not installed; to use 'cuda' devices run: {GPU_HINT}"
    except Exception as exc:  # noqa: BLE001 - a broken CUDA install fails in many ways
        return f"CuPy failed to import ({exc}); reinstall it with: {GPU_HINT}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return f"CuPy is installed but finds no usable CUDA GPU ({exc}); see {GPU_HINT!r}"
    if count == 0:
        return f"CuPy is installed but finds no CUDA GPU; see {GPU_HINT!r}"
    if index >= count:
        return f"'cuda:{index}' requested but only {count} CUDA device(s) are present"
    return None


def _make_cuda(name: str) -> Device:
    index = int(name.split(":")[1])
    reason = _cuda_unavailable_reason(index)
    if reason is not None:
        raise RuntimeError(reason)
    import cupy
    from array_api_compat import cupy as cupy_xp

    def from_host(a: np.ndarray) -> Any:
        with cupy.cuda.Device(index):
            return cupy.asarray(a)

    return Device(name, cupy_xp, _to_host, from_host)  # to_host: CuPy's .get()


def _make_builtin(name: str) -> Device:
    if name == "cpu":
        return Device("cpu", np, _to_host, np.asarray)
    if name == "python":
        try:
            from stridegrad import array as sa
        except ImportError as exc:
            raise RuntimeError(
                f"the 'python' device needs stridegrad.array, which failed to import: {exc}"
            ) from exc
        return Device("python", sa, _to_host, sa.asarray)
    return _make_cuda(name)


def device_available(device: str) -> tuple[bool, str]:
    """``(True, "")`` when ``device`` can hold tensors here, else ``(False, reason)``."""
    try:
        _get_device(canonical_device(device))
    except (RuntimeError, ValueError) as exc:
        return False, str(exc)
    return True, ""


def pick_device(prefer, available=device_available):
    """The first device of ``prefer`` (a name, or a tuple or list of names) that works.

    ``available(name)`` returns ``(ok, reason)``; it is asked about the names in
    order, once each, and about none after the first that works. Raises
    RuntimeError naming every device tried and its reason when none works,
    ValueError when ``prefer`` is empty.

    The library's :func:`set_default_device` calls it for a tuple or list of names
    (``sg.set_default_device(("cuda", "cpu"))``), with the default ``available``,
    and makes the name it returns the default device.

    Example:
        >>> pick_device(("cuda", "cpu"))  # on a machine without a GPU
        'cpu'
    """
    names = (prefer,) if isinstance(prefer, str) else tuple(prefer)
    if not names:
        raise ValueError("pick_device: no device to choose from")
    reasons = []
    for name in names:
        ok, why = available(name)
        if ok:
            return name
        reasons.append(f"{name!r} ({why})")
    raise RuntimeError("no device works here: " + "; ".join(reasons))


def _get_device(name: str) -> Device:
    """The Device for a canonical name, creating built-ins lazily (imports CuPy for cuda)."""
    dev = _devices.get(name)
    if dev is None:
        dev = _make_builtin(name)
        _devices[name] = dev
    return dev


def get_namespace(device: str | None = None) -> ModuleType:
    """The Array API namespace for ``device`` (default: the default device)."""
    return _get_device(canonical_device(device if device is not None else _default)).xp


def set_default_device(device: str | tuple[str, ...] | list[str]) -> None:
    """Make ``device`` the default for new tensors (validated; ``"cuda"`` checks CuPy now).

    A tuple or list of names, best first, makes the first of them that works here
    the default (:func:`pick_device`, looked up in this module when called):
    ``set_default_device(("cuda", "cpu"))`` puts a GPU to use where there is one.
    """
    global _default
    if isinstance(device, (tuple, list)):
        device = pick_device(device)
    name = canonical_device(device)
    _get_device(name)  # fail here, not at the first tensor
    _default = name


def get_default_device() -> str:
    """The device new tensors go to when none is given (initially ``"cpu"``)."""
    return _default


def to_numpy(array: Any, device: str) -> np.ndarray:
    """Copy (or view, on cpu) an array of ``device`` as a NumPy array on the host."""
    return _get_device(device).to_host(array)


def from_numpy(array: np.ndarray, device: str) -> Any:
    """Move a NumPy array onto ``device`` (no copy on cpu when it is already an ndarray)."""
    return _get_device(device).from_host(array)
