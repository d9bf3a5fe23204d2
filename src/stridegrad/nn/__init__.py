"""Neural-network building blocks: modules, layers, losses, and :mod:`functional`."""

from . import conv, functional, utils
from .modules import (
    MLP,
    AvgPool2d,
    Conv2d,
    CrossEntropyLoss,
    Flatten,
    Identity,
    Linear,
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
    "save",
    "utils",
]
