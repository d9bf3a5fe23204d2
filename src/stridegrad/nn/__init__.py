"""Neural-network building blocks: modules, layers, losses, and :mod:`functional`.

``Linear`` is read from :mod:`stridegrad.nn.modules` each time ``stridegrad.nn.Linear``
is looked up (a module ``__getattr__``), not bound here once: it is lesson 09's
exercise, and ``stridegrad yours`` swaps a learner's class in by setting
``stridegrad.nn.modules.Linear``, which every caller then builds with.
"""

from . import conv, functional, modules, utils
from .modules import (
    MLP,
    AvgPool2d,
    Conv2d,
    CrossEntropyLoss,
    Flatten,
    Identity,
    MaxPool2d,
    Module,
    MSELoss,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
)
from .serialization import load, save

__all__ = [
    "MLP",
    "AvgPool2d",
    "Conv2d",
    "CrossEntropyLoss",
    "Flatten",
    "Identity",
    "Linear",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "conv",
    "functional",
    "load",
    "modules",
    "save",
    "utils",
]


def __getattr__(name: str):
    """``Linear``: whatever :mod:`stridegrad.nn.modules` holds now (see the module doc)."""
    if name == "Linear":
        return modules.Linear
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"Linear"})
