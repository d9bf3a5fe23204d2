"""Known-wrong implementations of episode 09's exercises (the training loop).

Each must fail checkpoint 09; ``test_checks.py`` and ``test_ep09.py`` run them all.
"""

from stridegrad.course.misconceptions import Misconception


_LINEAR = """
import math
import numpy as np
import stridegrad as sg
from stridegrad.nn import Module, Parameter


class Linear(Module):
    def __init__(self, i, o, bias=True, device=None, dtype=None):
        super().__init__()
        k = 1 / math.sqrt(i)
        self.weight = {WEIGHT}
        {BIAS_LINE}

    def forward(self, x):
        {FORWARD}
"""

#: the device and dtype arguments each draw passes on (``{D}`` in a piece)
_D = ", device=device, dtype=dtype"


def _linear(weight="Parameter((sg.rand(o, i{D}) * 2 - 1) * k)",
            bias="Parameter((sg.rand(o{D}) * 2 - 1) * k)",
            forward="return x @ self.weight.T if self.bias is None else x @ self.weight.T + self.bias",
            bias_line="self.bias = {BIAS} if bias else None"):
    """The right Linear with one piece swapped for a wrong one (``{D}`` in a piece:
    the device and dtype arguments)."""
    return (_LINEAR.replace("{BIAS_LINE}", bias_line).replace("{WEIGHT}", weight)
            .replace("{BIAS}", bias).replace("{FORWARD}", forward).replace("{D}", _D))


_SGD = """
import numpy as np


def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
    {DECAY}
    if momentum:
        {MOMENTUM}
    {STEP}
"""

_BUFFER = """buf = state.get("momentum_buffer")
        buf = g if buf is None else momentum * buf + g
        state["momentum_buffer"] = buf
        g = buf"""


def _sgd(decay="g = grad + weight_decay * param", momentum=_BUFFER,
         step="return param - lr * g"):
    """The right sgd_step with one piece swapped for a wrong one."""
    return (_SGD.replace("{DECAY}", decay).replace("{MOMENTUM}", momentum)
            .replace("{STEP}", step))


