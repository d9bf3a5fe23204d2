"""Known-wrong implementations of episode 08's exercises (tensor autograd).

Each must fail checkpoint 08; ``test_checks.py`` and ``test_ep08.py`` run them all.
"""

from stridegrad.course.misconceptions import Misconception


MISCONCEPTIONS = {
    "unbroadcast": [
        Misconception("forgets the added leading axes",
          "sums the stretched size-1 axes but not the leading axes broadcasting added: the "
          "gradient keeps extra dimensions",
          """
import numpy as np
def unbroadcast(grad, shape):
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
"""),
        Misconception("forgets keepdims",
          "sums the stretched size-1 axes without keepdims: the gradient loses those axes and "
          "has the wrong shape",
          """
import numpy as np
def unbroadcast(grad, shape):
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes) if axes else grad
"""),
        Misconception("sums everything",
          "sums the gradient down to one number whatever the shape: right only for a scalar "
          "input",
          """
import numpy as np
def unbroadcast(grad, shape):
    return np.full(shape, grad.sum())
"""),
        Misconception("aligns the axes from the left",
          "matches the input's axes from the left: the wrong axes are summed; broadcasting "
          "aligns trailing axes",
          """
import numpy as np
def unbroadcast(grad, shape):
    axes = tuple(range(len(shape), grad.ndim))
    grad = grad.sum(axis=axes) if axes else grad
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
"""),
    ],
    "sum_backward": [
        Misconception("plain broadcast_to",
          "broadcasts the gradient without restoring the summed axes first: without keepdims it "
          "lines up with the wrong axes (or fails)",
          """
import numpy as np
def sum_backward(grad, shape, axis=None, keepdims=False):
    return np.broadcast_to(grad, shape).copy()
"""),
        Misconception("ignores negative axes",
          "does not turn a negative axis into a positive one: axis=-1 puts the restored axis in "
          "the wrong place",
          """
import numpy as np
def sum_backward(grad, shape, axis=None, keepdims=False):
    axes = tuple(range(len(shape))) if axis is None else (axis,) if isinstance(axis, int) else axis
    if not keepdims:
        grad = np.reshape(grad, [1 if i in axes else n for i, n in enumerate(shape)])
    return np.broadcast_to(grad, shape).copy()
"""),
        Misconception("divides by the count like mean",
          "divides by the number of summed elements, as mean's backward does: the gradient of "
          "sum is 1 per element",
          """
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
        Misconception("spreads the gradient to all entries",
          "sends the gradient to every entry instead of the maxima only: entries that are not "
          "the max get a gradient they did not earn",
          """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return np.broadcast_to(grad, x.shape).astype(float)
"""),
        Misconception("ties each get the whole gradient",
          "gives each tied maximum the whole gradient instead of sharing it: ties get too much",
          """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    out = x.max(axis=axis, keepdims=True)
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return (x == out) * grad
"""),
        Misconception("the whole gradient to the first maximum only",
          "gives the whole gradient to the first maximum of each slice (argmax picks only the "
          "first): when entries tie, the others get nothing; tied maxima share the gradient "
          "equally",
          """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    out = x.max(axis=axis, keepdims=True)
    grad = np.reshape(grad, out.shape) if axis is None or keepdims else np.expand_dims(grad, axis)
    first = np.zeros(x.shape)
    if axis is None:
        first.flat[np.argmax(x)] = 1.0
    else:
        np.put_along_axis(first, np.expand_dims(np.argmax(x, axis=axis), axis), 1.0, axis=axis)
    return first * grad
"""),
        Misconception("compares with the max without keepdims",
          "compares x with the max without keepdims: the max lines up with the wrong axis, so "
          "the wrong entries are marked",
          """
import numpy as np
def max_backward(x, grad, axis=None, keepdims=False):
    out = x.max(axis=axis)
    mask = (x == out).astype(float)
    return mask * grad / mask.sum()
"""),
    ],
    "matmul_backward": [
        Misconception("grad_a without the transpose of b",
          "computes grad_a as grad @ b instead of grad @ b.T: the shapes clash unless b is "
          "square, and then the values are wrong without any error",
          """
def matmul_backward(a, b, grad):
    return grad @ b, a.T @ grad
"""),
        Misconception("grad_b without the transpose of a",
          "computes grad_b as a @ grad instead of a.T @ grad: the shapes clash unless a is "
          "square, and then the values are wrong without any error",
          """
def matmul_backward(a, b, grad):
    return grad @ b.T, a @ grad
"""),
        Misconception("grad_b as grad.T @ a (transposed)",
          "computes grad_b as grad.T @ a: the transpose of the right answer",
          """
def matmul_backward(a, b, grad):
    return grad @ b.T, grad.T @ a
"""),
        Misconception("factors of grad_a swapped",
          "computes grad_a as b.T @ grad instead of grad @ b.T: the factors are in the wrong "
          "order",
          """
def matmul_backward(a, b, grad):
    return b.T @ grad if b.shape[1] == grad.shape[0] else grad @ b.T, a.T @ grad
"""),
        Misconception("returns (grad_b, grad_a)",
          "returns (grad_b, grad_a) instead of (grad_a, grad_b): the two are swapped",
          """
def matmul_backward(a, b, grad):
    return a.T @ grad, grad @ b.T
"""),
    ],
    "numerical_gradient": [
        Misconception("forward difference",
          "uses (f(x + eps) - f(x)) / eps: one-sided, with an error of order eps on curved "
          "functions",
          """
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
        Misconception("divides by eps, not 2 eps",
          "divides the central difference by eps instead of 2 eps: every entry is twice its "
          "size",
          """
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
        Misconception("does not restore x",
          "leaves each nudged entry of x changed: x is not the same after the call, and later "
          "entries are measured at the wrong point",
          """
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
        Misconception("restores x by adding the nudges back",
          "puts x back by arithmetic (+ eps, - 2 eps, + eps): floating point does not undo a "
          "nudge exactly, so x ends one rounding step off its old value (3.0000000000000004 "
          "for 3.0); save the old value and assign it back",
          """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        x[idx] += eps
        up = f(x)
        x[idx] -= 2 * eps
        down = f(x)
        x[idx] += eps
        g[idx] = (up - down) / (2 * eps)
    return g
"""),
        Misconception("divides by 2, then multiplies by eps",
          "writes (up - down) / 2 * eps, which Python reads as ((up - down) / 2) * eps: the "
          "difference is multiplied by eps instead of divided, and every entry comes out "
          "about 0; write / (2 * eps)",
          """
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
        g[idx] = (up - down) / 2 * eps
    return g
"""),
        Misconception("nudges through reshape(-1)",
          "nudges x through flat = x.reshape(-1): for a contiguous x that is a view of it, "
          "but for a transposed or stepped x reshape must copy, so the nudges go into the "
          "copy, f(x) never moves and every entry comes out 0; index x itself, "
          "x[idx] for idx in np.ndindex(*x.shape)",
          """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    flat = x.reshape(-1)
    g = np.zeros(x.size)
    for i in range(x.size):
        old = flat[i]
        flat[i] = old + eps
        up = f(x)
        flat[i] = old - eps
        down = f(x)
        flat[i] = old
        g[i] = (up - down) / (2 * eps)
    return g.reshape(x.shape)
"""),
        Misconception("the gradient in x's dtype",
          "makes the result with np.zeros_like(x): for a float32 x it is float32 too, "
          "rounding every central difference to about 7 digits; the docstring asks for a "
          "float64 array, np.zeros(x.shape)",
          """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        old = x[idx]
        x[idx] = old + eps
        up = f(x)
        x[idx] = old - eps
        down = f(x)
        x[idx] = old
        g[idx] = (up - down) / (2 * eps)
    return g
"""),
        Misconception("perturbs every entry at once",
          "nudges all entries of x at once: each entry gets the sum of all the partial "
          "derivatives",
          """
import numpy as np
def numerical_gradient(f, x, eps=1e-6):
    return np.full(x.shape, (f(x + eps) - f(x - eps)) / (2 * eps))
"""),
    ],
}


# ------------------------------------------------------------------ stretch: softmax_backward

def _softmax_backward(body):
    return "import numpy as np\n\ndef softmax_backward(y, grad, axis=-1):\n" + body


MISCONCEPTIONS["softmax_backward"] = [
    Misconception("forgets the other classes",
      "multiplies grad by y elementwise: the term from the other outputs of the row "
      "(- y_i * sum_j grad_j * y_j) is missing, so a uniform grad does not give 0",
      _softmax_backward("    return y * grad\n")),
    Misconception("diagonal only",
      "uses only d y_i / d x_i = y_i * (1 - y_i): every output is treated as depending on "
      "its own score alone, not on the rest of its row",
      _softmax_backward("    return y * (1 - y) * grad\n")),
    Misconception("sum without keepdims",
      "sums grad * y along the axis without keepdims: for a 2-D input the row sums "
      "broadcast along the wrong axis, each row getting another row's sum",
      _softmax_backward("    return y * (grad - (grad * y).sum(axis=axis))\n")),
    Misconception("sums over every axis",
      "sums grad * y over the whole array instead of along the axis: right for one row, "
      "wrong as soon as there are two",
      _softmax_backward("    return y * (grad - (grad * y).sum())\n")),
    Misconception("changes grad in place",
      "subtracts the sum from grad in place (grad -= ...): the answer is right but the "
      "caller's gradient array is changed",
      _softmax_backward("    grad -= (grad * y).sum(axis=axis, keepdims=True)\n"
                        "    return y * grad\n")),
    Misconception("a float64 Jacobian per lane",
      "builds each lane's Jacobian diag(y) - outer(y, y) and fills the result into "
      "np.zeros(shape), a float64 array: the values are right, but a float32 y and grad "
      "give a float64 gradient where the docstring keeps their dtype",
      _softmax_backward("""    ym, gm = np.moveaxis(y, axis, -1), np.moveaxis(grad, axis, -1)
    out = np.zeros(ym.shape)
    for idx in np.ndindex(*ym.shape[:-1]):
        s = ym[idx]
        out[idx] = (np.diag(s) - np.outer(s, s)) @ gm[idx]
    return np.moveaxis(out, -1, axis)
""")),
]
