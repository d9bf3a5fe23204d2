"""stridegrad: a deep-learning library built from the bytes up.

The package reads as a table of contents. Names are loaded lazily (PEP 562), so
``import stridegrad`` stays cheap and ``stridegrad.array`` never pulls in NumPy-only
machinery it does not need.

=====================  ==========================================================
layer                  what lives there
=====================  ==========================================================
``stridegrad.array``   the pure-Python strided array (episodes 1-5), an Array API
                       namespace of its own
``stridegrad.backend`` device string -> array namespace ("python", "cpu", "cuda")
``stridegrad.scalar``  ``Value``, the scalar reverse-mode engine (episode 6)
``stridegrad.tensor``  ``Tensor`` with autograd, written once against the Array API
``stridegrad.nn``      ``Module``, ``Linear``, ``MLP``, losses, ``functional``
``stridegrad.optim``   ``SGD``, ``Adam``, ``AdamW``
``stridegrad.data``    datasets (digits, moons, spirals) and ``DataLoader``
``stridegrad.compile`` trace to a graph IR, optimise, replay (``sg.compile`` is
                       the function)
``stridegrad.viz``     pictures and widgets for the lessons
``stridegrad.course``  lesson build, checkpoints and ``check()``, the grader
=====================  ==========================================================
"""

from __future__ import annotations

import importlib
import sys
import types

__version__ = "0.1.0"

# public name -> (module, attribute); attribute None means the module itself
_EXPORTS: dict[str, tuple[str, str | None]] = {
    # submodules
    "array": ("stridegrad.array", None),
    "backend": ("stridegrad.backend", None),
    "nn": ("stridegrad.nn", None),
    "optim": ("stridegrad.optim", None),
    "data": ("stridegrad.data", None),
    "viz": ("stridegrad.viz", None),
    "course": ("stridegrad.course", None),
    # scalar engine
    "Value": ("stridegrad.scalar", "Value"),
    # devices
    "set_default_device": ("stridegrad.backend", "set_default_device"),
    "get_default_device": ("stridegrad.backend", "get_default_device"),
    # tensors
    "Tensor": ("stridegrad.tensor", "Tensor"),
    # PyTorch's function; the package stays importable as stridegrad.tensor (see _Package)
    "tensor": ("stridegrad.tensor", "tensor"),
    "zeros": ("stridegrad.tensor", "zeros"),
    "ones": ("stridegrad.tensor", "ones"),
    "full": ("stridegrad.tensor", "full"),
    "arange": ("stridegrad.tensor", "arange"),
    "rand": ("stridegrad.tensor", "rand"),
    "randn": ("stridegrad.tensor", "randn"),
    "zeros_like": ("stridegrad.tensor", "zeros_like"),
    "ones_like": ("stridegrad.tensor", "ones_like"),
    # functions of several tensors, with autograd
    "cat": ("stridegrad.tensor", "cat"),
    "stack": ("stridegrad.tensor", "stack"),
    "where": ("stridegrad.tensor", "where"),
    "manual_seed": ("stridegrad.tensor", "manual_seed"),
    "no_grad": ("stridegrad.tensor", "no_grad"),
    "float32": ("stridegrad.tensor", "float32"),
    "float64": ("stridegrad.tensor", "float64"),
    "int64": ("stridegrad.tensor", "int64"),
    "gradcheck": ("stridegrad.gradcheck", "gradcheck"),
    # capture a function's graph, optimise it, replay it: PyTorch's function, like sg.tensor;
    # the package stays importable as stridegrad.compile (see _Package)
    "compile": ("stridegrad.compile", "compile"),
    "save": ("stridegrad.nn.serialization", "save"),
    "load": ("stridegrad.nn.serialization", "load"),
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    try:
        module_name, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'stridegrad' has no attribute {name!r}") from None
    module = importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value  # cache: later look-ups skip __getattr__
    return value


def __dir__():
    return __all__


# packages that share their name with PyTorch's function of the same name
_FUNCTION_PACKAGES = ("tensor", "compile")


class _Package(types.ModuleType):
    """``stridegrad`` itself, so that ``sg.tensor`` and ``sg.compile`` stay PyTorch's
    ``tensor()`` and ``compile()`` functions.

    The import system binds every submodule it loads as an attribute of its parent
    package, so loading the package ``stridegrad.tensor`` (or ``stridegrad.compile``)
    would turn ``sg.tensor`` into that package. This binding keeps the function
    instead. The packages stay reachable as ``importlib.import_module(...)`` and
    through ``from stridegrad.tensor import Tensor, ...`` and ``from
    stridegrad.compile import passes, ...`` (but ``import stridegrad.compile as C``
    binds ``C`` to the function, since it reads the attribute).
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in _FUNCTION_PACKAGES and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
