"""Neural-network building blocks: modules, layers, losses, and :mod:`functional`."""

from . import functional, utils
from .modules import (
    MLP,
    CrossEntropyLoss,
    Identity,
    Linear,
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
    "CrossEntropyLoss",
    "Identity",
    "Linear",
    "MSELoss",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "functional",
    "load",
    "save",
    "utils",
]
