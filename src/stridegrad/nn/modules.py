"""``Module`` and the layers built on it: ``Linear``, ``Conv2d``, pooling, ``Flatten``,
``Sequential``, activations, losses and the ``MLP`` helper.

A Module registers the Parameters and sub-Modules assigned to its attributes (in
assignment order, as PyTorch does), so ``parameters()``, ``state_dict()``, ``to()``
and ``repr`` walk the tree without any bookkeeping by the user.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

import stridegrad as sg
from stridegrad.tensor import no_grad, rand, tensor, zeros_like
from stridegrad.nn import functional as F
from stridegrad.tensor import Tensor

__all__ = [
    "Parameter",
    "Module",
    "Linear",
    "Sequential",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Identity",
    "MSELoss",
    "CrossEntropyLoss",
    "MLP",
    "Conv2d",
    "MaxPool2d",
    "AvgPool2d",
    "Flatten",
]


class Parameter(Tensor):
    """A leaf Tensor that a Module registers as trainable (``requires_grad=True``).

    ``Parameter(data)`` copies ``data`` (a Tensor, array or list) and keeps its device.
    """

    __slots__ = ()

    def __init__(self, data: Any, requires_grad: bool = True) -> None:
        if isinstance(data, Tensor):
            data = data.detach()
        super().__init__(data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class of every layer and model: subclass it, assign Parameters and
    Modules in ``__init__``, write ``forward``, and call the module like a function.
    """

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # ---- registration
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is None:
            raise RuntimeError(
                f"cannot assign {name!r} before Module.__init__() is called: "
                f"add super().__init__() at the top of {type(self).__name__}.__init__"
            )
        modules = self.__dict__["_modules"]
        params.pop(name, None)
        modules.pop(name, None)
        if isinstance(value, Parameter):
            params[name] = value
        elif isinstance(value, Module):
            modules[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` under ``name`` (same as assigning the attribute)."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"{name!r} must be a Parameter or None, got {type(param).__name__}")
        setattr(self, name, param)

    # ---- the tree
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def children(self) -> Iterator[Module]:
        """The direct sub-modules, in registration order."""
        return iter(self._modules.values())

    def named_children(self) -> Iterator[tuple[str, Module]]:
        return iter(self._modules.items())

    def modules(self) -> Iterator[Module]:
        """This module and all its descendants, depth first."""
        for _, m in self.named_modules():
            yield m

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        stack: list[tuple[str, Module]] = [(prefix, self)]
        seen: set[int] = set()
        while stack:
            name, m = stack.pop()
            if id(m) in seen:
                continue
            seen.add(id(m))
            yield name, m
            kids = [(f"{name}.{k}" if name else k, c) for k, c in m._modules.items()]
            stack.extend(reversed(kids))

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, Parameter)`` pairs; a shared Parameter is listed once."""
        seen: set[int] = set()
        for mname, m in self.named_modules(prefix):
            for pname, p in m._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mname}.{pname}" if mname else pname), p

    def parameters(self) -> Iterator[Parameter]:
        for _, p in self.named_parameters():
            yield p

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every parameter's ``.grad`` (to None, or to zeros)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                p.grad = zeros_like(p)

    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:
        return self.train(False)

    def to(self, device: str) -> Module:
        """Move every parameter (and its gradient) to ``device``, in place.

        The Parameter objects stay the same, as in PyTorch, so an optimizer made
        before the move keeps working on them.
        """
        from stridegrad import backend

        device = backend.canonical_device(device)
        for p in self.parameters():
            if p.device == device:
                continue
            moved = p.detach().to(device)
            grad = None if p.grad is None else p.grad.to(device)
            p._data, p._device, p._xp = moved._data, moved._device, moved._xp
            p._grad = grad
        return self

    # ---- state
    def state_dict(self) -> OrderedDict[str, Tensor]:
        """Name -> detached Tensor for every parameter (they share memory with the module)."""
        return OrderedDict((name, p.detach()) for name, p in self.named_parameters())

    def load_state_dict(self, state_dict: dict[str, Any], strict: bool = True) -> None:
        """Copy values into the parameters; with ``strict``, every key must match.

        All problems (missing keys, unexpected keys, wrong shapes) are collected and
        reported together, and nothing is changed unless everything fits.
        """
        own = dict(self.named_parameters())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        shapes = []
        for k, p in own.items():
            if k in state_dict:
                got = tuple(getattr(state_dict[k], "shape", ()))
                if got != p.shape:
                    shapes.append(f"{k}: expected shape {p.shape}, got {got}")
        problems = []
        if strict and missing:
            problems.append("missing keys: " + ", ".join(missing))
        if strict and unexpected:
            problems.append("unexpected keys: " + ", ".join(unexpected))
        if shapes:
            problems.append("shape mismatch: " + "; ".join(shapes))
        if problems:
            raise RuntimeError(
                f"error loading state_dict into {type(self).__name__} (nothing was changed): "
                + " | ".join(problems)
            )
        with no_grad():
            for k, p in own.items():
                if k in state_dict:
                    p.copy_(state_dict[k] if isinstance(state_dict[k], Tensor)
                            else tensor(state_dict[k], device=p.device))

    # ---- repr
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        if not self._modules:
            return f"{type(self).__name__}({extra})"
        lines = [f"{type(self).__name__}(" + (extra if extra else "")]
        for name, m in self._modules.items():
            child = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({name}): {child}")
        lines.append(")")
        return "\n".join(lines)


class Linear(Module):
    """``y = x @ weight.T + bias``: ``(N, in_features) -> (N, out_features)``.

    ``weight`` is a Parameter of shape ``(out_features, in_features)``, ``bias``
    one of shape ``(out_features,)``, both uniform in ``[-k, k]``
    with ``k = 1 / sqrt(in_features)``, drawn with ``sg.rand`` (so
    ``sg.manual_seed`` makes them reproducible; the values themselves are not
    prescribed, nor which is drawn first), as PyTorch's ``nn.Linear`` does.
    ``parameters()`` lists the two of them. ``forward`` computes with the
    layer's current ``self.weight`` and ``self.bias`` (set them to other
    Parameters and it uses those), from Tensor operations, so that gradients
    reach them and ``x``.

    This class is the library's ``sg.nn.Linear``, which ``nn.MLP`` and the
    training recipes build their layers with, so it takes three more arguments:
    with ``bias=False`` the layer has no bias (``self.bias`` is None,
    ``parameters()`` lists the weight only, ``forward`` adds nothing), and
    ``device`` and ``dtype`` (None: the default device, and float32) are those
    of both Parameters: pass them on to ``sg.rand``.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        for name, n in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                raise ValueError(f"Linear: {name} must be a positive int, got {n!r}")
        self.in_features, self.out_features = in_features, out_features
        k = 1.0 / math.sqrt(in_features)
        weight = sg.rand(out_features, in_features, device=device, dtype=dtype)
        self.weight = Parameter(weight * (2 * k) - k)
        if bias:
            self.bias = Parameter(sg.rand(out_features, device=device, dtype=dtype) * (2 * k) - k)
        else:
            self.bias = None

    def forward(self, x):
        if not isinstance(x, sg.Tensor):
            raise TypeError(f"Linear expects a Tensor input, got {type(x).__name__}")
        if x.ndim == 0 or x.shape[-1] != self.in_features:
            raise ValueError(
                f"Linear({self.in_features}, {self.out_features}) expects inputs with "
                f"{self.in_features} features in the last dimension, got shape {x.shape} "
                f"({x.shape[-1] if x.ndim else 0} features)")
        return F.linear(x, self.weight, self.bias)  # x @ weight.T (+ bias), any leading axes

    def extra_repr(self):
        """What ``repr`` shows between the parentheses: the sizes, and whether there is
        a bias. (Given: not part of the exercise.)"""
        out_features, in_features = self.weight.shape
        return (f"in_features={in_features}, out_features={out_features}, "
                f"bias={self.bias is not None}")


def _positive_ints(layer: str, **sizes: Any) -> None:
    for label, n in sizes.items():
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            raise ValueError(f"{layer}: {label} must be a positive int, got {n!r}")


def _uniform(shape: tuple[int, ...], bound: float, device: str | None, dtype: Any) -> Tensor:
    with no_grad():
        return rand(*shape, device=device, dtype=dtype) * (2 * bound) - bound


class Sequential(Module):
    """Modules applied in order: ``Sequential(Linear(2, 16), ReLU(), Linear(16, 1))``."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise TypeError(f"Sequential: argument {i} is a {type(m).__name__}, not a Module")
            setattr(self, str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __getitem__(self, i: int) -> Module:
        mods = list(self._modules.values())
        try:
            return mods[i]
        except IndexError:
            raise IndexError(f"index {i} is out of range for a Sequential of {len(mods)} modules") from None

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


class ReLU(Module):
    """``max(x, 0)`` elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x)


class Tanh(Module):
    """``tanh(x)`` elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Identity(Module):
    """Returns its input."""

    def forward(self, x: Any) -> Any:
        return x


class MSELoss(Module):
    """Mean squared error: ``(N, …)`` prediction and target of the same shape -> ``()``."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, pred: Tensor, target: Any) -> Tensor:
        return F.mse_loss(pred, target, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


class CrossEntropyLoss(Module):
    """Softmax cross-entropy: ``(N, C)`` logits, ``(N,)`` int targets -> ``()``."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction

    def forward(self, logits: Tensor, targets: Any) -> Tensor:
        return F.cross_entropy(logits, targets, reduction=self.reduction)

    def extra_repr(self) -> str:
        return f"reduction={self.reduction!r}"


def _size_pair(v: Any, name: str, layer: str) -> tuple[int, int]:
    pair = tuple(v) if isinstance(v, (tuple, list)) else (v, v)
    if len(pair) != 2 or any(not isinstance(n, int) or isinstance(n, bool) or n <= 0 for n in pair):
        raise ValueError(f"{layer}: {name} must be a positive int or a pair of them, got {v!r}")
    return pair  # type: ignore[return-value]


class Conv2d(Module):
    """2-D convolution layer: ``(N, in_channels, H, W)`` -> ``(N, out_channels, OH, OW)``.

    Weight ``(out_channels, in_channels, kh, kw)`` and bias ``(out_channels,)``,
    initialised as PyTorch does: uniform in ``±1/sqrt(in_channels * kh * kw)``
    (Kaiming-uniform with ``a=sqrt(5)``, the fan-in of one output value).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, bias: bool = True, device: str | None = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _positive_ints("Conv2d", in_channels=in_channels, out_channels=out_channels)
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _size_pair(kernel_size, "kernel_size", "Conv2d")
        self.stride = _size_pair(stride, "stride", "Conv2d")
        pad = tuple(padding) if isinstance(padding, (tuple, list)) else (padding, padding)
        if len(pad) != 2 or any(not isinstance(n, int) or isinstance(n, bool) or n < 0 for n in pad):
            raise ValueError(f"Conv2d: padding must be an int >= 0 or a pair of them, got {padding!r}")
        self.padding = pad
        shape = (out_channels, in_channels, *self.kernel_size)
        bound = 1.0 / math.sqrt(in_channels * self.kernel_size[0] * self.kernel_size[1])
        self.weight = Parameter(_uniform(shape, bound, device, dtype))
        self.bias = Parameter(_uniform((out_channels,), bound, device, dtype)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        return F.conv2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}, bias={self.bias is not None}")


class MaxPool2d(Module):
    """Maximum over ``kernel_size`` windows, ``stride`` apart (default: the kernel size)."""

    def __init__(self, kernel_size: Any, stride: Any = None) -> None:
        super().__init__()
        self.kernel_size = _size_pair(kernel_size, "kernel_size", type(self).__name__)
        self.stride = self.kernel_size if stride is None else _size_pair(
            stride, "stride", type(self).__name__)

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.kernel_size, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}"


class AvgPool2d(MaxPool2d):
    """Mean over ``kernel_size`` windows, ``stride`` apart (default: the kernel size)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride)


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one: ``(N, C, H, W)`` -> ``(N, C * H * W)``."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor):
            raise TypeError(f"Flatten expects a Tensor input, got {type(x).__name__}")
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


_ACTIVATIONS = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid}


class MLP(Sequential):
    """A multi-layer perceptron: ``MLP([64, 128, 10], activation="relu")``.

    Linear layers between consecutive sizes, the activation after every layer but
    the last (so the output is raw scores / logits).
    """

    def __init__(self, sizes: Iterable[int], activation: str | type[Module] = "relu",
                 device: str | None = None, dtype: Any = None) -> None:
        sizes = list(sizes)
        if len(sizes) < 2:
            raise ValueError(f"MLP needs at least an input and an output size, got {sizes}")
        if isinstance(activation, str):
            try:
                act = _ACTIVATIONS[activation]
            except KeyError:
                raise ValueError(
                    f"unknown activation {activation!r}; choose one of {sorted(_ACTIVATIONS)}"
                ) from None
        elif isinstance(activation, type) and issubclass(activation, Module):
            act = activation
        else:
            raise TypeError(f"activation must be a name or a Module class, got {activation!r}")
        layers: list[Module] = []
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            layers.append(Linear(a, b, device=device, dtype=dtype))
            if i < len(sizes) - 2:
                layers.append(act())
        super().__init__(*layers)
        object.__setattr__(self, "sizes", tuple(sizes))
