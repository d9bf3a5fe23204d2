"""Known-wrong implementations of episode 09's exercises (the training loop).

Each must fail checkpoint 09; ``test_checks.py`` and ``test_ep09.py`` run them all.
"""

_LINEAR_HEAD = """
import math
import numpy as np
import stridegrad as sg
from stridegrad.nn import Module, Parameter
"""

WRONG = {
    "Linear": [
        ("weight stored as (in, out)", _LINEAR_HEAD + """
class Linear(Module):
    def __init__(self, i, o):
        super().__init__()
        k = 1 / math.sqrt(i)
        self.weight = Parameter((sg.rand(i, o) * 2 - 1) * k)
        self.bias = Parameter((sg.rand(o) * 2 - 1) * k)
    def forward(self, x):
        return x @ self.weight + self.bias
"""),
        ("random normal init with std 1", _LINEAR_HEAD + """
class Linear(Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = Parameter(sg.randn(o, i))
        self.bias = Parameter(sg.randn(o))
    def forward(self, x):
        return x @ self.weight.T + self.bias
"""),
        ("bias is a plain tensor", _LINEAR_HEAD + """
class Linear(Module):
    def __init__(self, i, o):
        super().__init__()
        k = 1 / math.sqrt(i)
        self.weight = Parameter((sg.rand(o, i) * 2 - 1) * k)
        self.bias = (sg.rand(o) * 2 - 1) * k
    def forward(self, x):
        return x @ self.weight.T + self.bias
"""),
        ("zeros init", _LINEAR_HEAD + """
class Linear(Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = Parameter(sg.zeros(o, i))
        self.bias = Parameter(sg.zeros(o))
    def forward(self, x):
        return x @ self.weight.T + self.bias
"""),
        ("NumPy's unseeded generator", _LINEAR_HEAD + """
class Linear(Module):
    def __init__(self, i, o):
        super().__init__()
        k = 1 / math.sqrt(i)
        self.weight = Parameter(np.random.uniform(-k, k, (o, i)).astype(np.float32))
        self.bias = Parameter(np.random.uniform(-k, k, o).astype(np.float32))
    def forward(self, x):
        return x @ self.weight.T + self.bias
"""),
    ],
    "log_softmax": [
        ("naive, no max subtracted", """
def log_softmax(x):
    return x - x.exp().sum(axis=-1, keepdims=True).log()
"""),
        ("reduces over the wrong axis", """
def log_softmax(x):
    s = x - x.max(axis=0, keepdims=True)
    return s - s.exp().sum(axis=0, keepdims=True).log()
"""),
        ("through NumPy (no gradient)", """
import numpy as np
import stridegrad as sg
def log_softmax(x):
    a = x.numpy()
    s = a - a.max(axis=-1, keepdims=True)
    return sg.tensor(s - np.log(np.exp(s).sum(axis=-1, keepdims=True)))
"""),
        ("softmax, not its log", """
def log_softmax(x):
    s = (x - x.max(axis=-1, keepdims=True)).exp()
    return s / s.sum(axis=-1, keepdims=True)
"""),
    ],
    "nll_loss": [
        ("forgets the minus sign", """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return (logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).sum() / n
"""),
        ("sums instead of averaging", """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return -(logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).sum()
"""),
        ("mean over all N * C entries", """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return -(logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).mean()
"""),
    ],
    "sgd_step": [
        ("forgets weight decay", """
def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    g = grad
    if momentum:
        buf = state.get("momentum_buffer")
        buf = g if buf is None else momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf
    return param - lr * g
"""),
        ("momentum buffer initialised to ones", """
import numpy as np
def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    g = grad + weight_decay * param
    if momentum:
        buf = state.setdefault("momentum_buffer", np.ones_like(param))
        buf = momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf
    return param - lr * g
"""),
        ("dampened buffer, started at zeros", """
import numpy as np
def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    g = grad + weight_decay * param
    if momentum:
        buf = state.get("momentum_buffer", np.zeros_like(param))
        buf = momentum * buf + (1 - momentum) * g
        state["momentum_buffer"] = buf
        g = buf
    return param - lr * g
"""),
        ("forgets the buffer between calls", """
def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    g = grad + weight_decay * param
    buf = g
    return param - lr * buf
"""),
        ("updates param in place", """
def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    g = grad + weight_decay * param
    if momentum:
        buf = state.get("momentum_buffer")
        buf = g if buf is None else momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf
    param -= lr * g
    return param
"""),
    ],
    "adam_step": [
        ("no bias correction", """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    state["step"] = state.get("step", 0) + 1
    return param - lr * m / (np.sqrt(v) + eps)
"""),
        ("forgets the square root", """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = state["step"] = state.get("step", 0) + 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / (v / (1 - b2 ** t) + eps)
"""),
        ("never counts the steps", """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
"""),
        ("ignores the betas it is given", """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = 0.9, 0.999
    t = state["step"] = state.get("step", 0) + 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
"""),
    ],
}
