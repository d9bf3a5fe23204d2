"""``save`` / ``load`` for state dicts as ``.npz`` files: arrays only, no pickled code."""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

import numpy as np

from stridegrad.tensor import Tensor, tensor

__all__ = ["save", "load"]


def save(obj: dict[str, Any], path: str | os.PathLike) -> None:
    """Write a state dict (name -> Tensor or array) to ``path`` as an ``.npz`` file.

    Values are brought to the host; names keep their order. Anything that is not a
    Tensor or an array is refused (no pickle), with the offending key named.
    """
    if not isinstance(obj, dict):
        raise TypeError(f"save expects a state dict (name -> Tensor), got {type(obj).__name__}")
    arrays = {}
    for k, v in obj.items():
        if not isinstance(k, str):
            raise TypeError(f"state dict keys must be str, got {k!r}")
        if isinstance(v, Tensor):
            arrays[k] = v.numpy()
        elif isinstance(v, np.ndarray):
            arrays[k] = v
        else:
            raise TypeError(f"cannot save {k!r}: a {type(v).__name__}, not a Tensor or NumPy array")
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def load(path: str | os.PathLike, device: str | None = None) -> OrderedDict[str, Tensor]:
    """Read a state dict written by :func:`save`: name -> Tensor on ``device``."""
    with np.load(path, allow_pickle=False) as data:
        return OrderedDict((k, tensor(data[k], device=device)) for k in data.files)