MISCONCEPTIONS = {
    "Linear": [
        Misconception("weight stored as (in, out)",
          "stores the weight transposed, as (in_features, out_features): its shape is not "
          "PyTorch's (out_features, in_features)",
          _linear(weight="Parameter((sg.rand(i, o{D}) * 2 - 1) * k)",
                  forward="return x @ self.weight if self.bias is None else x @ self.weight + self.bias")),
        Misconception("random normal init with std 1",
          "draws weights from a standard normal: far too large; the scale must be "
          "1/sqrt(in_features) (uniform bound)",
          _linear(weight="Parameter(sg.randn(o, i{D}))", bias="Parameter(sg.randn(o{D}))")),
        Misconception("bias is a plain tensor",
          "makes the bias a plain tensor, not a Parameter: parameters() misses it, so it is "
          "never trained",
          _linear(bias="(sg.rand(o{D}) * 2 - 1) * k")),
        Misconception("plain tensors, not Parameters",
          "makes weight and bias plain tensors, not Parameters: parameters() lists neither, "
          "they do not require grad, so backward has nothing to fill and nothing is trained; "
          "wrap the finished numbers in Parameter(...)",
          _linear(weight="(sg.rand(o, i{D}) * 2 - 1) * k", bias="(sg.rand(o{D}) * 2 - 1) * k")),
        Misconception("draws from [0, 2k): forgets to shift",
          "stretches sg.rand to [0, 2k) but never shifts it down by k: every weight is "
          "positive and the largest reach 2k; (rand * 2 - 1) * k lands on [-k, k)",
          _linear(weight="Parameter(sg.rand(o, i{D}) * 2 * k)",
                  bias="Parameter(sg.rand(o{D}) * 2 * k)")),
        Misconception("draws from [0, k)",
          "scales sg.rand by k only: the weights lie in [0, k), all positive and half as "
          "spread as [-k, k]; stretch to width 2k and shift the middle to 0",
          _linear(weight="Parameter(sg.rand(o, i{D}) * k)", bias="Parameter(sg.rand(o{D}) * k)")),
        Misconception("zeros init",
          "initialises the weights to zeros: every output is the bias and all units stay "
          "identical",
          _linear(weight="Parameter(sg.zeros(o, i{D}))", bias="Parameter(sg.zeros(o{D}))")),
        Misconception("bias initialised to zeros",
          "draws the weight uniformly from [-k, k] but starts the bias at zeros (as some "
          "libraries do): the docstring, like PyTorch's Linear, draws the bias from "
          "[-k, k] too",
          _linear(bias="Parameter(sg.zeros(o{D}))")),
        Misconception("weights are the result of an op, not leaves",
          "builds weight and bias as (sg.rand(..., requires_grad=True) * 2 - 1) * k: the "
          "result of an operation is not a leaf and not a Parameter, so parameters() misses "
          "it and backward never fills its .grad; wrap the finished numbers in Parameter(...)",
          _linear(weight="(sg.rand(o, i{D}, requires_grad=True) * 2 - 1) * k",
                  bias="(sg.rand(o{D}, requires_grad=True) * 2 - 1) * k")),
        Misconception("NumPy's unseeded generator",
          "draws the weights from NumPy's global generator instead of the given one: the same "
          "seed does not give the same layer",
          _linear(weight="Parameter(np.random.uniform(-k, k, (o, i)).astype(np.float32))",
                  bias="Parameter(np.random.uniform(-k, k, o).astype(np.float32))")),
        Misconception("ignores bias=False",
          "makes a bias whatever bias= says: Linear(3, 2, bias=False) still has one, and "
          "parameters() lists it; with bias=False, self.bias is None",
          _linear(bias_line="self.bias = {BIAS}")),
        Misconception("adds a bias of None",
          "sets self.bias = None for bias=False but forward still adds self.bias: "
          "x @ weight.T + None raises; add the bias only when there is one",
          _linear(forward="return x @ self.weight.T + self.bias")),
        Misconception("ignores device and dtype",
          "draws weight and bias with sg.rand(shape) alone: Linear(3, 2, device='python', "
          "dtype='float64') makes float32 Parameters on the default device; pass device= "
          "and dtype= on to sg.rand",
          _linear(weight="Parameter((sg.rand(o, i) * 2 - 1) * k)",
                  bias="Parameter((sg.rand(o) * 2 - 1) * k)")),
    ],
    "log_softmax": [
        Misconception("naive, no max subtracted",
          "takes exp of the logits without shifting them: exp(1000) overflows to inf and "
          "exp(-1000) underflows to 0, so the log of the sum is inf or -inf and every entry "
          "comes out -inf or inf; subtract each row's max first",
          """
def log_softmax(x):
    return x - x.exp().sum(axis=-1, keepdims=True).log()
"""),
        Misconception("shifts by the max of the whole batch",
          "subtracts the largest logit of the whole batch instead of each row's own: a row far "
          "below the largest one underflows, exp gives 0 for all of it and its log-probabilities "
          "come out inf",
          """
def log_softmax(x):
    s = x - x.max()
    return s - s.exp().sum(axis=-1, keepdims=True).log()
"""),
        Misconception("shifts by the max without keepdims",
          "subtracts x.max(axis=-1) without keepdims: the (N,) maxima broadcast along the "
          "last axis, so row i is shifted by the max of row j (or the shapes clash); with "
          "keepdims=True the (N, 1) maxima line up with the rows",
          """
def log_softmax(x):
    s = x - x.max(axis=-1)
    return s - s.exp().sum(axis=-1, keepdims=True).log()
"""),
        Misconception("reduces over the wrong axis",
          "normalises over the wrong axis: the rows do not sum to 1 after exp",
          """
def log_softmax(x):
    s = x - x.max(axis=0, keepdims=True)
    return s - s.exp().sum(axis=0, keepdims=True).log()
"""),
        Misconception("through NumPy (no gradient)",
          "computes through NumPy arrays: the values are right but the result has no gradient",
          """
import numpy as np
import stridegrad as sg
def log_softmax(x):
    a = x.numpy()
    s = a - a.max(axis=-1, keepdims=True)
    return sg.tensor(s - np.log(np.exp(s).sum(axis=-1, keepdims=True)))
"""),
        Misconception("reduces over axis 1, not the last axis",
          "takes the max and the sum over axis=1: right for (N, C) logits, where axis 1 is "
          "the last one, but a (C,) vector has no axis 1 and a (B, N, C) batch is "
          "normalised down its columns; the docstring says the last axis, axis=-1",
          """
def log_softmax(x):
    s = x - x.max(axis=1, keepdims=True)
    return s - s.exp().sum(axis=1, keepdims=True).log()
"""),
        Misconception("shifts x in place",
          "subtracts each row's max from x's own numbers (through x.numpy(), a view of "
          "them): the log-probabilities and gradients are right, but the caller's logits "
          "have changed; shift a new Tensor, x - x.max(axis=-1, keepdims=True)",
          """
def log_softmax(x):
    a = x.numpy()
    a -= a.max(axis=-1, keepdims=True)
    return x - x.exp().sum(axis=-1, keepdims=True).log()
"""),
        Misconception("softmax, not its log",
          "returns the softmax itself instead of its log: the values are probabilities, not "
          "log-probabilities",
          """
def log_softmax(x):
    s = (x - x.max(axis=-1, keepdims=True)).exp()
    return s / s.sum(axis=-1, keepdims=True)
"""),
    ],
    "nll_loss": [
        Misconception("forgets the minus sign",
          "forgets the minus sign: the loss is negative and training would maximise it",
          """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return (logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).sum() / n
"""),
        Misconception("sums instead of averaging",
          "sums over the batch instead of averaging: the loss grows with the batch size",
          """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return -(logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).sum()
"""),
        Misconception("masks right but divides by N * C",
          "picks each row's target with the mask, but .mean() divides the sum by all N * C "
          "entries of the masked array, most of them the zeros the mask made: the loss is C "
          "times too small; divide the sum by N, the rows",
          """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return -(logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).mean()
"""),
        Misconception("a float64 one-hot mask",
          "builds the one-hot mask as a float64 Tensor whatever logp's dtype: a float32 "
          "logp times it is promoted to float64, so the loss comes out float64; make the "
          "mask with dtype=logp.dtype",
          """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    t = np.asarray(targets)
    if not 0 <= t.min() <= t.max() < c:
        raise IndexError(f"targets from {t.min()} to {t.max()} for {c} classes")
    return -(logp * sg.tensor(np.eye(c)[t])).sum() / n
"""),
        Misconception("accepts a negative target",
          "indexes the one-hot rows with the targets as they are, checking nothing: NumPy "
          "reads a target of -1 as the last class, so a wrong label is silently scored as "
          "another class instead of raising IndexError; check that every target is in 0..C-1",
          """
import numpy as np
import stridegrad as sg
def nll_loss(logp, targets):
    n, c = logp.shape
    return -(logp * sg.tensor(np.eye(c)[np.asarray(targets)], dtype=logp.dtype)).sum() / n
"""),
        Misconception("mean over all N * C entries",
          "averages all N * C log-probabilities instead of picking each row's target: the "
          "loss ignores the targets (right only when every class in a row is equally likely)",
          """
def nll_loss(logp, targets):
    return -logp.mean()
"""),
    ],
    "sgd_step": [
        Misconception("forgets weight decay",
          "ignores weight_decay: the step does not pull the weights towards 0",
          _sgd(decay="g = grad")),
        Misconception("weight decay added after momentum",
          "adds weight_decay * param after the momentum buffer instead of before it: the "
          "buffer never sees the decay, so it carries none of it to later steps; one step "
          "from an empty state is right, the second is not (PyTorch decays g first, then "
          "updates the buffer with it)",
          _sgd(decay="g = grad", step="return param - lr * (g + weight_decay * param)")),
        Misconception("adds weight decay into the caller's grad",
          "adds the weight decay into the caller's grad array in place (g = grad, then g += "
          "weight_decay * param: g is the same array, not a copy): the step is right but the "
          "caller's grad changes; build a new array, g = grad + weight_decay * param",
          _sgd(decay="g = grad\n    if weight_decay:\n        g += weight_decay * param")),
        Misconception("momentum buffer initialised to ones",
          "starts the momentum buffer at ones instead of at the first gradient: the first step "
          "is off",
          _sgd(momentum=_BUFFER.replace('state.get("momentum_buffer")',
                                        'state.get("momentum_buffer", np.ones_like(param))'))),
        Misconception("dampened buffer (an average)",
          "adds (1 - momentum) * g to the buffer, an average as in Adam, where SGD's momentum "
          "adds the whole gradient (b = momentum * b + g): the steps are about 1 - momentum "
          "times too short (10 times with momentum 0.9)",
          _sgd(momentum=_BUFFER.replace('state.get("momentum_buffer")',
                                        'state.get("momentum_buffer", np.zeros_like(param))')
               .replace("momentum * buf + g", "momentum * buf + (1 - momentum) * g"))),
        Misconception("forgets the buffer between calls",
          "keeps no momentum buffer between calls: every step is plain SGD",
          _sgd(momentum="pass")),
        Misconception("the buffer is the caller's grad, updated in place",
          "keeps the caller's first grad array as the momentum buffer and updates it in place "
          "(buf *= momentum; buf += g): the next call changes that grad; store a copy, or "
          "build the buffer as a new array",
          _sgd(decay="g = grad + weight_decay * param if weight_decay else grad",
               momentum=_BUFFER.replace(
                   "buf = g if buf is None else momentum * buf + g\n"
                   '        state["momentum_buffer"] = buf',
                   'if buf is None:\n            buf = state["momentum_buffer"] = g\n'
                   "        else:\n            buf *= momentum\n            buf += g"))),
        Misconception("updates param in place",
          "updates the caller's param in place (param -= ...) instead of returning a new array: "
          "the answer is right but the input changes",
          _sgd(step="param -= lr * g\n    return param")),
    ],
    "adam_step": [
        Misconception("stores the bias-corrected moments",
          "keeps m_hat and v_hat in state instead of m and v: the next step corrects them "
          "again, so every step after the first has the wrong size",
          """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = state.get("step", 0) + 1
    m = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
    state["step"], state["exp_avg"], state["exp_avg_sq"] = t, m_hat, v_hat
    return param - lr * m_hat / (np.sqrt(v_hat) + eps)
"""),
        Misconception("no bias correction",
          "skips the bias corrections 1 - beta**t: m and v both start near 0, but not "
          "equally, so early steps have the wrong size; with the default betas the first "
          "step is (1 - 0.9) / sqrt(1 - 0.999), about 3.2 times lr, too large",
          """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    state["step"] = state.get("step", 0) + 1
    return param - lr * m / (np.sqrt(v) + eps)
"""),
        Misconception("forgets the square root",
          "divides by v instead of sqrt(v): steps have the wrong size",
          """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = state["step"] = state.get("step", 0) + 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / (v / (1 - b2 ** t) + eps)
"""),
        Misconception("eps inside the root",
          "adds eps under the square root (sqrt(v_hat + eps)) where Adam adds it after "
          "(sqrt(v_hat) + eps): invisible for eps = 1e-8, wrong for a large eps",
          """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = state["step"] = state.get("step", 0) + 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / np.sqrt(v / (1 - b2 ** t) + eps)
"""),
        Misconception("never counts the steps",
          "never increments the step count: the bias correction stays at step 1",
          """
import numpy as np
def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
    b1, b2 = betas
    t = 1
    m = state["exp_avg"] = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
    v = state["exp_avg_sq"] = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad * grad
    return param - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
"""),
        Misconception("ignores the betas it is given",
          "uses the default betas instead of the ones it is given: any other betas give the "
          "default step",
          """
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


# ------------------------------------------------------------------ stretch: rmsprop_step

_RMSPROP = """
import numpy as np


def rmsprop_step(param, grad, state, lr=0.01, alpha=0.99, eps=1e-8):
    v = {AVERAGE}
    {STORE}
    {UPDATE}
"""


def _rmsprop(average="alpha * state.get('square_avg', 0.0) + (1 - alpha) * grad * grad",
             store="state['square_avg'] = v",
             update="return param - lr * grad / (np.sqrt(v) + eps)"):
    return (_RMSPROP.replace("{AVERAGE}", average).replace("{STORE}", store)
            .replace("{UPDATE}", update))


MISCONCEPTIONS["rmsprop_step"] = [
    Misconception("average without (1 - alpha)",
      "adds the whole squared gradient to the average (alpha * v + g**2): the average is "
      "1 / (1 - alpha) times too large and every step too small",
      _rmsprop(average="alpha * state.get('square_avg', 0.0) + grad * grad")),
    Misconception("average started at g**2",
      "starts the average at the first squared gradient instead of at 0 (PyTorch starts "
      "square_avg at zeros): the first step is lr * sign(g), not lr / sqrt(1 - alpha) "
      "against the sign",
      _rmsprop(average="alpha * state['square_avg'] + (1 - alpha) * grad * grad "
                       "if 'square_avg' in state else grad * grad")),
    Misconception("no square root",
      "divides by the average of the squares itself, not its square root: the step no "
      "longer has the size of lr and scales with 1 / |g|",
      _rmsprop(update="return param - lr * grad / (v + eps)")),
    Misconception("eps inside the root",
      "adds eps under the square root (sqrt(v + eps)) where PyTorch adds it after: "
      "invisible for a tiny eps, wrong for a large one",
      _rmsprop(update="return param - lr * grad / np.sqrt(v + eps)")),
    Misconception("forgets the average between calls",
      "never stores the average in state: every call starts again from 0, so every step "
      "looks like the first",
      _rmsprop(store="pass")),
    Misconception("updates param in place",
      "subtracts the step from param in place (param -= ...): the value returned is right, "
      "but the caller's array changes too",
      _rmsprop(update="param -= lr * grad / (np.sqrt(v) + eps)\n    return param")),
    Misconception("stores the average on the first call only",
      "keeps the average with state.setdefault('square_avg', v): the first call stores it, "
      "but setdefault never replaces a value already there, so every later call divides "
      "by the new average and leaves the old one in state for the next",
      _rmsprop(store="state.setdefault('square_avg', v)")),
]
