"""``Tensor``: an n-dimensional array with reverse-mode autograd, on any device.

Layers, bottom to top, one file each:

1. ``_base``: dtypes (``float32``, ...), grad mode (``no_grad``; the one home of the
   ``_grad_enabled`` flag that every layer reads) and the shape rules; below them
   all, the array namespace ``xp`` of the tensor's device (:mod:`stridegrad.backend`);
2. ``_nodes``: one ``Node`` subclass per differentiable op (``MulBackward``, ...),
   holding the edges to its inputs' nodes (``next_functions``) and the raw arrays
   its backward needs (never the output tensor itself: that would be a reference
   cycle); the steps they share are :mod:`stridegrad.tensor.rules` (lesson 08's
   ``unbroadcast``, ``sum_backward``, ``max_backward``, ``matmul_backward``), pure
   functions of arrays that the nodes call through that module;
3. ``_engine``: the iterative backward engine (``_run_backward``);
4. ``_tensor``: the thin user-facing ``Tensor``;
5. ``_creation``: the creation functions (``tensor``, ``zeros``, ``rand``, ...);
6. ``_joins``: functions of several tensors (``cat``, ``stack``, ``where``).

All op code calls standard Array API functions and operators on ``xp`` only, so
the same code runs on NumPy, CuPy, ``stridegrad.array`` and ``array_api_strict``.

Dtype rules (PyTorch's): Python floats give ``float32``, Python ints ``int64``,
bools ``bool``; a NumPy array keeps its dtype. Mixing a float tensor with an
int tensor gives the float dtype; ``float32`` with ``float64`` gives ``float64``.
Python scalars never change a float tensor's dtype (``x * 2`` stays ``float32``).

``sg.tensor`` is the function :func:`tensor`, as in PyTorch; this package is
``stridegrad.tensor`` for ``from stridegrad.tensor import ...`` and
``importlib.import_module("stridegrad.tensor")``.
"""

from __future__ import annotations

from stridegrad.tensor._base import (
    DType,
    Shape as Shape,
    _kind as _kind,
    _norm_axes as _norm_axes,
    bool_,
    enable_grad,
    float32,
    float64,
    int64,
    is_grad_enabled,
    no_grad,
)
from stridegrad.tensor._creation import (
    arange,
    full,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from stridegrad.tensor._joins import cat, stack, where
from stridegrad.tensor._nodes import (
    AbsBackward as AbsBackward,
    AccumulateGrad as AccumulateGrad,
    AddBackward as AddBackward,
    CastBackward as CastBackward,
    CatBackward as CatBackward,
    DivBackward as DivBackward,
    ExpBackward as ExpBackward,
    IndexBackward as IndexBackward,
    LogBackward as LogBackward,
    MatMulBackward as MatMulBackward,
    MaxBackward as MaxBackward,
    MeanBackward as MeanBackward,
    MinBackward as MinBackward,
    MulBackward as MulBackward,
    NegBackward as NegBackward,
    Node,
    PermuteBackward as PermuteBackward,
    PowBackward as PowBackward,
    ReluBackward as ReluBackward,
    ReshapeBackward as ReshapeBackward,
    SigmoidBackward as SigmoidBackward,
    SliceBackward as SliceBackward,
    SqrtBackward as SqrtBackward,
    StackBackward as StackBackward,
    SubBackward as SubBackward,
    SumBackward as SumBackward,
    TanhBackward as TanhBackward,
    ToDeviceBackward as ToDeviceBackward,
    WhereBackward as WhereBackward,
    _edge as _edge,
)
from stridegrad.tensor._tensor import Tensor
from stridegrad.tensor._tensor import _device_error as _device_error
from stridegrad.tensor._tensor import _wrap as _wrap

__all__ = [
    "DType",
    "Node",
    "Tensor",
    "arange",
    "bool_",
    "cat",
    "enable_grad",
    "float32",
    "float64",
    "full",
    "int64",
    "is_grad_enabled",
    "manual_seed",
    "no_grad",
    "ones",
    "ones_like",
    "rand",
    "randn",
    "stack",
    "tensor",
    "where",
    "zeros",
    "zeros_like",
]
