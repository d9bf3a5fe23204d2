"""Known-wrong implementations of episode 08's exercises (tensor autograd).

Each must fail checkpoint 08; ``test_checks.py`` and ``test_ep08.py`` run them all.
"""

WRONG = {
    "unbroadcast": [
        ("forgets the added leading axes", """
import numpy as np
def unbroadcast(grad, shape):
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
"""),
        ("forgets keepdims", """
import numpy as np
def unbroadcast(grad, shape):
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes) if axes else grad
"""),
        ("sums everything", """
import numpy as np
def unbroadcast(grad, shape):
    return np.full(shape, grad.sum())
"""),
        ("aligns the axes from the left", """
import numpy as np
def unbroadcast(grad, shape):
    axes = tuple(range(len(shape), grad.ndim))
    grad = grad.sum(axis=axes) if axes else grad
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
"""),
    ],
    "sum_backward": [
        ("plain broadcast_to", """
import numpy as np
def sum_backward(grad, shape, axis=None, keepdims=False):
    return np.broadcast_to(grad, shape).copy()
"""),
        ("ignores negative axes", """
import numpy as np
def sum_backward(grad, shape, axis=None, keepdims=False):
    axes = tuple(range(len(shape))) if axis is None else (axis,) if isinstance(axis, int) else axis
    if not keepdims:
        grad = np.reshape(grad, [1 if i in axes else n for i, n in enumerate(shape)])
    return np.broadcast_to(grad, shape).copy()
"""),
        ("divides by the count like mean", """
import numpy as np
def sum_backward(grad, shape, axis=None, keepdims=False):
    ndim = len(shape)
    axes = tuple(range(ndim)) if axis is None else (axis % ndim,) if isinstance(axis, int) \\
        else tuple(a % ndim for a in axis)
    if not keepdims:
        grad = np.reshape(grad, [1 if i in axes else n for i, n in enumerate(shape)])
    count = int(np.prod([shape[a] for a in axes]))
    return np.broadcast_to(grad, shape) / count
"""),
    ],
    "max_backward": [
        ("spreads the gradient to all entries", """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return np.broadcast_to(grad, x.shape).astype(float)
"""),
        ("ties each get the whole gradient", """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    out = x.max(axis=axis, keepdims=True)
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return (x == out) * grad
"""),
        ("compares with the max without keepdims", """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    out = x.max(axis=axis)
    mask = (x == out).astype(float)
    return mask * grad / mask.sum()
"""),
    ],
    "matmul_backward": [
        ("missing transpose", """
def matmul_backward(a, b, grad):
    return grad @ b, a @ grad
"""),
        ("grad_b as grad.T @ a (transposed)", """
def matmul_backward(a, b, grad):
    return grad @ b.T, grad.T @ a
"""),
        ("factors of grad_a swapped", """
def matmul_backward(a, b, grad):
    return b.T @ grad if b.shape[1] == grad.shape[0] else grad @ b.T, a.T @ grad
"""),
        ("returns (grad_b, grad_a)", """
def matmul_backward(a, b, grad):
    return a.T @ grad, grad @ b.T
"""),
    ],
    "numerical_gradient": [
        ("forward difference", """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros(x.shape)
    base = f(x)
    for idx in np.ndindex(*x.shape):
        old = x[idx]
        x[idx] = old + eps
        g[idx] = (f(x) - base) / eps
        x[idx] = old
    return g
"""),
        ("divides by eps, not 2 eps", """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(x)
        x[idx] = old - eps
        down = f(x)
        x[idx] = old
        g[idx] = (up - down) / eps
    return g
"""),
        ("does not restore x", """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        x[idx] += eps
        up = f(x)
        x[idx] -= 2 * eps
        down = f(x)
        g[idx] = (up - down) / (2 * eps)
    return g
"""),
        ("perturbs every entry at once", """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    return np.full(x.shape, (f(x + eps) - f(x - eps)) / (2 * eps))
"""),
    ],
}
